//! PURE, and the standard library only: a command line as the kernel
//! keeps it. The platform's process readers use it, and so does the hook
//! gate (`hooks/gate.rs`, which compiles this file on its own).

/// The words of a command line laid out as the kernel keeps it: each
/// ended by a NUL (`/proc/<pid>/cmdline`, and the arguments in macOS's
/// `KERN_PROCARGS2`); `count` words at most. Empty words are kept: git
/// reads `git commit -m ''` as three words and a message.
pub fn nul_words(raw: &[u8], count: usize) -> Vec<String> {
    let raw = raw.strip_suffix(b"\0").unwrap_or(raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|b| *b == 0)
        .take(count)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_ended_by_nuls_are_read_as_the_kernel_lays_them_out() {
        assert_eq!(
            nul_words(b"git\0commit\0-m\0\0", 9),
            ["git", "commit", "-m", ""]
        );
        assert_eq!(nul_words(b"git\0push\0", 1), ["git"]);
        assert_eq!(nul_words(b"", 9), Vec::<String>::new());
        assert_eq!(nul_words(b"\0", 9), Vec::<String>::new());
    }
}
