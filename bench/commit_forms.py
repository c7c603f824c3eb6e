#!/usr/bin/env python3
"""../shared/bench/commit_loop.py with hook forms that bound a Rust gate from below, interleaved in one run.
Usage: commit_forms.py VOUCH_BIN PROGRAMS_DIR [COMMITS] [ROUNDS] (bench/hook-forms.sh builds the programs)"""
import os, shutil, statistics, subprocess, sys, tempfile, time
vouch = os.path.abspath(sys.argv[1]); mb = os.path.abspath(sys.argv[2]); n = int(sys.argv[3]) if len(sys.argv) > 3 else 50
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
T = tempfile.mkdtemp(prefix="commitforms.")
env = dict(os.environ, HOME=f"{T}/home", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=f"{T}/gitconfig",
           XDG_CONFIG_HOME=f"{T}/home/.config", XDG_STATE_HOME=f"{T}/home/.state", XDG_DATA_HOME=f"{T}/home/.data",
           VOUCH_CONFIG=f"{T}/vouch.toml", VOUCH_LOG=f"{T}/audit.jsonl", VOUCH_HEADLESS="1")
os.makedirs(f"{T}/home", exist_ok=True); open(f"{T}/vouch.toml", "w").close()
open(f"{T}/gitconfig", "w").write("[user]\n\tname = B\n\temail = b@example.com\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
bindir = f"{T}/bin"; os.makedirs(bindir); shutil.copy(vouch, f"{bindir}/git-vouch"); vouch = f"{bindir}/git-vouch"; env["PATH"] = bindir + ":" + env["PATH"]
def sh(cmd, cwd): subprocess.run(cmd, cwd=cwd, env=env, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def mk(name, setup):
    d = f"{T}/{name}"; os.makedirs(d); sh("git init -q && echo x > f && git add f && git commit -q -m init", d); setup(d); return d
def hooks(files):
    def setup(d):
        for h, how in files.items():
            p = f"{d}/.git/hooks/{h}"
            if how == "sh": open(p, "w").write("#!/bin/sh\nexit 0\n"); os.chmod(p, 0o755)
            elif how == "link": os.symlink(vouch, p)
            else: shutil.copy(f"{mb}/{how}", p)
    return setup
H = ("pre-commit", "reference-transaction", "pre-push")
configs = {"bare": mk("bare", lambda d: None), "empty-sh": mk("sh", hooks({h: "sh" for h in H})),
           "vouch": mk("vouch", lambda d: sh(f"{vouch} install", d)),
           "vouch-direct": mk("vouchd", lambda d: sh(f"{vouch} install --direct", d)),
           "gate-bound": mk("gate", hooks({"pre-commit": "link", "reference-transaction": "rust-noop", "pre-push": "link"})),
           "static-c": mk("c", hooks({h: "noop-static" for h in H}))}
res = {k: [] for k in configs}
for r in range(rounds + 1):
    for k, d in configs.items():
        t0 = time.perf_counter()
        for i in range(n):
            subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", f"c{r}-{i}"], cwd=d, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r: res[k].append((time.perf_counter() - t0) * 1000 / n)
bare = res["bare"]
over = {k: [v[i] - bare[i] for i in range(rounds)] for k, v in res.items()}
print(f"{n} commits x {rounds} rounds, interleaved; ms per commit (median), overhead over bare, ratio to the empty-sh overhead (median of per-round ratios)")
for k in res:
    ratios = [over[k][i] / over["empty-sh"][i] for i in range(rounds) if over["empty-sh"][i] > 0]
    print(f"{k:13s} {statistics.median(res[k]):7.2f} ms  overhead {statistics.median(over[k]):6.2f} ms  ratio {statistics.median(ratios):5.2f}")
shutil.rmtree(T, ignore_errors=True)
