#!/usr/bin/env python3
"""Writes src/input/git_options.rs: the long options of the git commands vouch
reads, per command (and per action for commands with subcommands), taken
from git's own option tables (builtin/*.c, the OPT_* macros), so that an
abbreviated option (`--mirr`) is read as git's parse-options reads it.

Usage: .ci/git-options.py <git source dir> > src/input/git_options.rs
       rustfmt --edition 2024 src/input/git_options.rs
(git 2.55.0: ../shared/vendor/git-2.55.0.tar.gz; the file in the tree is
this output as rustfmt lays it out, byte for byte)
"""
import re
import sys
from pathlib import Path

COMMANDS = """am apply archive branch checkout checkout-index cherry-pick clean clone commit difftool grep ls-remote
config fetch gc merge mv notes prune pull push read-tree rebase reflog remote
replace reset restore revert rm send-pack stash switch symbolic-ref tag
update-ref worktree""".split()

src = Path(sys.argv[1])
name_re = r'"([a-z][a-z0-9-]*)"'

# Macros that name their options themselves (OPT__FORCE is "force", ...),
# and string constants used as names (TRANS_OPT_FORCE_IF_INCLUDES).
macro_names = {}
constants = {}
for header in list(src.glob("*.h")) + list(src.glob("*/*.h")):
    text = header.read_text(errors="replace")
    text = re.sub(r"\\\n", " ", text)
    for m in re.finditer(r"#define\s+(OPT_\w+)\(([^)]*)\)(.*)", text):
        macro, params, body = m.groups()
        names = re.findall(r"(?:'.'|0)\s*,\s*" + name_re, body)
        names += re.findall(r"_OPT_CONTAINS_OR_WITH\(\s*" + name_re, body)
        names += re.findall(r"\.long_name\s*=\s*" + name_re, body)
        if names and not re.search(r"\bl\b", params):
            macro_names[macro] = names
    for m in re.finditer(r'#define\s+([A-Z_]+)\s+"([a-z][a-z0-9-]*)"', text):
        constants[m.group(1)] = m.group(2)


def options_in(block):
    # Entries written as designated initializers name themselves.
    out = re.findall(r"\.long_name\s*=\s*" + name_re, block)
    for m in re.finditer(r"\b(OPT_\w+)\s*\(([^;]*?)\)", block):
        macro, args = m.groups()
        if macro in ("OPT_END", "OPT_GROUP", "OPT_SUBCOMMAND", "OPT_SUBCOMMAND_F"):
            continue
        if macro in macro_names:
            out += macro_names[macro]
            continue
        a = re.match(r"\s*(?:'.'|'\\.'|0|[A-Za-z_]+)\s*,\s*(\"[^\"]*\"|[A-Z_]+)", args)
        if not a:
            continue
        name = a.group(1)
        if name.startswith('"'):
            name = name.strip('"')
        else:
            name = constants.get(name, "")
        if re.fullmatch(r"[a-z][a-z0-9-]*", name):
            out.append(name)
    return out


tables = {}
for path in sorted((src / "builtin").glob("*.c")):
    text = path.read_text(errors="replace")
    cmds = [c.replace("_", "-") for c in re.findall(r"^int cmd_(\w+)\(", text, re.M)]
    cmds = [c for c in cmds if c in COMMANDS]
    if not cmds:
        continue
    actions = {fn: act for act, fn in re.findall(
        r"OPT_SUBCOMMAND(?:_F)?\(\s*\"([a-z-]+)\"\s*,\s*&\w+\s*,\s*(\w+)", text)}
    for m in re.finditer(r"struct option \w+\[\]\s*=\s*\{", text):
        end = text.find("OPT_END()", m.end())
        if end < 0:
            continue
        block = text[m.end():end]
        fns = re.findall(r"^(?:static\s+)?[a-z][\w \*]*?\b(\w+)\([^;{]*\)\s*\{", text[:m.start()], re.M)
        fn = fns[-1] if fns else ""
        names = options_in(block)
        for cmd in cmds:
            key = (cmd, actions.get(fn))
            tables.setdefault(key, set()).update(names)

print("//! PURE: the long options of the git commands vouch reads, per command")
print("//! (and per action of a command with subcommands), from git's own option")
print("//! tables (git 2.55.0, `builtin/*.c`). Written by `.ci/git-options.py`;")
print("//! do not edit by hand. [`super::git_command::GitCommand`] uses them to read an")
print("//! abbreviated option (`--mirr`) as git's parse-options does (SPEC 2.1).")
print()
print("/// `(command, action, long options)`, sorted by command then action.")
print("pub const LONG_OPTIONS: &[(&str, Option<&str>, &[&str])] = &[")
for (cmd, act), names in sorted(tables.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
    act_s = f'Some("{act}")' if act else "None"
    items = ", ".join(f'"{n}"' for n in sorted(names))
    print(f'    ("{cmd}", {act_s}, &[{items}]),')
print("];")
