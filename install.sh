#!/usr/bin/env bash
# Builds vouch, installs it on PATH (cargo's bin dir), and guards the git
# repository you run this from. Extra arguments go to `git vouch install`
# (for example `--repo PATH`).
#
# `./install.sh --build-only` builds the same release binary into `target/`
# without installing it and prints its path (the benchmarks use it).
#
# On Linux with glibc the binary is linked statically and not
# position-independent: git starts the reference-transaction hook for every
# ref update, and such a binary starts without the dynamic loader and
# without relocating itself (a static-pie vouch touched 83 pages at start,
# this one 49: 0.1 ms less per hook run, measured in BENCHMARKS.md). VOUCH_DYNAMIC=1 asks for a normal build;
# one is made anyway (with a note) when the static C library is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

host=$(rustc -vV | sed -n 's/^host: //p')
static=()
case "$host" in
  *-linux-gnu) [ -z "${VOUCH_DYNAMIC:-}" ] && static=(--target "$host") ;;
esac
# With --target, RUSTFLAGS reach vouch's crates but not build scripts and
# proc macros (which cannot be static).
build() { # $1: "build" (into target/) or "install" (into cargo's bin dir)
  local args
  if [ "$1" = build ]; then
    args=(build --release --manifest-path "$here/Cargo.toml")
  else
    args=(install --path "$here" --force)
  fi
  # cargo's own progress shows: a first release build takes minutes.
  args+=(--locked)
  if [ ${#static[@]} -gt 0 ]; then
    local flags="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static"
    if RUSTFLAGS="$flags" cargo "${args[@]}" "${static[@]}"; then
      return
    fi
    echo "note: the static build failed (is the static C library, libc.a, installed?); building a normal, dynamically linked vouch" >&2
    static=()
  fi
  cargo "${args[@]}"
}

if [ "${1:-}" = --build-only ]; then
  echo "building vouch (release) into target/: the first build takes a few minutes; cargo's progress follows" >&2
  build build
  if [ ${#static[@]} -gt 0 ]; then
    echo "$here/target/$host/release/git-vouch"
  else
    echo "$here/target/release/git-vouch"
  fi
  exit 0
fi

echo "building vouch (release): the first build takes a few minutes (about 3-4 on 2 cores), later ones less; cargo's progress follows" >&2
build install
bin="${CARGO_HOME:-$HOME/.cargo}/bin/git-vouch"
echo "installed $bin (run it as \`git vouch\`)"
# The manual page, for `git vouch --help` (git runs `man git-vouch`):
# beside cargo's bin directory (~/.cargo/share/man/man1), where `man` looks
# for each directory on PATH; it says when `man` does not find it.
"$bin" man --install || echo "note: the manual page was not installed: \`git vouch -h\` prints the help"
# The old name, for hooks and agent settings written before the rename:
# they call `.../bin/vouch` (or `vouch` on PATH). When that is an older vouch
# (its binary carries vouch's hook marker), it becomes a link to git-vouch,
# so those hooks run the new program instead of the old one. A `vouch`
# that is another program (the crates.io package `vouch` is one) is left
# alone, and a fresh install makes no `vouch` name at all.
old="$(dirname "$bin")/vouch"
if [ -f "$old" ] && [ ! -L "$old" ] && grep -q vouch-managed-hook "$old" 2>/dev/null; then
  cargo uninstall vouch >/dev/null 2>&1 || rm -f "$old"
  ln -sfn git-vouch "$old"
  echo "linked $old to git-vouch: hooks written by the old vouch run git-vouch; \`git vouch install\` in a repository rewrites them"
fi
case ":$PATH:" in
  *":$(dirname "$bin"):"*) ;;
  *) echo "note: $(dirname "$bin") is not on your PATH; add it so that \`git vouch\` works in your shell" ;;
esac

if git rev-parse --git-dir >/dev/null 2>&1 || [ "$#" -gt 0 ]; then
  "$bin" install "$@"
else
  echo "not inside a git repository: run \`git vouch install\` in each repository you want guarded"
  echo "next: set an AI provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY) so that vouch can get verdicts; \`git vouch doctor\` shows what it finds"
fi
