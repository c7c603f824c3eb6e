#!/usr/bin/env bash
# Builds vouch, installs it on PATH (cargo's bin dir), and guards the git
# repository you run this from. Extra arguments go to `vouch install`
# (for example `--repo PATH`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

cargo install --path "$here" --locked --force --quiet
bin="${CARGO_HOME:-$HOME/.cargo}/bin/vouch"
echo "installed $bin"
case ":$PATH:" in
  *":$(dirname "$bin"):"*) ;;
  *) echo "note: $(dirname "$bin") is not on your PATH; add it so that \`vouch\` works in your shell" ;;
esac

if git rev-parse --git-dir >/dev/null 2>&1 || [ "$#" -gt 0 ]; then
  "$bin" install "$@"
else
  echo "not inside a git repository: run \`vouch install\` in each repository you want guarded"
fi
