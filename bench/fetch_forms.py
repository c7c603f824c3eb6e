#!/usr/bin/env python3
"""../shared/bench/fetch_refs.py with more hook forms for the reference-transaction hook, interleaved in one run.
Usage: fetch_forms.py VOUCH_BIN PROGRAMS_DIR [REFS] [ROUNDS] (bench/hook-forms.sh builds the programs)"""
import os, shutil, statistics, subprocess, sys, tempfile, time
vouch = os.path.abspath(sys.argv[1]); mb = os.path.abspath(sys.argv[2])
nrefs = int(sys.argv[3]) if len(sys.argv) > 3 else 600
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
T = tempfile.mkdtemp(prefix="fetchforms.")
env = dict(os.environ, HOME=f"{T}/home", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=f"{T}/gitconfig",
           XDG_CONFIG_HOME=f"{T}/home/.config", XDG_STATE_HOME=f"{T}/home/.state", XDG_DATA_HOME=f"{T}/home/.data",
           VOUCH_CONFIG=f"{T}/vouch.toml", VOUCH_LOG=f"{T}/audit.jsonl", VOUCH_HEADLESS="1")
os.makedirs(f"{T}/home"); open(f"{T}/vouch.toml", "w").close()
open(f"{T}/gitconfig", "w").write("[user]\n\tname = B\n\temail = b@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[fetch]\n\twriteCommitGraph = false\n")
bindir = f"{T}/bin"; os.makedirs(bindir); shutil.copy(vouch, f"{bindir}/git-vouch"); vouch = f"{bindir}/git-vouch"; env["PATH"] = bindir + ":" + env["PATH"]
def sh(cmd, cwd=T): subprocess.run(cmd, cwd=cwd, env=env, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sh(f"git init -q src && cd src && echo x > f && git add f && git commit -q -m init && for i in $(seq {nrefs}); do echo \"create refs/heads/b$i HEAD\"; done | git update-ref --stdin")
def clone(name, setup):
    d = f"{T}/{name}"; sh(f"git clone -q --no-local src {name}"); setup(d); return d
def copy(prog):
    return lambda d: shutil.copy(f"{mb}/{prog}", f"{d}/.git/hooks/reference-transaction")
def empty_sh(d):
    p = f"{d}/.git/hooks/reference-transaction"; open(p, "w").write("#!/bin/sh\nexit 0\n"); os.chmod(p, 0o755)
configs = {"bare": clone("bare", lambda d: None), "compiled": clone("compiled", copy("noop-static")),
           "dyn-c": clone("dync", copy("noop-dyn")), "rust-std": clone("rstd", copy("rust-noop")),
           "rust-nomain": clone("rnm", copy("rust-nomain")),
           "empty-sh": clone("sh", empty_sh), "vouch": clone("vouch", lambda d: sh(f"{vouch} install --hooks reference-transaction", d)),
           "vouch-link": clone("vouchd", lambda d: sh(f"{vouch} install --hooks reference-transaction --direct", d))}
res = {k: [] for k in configs}
for r in range(rounds + 1):
    for k, d in configs.items():
        t0 = time.perf_counter()
        subprocess.run(["git", "fetch", "-q", "origin", f"+refs/heads/*:refs/run{r}/*"], cwd=d, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r: res[k].append((time.perf_counter() - t0) * 1000)
print(f"fetch of {nrefs} new refs x {rounds} rounds, interleaved: median ms, and ratio to the compiled-hook run (median of per-round ratios)")
for k in res:
    ratios = [res[k][i] / res["compiled"][i] for i in range(rounds)]
    print(f"{k:12s} {statistics.median(res[k]):8.1f} ms  ratio to compiled {statistics.median(ratios):5.3f}")
shutil.rmtree(T, ignore_errors=True)
