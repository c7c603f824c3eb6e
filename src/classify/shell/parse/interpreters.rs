//! PURE: what shells and other interpreters are given to run: a shell's
//! `-c` script, script file or stdin script, and the code of `python -c`,
//! `perl -e`, `node -e`, `awk` and the like, judged by the commands its
//! strings run and the files it deletes.

use super::{ParseProblem, Parser, SimpleCommand, Stdin};

impl Parser<'_> {
    /// Parses what a shell runs: its `-c` script, or its stdin script.
    pub(super) fn shell(&mut self, command: &SimpleCommand, depth: usize, stdin: &Stdin) {
        let args = &command.argv[1..];
        let mut has_c = false;
        // `bash -s ARGS`: the script is stdin, the words after it are its
        // arguments.
        let mut has_s = false;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if arg == "--" || arg == "-" {
                i += 1;
                break;
            }
            if let Some(long) = arg.strip_prefix("--") {
                i += if matches!(long, "rcfile" | "init-file") {
                    2
                } else {
                    1
                };
                continue;
            }
            let Some(letters) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) else {
                break;
            };
            if letters.is_empty() {
                break;
            }
            if arg.starts_with('-') && letters.contains('c') {
                has_c = true;
            }
            if arg.starts_with('-') && letters.contains('s') {
                has_s = true;
            }
            if letters.contains('o') || letters.contains('O') {
                i += 1;
            }
            i += 1;
        }
        if has_c {
            if let Some(script) = args.get(i) {
                // `xargs -I{} sh -c '{}'`: the script itself comes from stdin.
                let head = script.trim_start();
                if command.args_from_stdin && (head.starts_with("{}") || head.starts_with('$')) {
                    self.problem(ParseProblem::OpaqueScript {
                        shell: command.program().to_owned(),
                    });
                }
                self.script(script, depth + 1, &command.cd);
            }
        } else if let Some(file) = args.get(i).filter(|_| !has_s) {
            let file = file.clone();
            self.script_file(&file, depth, &command.cd);
        } else {
            match stdin {
                Stdin::Data(data) => self.script(data, depth + 1, &command.cd),
                Stdin::Unknown => self.problem(ParseProblem::OpaqueScript {
                    shell: command.program().to_owned(),
                }),
                Stdin::Inherited => {}
            }
        }
    }

    /// Judges the code an interpreter runs: the strings it passes to a
    /// shell (`os.system("git reset --hard")`, `` `git push -f` ``, a list
    /// of words), the files it deletes (`shutil.rmtree(".git")`). Code that
    /// runs commands vouch cannot read is a problem.
    pub(super) fn code(
        &mut self,
        program: &str,
        code: &str,
        command: &SimpleCommand,
        depth: usize,
    ) {
        let lower = code.to_ascii_lowercase();
        let runs = RUNS_COMMANDS.iter().any(|m| lower.contains(m))
            || (program.starts_with("awk") || program.ends_with("awk")) && lower.contains("system")
            || lower.contains('`')
            || lower.contains("qx");
        let literals = string_literals(code);
        let cd = command.cd.clone();
        if runs {
            let decoded = DECODES.iter().any(|m| lower.contains(m));
            let mut any = false;
            let mut lists = literal_lists(code);
            lists.dedup();
            let mut seen = Vec::new();
            lists.retain(|l| {
                let fresh = !seen.contains(l);
                seen.push(l.clone());
                fresh
            });
            for list in &lists {
                any = true;
                self.script(&shell_words::join(list), depth + 1, &cd);
            }
            // A literal that is one word of a list is not a command itself.
            for literal in &literals {
                if lists.iter().any(|l| l.len() > 1 && l.contains(literal)) {
                    continue;
                }
                any |= !literal.trim().is_empty();
                self.script(literal, depth + 1, &cd);
            }
            for body in backquoted(code) {
                any = true;
                self.script(&body, depth + 1, &cd);
            }
            if decoded || !any {
                self.problem(ParseProblem::OpaqueCode {
                    program: program.to_owned(),
                });
            }
        }
        let deletes_tree = DELETES_TREE.iter().any(|m| lower.contains(m));
        let deletes_file = DELETES_FILE.iter().any(|m| lower.contains(m));
        if deletes_tree || deletes_file {
            for literal in literals
                .iter()
                .filter(|l| !l.contains(char::is_whitespace) && !l.is_empty())
            {
                let argv = if deletes_tree {
                    vec!["rm".to_owned(), "-rf".to_owned(), literal.clone()]
                } else {
                    vec!["rm".to_owned(), "-f".to_owned(), literal.clone()]
                };
                self.out.commands.push(SimpleCommand {
                    argv,
                    wrappers: vec![program.to_owned()],
                    cd: cd.clone(),
                    depth: depth + 1,
                    ..SimpleCommand::default()
                });
            }
        }
    }
}

/// Calls in interpreted code that run a command through a shell or exec.
const RUNS_COMMANDS: &[&str] = &[
    "system",
    "subprocess",
    "popen",
    "exec",
    "spawn",
    "check_call",
    "check_output",
    "call(",
    "run(",
    "shell_exec",
    "passthru",
    "proc_open",
    "child_process",
    "deno.command",
    "deno.run",
    "bun.spawn",
    "$.(",
    "open3",
    "%x",
    "io.popen",
    "os.execute",
    "do shell script",
    "pty.",
];

/// Calls that decode or build a string at run time.
const DECODES: &[&str] = &[
    "b64decode",
    "base64",
    "decode(",
    "fromhex",
    "unhexlify",
    "rot13",
    "codecs",
    "chr(",
    "atob",
    "buffer.from",
    "pack(",
    "reverse",
    "[::-1]",
    "join(",
    "fromcharcode",
    "unpack",
    "eval(",
    "getenv",
    "environ",
    "argv",
    "input(",
    "stdin",
];

/// Calls that delete a directory tree.
const DELETES_TREE: &[&str] = &[
    "rmtree",
    "rm_rf",
    "rm_r(",
    "rmsync",
    "rimraf",
    "remove_tree",
    "remove_dir_all",
    "removedirs",
    "rmdir",
    "recursive: true",
    "recursive=true",
];

/// Calls that delete or truncate a file.
const DELETES_FILE: &[&str] = &[
    "unlink",
    "os.remove",
    "file.delete",
    "fileutils.rm",
    "fs.rm",
    "path.unlink",
];

/// The code an interpreter is given on its command line, if any:
/// `python -c CODE`, `perl -e CODE` (and `-ne`, `-E`), `ruby -e`, `node -e`
/// / `-p` / `--eval`, `deno eval`, `bun -e`, `php -r`, `lua -e`,
/// `osascript -e`, and an `awk` program.
pub(super) fn interpreter_code(program: &str, args: &[String]) -> Option<String> {
    let family = if program.starts_with("python") || program == "pypy" || program == "pypy3" {
        "python"
    } else if program.starts_with("perl") {
        "perl"
    } else if program.starts_with("ruby") || program == "jruby" {
        "ruby"
    } else if matches!(program, "node" | "nodejs") {
        "node"
    } else if matches!(program, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk") {
        "awk"
    } else {
        program
    };
    let mut code = Vec::new();
    let mut i = 0;
    match family {
        "awk" => {
            while let Some(arg) = args.get(i) {
                i += 1;
                if arg == "--" {
                    break;
                }
                if matches!(arg.as_str(), "-F" | "-v" | "-f" | "--file" | "-i" | "-l") {
                    if arg == "-f" || arg == "--file" {
                        return None;
                    }
                    i += 1;
                    continue;
                }
                if arg.starts_with('-') {
                    continue;
                }
                return Some(arg.clone());
            }
            args.get(i).cloned()
        }
        "deno" | "bun" if args.first().is_some_and(|a| a == "eval") => args.get(1).cloned(),
        _ => {
            let flags: &[&str] = match family {
                "python" => &["-c"],
                "perl" => &["-e", "-E"],
                "ruby" | "lua" | "osascript" | "bun" => &["-e"],
                "node" => &["-e", "--eval", "-p", "--print"],
                "php" => &["-r"],
                _ => return None,
            };
            while let Some(arg) = args.get(i) {
                i += 1;
                if flags.contains(&arg.as_str()) {
                    if let Some(value) = args.get(i) {
                        code.push(value.clone());
                        i += 1;
                    }
                    if family == "python" {
                        break;
                    }
                    continue;
                }
                if let Some(value) = arg
                    .strip_prefix("--eval=")
                    .or_else(|| arg.strip_prefix("--print="))
                {
                    code.push(value.to_owned());
                    continue;
                }
                // Bundled: `perl -ne CODE`, `perl -we CODE`, `python -Sc CODE`.
                if !arg.starts_with("--") && arg.len() > 2 && arg.starts_with('-') {
                    let letters = &arg[1..];
                    let last = letters.chars().last().unwrap_or_default();
                    if flags.iter().any(|f| f.ends_with(last))
                        && letters.chars().all(|c| c.is_ascii_alphabetic())
                    {
                        if let Some(value) = args.get(i) {
                            code.push(value.clone());
                            i += 1;
                        }
                        continue;
                    }
                    if family == "python"
                        && let Some(rest) = arg.strip_prefix("-c")
                    {
                        code.push(rest.to_owned());
                        break;
                    }
                }
                if !arg.starts_with('-') {
                    break;
                }
            }
            (!code.is_empty()).then(|| code.join("\n"))
        }
    }
}

/// Options of interpreters that take the next word as their value.
const CODE_VALUES: &[&str] = &[
    "-W",
    "-X",
    "-Q",
    "-I",
    "-M",
    "-r",
    "--require",
    "--import",
    "--loader",
    "-C",
    "-d",
    "-x",
    "-E",
];
/// Options of interpreters that run something else than stdin (a module, a version).
const CODE_ELSEWHERE: &[&str] = &[
    "-m",
    "--version",
    "-V",
    "-v",
    "--help",
    "-h",
    "-i",
    "--interactive",
    "--check",
    "-c",
    "-e",
    "--eval",
    "-p",
    "--print",
    "-r",
    "-S",
];

/// True when `program` with `args` reads its program from stdin (`python3
/// -`, `python3 <<EOF`, `echo ... | node`, `perl`, `ruby`, `php`): no
/// script file is named, or `-` is (issue 37 item 3).
pub(super) fn reads_code_from_stdin(program: &str, args: &[String]) -> bool {
    let interpreter = program.starts_with("python")
        || matches!(
            program,
            "pypy" | "pypy3" | "node" | "nodejs" | "php" | "lua" | "jruby"
        )
        || program.starts_with("perl")
        || program.starts_with("ruby");
    if !interpreter {
        return false;
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "-" {
            return true;
        }
        if arg == "--" {
            return args.get(i).is_none_or(|a| a == "-");
        }
        if !arg.starts_with('-') {
            return false;
        }
        if CODE_ELSEWHERE.contains(&arg.as_str()) && !(program == "php" && arg == "-r") {
            return false;
        }
        if CODE_VALUES.contains(&arg.as_str()) {
            i += 1;
        }
    }
    true
}

/// The string literals of a piece of code (`'...'`, `"..."`), with the
/// common escapes decoded.
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' && c != '"' {
            continue;
        }
        let mut text = String::new();
        let mut closed = false;
        while let Some(d) = chars.next() {
            if d == '\\' {
                match chars.next() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some(e) => text.push(e),
                    None => {}
                }
                continue;
            }
            if d == c {
                closed = true;
                break;
            }
            text.push(d);
        }
        if closed {
            out.push(text);
        }
    }
    out
}

/// Lists of string literals (`["git", "reset", "--hard"]`,
/// `qw(git reset --hard)`), as the words of one command.
fn literal_lists(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (open, close) in [('[', ']'), ('(', ')')] {
        let mut rest = code;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + 1..];
            let Some(end) = after.find(close) else {
                break;
            };
            let inner = &after[..end];
            let literals = string_literals(inner);
            if literals.len() > 1 {
                out.push(literals);
            }
            rest = &after[end..];
        }
    }
    out
}

/// The bodies of backquotes and `qx{...}`/`%x(...)` in Perl or Ruby code.
fn backquoted(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut parts = code.split('`');
    parts.next();
    while let (Some(body), Some(_)) = (parts.next(), parts.next()) {
        out.push(body.to_owned());
    }
    for marker in ["qx{", "qx(", "%x(", "%x{", "qx/"] {
        let mut rest = code;
        while let Some(start) = rest.find(marker) {
            let after = &rest[start + marker.len()..];
            let close = match marker.chars().last() {
                Some('{') => '}',
                Some('(') => ')',
                _ => '/',
            };
            let Some(end) = after.find(close) else {
                break;
            };
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}
