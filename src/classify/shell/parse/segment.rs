//! One segment of a list, between its operators: its assignments, its
//! redirections (output targets kept, stdin data fed on), its words
//! expanded where the line tells what they hold (`"$@"`, a `for` loop's
//! list, variables set earlier in the line), then the simple command it
//! makes ([`Parser::command`]).

use super::super::lex::{self, RedirectKind};
use super::{
    Parser, Positional, RESERVED_SKIP, Segment, SimpleCommand, Stdin, WORD_COST, assignment,
    basename, positional_words, runners, variable_name,
};

impl Parser<'_> {
    /// Turns one segment into commands. Returns the data it would write to
    /// a pipe, when known (`echo`, `printf`, `cat` of a heredoc).
    #[expect(
        clippy::too_many_arguments,
        reason = "the walker's state, passed down once"
    )]
    pub(super) fn segment(
        &mut self,
        segment: Segment,
        depth: usize,
        cd: &mut Vec<String>,
        input: Stdin,
        cases: &mut Vec<usize>,
        parens: usize,
        case_pattern: bool,
    ) -> Option<String> {
        let Segment { words, redirects } = segment;
        // Substitutions run whatever the words turn out to be.
        for word in &words {
            for sub in &word.subs {
                self.script(sub, depth + 1, cd);
            }
        }
        for redirect in &redirects {
            for sub in redirect.target.subs.iter().chain(&redirect.body_subs) {
                self.script(sub, depth + 1, cd);
            }
        }
        let mut words = &words[..];
        if case_pattern && words.first().is_none_or(|w| w.quoted || w.text != "case") {
            return None;
        }
        while let Some(first) = words.first() {
            if first.quoted {
                break;
            }
            match first.text.as_str() {
                "case" => {
                    cases.push(parens);
                    return None;
                }
                "for" | "select" => {
                    self.loop_header(words, depth);
                    return None;
                }
                // `coproc CMD`, `coproc NAME { ...; }`: the command runs.
                "coproc" => {
                    words = &words[1..];
                    if let [_, brace, ..] = words
                        && !brace.quoted
                        && brace.text == "{"
                    {
                        words = &words[2..];
                    }
                }
                // `function name { ...; }`: the body's words follow.
                "function" => words = words.get(2..).unwrap_or_default(),
                "esac" => {
                    cases.pop();
                    words = &words[1..];
                }
                w if RESERVED_SKIP.contains(&w) => words = &words[1..],
                _ => break,
            }
        }
        let mut command = SimpleCommand {
            depth,
            cd: cd.clone(),
            ..SimpleCommand::default()
        };
        let mut rest = words;
        while let Some((first, tail)) = rest.split_first() {
            match assignment(&first.text) {
                Some(pair) => {
                    command.env.push(pair);
                    rest = tail;
                }
                None => break,
            }
        }
        if rest.is_empty() {
            self.vars.extend(command.env.iter().cloned());
        }
        for (index, word) in rest.iter().enumerate() {
            // What a word expands to is paid from the budget, each word
            // it makes at its size in memory: `"$@"` or a variable read
            // many times stays linear in the line.
            let size = match &self.positional {
                Some(p) if word.text.contains('$') => {
                    p.size.saturating_mul(word.text.matches('$').count())
                }
                _ => 0,
            };
            if size > 0 && !self.pay(size) {
                command.argv.push(word.text.clone());
                continue;
            }
            if let Some(p) = &self.positional
                && let Some(words) = positional_words(word, &p.args)
            {
                command.argv.extend(words);
                continue;
            }
            if let Some((names, unknown)) =
                variable_name(&word.text).and_then(|name| self.lists.get(name))
            {
                // Names only known when it runs are operands appended then,
                // judged at their worst (as `xargs`'s).
                if *unknown {
                    command.args_from_stdin = true;
                } else {
                    command.argv.extend(names.iter().cloned());
                }
                continue;
            }
            let value = variable_name(&word.text)
                .and_then(|name| self.vars.iter().rev().find(|(n, _)| n == name))
                .map(|(_, v)| v.clone());
            let size = value.as_ref().map_or(0, |v| {
                v.len() + WORD_COST * v.split_whitespace().count().max(1)
            });
            if size > 0 && !self.pay(size) {
                command.argv.push(word.text.clone());
                continue;
            }
            match value {
                // Unquoted, the value is split into words; quoted, it stays one.
                Some(value) if !word.quoted => command
                    .argv
                    .extend(value.split_whitespace().map(str::to_owned)),
                Some(value) => command.argv.push(value),
                // `git${IFS}reset${IFS}--hard`: the shell splits on `$IFS`.
                None if !word.quoted
                    && (word.text.contains("${IFS}") || word.text.contains("$IFS")) =>
                {
                    let text = word.text.replace("${IFS}", " ").replace("$IFS", " ");
                    command
                        .argv
                        .extend(text.split_whitespace().map(str::to_owned));
                }
                None if index == 0 => match self.program_word(word, depth) {
                    Some(words) => command.argv.extend(words),
                    None => command.argv.push(word.text.clone()),
                },
                None => command.argv.push(word.text.clone()),
            }
        }
        let declares = matches!(
            command.argv.first().map(String::as_str),
            Some("export" | "declare" | "typeset" | "local" | "readonly")
        );
        if declares {
            let assigned: Vec<(String, String)> = command.argv[1..]
                .iter()
                .filter_map(|a| assignment(a))
                .collect();
            self.vars.extend(assigned);
        }
        // An array subscript in a variable's value runs its substitutions
        // when the variable is read as a number (`x='a[$(...)]'; echo
        // $((x))`): judged where the value is written, quoted or not.
        for word in words.iter().filter(|w| w.subs.is_empty()) {
            if let Some((_, value)) = assignment(&word.text)
                && (declares || command.argv.is_empty() || command.argv[0] == "let")
                && value.contains('[')
            {
                for sub in lex::substitutions_in(&value) {
                    self.script(&sub, depth + 1, cd);
                }
            }
        }
        // `set -- a b`: the positional parameters `"$@"` reads later.
        if command.argv.first().is_some_and(|p| p == "set") {
            let args = &command.argv[1..];
            let start = args
                .iter()
                .position(|a| a == "--")
                .map(|at| at + 1)
                .or_else(|| {
                    args.first()
                        .filter(|a| !a.starts_with(['-', '+']))
                        .map(|_| 0)
                });
            if let Some(start) = start {
                self.positional = Some(Positional::new(args[start..].to_vec()));
            }
        }
        let mut stdin = input;
        for redirect in redirects {
            match redirect.kind {
                RedirectKind::Output => {
                    let target = &redirect.target.text;
                    let name = variable_name(target);
                    if let Some((names, _)) = name.and_then(|n| self.lists.get(n)) {
                        command.outputs.extend(names.iter().cloned());
                    } else if let Some((_, value)) =
                        name.and_then(|n| self.vars.iter().rev().find(|(v, _)| v == n))
                    {
                        command.outputs.push(value.clone());
                    } else {
                        command.outputs.push(redirect.target.text);
                    }
                }
                // A file written earlier in the line, or one there is to
                // read, is known data (`sh < x.sh`, `python3 < gen.py`).
                RedirectKind::Input => {
                    let path = &redirect.target.text;
                    stdin = match self.written_text(path) {
                        Some(text) => Stdin::Data(text),
                        None if path.contains(['$', '`']) => Stdin::Unknown,
                        None => match (self.scripts)(path, cd) {
                            Ok(Some(text)) => Stdin::Data(text),
                            _ => Stdin::Unknown,
                        },
                    };
                }
                RedirectKind::Heredoc => stdin = Stdin::Data(redirect.body.unwrap_or_default()),
                RedirectKind::HereString => stdin = Stdin::Data(redirect.target.text + "\n"),
                RedirectKind::Dup => {}
            }
        }
        // `... | while read f`: `$f` is each line the pipe brings.
        if command.argv.first().is_some_and(|p| p == "read") {
            self.read_names(&command.argv[1..], &stdin);
        }
        // A bare `> file` runs nothing but still truncates the file.
        if command.argv.is_empty() && command.env.is_empty() && command.outputs.is_empty() {
            return None;
        }
        let program = command.program().to_owned();
        let outputs = command.outputs.clone();
        let tee_files: Vec<String> = if program == "tee" {
            command.argv[1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if program == "alias" {
            for arg in &command.argv[1..] {
                if let Some((name, value)) = arg.split_once('=') {
                    self.shell_aliases.push((name.to_owned(), value.to_owned()));
                }
            }
        }
        let known = match &stdin {
            Stdin::Data(data) if program == "tee" => Some(data.clone()),
            _ => None,
        };
        // `git apply FILE`, `patch -i FILE`: a file the line wrote is the
        // data they read.
        let applies = program == "patch"
            || (program == "git" && command.argv.get(1).is_some_and(|a| a == "apply"));
        if applies && command.stdin.is_none() {
            let data = command.argv[1..]
                .iter()
                .map(|a| a.strip_prefix("--input=").unwrap_or(a))
                .find_map(|a| self.written_text(a));
            if let Some(data) = data {
                command.stdin = Some(data);
            }
        }
        let fetched = task_files_written(&command);
        let output = self.command(command, depth, &stdin);
        if let Some(text) = output.clone().or(known) {
            for file in outputs.iter().chain(&tee_files) {
                let file = file.trim_start_matches("./");
                self.written_unknown.remove(file);
                self.written.insert(file.to_owned(), text.clone());
            }
        } else {
            for file in outputs.iter().chain(&tee_files).chain(&fetched) {
                let file = file.trim_start_matches("./");
                self.written.remove(file);
                self.written_unknown.insert(file.to_owned());
            }
        }
        if program == "cd" || program == "pushd" {
            let target = words
                .iter()
                .skip(1)
                .map(|w| w.text.as_str())
                .find(|w| !w.starts_with('-'))
                .unwrap_or("~");
            cd.push(target.to_owned());
        }
        output
    }
}

/// The files a command writes with content vouch cannot know: fetched
/// (`curl -o F`, `wget -O F`), copied, moved or linked into place (the
/// last operand), written by `dd of=F`; and any task file (`Makefile`,
/// `package.json`, ...) an archiver or editor names.
fn task_files_written(command: &SimpleCommand) -> Vec<String> {
    let program = command.program();
    let args = command.argv.get(1..).unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    match program {
        "curl" | "wget" | "aria2c" | "http" | "xh" => {
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                i += 1;
                // curl's `-O` names the file after the URL: not known here.
                // Also at the end of a run of short flags (`-fsSLo F`, `-qO F`).
                let short = arg.starts_with('-') && !arg.starts_with("--");
                let takes = matches!(arg.as_str(), "--output" | "--output-document")
                    || (short && arg.ends_with('o'))
                    || (short && arg.ends_with('O') && program != "curl");
                if takes {
                    out.extend(args.get(i).cloned());
                    i += 1;
                    continue;
                }
                let glued = arg
                    .strip_prefix("--output=")
                    .or_else(|| arg.strip_prefix("--output-document="))
                    .or_else(|| {
                        arg.strip_prefix("-o")
                            .filter(|r| !r.is_empty() && !arg.starts_with("--"))
                    });
                out.extend(glued.map(str::to_owned));
            }
        }
        "cp" | "mv" | "ln" | "install" | "rsync" | "scp" => {
            out.extend(args.iter().rev().find(|a| !a.starts_with('-')).cloned());
        }
        "dd" => out.extend(
            args.iter()
                .filter_map(|a| a.strip_prefix("of="))
                .map(str::to_owned),
        ),
        "unzip" | "tar" | "sed" | "patch" => out.extend(
            args.iter()
                .filter(|a| runners::TASK_FILES.contains(&basename(a)))
                .cloned(),
        ),
        _ => {}
    }
    out
}
