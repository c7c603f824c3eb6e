//! PURE: small text helpers for what people read. Untrusted text (commit
//! subjects, ref names, program output) passes through [`one_line`] before
//! it reaches a terminal, so control characters cannot repaint a prompt.

/// Collapses whitespace, drops control characters and cuts `s` to `max`
/// characters (with `...`).
pub fn one_line(s: &str, max: usize) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect();
    let joined = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > max {
        format!("{}...", joined.chars().take(max).collect::<String>())
    } else {
        joined
    }
}

/// The first ten characters of an object id.
pub fn short_oid(oid: &str) -> &str {
    oid.get(..10).unwrap_or(oid)
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The bytes of the hex `text` ([`hex`] read back); `None` when it is not
/// hex of whole bytes.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// True for a name that holds a credential: an environment variable
/// (`PGPASSWORD`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `MYSQL_PWD`), a
/// flag (`--password`, `--api-key`) or a header (`X-Api-Key`). Judged by
/// whole parts of the name, so that `tokenizer`, `--author`, `keyboard`,
/// `sort --key` or `$PWD` are not credentials.
fn names_a_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let parts: Vec<&str> = upper.split(['_', '-']).filter(|p| !p.is_empty()).collect();
    parts.iter().enumerate().any(|(i, part)| {
        let ends = |word: &str| part.ends_with(word);
        match *part {
            "PASS" | "COOKIE" | "CREDENTIAL" | "CREDENTIALS" => true,
            // A key or a password in short is a credential as part of a
            // longer name (`API_KEY`, `DB_PWD`), not alone.
            "KEY" | "PWD" => i > 0,
            _ => {
                ends("PASSWORD")
                    || ends("PASSWD")
                    || ends("TOKEN")
                    || ends("SECRET")
                    || ends("APIKEY")
            }
        }
    })
}

/// True for a header whose value is a credential: `Authorization`,
/// `Cookie`, and names like `X-Api-Key` or `X-Auth-Token` (`auth: fix
/// login` in a commit subject is no header).
fn is_credential_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
    ]
    .contains(&lower.as_str())
        || (name.contains('-') && names_a_credential(name))
}

/// Masks the value of every credential-bearing header in `text`
/// (`Authorization: Bearer abc`, `-H 'X-Api-Key: abc'`, `Cookie: a=b`),
/// up to the end of the quoted argument or the line. The scheme of an
/// `Authorization` header stays readable.
fn mask_headers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(colon) = rest.find(':') {
        let before = &rest[..colon];
        // The name starts after the last character that is not part of
        // one (which may take several bytes: `café: fix`).
        let name_start = before
            .char_indices()
            .rfind(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &before[name_start..];
        let after = &rest[colon + 1..];
        // A header: a name of its own, then a space (`https://`, `host:port` are no headers).
        let is_header = after.starts_with(' ') && is_credential_header(name);
        if !is_header {
            out.push_str(&rest[..=colon]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..=colon]);
        let value = after.trim_start_matches(' ');
        out.push_str(&after[..after.len() - value.len()]);
        let end = value.find(['\'', '"', '\n', '\r']).unwrap_or(value.len());
        let (head, tail) = value.split_at(end);
        // `Bearer`, `Basic`, `token`: the scheme of an authorization, when a
        // credential follows it.
        if name.to_ascii_lowercase().ends_with("authorization")
            && let Some((scheme, secret)) = head.split_once(' ')
            && !secret.trim().is_empty()
            && scheme.chars().all(|c| c.is_ascii_alphabetic())
        {
            out.push_str(scheme);
            out.push(' ');
        }
        if !head.trim().is_empty() {
            out.push_str("***");
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// Masks credentials in command lines word by word: env assignments
/// (`PGPASSWORD=x`, `export API_TOKEN="a b"`), credential flags
/// (`--password=x`, `--password x`, `--token x`), `mysql -px` (in the
/// mysql command's own words only), and the password of `-u user:pass` /
/// `--user user:pass`.
fn mask_words(text: &str) -> String {
    const MYSQL: [&str; 4] = ["mysql", "mysqldump", "mysqladmin", "mariadb"];
    let mut mysql = false;
    let mut out = String::with_capacity(text.len());
    // Masking the next word (after `--password`), or words up to a closing quote.
    let mut mask_next = false;
    let mut user_next = false;
    let mut open_quote: Option<char> = None;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let ws = rest.len() - rest.trim_start().len();
        if ws > 0 {
            if open_quote.is_none() {
                out.push_str(&rest[..ws]);
            }
            i += ws;
            continue;
        }
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..len];
        i += len;
        if let Some(q) = open_quote {
            if word.ends_with(q) {
                open_quote = None;
                out.push(q);
            }
            continue;
        }
        if mask_next {
            mask_next = false;
            out.push_str(&masked_value(word, &mut open_quote));
            continue;
        }
        if user_next {
            user_next = false;
            if let Some((user, _)) = word.split_once(':') {
                out.push_str(user);
                out.push_str(":***");
                continue;
            }
        }
        let bare = word.trim_start_matches(['\'', '"']);
        let lead = &word[..word.len() - bare.len()];
        // The words of a mysql command, up to the next command of the line.
        if MYSQL.contains(&bare.rsplit('/').next().unwrap_or(bare)) {
            mysql = true;
        } else if matches!(bare, "&&" | "||" | ";" | "|") {
            mysql = false;
        }
        if let Some((name, value)) = bare.split_once('=') {
            let flag = name.trim_start_matches('-');
            let is_name = !flag.is_empty()
                && flag
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if is_name && names_a_credential(flag) && !value.is_empty() {
                out.push_str(lead);
                out.push_str(name);
                out.push('=');
                out.push_str(&masked_value(value, &mut open_quote));
                continue;
            }
            if is_name && flag == "user" && value.contains(':') {
                let (user, _) = value.split_once(':').expect("it contains `:`");
                out.push_str(&format!("{lead}{name}={user}:***"));
                continue;
            }
        }
        if bare.starts_with("--") && names_a_credential(&bare[2..]) && !bare.contains('=') {
            mask_next = true;
        } else if bare == "-u" || bare == "--user" {
            user_next = true;
        } else if mysql && bare.len() > 2 && bare.starts_with("-p") && !bare.starts_with("--") {
            out.push_str(lead);
            out.push_str("-p***");
            continue;
        }
        mysql &= !word.ends_with(';');
        out.push_str(word);
    }
    out
}

/// `***` for a value, keeping its quotes; a value whose quote does not close
/// in this word masks the following words up to the closing quote.
fn masked_value(value: &str, open_quote: &mut Option<char>) -> String {
    let Some(q) = value.chars().next().filter(|c| *c == '\'' || *c == '"') else {
        return "***".into();
    };
    if value.len() > 1 && value.ends_with(q) {
        format!("{q}***{q}")
    } else {
        *open_quote = Some(q);
        format!("{q}***")
    }
}

/// Masks credentials wherever text may carry them, before any prompt, log
/// line or review request is written: in URLs (`https://user:token@host`),
/// headers (`Authorization: Bearer ...`, `X-Api-Key: ...`), env assignments
/// (`PGPASSWORD=...`, `*_TOKEN=...`), credential flags (`--password ...`,
/// `mysql -p...`, `curl -u user:pass`), and token-shaped strings (API
/// keys, access tokens), which become `[REDACTED]`.
pub fn redact_secrets(text: &str) -> String {
    if cannot_hide_a_secret(text) {
        return text.to_owned();
    }
    redact_all(text)
}

fn redact_all(text: &str) -> String {
    redact_tokens(&mask_words(&mask_headers(text)))
}

/// [`redact_secrets`] in place: `text` is left untouched (not copied) when
/// it cannot hide a secret.
pub fn redact_secrets_in_place(text: &mut String) {
    if !cannot_hide_a_secret(text) {
        *text = redact_all(text);
    }
}

/// True when [`redact_secrets`] leaves `text` as it is, found in one pass:
/// ASCII letters, digits and `._-/()` only (no space, `=`, `:`, `@` or
/// quote for a credential to follow), and no word (a run of letters,
/// digits, `_` and `-`) long enough for a token unless it is hex (an
/// object id). Most of what an audit line keeps is this: ref names, object
/// ids, paths, `(delete)`.
fn cannot_hide_a_secret(text: &str) -> bool {
    let (mut word, mut hex) = (0, true);
    for b in text.bytes() {
        match b {
            b'.' | b'/' | b'(' | b')' => (word, hex) = (0, true),
            b if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' => {
                word += 1;
                hex &= b.is_ascii_hexdigit();
                if word >= 16 && !hex {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// Replaces token-shaped strings (API keys, access tokens) with
/// `[REDACTED]`, and credentials in URLs.
fn redact_tokens(text: &str) -> String {
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_",
        "pk_",
        "rk_",
        "ghp_",
        "gho_",
        "ghs_",
        "ghu_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "AKIA",
        "ASIA",
        "AIza",
        "hf_",
        "npm_",
    ];
    let text = redact_text(text);
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let w = word.as_str();
        let tokenish = w.len() >= 16 && PREFIXES.iter().any(|p| w.starts_with(p));
        let long_mixed = w.len() >= 32
            && !w.bytes().all(|b| b.is_ascii_hexdigit())
            && w.bytes().any(|b| b.is_ascii_digit())
            && w.bytes().any(|b| b.is_ascii_alphabetic());
        if tokenish || long_mixed {
            out.push_str("[REDACTED]");
        } else {
            out.push_str(w);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Replaces credentials in a URL (`https://user:token@host` becomes
/// `https://***@host`).
pub fn redact_url(url: &str) -> String {
    redact_text(url)
}

/// Redacts credentials of every URL inside free text (an error message, a
/// command line): `scheme://user:secret@host` becomes `scheme://***@host`.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest
            .find(|c: char| c == '/' || c.is_whitespace() || c == '\'' || c == '"' || c == '`')
            .unwrap_or(rest.len());
        if let Some(at) = rest[..end].rfind('@') {
            out.push_str("***@");
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_reads_back() {
        let bytes = [0x00, 0x7f, 0xab, 0xff];
        assert_eq!(unhex(&hex(&bytes)).as_deref(), Some(&bytes[..]));
        assert_eq!(unhex("AbCd"), Some(vec![0xab, 0xcd]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("é1"), None);
    }

    /// Issue 26 item 12: text outside ASCII next to a `word:` (a commit
    /// subject, an `echo`) is redacted, never a panic.
    #[test]
    fn text_outside_ascii_before_a_colon_is_redacted_not_a_panic() {
        for text in [
            "git commit -m \"café: fix\"",
            "echo \"Größe: 5\"",
            "x日本: y",
            "é:",
            "Authorization🔑: Bearer abc",
            "-H 'ünicode-Api-Key: sekret'",
        ] {
            let _ = redact_secrets(text);
            let mut copy = text.to_owned();
            redact_secrets_in_place(&mut copy);
        }
        assert_eq!(redact_secrets("café: fix"), "café: fix");
        assert_eq!(
            redact_secrets("curl -H 'Authorization: Bearer abc' -d café"),
            "curl -H 'Authorization: Bearer ***' -d café"
        );
        assert_eq!(
            redact_secrets("éAuthorization: Bearer abc"),
            "éAuthorization: Bearer ***"
        );
    }

    proptest::proptest! {
        // Any text at all: redaction never panics.
        #[test]
        fn redaction_never_panics(text in "(\\PC|[:@ '\"=/-]){0,40}") {
            let _ = redact_secrets(&text);
            let _ = redact_text(&text);
        }

        // The fast path of `redact_secrets` must never keep what a pass
        // would have masked: text it calls plain is text no pass changes.
        #[test]
        fn text_called_plain_is_text_no_pass_changes(
            text in "[a-zA-Z0-9./()_ =:@'\"-]{0,48}|[0-9a-fA-F./()_-]{0,90}|\\(?(sk-|ghp_|AKIA|glpat-|hf_|xoxb-)?[a-zA-Z0-9_-]{0,40}(/[a-z0-9]{0,20})?\\)?"
        ) {
            if cannot_hide_a_secret(&text) {
                proptest::prop_assert_eq!(redact_all(&text), text);
            }
        }
    }

    #[test]
    fn ref_names_and_object_ids_are_plain_and_tokens_are_not() {
        for plain in [
            "refs/heads/main",
            "refs/heads/release/1.2",
            "0123456789abcdef0123456789abcdef01234567",
            "src/some_module/file-name.rs",
            "(delete)",
            "",
        ] {
            assert!(cannot_hide_a_secret(plain), "{plain}");
        }
        for secret in [
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "refs/heads/sk-live-0123456789abcdef",
            "PGPASSWORD=hunter2",
            "https://user:token@host/repo",
            "a b",
            "Authorization:",
        ] {
            assert!(!cannot_hide_a_secret(secret), "{secret}");
        }
    }

    #[test]
    fn credentials_in_commands_headers_and_env_assignments_are_masked() {
        for (input, want) in [
            ("PGPASSWORD=hunter2 psql -h db", "PGPASSWORD=*** psql -h db"),
            ("mysql -uroot -phunter2 shop", "mysql -uroot -p*** shop"),
            ("mkdir -pv dir", "mkdir -pv dir"),
            (
                "mysqldump --password=hunter2 shop",
                "mysqldump --password=*** shop",
            ),
            (
                "pg_dump --password hunter2 shop",
                "pg_dump --password *** shop",
            ),
            (
                "curl -H 'Authorization: Bearer abc.def' https://x",
                "curl -H 'Authorization: Bearer ***' https://x",
            ),
            (
                "curl -H \"X-Api-Key: s3cr3t\" https://x",
                "curl -H \"X-Api-Key: ***\" https://x",
            ),
            (
                "curl -u alice:hunter2 https://x",
                "curl -u alice:*** https://x",
            ),
            (
                "curl --user=alice:hunter2 https://x",
                "curl --user=alice:*** https://x",
            ),
            ("GITHUB_TOKEN=abc git push", "GITHUB_TOKEN=*** git push"),
            (
                "export AWS_SECRET_ACCESS_KEY=abc",
                "export AWS_SECRET_ACCESS_KEY=***",
            ),
            ("env MY_KEY='a b c' run", "env MY_KEY='***' run"),
            ("DB_PASSWORD=\"x\" tool", "DB_PASSWORD=\"***\" tool"),
            (
                "tool --api-key abc --token=def",
                "tool --api-key *** --token=***",
            ),
            (
                "git push https://u:tok3n@h.com/r.git main",
                "git push https://***@h.com/r.git main",
            ),
            ("echo ghp_0123456789abcdefghij0123", "echo [REDACTED]"),
            (
                "git push --force origin main",
                "git push --force origin main",
            ),
            ("git reset --hard HEAD~2", "git reset --hard HEAD~2"),
            (
                "curl -H 'X-Api-Key: a b' https://x",
                "curl -H 'X-Api-Key: ***' https://x",
            ),
            ("MYSQL_PWD=hunter2 mysql shop", "MYSQL_PWD=*** mysql shop"),
        ] {
            assert_eq!(redact_secrets(input), want, "{input}");
        }
    }

    /// Ordinary text keeps its words: commit subjects, authors, flags and
    /// variables that only look like credentials reach the verifier intact.
    #[test]
    fn ordinary_text_is_not_masked() {
        for text in [
            "auth: fix login redirect",
            "tokenizer: handle empty input",
            "keyboard: add shortcuts",
            "git commit --author='Alice Smith <a@x>' -m wip",
            "git log --author alice",
            "sort --key=2 data.txt",
            "PWD=/tmp make",
            "GIT_AUTHOR_NAME=Alice git commit",
            "mysql shop < dump.sql && mkdir -pv dir",
            "mysql shop; mkdir -pv dir",
        ] {
            assert_eq!(redact_secrets(text), text);
        }
    }

    #[test]
    fn one_line_strips_control_characters_and_cuts() {
        assert_eq!(one_line("fix\x1b[2J the\n\tbug", 100), "fix[2J the bug");
        assert_eq!(one_line("abcdef", 3), "abc...");
        assert_eq!(short_oid("0123456789abcdef"), "0123456789");
        assert_eq!(short_oid("abc"), "abc");
    }

    #[test]
    fn credentials_in_urls_are_redacted() {
        assert_eq!(
            redact_url("https://user:tok3n@example.com/r.git"),
            "https://***@example.com/r.git"
        );
        assert_eq!(
            redact_url("https://example.com/r.git"),
            "https://example.com/r.git"
        );
        assert_eq!(
            redact_url("git@github.com:o/r.git"),
            "git@github.com:o/r.git"
        );
        assert_eq!(redact_url("../remote.git"), "../remote.git");
    }

    #[test]
    fn credentials_in_text_are_redacted() {
        assert_eq!(
            redact_text(
                "`git ls-remote -- https://u:s3cret@h.com/r.git` failed: fatal: https://u:s3cret@h.com/r.git/ not found"
            ),
            "`git ls-remote -- https://***@h.com/r.git` failed: fatal: https://***@h.com/r.git/ not found"
        );
        assert_eq!(redact_text("no url here"), "no url here");
        assert_eq!(redact_text("ssh://git@host:22/x"), "ssh://***@host:22/x");
    }
}
