//! Compiles vouch's data into the binary:
//!
//! - the shell-command rules (`src/classify/shell/rules.toml`) become Rust statics
//!   (`rules.rs`), indexed by program name: the agent door reads, splits and
//!   indexes nothing at run time, and compiles only the rules a command's
//!   programs can match;
//! - the built-in defaults (`src/classify/config/defaults.toml`: protected branches,
//!   release tags, the tier of every rule, the pre-commit rules) become Rust
//!   constants (`defaults.rs`): a hook pays nothing to read them, and a
//!   misspelt rule or tier fails the build;
//! - the hook gate (`hooks/gate.rs`) is compiled on its own, a small
//!   program `git vouch install` writes as each hook file
//!   (`src/install/gate.rs`), linked statically where the C library allows
//!   it. A gate that cannot be built leaves hooks as `sh` scripts, said as a
//!   warning: the build never fails for it;
//! - on Linux with glibc, vouch's own programs are linked to the C library
//!   alone and at a fixed address where the toolchain allows it
//!   (`Link::start_up`): every hook that starts vouch pays for the dynamic
//!   loader.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    #[expect(
        clippy::disallowed_methods,
        reason = "a build script has no `Env`; cargo hands it OUT_DIR"
    )]
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    rules(&out);
    defaults(&out);
    let link = Link::probe();
    let proven = gate(&out, &link);
    link.start_up(proven);
}

/// How programs are linked on this target: the linker cargo links vouch
/// with, and on Linux with glibc, the static archive of the unwinder
/// (`libgcc_eh.a`) where the C compiler has one.
struct Link {
    target: String,
    /// The linker cargo uses: its own setting, or one the rustflags name
    /// (a cross or Nix set-up); `None` is rustc's default (`cc`).
    linker: Option<std::ffi::OsString>,
    /// Linux with glibc.
    glibc: bool,
    /// vouch is linked statically (`+crt-static`, as `install.sh` builds
    /// it on x86-64 Linux).
    crt_static: bool,
    /// The directory of `libgcc_eh.a`, on Linux with glibc, where the C
    /// compiler has it.
    unwinder: Option<PathBuf>,
}

impl Link {
    #[expect(
        clippy::disallowed_methods,
        reason = "a build script has no `Env`; cargo hands it TARGET, its flags and the linker"
    )]
    fn probe() -> Self {
        println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
        let target = std::env::var("TARGET").expect("cargo sets TARGET");
        let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
        let flags: Vec<&str> = flags.split('\x1f').collect();
        let named = flags.iter().enumerate().find_map(|(i, f)| {
            f.strip_prefix("-Clinker=")
                .or_else(|| {
                    (*f == "-C")
                        .then(|| flags.get(i + 1)?.strip_prefix("linker="))
                        .flatten()
                })
                .map(std::ffi::OsString::from)
        });
        let linker = std::env::var_os("RUSTC_LINKER").or(named);
        let crt_static = std::env::var("CARGO_CFG_TARGET_FEATURE")
            .is_ok_and(|f| f.split(',').any(|f| f == "crt-static"));
        let glibc = target.contains("-linux-gnu");
        // The compiler driver knows where its own archives are; a linker
        // that is not a driver answers with the bare name, or fails.
        let unwinder = glibc
            .then(|| {
                let driver = linker.clone().unwrap_or_else(|| "cc".into());
                let o = std::process::Command::new(driver)
                    .arg("-print-file-name=libgcc_eh.a")
                    .output()
                    .ok()?;
                let path = PathBuf::from(String::from_utf8(o.stdout).ok()?.trim());
                (o.status.success() && path.is_absolute() && path.is_file())
                    .then(|| path.parent().map(PathBuf::from))
                    .flatten()
            })
            .flatten();
        Self {
            target,
            linker,
            glibc,
            crt_static,
            unwinder,
        }
    }

    /// Where glibc is linked dynamically, vouch's programs start faster
    /// linked to the C library alone, at a fixed address: the unwinder from
    /// its static archive instead of `libgcc_s.so` (a library less for the
    /// dynamic loader to map and bind), zlib built in (`Cargo.toml`), and no
    /// relocations to apply (`-no-pie`). Only when the gate linked so
    /// (`proven`: at a fixed address, with the unwinder's archive, which a
    /// static link takes too), so that a toolchain the gate's link fails
    /// on links vouch as before. Each hook that starts vouch pays this
    /// (BENCHMARKS.md, issue 38 item 1, fifth session); nothing here
    /// changes what vouch decides.
    fn start_up(&self, proven: bool) {
        if self.crt_static || !self.glibc || !proven {
            return;
        }
        if let Some(dir) = &self.unwinder {
            println!("cargo::rustc-link-search=native={}", dir.display());
            println!("cargo::rustc-link-lib=static:-bundle=gcc_eh");
        }
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}

/// Compiles `hooks/gate.rs` into `OUT_DIR/gate` with the compiler and
/// linker cargo uses for this target: on Linux, static and at a fixed
/// address where the C library's static archive allows it; in the portable
/// build, or without that archive, linked to the C library alone and at a
/// fixed address; else as the target links by default; an empty file when
/// nothing builds. Says whether it linked at a fixed address (statically,
/// or to the C library alone with the unwinder's archive).
#[expect(
    clippy::disallowed_methods,
    reason = "a build script has no `Env`; cargo hands it RUSTC and the cfgs"
)]
fn gate(out: &std::path::Path, link: &Link) -> bool {
    let source = "hooks/gate.rs";
    println!("cargo::rerun-if-changed={source}");
    println!("cargo::rerun-if-changed=hooks/gate_tail.rs");
    println!("cargo::rerun-if-changed=hooks/start.rs");
    println!("cargo::rerun-if-changed=src/input/git_command.rs");
    println!("cargo::rerun-if-changed=src/input/git_options.rs");
    println!("cargo::rerun-if-changed=src/platform/linux.rs");
    println!("cargo::rerun-if-changed=src/platform/words.rs");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let program = out.join("gate");
    let compile = |extra: &[String]| {
        let mut cmd = std::process::Command::new(&rustc);
        cmd.args(["--edition", "2024", "--crate-type", "bin"])
            .args(["--crate-name", "vouch_gate", "--target", &link.target])
            .args(["-C", "panic=abort", "-D", "unsafe_code"])
            .args(extra)
            .arg("-o")
            .arg(&program)
            .arg(source);
        if let Some(linker) = &link.linker {
            cmd.arg("-C")
                .arg(format!("linker={}", linker.to_string_lossy()));
        }
        cmd.output()
    };
    let words = |w: &[&str]| w.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
    let small = words(&[
        "-C",
        "opt-level=s",
        "-C",
        "lto",
        "-C",
        "codegen-units=1",
        "-C",
        "strip=symbols",
    ]);
    let fixed = words(&["-C", "relocation-model=static"]);
    let statically = [
        small.clone(),
        words(&["-C", "target-feature=+crt-static"]),
        fixed.clone(),
    ]
    .concat();
    // Linked to the C library alone: the unwinder's static archive.
    let unwinder = link.unwinder.as_ref().map_or_else(Vec::new, |dir| {
        vec![
            "-L".to_owned(),
            format!("native={}", dir.display()),
            "-l".to_owned(),
            "static:-bundle=gcc_eh".to_owned(),
        ]
    });
    let dynamic = [small.clone(), fixed.clone(), unwinder].concat();
    // The portable build (`--cfg vouch_portable`) links the gate
    // dynamically, as a system without a static C library gets it: the
    // code other systems run, tested and measured here. The last try asks
    // for nothing a toolchain may lack (LTO, `strip`).
    let portable = std::env::var_os("CARGO_CFG_VOUCH_PORTABLE").is_some();
    let plain = words(&["-C", "opt-level=s"]);
    let linux = link.target.contains("-linux-");
    let tries: Vec<&Vec<String>> = match (linux, link.glibc, portable) {
        (true, true, false) => vec![&statically, &dynamic, &small, &plain],
        (true, false, false) => vec![&statically, &small, &plain],
        (true, true, true) => vec![&dynamic, &small, &plain],
        _ => vec![&small, &plain],
    };
    let mut said = String::new();
    for extra in tries {
        match compile(extra) {
            Ok(o) if o.status.success() => {
                return extra.iter().any(|w| w == "relocation-model=static");
            }
            Ok(o) => said = String::from_utf8_lossy(&o.stderr).into_owned(),
            Err(e) => said = e.to_string(),
        }
    }
    let first = said
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output");
    println!(
        "cargo::warning=the hook gate (hooks/gate.rs) did not build ({first}): hooks will be `sh` scripts"
    );
    std::fs::write(&program, b"").expect("OUT_DIR is writable");
    false
}

fn read_toml(source: &str) -> toml::Value {
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{source} is not valid TOML: {e}"))
}

/// The fields a built-in rule may have (`RuleSpec` in `src/classify/config/rule.rs`).
const RULE_FIELDS: &[&str] = &[
    "pattern",
    "tier",
    "reason",
    "ignore-case",
    "allow-args",
    "via",
    "facts",
];

/// The built-in shell rules as Rust statics (`BUILTIN`, `BY_PROGRAM`,
/// `ANY_PROGRAM`): the agent door reads nothing and indexes nothing at run
/// time, and a rule is compiled only when a command names its program. The
/// pattern's words are split here (`shell_words::split`, as the run-time
/// compiler splits a user rule's); the unit tests check every other field
/// against the run-time reading.
fn rules(out: &std::path::Path) {
    let value = read_toml("src/classify/shell/rules.toml");
    let list = value
        .get("rules")
        .and_then(toml::Value::as_array)
        .expect("rules.toml: `[[rules]]` is missing");
    let mut rs = String::from("// Generated by build.rs from src/classify/shell/rules.toml.\n\n");
    rs.push_str("/// The built-in rules, in file order.\n");
    rs.push_str("static BUILTIN: [Builtin; BUILTIN_COUNT] = [\n");
    let mut by_program = std::collections::BTreeMap::<String, Vec<usize>>::new();
    let mut any_program = Vec::new();
    for (index, rule) in list.iter().enumerate() {
        let table = rule.as_table().expect("rules.toml: a rule is a table");
        for key in table.keys() {
            assert!(
                RULE_FIELDS.contains(&key.as_str()),
                "rules.toml: rule {index} has an unknown field `{key}`"
            );
        }
        let text = |key: &str| {
            table
                .get(key)
                .and_then(toml::Value::as_str)
                .unwrap_or_else(|| panic!("rules.toml: rule {index} needs a string `{key}`"))
        };
        let list = |key: &str| -> Vec<String> {
            table.get(key).map_or_else(Vec::new, |v| {
                v.as_array()
                    .unwrap_or_else(|| panic!("rules.toml: rule {index}: `{key}` is a list"))
                    .iter()
                    .map(|s| {
                        s.as_str()
                            .unwrap_or_else(|| {
                                panic!("rules.toml: rule {index}: `{key}` holds strings")
                            })
                            .to_owned()
                    })
                    .collect()
            })
        };
        let pattern = text("pattern");
        let ignore_case = table.get("ignore-case").is_some_and(|v| {
            v.as_bool().unwrap_or_else(|| {
                panic!("rules.toml: rule {index}: `ignore-case` is true or false")
            })
        });
        let facts = match table.get("facts").map(|v| v.as_str()) {
            None => "None",
            Some(Some("worktree")) => "Some(FactsKind::Worktree)",
            Some(Some("push")) => "Some(FactsKind::Push)",
            Some(Some("branch")) => "Some(FactsKind::Branch)",
            Some(Some("stash")) => "Some(FactsKind::Stash)",
            Some(Some("tag")) => "Some(FactsKind::Tag)",
            Some(_) => {
                panic!("rules.toml: rule {index}: `facts` is worktree, push, branch, stash or tag")
            }
        };
        let words = shell_words::split(pattern)
            .unwrap_or_else(|e| panic!("rules.toml: rule {index}: `{pattern}`: {e}"));
        let (program, rest) = words
            .split_first()
            .unwrap_or_else(|| panic!("rules.toml: rule {index}: the pattern is empty"));
        let programs: Vec<&str> = program.split('|').collect();
        // A rule whose program is a glob is skipped before it is compiled
        // when every alternative is a literal name or a literal prefix
        // (`mkfs*`) and none fits the program.
        let mut program_filter: Vec<&str> = Vec::new();
        if programs.iter().all(|p| is_literal(p) && *p != "*") {
            for name in programs {
                by_program.entry(name.to_owned()).or_default().push(index);
            }
        } else {
            any_program.push(index);
            let prefix_or_name = |p: &&str| is_literal(p.strip_suffix('*').unwrap_or(p));
            if programs.iter().all(prefix_or_name) {
                program_filter = programs;
            }
        }
        // The first positional word, when all its alternatives are literal:
        // some argument must be one of them (folded as `fold` in rules.rs
        // folds, for an `ignore-case` rule) before the rule is compiled.
        let required: Vec<String> = rest
            .iter()
            .find(|w| !w.starts_with(['!', '-', '=', '<', '>']))
            .map(|w| w.split('|').collect::<Vec<_>>())
            .filter(|alts| alts.iter().all(|a| is_literal(a)))
            .unwrap_or_default()
            .into_iter()
            .map(|a| if ignore_case { fold(a) } else { a.to_owned() })
            .collect();
        // A word that matches only an output redirection (`>GLOB`
        // alternatives, not negated): the rule needs a command that writes.
        let needs_output = rest
            .iter()
            .any(|w| !w.starts_with('!') && w.split('|').all(|alt| alt.starts_with('>')));
        let tier = match text("tier") {
            "critical" => "Tier::Critical",
            "high" => "Tier::High",
            "standard" => "Tier::Standard",
            "none" => "Tier::None",
            other => panic!(
                "rules.toml: rule {index}: tier `{other}` is not critical, high, standard or none"
            ),
        };
        writeln!(
            rs,
            "    Builtin {{\n        pattern: {pattern:?},\n        words: &{words:?},\n        tier: {tier},\n        reason: {:?},\n        ignore_case: {ignore_case},\n        allow_args: &{:?},\n        via: &{:?},\n        facts: {facts},\n        program_filter: &{program_filter:?},\n        required: &{required:?},\n        needs_output: {needs_output},\n    }},",
            text("reason"),
            list("allow-args"),
            list("via"),
        )
        .expect("writing to a String");
    }
    rs.push_str("];\n\n");
    writeln!(
        rs,
        "/// The number of built-in rules.\nconst BUILTIN_COUNT: usize = {};\n",
        list.len()
    )
    .expect("writing to a String");
    rs.push_str("/// Built-in rule indexes by literal program name, sorted by name.\n");
    rs.push_str("static BY_PROGRAM: &[(&str, &[u16])] = &[\n");
    for (name, indexes) in &by_program {
        writeln!(rs, "    ({name:?}, &{indexes:?}),").expect("writing to a String");
    }
    rs.push_str("];\n\n/// Built-in rules whose program is a glob.\n");
    writeln!(rs, "static ANY_PROGRAM: &[u16] = &{any_program:?};").expect("writing to a String");
    std::fs::write(out.join("rules.rs"), rs).expect("OUT_DIR is writable");
}

/// `fold` of `src/classify/config/rule.rs`: lowercase, whitespace runs as one space.
fn fold(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| w.chars().flat_map(char::to_lowercase).collect())
        .collect();
    words.join(" ")
}

/// True for a pattern word that is plain text, not a glob.
fn is_literal(word: &str) -> bool {
    !word.is_empty() && !word.contains(['*', '?', '[', '{', '\\'])
}

/// `Tier::Critical` for `"critical"`; the build stops on anything else.
fn tier(key: &str, value: &toml::Value) -> &'static str {
    match value.as_str() {
        Some("critical") => "Tier::Critical",
        Some("high") => "Tier::High",
        Some("standard") => "Tier::Standard",
        Some("none") => "Tier::None",
        _ => panic!("defaults.toml: `{key}` must be critical, high, standard or none"),
    }
}

fn table<'a>(v: &'a toml::Value, key: &str) -> &'a toml::Table {
    v.get(key)
        .and_then(toml::Value::as_table)
        .unwrap_or_else(|| panic!("defaults.toml: `[{key}]` is missing"))
}

fn strs(v: &toml::Value, key: &str) -> String {
    let list = v
        .get(key)
        .and_then(toml::Value::as_array)
        .unwrap_or_else(|| panic!("defaults.toml: `{key}` must be a list of strings"));
    let items: Vec<String> = list
        .iter()
        .map(|s| {
            let s = s
                .as_str()
                .unwrap_or_else(|| panic!("defaults.toml: `{key}` holds a non-string"));
            format!("{s:?}")
        })
        .collect();
    format!("&[{}]", items.join(", "))
}

fn count(v: &toml::Value, key: &str) -> i64 {
    v.get(key)
        .and_then(toml::Value::as_integer)
        .filter(|n| *n >= 0)
        .unwrap_or_else(|| panic!("defaults.toml: `{key}` must be a whole number"))
}

fn defaults(out: &std::path::Path) {
    let v = read_toml("src/classify/config/defaults.toml");
    let mut rs =
        String::from("// Generated by build.rs from src/classify/config/defaults.toml.\n\n");
    let mut item = |doc: &str, code: String| {
        writeln!(rs, "/// {doc}\n{code}\n").expect("writing to a String");
    };
    item(
        "Default protected branches (SPEC section 2).",
        format!(
            "pub const DEFAULT_PROTECTED: &[&str] = {};",
            strs(&v, "protected")
        ),
    );
    item(
        "Default release tags: moving or deleting one is critical.",
        format!(
            "pub const DEFAULT_RELEASE_TAGS: &[&str] = {};",
            strs(&v, "release_tags")
        ),
    );
    item(
        "More destructive ref changes than this in one push is `mass_ref_changes`.",
        format!(
            "pub const DEFAULT_MASS_REF_CHANGES: usize = {};",
            count(&v, "mass_ref_changes")
        ),
    );
    // Every field of `TierTable`, by name: a missing or unknown rule fails
    // to compile.
    let fields: Vec<String> = table(&v, "tiers")
        .iter()
        .map(|(k, t)| format!("    {k}: {},", tier(k, t)))
        .collect();
    item(
        "The tier of each push and local rule, by default.",
        format!(
            "pub const DEFAULT_TIERS: TierTable = TierTable {{\n{}\n}};",
            fields.join("\n")
        ),
    );
    let commit = v
        .get("commit")
        .unwrap_or_else(|| panic!("defaults.toml: `[commit]` is missing"));
    let tiers: Vec<String> = table(commit, "tiers")
        .iter()
        .map(|(k, t)| format!("    ({k:?}, {}),", tier(k, t)))
        .collect();
    item(
        "Default tiers of the pre-commit rules.",
        format!(
            "pub const COMMIT_TIERS: &[(&str, Tier)] = &[\n{}\n];",
            tiers.join("\n")
        ),
    );
    let globs = commit
        .get("globs")
        .expect("defaults.toml: `[commit.globs]`");
    let names: Vec<String> = table(commit, "globs")
        .keys()
        .map(|k| format!("    ({k:?}, {}),", strs(globs, k)))
        .collect();
    item(
        "Default globs of the pre-commit rules, by setting name.",
        format!(
            "pub const COMMIT_GLOBS: &[(&str, &[&str])] = &[\n{}\n];",
            names.join("\n")
        ),
    );
    for (key, doc) in [
        (
            "bulk_deleted_files",
            "More deleted files than this is a bulk deletion.",
        ),
        (
            "bulk_deleted_lines",
            "More deleted lines than this is a bulk deletion.",
        ),
        ("large_files", "More files than this is a large change."),
        (
            "large_lines",
            "More changed lines than this is a large change.",
        ),
    ] {
        item(
            doc,
            format!(
                "pub const COMMIT_{}: usize = {};",
                key.to_uppercase(),
                count(commit, key)
            ),
        );
    }
    std::fs::write(out.join("defaults.rs"), rs).expect("OUT_DIR is writable");
}
