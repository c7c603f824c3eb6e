//! PURE: splits a shell command line into words, operators and redirections.
//!
//! Why a hand tokenizer: `shell-words` splits words but knows no operators
//! (`&&`, `|`, `;`, `(`), no redirections, no heredocs and no command
//! substitution, and those decide which words are commands. This lexer
//! follows the POSIX token rules (XCU 2.3) closely enough for commands an
//! agent writes:
//!
//! - blanks separate words; `;` `&` `|` `(` `)` `<` `>` and newline end a
//!   word and start an operator (`&&`, `||`, `;;`, `|&`, ...);
//! - `'...'` is literal, `"..."` keeps `\$`, `` \` ``, `\"`, `\\` escapes,
//!   `$'...'` decodes C escapes (`\x72\x6d` is `rm`), a backslash outside
//!   quotes escapes the next character and backslash-newline joins lines;
//! - `#` at the start of a word starts a comment;
//! - `$(...)`, `` `...` ``, `<(...)` and `>(...)` are kept verbatim in the
//!   word's text and their bodies are returned separately, because they run
//!   too; `$((...))` (arithmetic) and `${...}` are kept verbatim, and the
//!   substitutions inside them (`$(( $(...) + 1 ))`, `${x:-$(...)}`,
//!   `` ${x:-`...`} ``, `${a[$(...)]}`) are returned too: they run as well
//!   (issue 26 item 10). `$((` that does not close with `))` is bash's
//!   command substitution of a subshell, and its body is returned as one;
//! - a redirection operator (with an optional leading fd number) takes the
//!   next word as its target; `<<` and `<<-` read a heredoc body from the
//!   lines after the current one, and remember whether the delimiter was
//!   quoted (a quoted delimiter means no substitutions run in the body).
//!
//! Variables are not expanded: `$HOME` stays `$HOME`, so rules can name it.
//! Nothing here touches the file system, the environment or a process.

/// One lexical token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A word, quotes removed.
    Word(Word),
    /// A control operator or newline.
    Op(Op),
    /// A redirection with its target.
    Redirect(Redirect),
}

/// A word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Word {
    /// The text with quotes and escapes removed; substitutions verbatim.
    pub text: String,
    /// True when any part was quoted or escaped (reserved words and
    /// assignments are only recognized unquoted).
    pub quoted: bool,
    /// The bodies of `$(...)`, backquote and process substitutions, which
    /// run as commands of their own.
    pub subs: Vec<String>,
}

/// Control operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;`
    Semi,
    /// `;;`, `;&`, `;;&` (case terminators)
    CaseEnd,
    /// `|` or `|&`
    Pipe,
    /// `&` (background)
    Amp,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// A newline.
    Newline,
}

/// What a redirection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectKind {
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>` (the target is written).
    Output,
    /// `<` (the target is read as stdin).
    Input,
    /// `>&`, `<&` (fd duplication, `2>&1`).
    Dup,
    /// `<<`, `<<-` (the body is stdin).
    Heredoc,
    /// `<<<` (the target word is stdin).
    HereString,
}

/// A redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// Its kind.
    pub kind: RedirectKind,
    /// The target word (the delimiter for a heredoc).
    pub target: Word,
    /// The heredoc body, once read.
    pub body: Option<String>,
    /// Substitutions found in an unquoted-delimiter heredoc body.
    pub body_subs: Vec<String>,
}

/// A problem that makes the command line unparseable as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LexError {
    /// A quote (`'`, `"`, `` ` ``) never closed.
    UnterminatedQuote(char),
    /// A `$(`, `${`, `<(` or `>(` never closed.
    UnterminatedSubstitution,
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// The byte offset in `src` where each token starts.
    starts: Vec<usize>,
    /// Token indexes of heredocs whose body comes after the next newline,
    /// with their "strip tabs" (`<<-`) flag.
    pending: Vec<(usize, bool)>,
    errors: Vec<LexError>,
}

/// [`lex_with_starts`] without the offsets.
#[cfg(test)]
pub(crate) fn lex(src: &str) -> (Vec<Token>, Vec<LexError>) {
    let (tokens, _, errors) = lex_with_starts(src);
    (tokens, errors)
}

/// Splits `src` into tokens, with the byte offset in `src` where each
/// starts; errors are returned alongside the best-effort tokens (a missing
/// closing quote runs to the end, as bash's error would).
pub(crate) fn lex_with_starts(src: &str) -> (Vec<Token>, Vec<usize>, Vec<LexError>) {
    let mut lexer = Lexer::new(src);
    lexer.run();
    (lexer.tokens, lexer.starts, lexer.errors)
}

/// The text between the `{` or `(` at byte `open` of `src` and the brace
/// or parenthesis that closes it (quotes and escapes respected): the body
/// of a function defined as `name() { ...; }` or `name() ( ... )`. `None`
/// when `open` is neither or nothing closes it.
pub(crate) fn enclosed(src: &str, open: usize) -> Option<String> {
    let close = match src.as_bytes().get(open)? {
        b'{' => b'}',
        b'(' => b')',
        _ => return None,
    };
    let mut lexer = Lexer::new(src);
    lexer.pos = open + 1;
    let body = lexer.balanced(src.as_bytes()[open], close);
    lexer.errors.is_empty().then_some(body)
}

fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
            tokens: Vec::new(),
            starts: Vec::new(),
            pending: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.src.get(self.pos + offset).copied()
    }

    fn starts_with(&self, s: &[u8]) -> bool {
        self.src[self.pos..].starts_with(s)
    }

    fn op(&mut self, op: Op, len: usize) {
        self.pos += len;
        self.tokens.push(Token::Op(op));
    }

    fn run(&mut self) {
        while let Some(b) = self.peek() {
            let start = self.pos;
            let before = self.tokens.len();
            self.step(b);
            let added = self.tokens.len() - before;
            self.starts.extend(std::iter::repeat_n(start, added));
        }
    }

    /// Reads what starts with the byte `b` at `pos`: blanks, a comment, an
    /// operator, a redirection or a word.
    fn step(&mut self, b: u8) {
        match b {
            b' ' | b'\t' | b'\r' => self.pos += 1,
            b'\\' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
            b'\n' => {
                self.op(Op::Newline, 1);
                self.read_heredocs();
            }
            b'#' => {
                while let Some(c) = self.peek() {
                    if c == b'\n' {
                        break;
                    }
                    self.pos += 1;
                }
            }
            b';' => {
                if self.starts_with(b";;&") {
                    self.op(Op::CaseEnd, 3);
                } else if self.starts_with(b";;") || self.starts_with(b";&") {
                    self.op(Op::CaseEnd, 2);
                } else {
                    self.op(Op::Semi, 1);
                }
            }
            b'&' => {
                if self.starts_with(b"&&") {
                    self.op(Op::And, 2);
                } else if self.starts_with(b"&>>") {
                    self.pos += 3;
                    self.redirect(RedirectKind::Output);
                } else if self.starts_with(b"&>") {
                    self.pos += 2;
                    self.redirect(RedirectKind::Output);
                } else {
                    self.op(Op::Amp, 1);
                }
            }
            b'|' => {
                if self.starts_with(b"||") {
                    self.op(Op::Or, 2);
                } else if self.starts_with(b"|&") {
                    self.op(Op::Pipe, 2);
                } else {
                    self.op(Op::Pipe, 1);
                }
            }
            b'(' => self.op(Op::LParen, 1),
            b')' => self.op(Op::RParen, 1),
            b'<' | b'>' if self.peek_at(1) != Some(b'(') => self.redirection(),
            _ => {
                let start = self.pos;
                let word = self.word();
                let fd_like = !word.quoted
                    && !word.text.is_empty()
                    && self.pos - start == word.text.len()
                    && (word.text.bytes().all(|c| c.is_ascii_digit())
                        || (word.text.starts_with('{') && word.text.ends_with('}')));
                if fd_like
                    && matches!(self.peek(), Some(b'<' | b'>'))
                    && self.peek_at(1) != Some(b'(')
                {
                    self.redirection();
                } else {
                    self.tokens.push(Token::Word(word));
                }
            }
        }
    }

    /// Reads a redirection operator at `pos` (`<`/`>` family) and its target.
    fn redirection(&mut self) {
        let ops: [(&[u8], RedirectKind); 10] = [
            (b"<<<", RedirectKind::HereString),
            (b"<<-", RedirectKind::Heredoc),
            (b"<<", RedirectKind::Heredoc),
            (b"<&", RedirectKind::Dup),
            (b"<>", RedirectKind::Output),
            (b"<", RedirectKind::Input),
            (b">>", RedirectKind::Output),
            (b">&", RedirectKind::Dup),
            (b">|", RedirectKind::Output),
            (b">", RedirectKind::Output),
        ];
        for (text, kind) in ops {
            if self.starts_with(text) {
                self.pos += text.len();
                let strip_tabs = text == b"<<-";
                self.redirect(kind);
                if kind == RedirectKind::Heredoc {
                    self.pending.push((self.tokens.len() - 1, strip_tabs));
                }
                return;
            }
        }
    }

    fn redirect(&mut self, kind: RedirectKind) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        let target = match self.peek() {
            Some(b)
                if !is_meta(b) || (matches!(b, b'<' | b'>') && self.peek_at(1) == Some(b'(')) =>
            {
                self.word()
            }
            _ => Word::default(),
        };
        self.tokens.push(Token::Redirect(Redirect {
            kind,
            target,
            body: None,
            body_subs: Vec::new(),
        }));
    }

    /// Reads the bodies of the heredocs opened on the line just ended.
    fn read_heredocs(&mut self) {
        for (index, strip_tabs) in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.src.len() {
                let end = self.src[self.pos..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.src.len(), |n| self.pos + n);
                let mut line = &self.src[self.pos..end];
                self.pos = (end + 1).min(self.src.len());
                if strip_tabs {
                    while let [b'\t', rest @ ..] = line {
                        line = rest;
                    }
                }
                let line = String::from_utf8_lossy(line);
                let line = line.strip_suffix('\r').unwrap_or(&line);
                if let Some(Token::Redirect(r)) = self.tokens.get(index)
                    && line == r.target.text
                {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if let Some(Token::Redirect(r)) = self.tokens.get_mut(index) {
                if !r.target.quoted {
                    r.body_subs = substitutions_in(&body);
                }
                r.body = Some(body);
            }
        }
    }

    /// Reads one word starting at `pos`.
    fn word(&mut self) -> Word {
        let mut text: Vec<u8> = Vec::new();
        let mut word = Word::default();
        while let Some(b) = self.peek() {
            match b {
                b'<' | b'>' if self.peek_at(1) == Some(b'(') => {
                    let start = self.pos;
                    self.pos += 2;
                    let body = self.balanced_parens();
                    text.extend_from_slice(&self.src[start..self.pos]);
                    word.subs.push(body);
                }
                _ if is_meta(b) => break,
                b'\'' => {
                    word.quoted = true;
                    self.pos += 1;
                    if let Some(n) = self.src[self.pos..].iter().position(|&c| c == b'\'') {
                        text.extend_from_slice(&self.src[self.pos..self.pos + n]);
                        self.pos += n + 1;
                    } else {
                        text.extend_from_slice(&self.src[self.pos..]);
                        self.pos = self.src.len();
                        self.errors.push(LexError::UnterminatedQuote('\''));
                    }
                }
                b'"' => {
                    word.quoted = true;
                    self.pos += 1;
                    self.double_quoted(&mut text, &mut word.subs);
                }
                b'\\' => {
                    word.quoted = true;
                    match self.peek_at(1) {
                        Some(b'\n') => self.pos += 2,
                        Some(c) => {
                            text.push(c);
                            self.pos += 2;
                        }
                        None => self.pos += 1,
                    }
                }
                b'$' if self.peek_at(1) == Some(b'\'') => {
                    word.quoted = true;
                    self.pos += 2;
                    self.ansi_c(&mut text);
                }
                b'$' if self.peek_at(1) == Some(b'"') => {
                    word.quoted = true;
                    self.pos += 2;
                    self.double_quoted(&mut text, &mut word.subs);
                }
                b'$' | b'`' => self.dollar_or_backquote(&mut text, &mut word.subs, false),
                _ => {
                    text.push(b);
                    self.pos += 1;
                }
            }
        }
        word.text = String::from_utf8_lossy(&text).into_owned();
        word
    }

    /// Handles `$(`, `$((`, `${`, a plain `$` or a backquote at `pos`,
    /// appending the verbatim text and recording substitution bodies, those
    /// inside `$((...))` and `${...}` included; `quoted`: inside double
    /// quotes or a heredoc body, where a single quote is an ordinary
    /// character (`"${x:-'$(...)'}"` runs the substitution).
    fn dollar_or_backquote(&mut self, text: &mut Vec<u8>, subs: &mut Vec<String>, quoted: bool) {
        let start = self.pos;
        if self.peek() == Some(b'`') {
            self.pos += 1;
            subs.push(self.backquoted());
        } else if self.starts_with(b"$((") {
            self.pos += 3;
            let inner = self.pos - 1;
            let first_close = self.expansion(b'(', b')', 2, subs, quoted);
            // `$((` closed by `))` is arithmetic; otherwise bash reads a
            // command substitution whose body starts with a subshell
            // (`$((git clean -fdx) )`).
            if let Some(at) = first_close
                && at + 2 != self.pos
            {
                let body = &self.src[inner..self.pos - 1];
                subs.push(String::from_utf8_lossy(body).into_owned());
            }
        } else if self.starts_with(b"$(") {
            self.pos += 2;
            let body = self.balanced_parens();
            subs.push(body);
        } else if self.starts_with(b"${") {
            self.pos += 2;
            self.expansion(b'{', b'}', 1, subs, quoted);
        } else {
            self.pos += 1;
        }
        text.extend_from_slice(&self.src[start..self.pos]);
    }

    /// Reads a backquoted command after its opening backquote, returning
    /// its body with the backslash escapes removed.
    fn backquoted(&mut self) -> String {
        let mut body = Vec::new();
        loop {
            match self.peek() {
                None => {
                    self.errors.push(LexError::UnterminatedQuote('`'));
                    break;
                }
                Some(b'`') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') if matches!(self.peek_at(1), Some(b'$' | b'`' | b'\\')) => {
                    body.push(self.src[self.pos + 1]);
                    self.pos += 2;
                }
                Some(c) => {
                    body.push(c);
                    self.pos += 1;
                }
            }
        }
        String::from_utf8_lossy(&body).into_owned()
    }

    /// Skips to the `close` that ends an arithmetic expansion or a
    /// `${...}` whose first `depth` openers are consumed, recording in
    /// `subs` the command substitutions met on the way, at any nesting and
    /// inside double quotes too (`${a:-${b:-"$(...)"}}`, `$(( a[$(...)] ))`):
    /// each is read once, in one pass, with no recursion. Returns where the
    /// first `close` that left one opener open was.
    fn expansion(
        &mut self,
        open: u8,
        close: u8,
        mut depth: usize,
        subs: &mut Vec<String>,
        quoted: bool,
    ) -> Option<usize> {
        let mut first_close = None;
        let mut in_double = false;
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.pos += 1,
                b'\'' if !quoted && !in_double => {
                    self.pos += 1;
                    self.skip_quoted(b'\'');
                    continue;
                }
                b'"' => in_double = !in_double,
                b'`' => {
                    self.pos += 1;
                    subs.push(self.backquoted());
                    continue;
                }
                b'$' if self.peek_at(1) == Some(b'(') && self.peek_at(2) != Some(b'(') => {
                    self.pos += 2;
                    subs.push(self.balanced_parens());
                    continue;
                }
                // Braces and parentheses inside double quotes do not count.
                _ if in_double => {}
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 1 && first_close.is_none() {
                        first_close = Some(self.pos);
                    }
                    if depth == 0 {
                        self.pos += 1;
                        return first_close;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.errors.push(LexError::UnterminatedSubstitution);
        self.pos = self.src.len();
        None
    }

    /// Reads the inside of `"..."` after the opening quote.
    fn double_quoted(&mut self, text: &mut Vec<u8>, subs: &mut Vec<String>) {
        loop {
            match self.peek() {
                None => {
                    self.errors.push(LexError::UnterminatedQuote('"'));
                    return;
                }
                Some(b'"') => {
                    self.pos += 1;
                    return;
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                        text.push(c);
                        self.pos += 2;
                    }
                    _ => {
                        text.push(b'\\');
                        self.pos += 1;
                    }
                },
                Some(b'$' | b'`') => self.dollar_or_backquote(text, subs, true),
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// Reads the inside of `$'...'` after the opening quote, decoding escapes.
    fn ansi_c(&mut self, text: &mut Vec<u8>) {
        loop {
            let Some(c) = self.peek() else {
                self.errors.push(LexError::UnterminatedQuote('\''));
                return;
            };
            self.pos += 1;
            if c == b'\'' {
                return;
            }
            if c != b'\\' {
                text.push(c);
                continue;
            }
            let Some(e) = self.peek() else {
                text.push(b'\\');
                continue;
            };
            self.pos += 1;
            match e {
                b'n' => text.push(b'\n'),
                b't' => text.push(b'\t'),
                b'r' => text.push(b'\r'),
                b'a' => text.push(0x07),
                b'b' => text.push(0x08),
                b'e' | b'E' => text.push(0x1b),
                b'f' => text.push(0x0c),
                b'v' => text.push(0x0b),
                b'x' => {
                    let value = self.radix_digits(16, 2);
                    push_code(text, value);
                }
                b'u' => {
                    let value = self.radix_digits(16, 4);
                    push_code(text, value);
                }
                b'U' => {
                    let value = self.radix_digits(16, 8);
                    push_code(text, value);
                }
                b'0'..=b'7' => {
                    self.pos -= 1;
                    let value = self.radix_digits(8, 3);
                    push_code(text, value);
                }
                b'c' => {
                    if let Some(x) = self.peek() {
                        self.pos += 1;
                        text.push(x & 0x1f);
                    }
                }
                other => text.push(other),
            }
        }
    }

    fn radix_digits(&mut self, radix: u32, max: usize) -> Option<u32> {
        let mut value: Option<u32> = None;
        for _ in 0..max {
            let Some(d) = self.peek().and_then(|c| char::from(c).to_digit(radix)) else {
                break;
            };
            self.pos += 1;
            value = Some(value.unwrap_or(0) * radix + d);
        }
        value
    }

    /// Skips to the `)` matching an already consumed `(`, returning the text
    /// in between. Quotes, escapes and nested parentheses are respected.
    fn balanced_parens(&mut self) -> String {
        self.balanced(b'(', b')')
    }

    /// Skips to the `close` matching an already consumed `open`, returning
    /// the text in between (all of the rest, and an error, when unbalanced).
    fn balanced(&mut self, open: u8, close: u8) -> String {
        let start = self.pos;
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            match c {
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        let body = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                        self.pos += 1;
                        return body;
                    }
                }
                b'\\' => self.pos += 1,
                b'\'' | b'"' | b'`' => {
                    self.pos += 1;
                    self.skip_quoted(c);
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.errors.push(LexError::UnterminatedSubstitution);
        self.pos = self.src.len();
        String::from_utf8_lossy(&self.src[start..]).into_owned()
    }

    /// Skips past the closing `quote`, the opening one already consumed.
    fn skip_quoted(&mut self, quote: u8) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == quote {
                return;
            }
            if c == b'\\' && quote != b'\'' {
                self.pos += 1;
            }
        }
        self.pos = self.src.len();
    }
}

/// Appends the character `value` as UTF-8 (bytes below 0x80 as themselves).
fn push_code(text: &mut Vec<u8>, value: Option<u32>) {
    let Some(value) = value else {
        return;
    };
    if let Ok(byte) = u8::try_from(value)
        && byte < 0x80
    {
        text.push(byte);
        return;
    }
    let c = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0u8; 4];
    text.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// The command substitutions in text that undergoes expansion but not word
/// splitting (an unquoted heredoc body): `$(...)` and backquotes.
pub(crate) fn substitutions_in(body: &str) -> Vec<String> {
    if !body.contains("$(") && !body.contains('`') {
        return Vec::new();
    }
    let mut lexer = Lexer::new(body);
    let mut subs = Vec::new();
    let mut sink = Vec::new();
    while let Some(c) = lexer.peek() {
        match c {
            b'\\' => lexer.pos += 2,
            b'$' | b'`' => lexer.dollar_or_backquote(&mut sink, &mut subs, true),
            _ => lexer.pos += 1,
        }
    }
    subs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<String> {
        lex(src)
            .0
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some(w.text),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(
            words(r#"git commit -m "a \"b\" $x" 'c d' e\ f $'\x72\x6d'"#),
            ["git", "commit", "-m", r#"a "b" $x"#, "c d", "e f", "rm"]
        );
    }

    #[test]
    fn operators_split_words() {
        let (tokens, errors) = lex("a&&b||c;d|e&f\ng");
        assert!(errors.is_empty());
        let ops: Vec<Op> = tokens
            .iter()
            .filter_map(|t| match t {
                Token::Op(op) => Some(*op),
                _ => None,
            })
            .collect();
        assert_eq!(
            ops,
            [Op::And, Op::Or, Op::Semi, Op::Pipe, Op::Amp, Op::Newline]
        );
    }

    #[test]
    fn comment_runs_to_end_of_line_only_at_word_start() {
        assert_eq!(words("echo a#b # rm -rf /\nls"), ["echo", "a#b", "ls"]);
    }

    #[test]
    fn substitutions_are_recorded() {
        let (tokens, _) = lex(r#"echo "$(git reset --hard)" `rm -rf /` $((1+2))"#);
        let subs: Vec<String> = tokens
            .into_iter()
            .flat_map(|t| match t {
                Token::Word(w) => w.subs,
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(subs, ["git reset --hard", "rm -rf /"]);
    }

    #[test]
    fn substitutions_inside_arithmetic_and_parameter_expansions_are_recorded() {
        let subs = |src: &str| -> Vec<String> {
            lex(src)
                .0
                .into_iter()
                .flat_map(|t| match t {
                    Token::Word(w) => w.subs,
                    _ => Vec::new(),
                })
                .collect()
        };
        assert_eq!(subs("echo $(( $(a) + `b` ))"), [" a", "b"].map(str::trim));
        assert_eq!(subs("echo ${x:-$(a)} ${y:-${z:-`b`}}"), ["a", "b"]);
        assert_eq!(subs("echo \"${x:-'$(a)'}\" ${y:-'$(b)'}"), ["a"]);
        assert_eq!(subs("echo ${x:-\"}$(a)\"}"), ["a"]);
        assert_eq!(subs("echo $((a) )"), ["(a) "]);
        assert_eq!(subs("echo $((1+2)) ${#x} ${x/a/b}"), Vec::<String>::new());
        // The text after the expansion is read as before.
        assert_eq!(words("echo ${x:-a} b; ls"), ["echo", "${x:-a}", "b", "ls"]);
    }

    #[test]
    fn heredoc_body_is_read_after_the_line() {
        let (tokens, errors) = lex("cat <<'EOF' | psql\nDROP TABLE x;\nEOF\nls");
        assert!(errors.is_empty());
        let body = tokens.iter().find_map(|t| match t {
            Token::Redirect(r) => r.body.clone(),
            _ => None,
        });
        assert_eq!(body.as_deref(), Some("DROP TABLE x;\n"));
        assert_eq!(
            words("cat <<'EOF' | psql\nDROP TABLE x;\nEOF\nls"),
            ["cat", "psql", "ls"]
        );
    }

    #[test]
    fn fd_numbers_belong_to_redirections() {
        assert_eq!(words("make 2>&1 >out.log 3<in"), ["make"]);
        assert_eq!(words("echo 2 > x"), ["echo", "2"]);
    }

    #[test]
    fn unterminated_quote_is_an_error() {
        assert_eq!(lex("echo 'abc").1, [LexError::UnterminatedQuote('\'')]);
        assert_eq!(lex("echo \"abc").1, [LexError::UnterminatedQuote('"')]);
        assert_eq!(lex("echo $(ls").1, [LexError::UnterminatedSubstitution]);
    }
}
