#!/usr/bin/env bash
# Runs git's own test scripts twice, without vouch and with vouch's hooks in
# git's template directory (so every repository a test makes is guarded),
# and reports every test whose result differs. Not part of `cargo test`:
# it fetches and builds git (a few minutes on 2 cores) and runs hundreds of
# tests per mode.
#
#   bash bench/git-suite.sh            # the eight scripts of issue 12
#   GIT_SUITE_TESTS="t1416 t3200" bash bench/git-suite.sh
#
# git's source is the distribution's source package (`apt-get source`,
# with a private apt configuration so that the machine's own is left as it
# is). Everything lives in $GIT_SUITE_DIR (default
# ${TMPDIR:-/tmp}/vouch-git-suite) and is kept for the next run: the
# source and build are reused. VOUCH_BIN names the vouch binary to test
# (default: the release build `install.sh --build-only` makes); it is
# copied into the work directory first.
#
# How a test's own hooks meet vouch's: git's `test_hook` writes a hook
# where vouch's already is; here the test's hook becomes `<hook>.local`,
# as if it had been there when vouch was installed (vouch chains it). That
# one function of git's test library is patched; nothing else is.
#
# Prints one line per differing test and a summary; exits 0 when no test
# differs, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${GIT_SUITE_DIR:-${TMPDIR:-/tmp}/vouch-git-suite}
read -r -a tests <<< "${GIT_SUITE_TESTS:-t1416 t5571 t3200 t5516 t1400 t7102 t3903 t5510}"
jobs=${JOBS:-$(nproc)}
mkdir -p "$work"
work=$(cd "$work" && pwd)

bin=${VOUCH_BIN:-$("$here/install.sh" --build-only)}
cp "$bin" "$work/vouch.new" && mv "$work/vouch.new" "$work/vouch"
vouch=$work/vouch

# 1. git's source, from the distribution's source package.
src=$work/git
if [ ! -f "$src/t/test-lib.sh" ]; then
  apt=$work/apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$work/download"
  # deb-src twins of the machine's own entries (deb822 and one-line).
  mkdir -p "$apt/parts"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f"
  done > "$apt/parts/src.sources"
  if [ -f /etc/apt/sources.list ]; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$apt/sources.list"
  else
    : > "$apt/sources.list"
  fi
  aptopts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o "Dir::Etc::sourceparts=$apt/parts"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root")
  echo "fetching git's source package" >&2
  apt-get -q "${aptopts[@]}" update >&2
  (cd "$work/download" && apt-get -q "${aptopts[@]}" source --download-only git >&2)
  rm -rf "$src"
  dpkg-source -x "$work"/download/git_*.dsc "$src" >&2
fi

# 2. git and its test helpers, built in place (the tests run this git).
echo "building git in $src (-j$jobs)" >&2
make -C "$src" -j"$jobs" NO_CURL=1 NO_EXPAT=1 NO_TCLTK=1 NO_GETTEXT=1 NO_PYTHON=1 NO_OPENSSL=1 all > "$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log" >&2; exit 2; }
version=$("$src/git" --version)

# 3. vouch's hooks, as `vouch install` writes them.
scratch=$work/scratch
rm -rf "$scratch" && "$src/git" init -q "$scratch"
HOME=$work XDG_CONFIG_HOME=$work/none XDG_STATE_HOME=$work/none "$vouch" install --repo "$scratch" > /dev/null 2>&1
hooks=(pre-push pre-commit reference-transaction)

# 4. `test_hook` writes a test's hook beside vouch's, as `<hook>.local`.
lib=$src/t/test-lib-functions.sh
if ! grep -q 'vouch-managed-hook' "$lib"; then
  awk '{ print }
    /^\thook_file="\$hook_dir\/\$1" &&$/ {
      print "\tif grep -q \"^# vouch-managed-hook\" \"$hook_file\" 2>/dev/null"
      print "\tthen"
      print "\t\thook_file=\"$hook_file.local\""
      print "\tfi &&"
    }' "$lib" > "$lib.new"
  grep -q 'vouch-managed-hook' "$lib.new" || { echo "cannot patch test_hook in $lib" >&2; exit 2; }
  mv "$lib.new" "$lib"
fi

# The template directory the tests' git uses (its wrapper names it).
template=$(sed -n "s/^[[:space:]]*GIT_TEMPLATE_DIR='\(.*\)'.*/\1/p" "$src/bin-wrappers/git")/hooks
unguard() { for h in "${hooks[@]}"; do rm -f "$template/$h"; done; }
guard() {
  for h in "${hooks[@]}"; do cp -P "$scratch/.git/hooks/$h" "$template/$h"; done
  # Every repository the tests make gets vouch's hooks, or this run is void.
  rm -rf "$work/probe"
  "$src/bin-wrappers/git" init -q "$work/probe"
  for h in "${hooks[@]}"; do
    grep -q '^# vouch-managed-hook' "$work/probe/.git/hooks/$h" ||
      { echo "git init did not copy vouch's $h from $template" >&2; exit 2; }
  done
}
trap unguard EXIT

# 5. Each script in each mode; TAP lines kept per mode.
run_mode() { # $1: plain or vouch
  local mode=$1 out=$work/results/$1
  rm -rf "$out" "$work/trash-$mode" "$work/state-$mode"
  mkdir -p "$out"
  if [ "$mode" = vouch ]; then guard; else unguard; fi
  local started=$SECONDS
  printf '%s\n' "${tests[@]}" | xargs -P "$jobs" -I{} sh -c '
    cd "$1/t" && script=$(ls {}-*.sh) &&
    env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY -u OPENROUTER_API_KEY \
      XDG_STATE_HOME="$2/state-$3" VOUCH_HEADLESS=1 \
      sh "./$script" --root="$2/trash-$3/{}" > "$2/results/$3/{}.tap" 2>&1 || true' _ "$src" "$work" "$mode"
  echo "$mode: $(( SECONDS - started )) s" >&2
}
run_mode plain
run_mode vouch
unguard

# 6. Compare test by test.
status_of() { # TAP lines of $1 -> "tNNNN.K<TAB>status<TAB>title"
  local t=$2
  sed -n -E 's/^(ok|not ok) ([0-9]+) - (.*)$/\1\t\2\t\3/p' "$1" |
    awk -F'\t' -v t="$t" '{
      s = $1; title = $3
      if (title ~ /# SKIP/) s = "skip"
      else if (title ~ /# TODO/) s = (s == "ok" ? "fixed" : "known-breakage")
      sub(/ # (SKIP|TODO).*$/, "", title)
      printf "%s.%s\t%s\t%s\n", t, $2, s, title
    }'
}
total=0 differ=0
report=$work/results/differences.txt
: > "$report"
for t in "${tests[@]}"; do
  status_of "$work/results/plain/$t.tap" "$t" > "$work/results/$t.plain"
  status_of "$work/results/vouch/$t.tap" "$t" > "$work/results/$t.vouch"
  n=$(wc -l < "$work/results/$t.plain")
  total=$(( total + n ))
  d=$(join -t $'\t' -a1 -a2 -e missing -o 0,1.2,2.2,1.3 \
        <(sort "$work/results/$t.plain") <(sort "$work/results/$t.vouch") |
      awk -F'\t' '$2 != $3 { printf "%s: without vouch %s, with vouch %s (%s)\n", $1, $2, $3, $4 }')
  if [ -n "$d" ]; then
    printf '%s\n' "$d" | tee -a "$report"
    differ=$(( differ + $(printf '%s\n' "$d" | wc -l) ))
  fi
  printf '%s: %d tests, %d not ok without vouch\n' "$t" "$n" "$(grep -c $'\tnot ok\t' "$work/results/$t.plain" || true)" >&2
done
echo "$version; vouch $("$vouch" --version 2>/dev/null | head -1)"
echo "$total tests, $differ differ with vouch in the template directory (TAP output: $work/results)"
[ "$differ" -eq 0 ]
