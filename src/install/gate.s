# The gate in front of the reference-transaction launcher (src/launcher.rs
# holds these bytes; a unit test assembles this file with `as` when it is
# installed and compares). It decides what vouch would decide without
# starting vouch:
#   - fewer than two arguments: start vouch;
#   - `<argv[0]>.local` exists (a chained hook): start vouch, which runs it;
#   - a state other than `prepared`: exit 0 (vouch judges only `prepared`);
#   - `prepared`: read the input (at most 65,528 bytes in the buffer); when
#     no line can name a branch, a tag, the stash or a rescue ref (no
#     `refs/hea`, `refs/tag`, `refs/sta`, `refs/vou` anywhere), exit 0; else hand every byte read
#     to vouch through a memfd as its standard input, and start it.
#     Larger inputs are handed over whole, unread. When the memfd cannot be
#     made, vouch starts with the input untouched. When the input cannot be
#     handed over (a write, seek or dup2 fails), refuse: exit 1 with the
#     message at `failmsg`.
# `go` is the start of the launcher proper (src/launcher.rs `program`),
# with the stack pointer as the kernel left it. `memname` and `failmsg` are
# data the launcher places after the headers; `0x12345678` is the message's
# length, filled in at install.
.intel_syntax noprefix
.text
.globl _start
_start:
  mov rbx, rsp
  mov rax, [rsp]
  cmp rax, 2
  jb go
  sub rsp, 0x11000
  mov rsi, [rbx+8]
  mov rdi, rsp
  lea rcx, [rsp+4080]
copy:
  mov al, [rsi]
  test al, al
  jz copied
  mov [rdi], al
  inc rsi
  inc rdi
  cmp rdi, rcx
  jb copy
  jmp go
copied:
  movabs rax, 0x00006c61636f6c2e
  mov [rdi], rax
  mov rdi, rsp
  xor esi, esi
  mov eax, 21
  syscall
  test rax, rax
  jz go
  mov rsi, [rbx+16]
  movabs rax, 0x6465726170657270
  cmp [rsi], rax
  jne pass
  cmp byte ptr [rsi+8], 0
  jne pass
  lea rdi, [rip+memname]
  mov esi, 1
  mov eax, 319
  syscall
  test rax, rax
  js go
  mov r14, rax
  lea r12, [rsp+4096]
  xor r13d, r13d
readloop:
  xor edi, edi
  lea rsi, [r12+r13]
  mov edx, 65528
  sub rdx, r13
  jz spill
  xor eax, eax
  syscall
  test rax, rax
  js spill
  jz eof
  add r13, rax
  jmp readloop
eof:
  mov rsi, r12
  lea rcx, [r12+r13]
  movabs r8, 0x6165682f73666572
  movabs r9, 0x6761742f73666572
  movabs r10, 0x6174732f73666572
  movabs r11, 0x756f762f73666572
scan:
  cmp rsi, rcx
  jae pass
  mov rax, [rsi]
  cmp rax, r8
  je judge
  cmp rax, r9
  je judge
  cmp rax, r10
  je judge
  cmp rax, r11
  je judge
  inc rsi
  jmp scan
judge:
  call writeall
  jmp handoff
spill:
  call writeall
copyrest:
  xor edi, edi
  mov rsi, r12
  mov edx, 65528
  xor eax, eax
  syscall
  test rax, rax
  js fail
  jz handoff
  mov r13, rax
  call writeall
  jmp copyrest
handoff:
  mov edi, r14d
  xor esi, esi
  xor edx, edx
  mov eax, 8
  syscall
  test rax, rax
  jnz fail
  mov edi, r14d
  xor esi, esi
  mov eax, 33
  syscall
  test rax, rax
  jnz fail
  jmp go
writeall:
  mov r15, r12
wloop:
  test r13, r13
  jz wdone
  mov edi, r14d
  mov rsi, r15
  mov rdx, r13
  mov eax, 1
  syscall
  test rax, rax
  jle wfail
  add r15, rax
  sub r13, rax
  jmp wloop
wdone:
  ret
wfail:
  pop rax
fail:
  mov edi, 2
  lea rsi, [rip+failmsg]
  mov edx, 0x12345678
  mov eax, 1
  syscall
  mov edi, 1
  mov eax, 60
  syscall
pass:
  xor edi, edi
  mov eax, 60
  syscall
go:
  mov rsp, rbx
memname:
failmsg:
