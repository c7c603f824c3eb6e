//! PURE: the text `echo` and `printf` would write, for the pipe or file
//! they write to (`echo 'git reset --hard' | sh`).

/// The text `echo`/`printf` would write: the arguments, options dropped.
pub(super) fn pipe_text(args: &[String]) -> String {
    let mut text = args
        .iter()
        .skip_while(|a| {
            a.len() > 1
                && a.starts_with('-')
                && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
        })
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    text.push('\n');
    text
}

/// The text `printf FORMAT ARGS...` would write, roughly: `\n`, `\t` and
/// `\\` decoded, each `%s` (or other conversion) replaced by the next
/// argument, and arguments left over appended.
pub(super) fn printf_text(args: &[String]) -> String {
    let args: Vec<&String> = args.iter().skip_while(|a| a.starts_with('-')).collect();
    let Some((format, rest)) = args.split_first() else {
        return String::new();
    };
    let mut rest = rest.iter();
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('\\', Some('n')) => {
                chars.next();
                out.push('\n');
            }
            ('\\', Some('t')) => {
                chars.next();
                out.push('\t');
            }
            ('\\', Some('\\')) => {
                chars.next();
                out.push('\\');
            }
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            ('%', Some(_)) => {
                // Skip flags and width up to the conversion letter.
                for next in chars.by_ref() {
                    if next.is_ascii_alphabetic() {
                        break;
                    }
                }
                if let Some(arg) = rest.next() {
                    out.push_str(arg);
                }
            }
            _ => out.push(c),
        }
    }
    for arg in rest {
        out.push(' ');
        out.push_str(arg);
    }
    out
}
