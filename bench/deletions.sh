#!/usr/bin/env bash
# Many deletions in one push: the CPU time (user + system, git and every
# hook process) of `git push origin --delete b1 ... bN` with vouch's hooks,
# against the same push with an empty `sh` pre-push hook.
#
#   bash bench/deletions.sh [RUNS] [COUNTS...]     # default: 3 runs, 1000 5000
#
# Three shapes per count: "unmerged" branches each hold one commit of their
# own; "merged" branches all point at main's tip. The local branches stay
# (the usual clean-up of a remote), so every deleted tip is still held by a
# local ref and vouch walks nothing it need not. "unheld" is "unmerged"
# with the local branches deleted first: only the remote holds each
# commit, and vouch measures every deletion (one walk for all of them). vouch has no verifier here
# and `critical = "allow"` when none is available: each push is measured,
# classified, decided and logged, then goes through. The remote is put back
# between runs with hooks switched off (not timed). Median of RUNS.
#
# "receiving" is the other side (issue 38 item 6): the push is
# `git push <bare> :b1 ... :bN` of "unmerged" branches, and the bare
# repository that receives it has vouch's hooks (`git vouch install --repo`),
# against the same repository with an empty `sh` reference-transaction hook.
# Only the receiving side's hooks differ; its rescue refs are removed
# between runs (not timed), and each deleted branch must be listed by
# `git vouch rescue` after the push.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
runs=${1:-3}
shift || true
counts=("${@:-1000}")
[ $# -gt 0 ] || counts=(1000 5000)
printf '[on_unavailable]\ncritical = "allow"\n' > "$XDG_CONFIG_HOME/vouch/config.toml"

# cpu_ns CMD...: CPU time of CMD and its children, in ns.
cpu_ns() {
  local TIMEFORMAT='%U %S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || true
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.0f\n", (a[1] + a[2]) * 1e9 }'
}

setup() { # $1 count, $2 shape -> $work/$2-$1/{remote.git,work}
  local dir=$work/$2-$1
  rm -rf "$dir" && mkdir -p "$dir"
  git init -q --bare "$dir/remote.git"
  git clone -q "$dir/remote.git" "$dir/work" 2>/dev/null
  (
    cd "$dir/work"
    echo base > base.txt && git add base.txt && git commit -qm base
    local main
    main=$(git rev-parse HEAD)
    for i in $(seq "$1"); do
      if [ "$2" != merged ]; then
        # One commit of its own, written without a work tree.
        c=$(echo "b$i" | git commit-tree "$main^{tree}" -p "$main")
        echo "create refs/heads/b$i $c"
      else
        echo "create refs/heads/b$i $main"
      fi
    done | git update-ref --stdin
    git pack-refs --all
    git -c core.hooksPath=/dev/null push -q origin 'refs/heads/*:refs/heads/*'
    git -C ../remote.git for-each-ref --format='update %(refname) %(objectname)' > ../remote-refs.txt
    if [ "$2" = unheld ]; then
      git for-each-ref --format='delete %(refname)' 'refs/heads/b*' | git update-ref --stdin
    fi
  )
}

restore() { # put every branch back on the remote (and its tracking ref here), hooks off
  git -C "$1/../remote.git" update-ref --stdin < "$1/../remote-refs.txt"
  git -C "$1" -c core.hooksPath=/dev/null fetch -q origin
}

push_delete() { # $1 work dir, $2 count
  cd "$1" && seq "$2" | sed 's/^/b/' | xargs git push -q origin --delete
}

push_receiving() { # $1 work dir, $2 count: `git push <bare> :b1 ... :bN`
  cd "$1" && seq "$2" | sed 's/^/:b/' | xargs git push -q "$1/../remote.git"
}

# The receiving repository as it was: its branches back, its rescue refs
# gone, hooks off (those in the hooks folder, and those git 2.54+ runs
# from its config, which `core.hooksPath` does not turn off: vouch would
# judge the rescue refs' deletion and rescue them again).
restore_receiving() { # $1 work dir
  local remote=$1/../remote.git
  local off=(-c core.hooksPath=/dev/null -c hook.reference-transaction.enabled=false)
  git -C "$remote" for-each-ref --format='delete %(refname)' refs/vouch/ \
    | git -C "$remote" "${off[@]}" update-ref --stdin
  git -C "$remote" "${off[@]}" update-ref --stdin < "$1/../remote-refs.txt"
}

# vouch's config-defined hooks (git 2.54+) taken off the receiving
# repository, so that the empty hook runs alone (`git vouch uninstall`
# needs a person at a terminal).
unguard() { # $1 repository
  local section
  for section in $(git -C "$1" config --local --name-only --get-regexp '^hook\.vouch-' | sed 's/\.[^.]*$//' | sort -u); do
    git -C "$1" config --local --remove-section "$section"
  done
}

receiving() { # $1 count: the "receiving" rows
  local n=$1 dir=$work/receiving-$1/work
  setup "$n" receiving
  local remote=$dir/../remote.git hooks=$dir/../remote.git/hooks
  local empty=() with=() e v
  for _ in $(seq "$runs"); do
    rm -f "$hooks/pre-push" "$hooks/pre-commit" "$hooks/reference-transaction"
    unguard "$remote"
    printf '#!/bin/sh\nexit 0\n' > "$hooks/reference-transaction" && chmod +x "$hooks/reference-transaction"
    restore_receiving "$dir"
    empty+=("$(cpu_ns push_receiving "$dir" "$n")")
    [ -z "$(git -C "$remote" for-each-ref refs/heads/b1)" ] || { echo "the push into the empty-hook repository did not delete" >&2; exit 1; }
    rm -f "$hooks/reference-transaction"
    "$vouch" install --repo "$remote" >/dev/null 2>&1
    restore_receiving "$dir"
    with+=("$(cpu_ns push_receiving "$dir" "$n")")
    [ -z "$(git -C "$remote" for-each-ref refs/heads/b1)" ] || { echo "the push into vouch's repository did not delete" >&2; exit 1; }
    local rescued
    # Each deleted branch, as `git vouch rescue` lists it (its own ref, or
    # an entry of a batch ref).
    rescued=$("$vouch" rescue list --json --repo "$remote" | grep -o '"original":' | wc -l)
    [ "$rescued" -eq "$n" ] || { echo "vouch kept $rescued rescue refs of $n deleted branches" >&2; exit 1; }
  done
  e=$(printf '%s\n' "${empty[@]}" | median)
  v=$(printf '%s\n' "${with[@]}" | median)
  printf '%6s deletions, %-9s empty sh hook %9s ms   vouch %9s ms   ratio %sx\n' \
    "$n" receiving "$(ms "$e")" "$(ms "$v")" "$(ratio "$v" "$e")"
}

results=()
for n in "${counts[@]}"; do
  for shape in ${SHAPES:-merged unmerged unheld receiving}; do
    if [ "$shape" = receiving ]; then
      receiving "$n"
      continue
    fi
    setup "$n" "$shape"
    dir=$work/$shape-$n/work
    hooks=$dir/.git/hooks
    empty=() with=()
    for _ in $(seq "$runs"); do
      rm -f "$hooks/pre-push" "$hooks/pre-commit" "$hooks/reference-transaction"
      printf '#!/bin/sh\nexit 0\n' > "$hooks/pre-push" && chmod +x "$hooks/pre-push"
      restore "$dir"
      empty+=("$(cpu_ns push_delete "$dir" "$n")")
      [ -z "$(git -C "$work/$shape-$n/remote.git" for-each-ref refs/heads/b1)" ] || { echo "the empty-hook push did not delete" >&2; exit 1; }
      rm -f "$hooks/pre-push"
      "$vouch" install --repo "$dir" >/dev/null 2>&1
      restore "$dir"
      with+=("$(cpu_ns push_delete "$dir" "$n")")
      [ -z "$(git -C "$work/$shape-$n/remote.git" for-each-ref refs/heads/b1)" ] || { echo "the push with vouch did not delete" >&2; exit 1; }
    done
    e=$(printf '%s\n' "${empty[@]}" | median)
    v=$(printf '%s\n' "${with[@]}" | median)
    results+=("$n $shape $e $v")
    printf '%6s deletions, %-8s  empty sh hook %9s ms   vouch %9s ms   ratio %sx\n' \
      "$n" "$shape" "$(ms "$e")" "$(ms "$v")" "$(ratio "$v" "$e")"
  done
done
