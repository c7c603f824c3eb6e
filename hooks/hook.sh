#!/bin/sh
# vouch-managed-hook: @HOOK@
# Written by `vouch install`; `vouch uninstall` restores what was here.
# A hook that was here before is kept as @HOOK@.local and runs first,
# with the same arguments and input.
vouch_bin='@VOUCH_BIN@'
baked=$vouch_bin
strict=@VOUCH_STRICT@
hook_dir=${0%/*}
if [ ! -x "$vouch_bin" ]; then
  vouch_bin=$(command -v vouch 2>/dev/null) || vouch_bin=
fi
if [ -n "$vouch_bin" ]; then
  exec "$vouch_bin" hook @HOOK@ --hook-dir "$hook_dir" -- "$@"
fi
if [ "$strict" = 1 ] || [ "${VOUCH_STRICT:-0}" = 1 ]; then
  echo "vouch: the vouch binary is missing (not at $baked, not on PATH) and strict mode is on: @WHAT@ refused. Reinstall vouch (./install.sh) or run 'vouch uninstall'." >&2
  exit 1
fi
echo "vouch: warning: the vouch binary is missing (not at $baked, not on PATH): this @WHAT@ is NOT checked. Reinstall vouch (./install.sh) or remove the hook." >&2
# vouch's own hook kept under that name (its marker line) would come back here.
if [ -x "$hook_dir/@HOOK@.local" ] && ! grep -q '^# vouch-managed-hook' "$hook_dir/@HOOK@.local" 2>/dev/null; then
  exec "$hook_dir/@HOOK@.local" "$@"
fi
exit 0
