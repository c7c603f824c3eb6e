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

/// Replaces token-shaped strings (API keys, access tokens) with
/// `[REDACTED]`, and credentials in URLs.
pub fn redact_secrets(text: &str) -> String {
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
    let text = crate::facts::redact_text(text);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_strips_control_characters_and_cuts() {
        assert_eq!(one_line("fix\x1b[2J the\n\tbug", 100), "fix[2J the bug");
        assert_eq!(one_line("abcdef", 3), "abc...");
        assert_eq!(short_oid("0123456789abcdef"), "0123456789");
        assert_eq!(short_oid("abc"), "abc");
    }
}
