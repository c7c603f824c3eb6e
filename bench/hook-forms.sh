#!/usr/bin/env bash
# What any hook program costs, against the targets of issue 38 item 1:
# the reference-transaction hook as a static C no-op (the baseline of
# ../shared/bench/fetch_refs.py), the same linked dynamically, an empty
# Rust program (std's `main`, and `#![no_main]`), an empty `sh` script,
# vouch's script and vouch linked; and a commit loop with a lower bound of
# a Rust gate (the reference-transaction hook an empty Rust program,
# `pre-commit` git-vouch linked). Interleaved, one run each.
#
#   VOUCH_BIN=<git-vouch> bash bench/hook-forms.sh [REFS] [COMMITS] [ROUNDS]
#
# The Rust programs are built here in release with fat LTO, as vouch is
# (a scratch crate in the temporary directory, no dependencies).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
refs=${1:-600} commits=${2:-50} rounds=${3:-7}
mb=$work/programs
mkdir -p "$mb"
printf 'int main(void){return 0;}\n' > "$mb/noop.c"
cc -O2 -static -o "$mb/noop-static" "$mb/noop.c"
cc -O2 -o "$mb/noop-dyn" "$mb/noop.c"
rust() { # $1 name, $2 main.rs
  local dir=$work/$1
  mkdir -p "$dir/src"
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2024"\n[profile.release]\nlto = true\ncodegen-units = 1\nstrip = true\npanic = "abort"\n' "$1" > "$dir/Cargo.toml"
  printf '%s\n' "$2" > "$dir/src/main.rs"
  (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build -q --release)
  cp "$dir/target/release/$1" "$mb/$1"
}
rust rust-noop 'fn main() {}'
rust rust-nomain '#![no_main]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    let args: Vec<_> = std::env::args_os().collect();
    i32::from(args.len() > 99)
}'
here=$(dirname "${BASH_SOURCE[0]}")
python3 "$here/fetch_forms.py" "$vouch" "$mb" "$refs" "$rounds"
python3 "$here/commit_forms.py" "$vouch" "$mb" "$commits" "$rounds"
