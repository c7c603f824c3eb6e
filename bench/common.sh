# Sourced by the bench scripts: builds the release binary into $vouch, makes
# a hermetic $work directory (removed on exit; `on_exit` adds cleanup), and
# defines the timing helpers.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The binary install.sh installs (static on Linux with glibc), or VOUCH_BIN.
vouch=${VOUCH_BIN:-$("$here/install.sh" --build-only)}

# cargo and rustup keep their homes when HOME moves below.
export CARGO_HOME=${CARGO_HOME:-$HOME/.cargo} RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
work=$(mktemp -d "${TMPDIR:-/tmp}/vouch-bench.XXXXXX")
cleanups=("rm -rf '$work'")
on_exit() { cleanups+=("$1"); }
# Measured as installed: `cargo install` copies the programs, and a copy of
# the same bytes starts faster than the file the linker wrote (the agent
# hook 0.96 ms against 1.04 ms in one run, BENCHMARKS.md, issue 15).
mkdir -p "$work/bin"
cp "$vouch" "$work/bin/"
vouch="$work/bin/$(basename "$vouch")"
trap 'for c in "${cleanups[@]}"; do eval "$c"; done' EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig" VOUCH_HEADLESS=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
unset ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY GOOGLE_API_KEY OPENROUTER_API_KEY OLLAMA_HOST
mkdir -p "$HOME" "$XDG_CONFIG_HOME/vouch"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n' > "$GIT_CONFIG_GLOBAL"

now() { date +%s%N; }
# once FILE CMD...: the ns CMD takes with FILE on stdin, timed with bash's
# own clock (no `date` process inside the interval).
once() { # $1: input file, $2...: command; prints the ns it took
  local file=$1; shift
  local t0 t1
  t0=${EPOCHREALTIME/./}
  "$@" < "$file" > /dev/null 2>&1 || true
  t1=${EPOCHREALTIME/./}
  echo $(( (t1 - t0) * 1000 ))
}
ms() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.0f\n", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# time_hook REPO STDIN REMOTE RUNS: median ns of RUNS runs of the pre-push hook.
time_hook() {
  local times=()
  for _ in $(seq "$4"); do
    t0=$(now)
    (cd "$1" && "$vouch" hook pre-push -- origin "$3" < "$2" >/dev/null 2>&1) || true
    t1=$(now)
    times+=($(( t1 - t0 )))
  done
  printf '%s\n' "${times[@]}" | median
}

# interleave RUNS FUNCTION: RUNS rounds, each calling `FUNCTION <binary> <row>`
# once per row of ${rows[@]} and per binary of ${bins[@]} ("vouch" is
# $vouch, "base" is $base), so that the machine's drift reaches every
# figure alike. Each call's ns are added to samples[<bin>/<row>].
declare -A samples
interleave() {
  local runs=$1 fn=$2 row b bin t0 t1
  for _ in $(seq "$runs"); do
    for row in "${rows[@]}"; do
      for b in "${bins[@]}"; do
        bin=$vouch
        [ "$b" = base ] && bin=$base
        t0=$(now)
        "$fn" "$bin" "$row" >/dev/null 2>&1 || true
        t1=$(now)
        samples[$b/$row]+="$(( t1 - t0 )) "
      done
    done
  done
}
