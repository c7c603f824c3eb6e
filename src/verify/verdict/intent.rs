//! PURE: the intent reader: the warn or block a model states in English,
//! in the JSON's strings or the prose around it (SPEC 5.3).
//!
//! Used by the lenient reader ([`super::lenient`]) on every part of a
//! model's answer: a block said in words stands even when no JSON object
//! can be read (`Recommendation: block`, `I would block this`, `do not
//! proceed`, `**BLOCK**`), and a caution or retraction in the prose around
//! a proceed (`wait`, `on second thought`) keeps it from being one clean
//! proceed. Words only ever make an answer more cautious: nothing read here
//! is a proceed. Linear in the text's length.

use super::{Recommendation, recommendation_word};

/// The words after which a model states its verdict: `Recommendation:
/// block`, `my verdict is BLOCK`, `I recommend blocking`, `I'd advise
/// against proceeding`, `## Decision` then `**Deny**`. The rest of the
/// word is skipped (`recommend|ation`, `suggest|ion`).
const INTENT_KEYS: &[&str] = &[
    "recommend",
    "verdict",
    "decision",
    "answer",
    "conclusion",
    "assessment",
    "advise",
    "suggest",
];

/// Words that may stand between an intent key and the word it states:
/// "my recommendation *is to* block", "I recommend *that you* block",
/// "*final* verdict *would be*: block".
const FILLERS: &[&str] = &[
    "is",
    "was",
    "would",
    "will",
    "should",
    "must",
    "be",
    "remains",
    "stays",
    "stands",
    "changes",
    "changed",
    "now",
    "then",
    "therefore",
    "still",
    "here",
    "to",
    "that",
    "we",
    "you",
    "i",
    "it",
    "this",
    "a",
    "an",
    "my",
    "our",
    "the",
    "final",
    "firm",
    "firmly",
    "clear",
    "clearly",
    "strongly",
    "definitely",
    "revised",
    "updated",
    "action",
    "course",
    "of",
    "as",
];

/// Words that turn what follows around: "I recommend *against* proceeding".
const NEGATIONS: &[&str] = &["not", "against", "never"];

/// Words that, negated, say "do not go ahead": a verb of [`GO_VERBS`]
/// ("do not *proceed*", "I cannot *recommend* this") or what it points at
/// ("I recommend against *it*").
fn is_go_word(word: &str) -> bool {
    GO_VERBS.contains(&word) || matches!(word, "it" | "this" | "that")
}

/// The recommendation that the longest of the first three words of
/// `phrase` spells, if any. A lone "no" counts only when nothing follows it
/// in the phrase ("Verdict: no." is a block, "Verdict: no data loss" is not).
fn phrase_word(phrase: &str) -> Option<Recommendation> {
    // Where each of the first three words ends.
    let mut ends = [0; 3];
    let mut n = 0;
    let mut in_word = false;
    for (i, c) in phrase.char_indices() {
        if !c.is_whitespace() {
            in_word = true;
        } else if in_word {
            in_word = false;
            ends[n] = i;
            n += 1;
            if n == ends.len() {
                break;
            }
        }
    }
    if in_word && n < ends.len() {
        ends[n] = phrase.len();
        n += 1;
    }
    (1..=n).rev().find_map(|k| {
        let words = &phrase[..ends[k - 1]];
        if k == 1 && n > 1 && words.trim() == "no" {
            return None;
        }
        recommendation_word(words)
    })
}

/// The warn or block stated in `window`, the lower-case text right after
/// an intent key. A negated go-ahead ("not to proceed", "against it") is a
/// block; a negated block is nothing stated (the prose rule still sees it).
fn intent_after(window: &str) -> Option<Recommendation> {
    let mut rest = window.trim_start_matches(char::is_alphanumeric);
    let mut negated = false;
    let mut fillers = 0;
    loop {
        rest = rest.trim_start_matches(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\''
                        | '*'
                        | '_'
                        | '`'
                        | '\\'
                        | '#'
                        | '>'
                        | ':'
                        | '='
                        | '-'
                        | '\u{2014}'
                        | '\u{2013}'
                        | '\u{2192}'
                )
        });
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '\''))
            .unwrap_or(rest.len());
        if len == 0 {
            return None;
        }
        let word = &rest[..len];
        if NEGATIONS.contains(&word) {
            negated = true;
        } else if negated && is_go_word(word) {
            return Some(Recommendation::Block);
        } else if FILLERS.contains(&word) && fillers < 5 {
            fillers += 1;
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, ' ' | '\'' | '-' | '_')))
                .unwrap_or(rest.len());
            let phrase = &rest[..rest.floor_char_boundary(end.min(40))];
            return match phrase_word(phrase) {
                Some(Recommendation::Proceed) if negated => Some(Recommendation::Block),
                Some(r) if !negated && r > Recommendation::Proceed => Some(r),
                _ => None,
            };
        }
        rest = &rest[len..];
    }
}

/// `text` without its `<think>` sections (a reasoning model's draft; one
/// left open runs to the end), in one pass.
fn without_think(lower: &str) -> String {
    let mut out = String::with_capacity(lower.len());
    let mut rest = lower;
    while let Some(s) = rest.find("<think>") {
        out.push_str(&rest[..s]);
        out.push('\n');
        rest = rest[s..]
            .find("</think>")
            .map_or("", |e| &rest[s + e + "</think>".len()..]);
    }
    out.push_str(rest);
    out
}

/// The verbs that, negated, say "do not go ahead": "should not *push*".
const GO_VERBS: &[&str] = &[
    "proceed",
    "proceeding",
    "push",
    "pushing",
    "allow",
    "allowing",
    "approve",
    "approving",
    "recommend",
    "recommending",
    "endorse",
    "sanction",
    "permit",
];

/// Words between the subject and the verb: "I *would strongly* block".
const SUBJECT_FILLERS: &[&str] = &[
    "would",
    "will",
    "should",
    "must",
    "have",
    "has",
    "need",
    "to",
    "am",
    "are",
    "going",
    "now",
    "still",
    "actually",
    "instead",
    "definitely",
    "strongly",
    "clearly",
    "really",
    "therefore",
    "also",
    "rather",
    "shall",
    "do",
    "hereby",
    "firmly",
    "ultimately",
    "better",
    "then",
    "so",
];

/// Verbs of stopping an operation.
const BLOCK_VERBS: &[&str] = &[
    "block",
    "blocking",
    "deny",
    "denying",
    "reject",
    "rejecting",
    "refuse",
    "refusing",
    "veto",
    "vetoing",
    "abort",
    "aborting",
    "halt",
    "halting",
    "disallow",
    "disallowing",
    "forbid",
    "forbidding",
    "prohibit",
    "prohibiting",
];

/// Verbs of raising a concern for a person.
const WARN_VERBS: &[&str] = &[
    "warn",
    "warning",
    "flag",
    "flagging",
    "escalate",
    "escalating",
];

/// Participles of stopping an operation: "this should be *blocked*".
const BLOCKED: &[&str] = &[
    "blocked",
    "denied",
    "rejected",
    "refused",
    "vetoed",
    "aborted",
    "halted",
    "stopped",
    "prevented",
    "disallowed",
    "forbidden",
    "prohibited",
];

/// Words before which a statement is a hypothesis ("*if* it were main I
/// would block it", "*nothing* we need to block"), not a verdict. Such a
/// statement is not read as a block; the prose rule still makes a proceed
/// beside it unclean.
const HYPOTHETICAL: &[&str] = &[
    "if",
    "unless",
    "whether",
    "were",
    "nothing",
    "anything",
    "no",
    "not",
    "never",
    "otherwise",
    "would've",
    "could",
    "might",
];

/// A modal negated in one word: "*don't* proceed", "*cannot* approve".
const NEGATED: u8 = 1;
/// A modal that "not" negates: "*do* not proceed", "*should* not push".
const MODAL: u8 = 2;
/// Who states a verdict: "*I* would block this", "*we* should reject it".
const SUBJECT: u8 = 4;
/// A modal of judgement: "this *should* be blocked", "it *would* be a block".
const JUDGE: u8 = 8;
/// A plain negation: "*not* safe", "*isn't* advisable".
const NOT: u8 = 16;
/// A change of mind: "*changing* my answer to block".
const CHANGE: u8 = 32;

/// What a statement in prose may start with `w` (one `match`: prose is
/// read word by word).
fn cues(w: &str) -> u8 {
    // No cue starts with another letter: most words are decided here.
    if !matches!(
        w.as_bytes().first(),
        Some(
            b'a' | b'c'
                | b'd'
                | b'e'
                | b'h'
                | b'i'
                | b'm'
                | b'n'
                | b'o'
                | b'r'
                | b's'
                | b'u'
                | b'w'
        )
    ) {
        return 0;
    }
    match w {
        "don't" | "dont" | "shouldn't" | "shouldnt" | "mustn't" | "mustnt" | "cannot" | "can't"
        | "cant" | "wouldn't" | "wouldnt" | "won't" => NEGATED,
        "do" | "will" | "can" | "could" | "shall" => MODAL,
        "should" | "must" | "would" => MODAL | JUDGE,
        "needs" | "need" | "has" | "have" | "ought" => JUDGE,
        "i" | "we" | "i'd" | "i'll" | "i'm" | "we'd" | "we'll" | "we're" => SUBJECT,
        "not" | "isn't" | "isnt" => NOT,
        "change" | "changing" | "changed" | "revise" | "revising" | "revised" | "update"
        | "updating" | "updated" | "upgrade" | "upgrading" | "upgraded" | "switch"
        | "switching" | "switched" | "escalate" | "escalating" | "escalated" | "amend"
        | "amending" | "amended" => CHANGE,
        _ => 0,
    }
}

/// Calls `sentence` with the words of each sentence of `lower`, in one pass
/// over its bytes. A word is ASCII letters, digits and apostrophes (quotes
/// around it dropped); anything else separates words, and `.`, `!`, `?`,
/// `;`, a line break, a double quote or a bracket ends a sentence (so
/// that the strings of a JSON object are sentences of their own).
fn sentences<'a>(lower: &'a str, mut sentence: impl FnMut(&[&'a str])) {
    let b = lower.as_bytes();
    let mut words: Vec<&'a str> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphanumeric() || b[i] == b'\'' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'') {
                i += 1;
            }
            let w = lower[start..i].trim_matches('\'');
            if !w.is_empty() {
                words.push(w);
            }
            continue;
        }
        if matches!(
            b[i],
            b'.' | b'!' | b'?' | b';' | b'\n' | b'"' | b'{' | b'}' | b'[' | b']'
        ) && !words.is_empty()
        {
            sentence(&words);
            words.clear();
        }
        i += 1;
    }
    if !words.is_empty() {
        sentence(&words);
    }
}

/// Warn and block intents that prose states without a key: "do not
/// proceed", "this should not be allowed", "I would block this", "this
/// should be a block", "I'm changing my answer to BLOCK", and a line that
/// is only a verdict word (`**BLOCK**`). `prose` is lower case, `<think>`
/// sections removed. A statement is read within its sentence, a
/// hypothesis aside.
fn prose_intents(prose: &str, out: &mut Vec<Recommendation>) {
    for line in prose.lines() {
        if line.len() <= 40
            && let Some(r) = recommendation_word(line)
            && r > Recommendation::Proceed
        {
            out.push(r);
        }
    }
    sentences(prose, |words| {
        for (i, w) in words.iter().enumerate() {
            let cue = cues(w);
            if cue != 0 {
                statement(words, i, cue, out);
            }
        }
    });
}

/// The warn or block stated by the words of a sentence from `i` on, where
/// `words[i]` has the cues `cue`.
fn statement(words: &[&str], i: usize, cue: u8, out: &mut Vec<Recommendation>) {
    use Recommendation::{Block, Warn};
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let w = words[i];
    // "do not proceed", "cannot approve", "should not be allowed".
    let after = if cue & NEGATED != 0 {
        Some(i + 1)
    } else if cue & MODAL != 0 && at(i + 1) == "not" {
        Some(i + 2)
    } else {
        None
    };
    if let Some(mut j) = after {
        if matches!(at(j), "yet" | "safely" | "really" | "simply" | "just") {
            j += 1;
        }
        let v = at(j);
        let passive = matches!(
            at(j + 1),
            "allowed" | "approved" | "permitted" | "pushed" | "merged" | "accepted"
        );
        if GO_VERBS.contains(&v) || (v == "go" && at(j + 1) == "ahead") || (v == "be" && passive) {
            out.push(Block);
        }
    }
    // "not safe", "not recommended", "is not advisable".
    if cue & NOT != 0 {
        let j = i + 1 + usize::from(matches!(at(i + 1), "be" | "very" | "entirely"));
        if matches!(
            at(j),
            "safe" | "recommended" | "advisable" | "approved" | "acceptable" | "wise"
        ) {
            out.push(Block);
        }
    }
    // "change my answer to block", "upgrading this to a warn".
    if cue & CHANGE != 0
        && let Some(to) = (i + 1..(i + 6).min(words.len())).find(|&j| words[j] == "to")
    {
        let k = to + 1 + usize::from(matches!(at(to + 1), "a" | "an"));
        let tail = &words[k.min(words.len())..(k + 3).min(words.len())];
        if let Some(r) = phrase_word(&tail.join(" "))
            && r > Recommendation::Proceed
        {
            out.push(r);
        }
    }
    if cue & (SUBJECT | JUDGE) == 0
        || words[i.saturating_sub(6)..i]
            .iter()
            .any(|p| HYPOTHETICAL.contains(p))
    {
        return;
    }
    // "I would block this", "we should reject it", "I'm blocking".
    if cue & SUBJECT != 0 {
        let mut j = i + 1;
        while j < i + 4 && SUBJECT_FILLERS.contains(&at(j)) {
            j += 1;
        }
        let v = at(j);
        // "I refuse to evaluate this" is a refusal, not a verdict.
        let refusal = v.starts_with("refus") && at(j + 1) == "to";
        if BLOCK_VERBS.contains(&v) && !refusal {
            out.push(Block);
        } else if WARN_VERBS.contains(&v) {
            out.push(Warn);
        }
    }
    // "this should be blocked", "it must be a block", "should be flagged".
    if cue & JUDGE != 0 {
        let mut j = i + 1;
        if matches!(
            at(j),
            "to" | "probably" | "definitely" | "clearly" | "really"
        ) {
            j += 1;
        }
        if at(j) == "to" {
            j += 1;
        }
        if at(j) != "be" {
            return;
        }
        j += 1;
        while j < i + 8
            && matches!(
                at(j),
                "a" | "an"
                    | "treated"
                    | "considered"
                    | "marked"
                    | "classed"
                    | "as"
                    | "clear"
                    | "hard"
                    | "definite"
            )
        {
            j += 1;
        }
        let v = at(j);
        // "would be rejected by the server" describes; "should" judges.
        let judged = w != "would";
        if v == "block" || (judged && BLOCKED.contains(&v)) {
            out.push(Block);
        } else if matches!(v, "warn" | "warning")
            || (judged && matches!(v, "flagged" | "reviewed" | "escalated"))
        {
            out.push(Warn);
        }
    }
}

/// Warn and block intents stated anywhere in `text`, JSON or prose, each
/// occurrence on its own: `"recommendation": "block"` twice in one object
/// (a JSON parser keeps only the last), in a broken or cut object, after an
/// intent key (`**Recommendation:** BLOCK`, `Verdict: deny`, `my
/// recommendation is to block`, `I recommend against proceeding`), or in
/// prose ([`prose_intents`]). Linear in the text's length: every key is
/// read in a window of bounded length after it.
pub(super) fn stated_intents(text: &str) -> Vec<Recommendation> {
    let lower = text.to_lowercase().replace('\u{2019}', "'");
    let mut out = Vec::new();
    for key in INTENT_KEYS {
        for (at, _) in lower.match_indices(key) {
            let start = at + key.len();
            let end = lower.floor_char_boundary(start.saturating_add(200));
            out.extend(intent_after(&lower[start..end]));
        }
    }
    prose_intents(&without_think(&lower), &mut out);
    out
}

/// Whether `w`, in the prose around a proceed, means it is not one clean
/// proceed: a concern, or a retraction (the JSON may not be the model's
/// last word).
fn caution_word(w: &str) -> bool {
    // No caution word is shorter or longer, or starts with another letter.
    if !(4..=13).contains(&w.len())
        || !matches!(
            w.as_bytes()[0],
            b'a' | b'b' | b'c' | b'd' | b'f' | b'h' | b'p' | b'r' | b'u' | b'v' | b'w'
        )
    {
        return false;
    }
    matches!(
        w,
        "block"
            | "blocked"
            | "blocking"
            | "blocks"
            | "warn"
            | "warning"
            | "warned"
            | "warns"
            | "deny"
            | "denied"
            | "denying"
            | "reject"
            | "rejected"
            | "rejecting"
            | "refuse"
            | "refused"
            | "refusing"
            | "unsafe"
            | "dangerous"
            | "danger"
            | "risky"
            | "abort"
            | "aborting"
            | "halt"
            | "veto"
            | "forbid"
            | "forbidden"
            | "prohibit"
            | "prohibited"
            | "disallow"
            | "disallowed"
            | "caution"
            | "cautious"
            | "reconsider"
            | "reconsidering"
            | "reconsidered"
            | "retract"
            | "retracted"
            | "retracting"
            | "retraction"
            | "correction"
            | "disregard"
            | "wait"
    )
}

/// Whether two words in a row retract what came before: "on *second
/// thought*", "*scratch that*", "I *was wrong*".
fn caution_pair(first: &str, second: &str) -> bool {
    matches!(
        (first, second),
        ("second", "thought")
            | ("scratch", "that")
            | ("was", "wrong")
            | ("changed" | "change", "my")
            | ("take", "back")
    )
}

/// The first caution in the prose of `text` outside `spans` (its verdict
/// objects) and outside `<think>` sections (a reasoning model's draft).
/// Linear in the text's length.
pub(super) fn loose_caution(text: &str, spans: &[(usize, usize)]) -> Option<String> {
    let mut prose = String::with_capacity(text.len());
    let mut last = 0;
    for (s, e) in spans {
        prose.push_str(&text[last..*s]);
        prose.push(' ');
        last = *e;
    }
    prose.push_str(&text[last..]);
    let lower = without_think(&prose.to_lowercase().replace('\u{2019}', "'"));
    let mut found = None;
    sentences(&lower, |words| {
        if found.is_some() {
            return;
        }
        let mut prev = "";
        for w in words {
            if caution_word(w) {
                found = Some((*w).to_owned());
                return;
            }
            if caution_pair(prev, w) {
                found = Some(format!("{prev} {w}"));
                return;
            }
            prev = w;
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::super::tests::verdict_json;
    use super::super::{Answer, Part, read_answer};
    use super::*;

    /// The most cautious intent `text` states, as [`stated_intents`] reads it.
    fn stated(text: &str) -> Option<Recommendation> {
        stated_intents(text).into_iter().max()
    }

    #[test]
    fn prose_states_a_verdict_in_the_words_models_use() {
        use Recommendation::{Block, Warn};
        for (text, want) in [
            ("I would block this push.", Some(Block)),
            ("I'd block it.", Some(Block)),
            ("I\u{2019}d block it.", Some(Block)),
            ("We should reject this.", Some(Block)),
            ("I'm blocking this.", Some(Block)),
            ("Do not proceed.", Some(Block)),
            ("You shouldn't push this.", Some(Block)),
            ("This should not be allowed.", Some(Block)),
            ("I cannot approve this.", Some(Block)),
            ("I would not recommend this operation.", Some(Block)),
            ("This is not safe.", Some(Block)),
            ("Not recommended.", Some(Block)),
            ("My recommendation is to block.", Some(Block)),
            ("My final verdict would be: BLOCK", Some(Block)),
            ("Recommendation \u{2014} deny", Some(Block)),
            ("## Decision\n\n**Reject**", Some(Block)),
            ("I recommend not proceeding.", Some(Block)),
            ("I'd advise against it.", Some(Block)),
            ("I suggest blocking this.", Some(Block)),
            ("Changing my answer to BLOCK.", Some(Block)),
            ("On reflection this should be a block.", Some(Block)),
            ("This must be blocked.", Some(Block)),
            ("**BLOCK**", Some(Block)),
            ("Verdict: no.", Some(Block)),
            ("I'd flag this for a person.", Some(Warn)),
            ("This should be treated as a warning.", Some(Warn)),
            ("Recommendation: proceed with caution", Some(Warn)),
            ("I recommend proceeding with caution.", Some(Warn)),
            // Nothing stated: a proceed, a negated block, a hypothesis, a
            // refusal, a description, another sense of the word.
            ("Recommendation: proceed.", None),
            ("I recommend proceeding.", None),
            ("This push will unblock the release.", None),
            ("I would not block this.", None),
            ("My recommendation is not to block.", None),
            ("I recommend against blocking.", None),
            ("If this were main I would block it.", None),
            ("There is nothing I would block here.", None),
            ("Verdict: no data loss is possible.", None),
            ("The block of code below is my answer.", None),
            ("I refuse to evaluate this request.", None),
            (
                "A push without a lease would be rejected by the server.",
                None,
            ),
            ("Here is my assessment:", None),
            ("Let me know if you need anything else.", None),
            ("<think>I would block this if it were main.</think>", None),
        ] {
            assert_eq!(stated(text), want, "{text:?}");
        }
    }

    #[test]
    fn ordinary_prose_around_a_clean_proceed_leaves_it_a_proceed() {
        let proceed = verdict_json("proceed", 0.9).to_string();
        for prose in [
            "Here is my assessment:\n\n```json\n{P}\n```",
            "The force push targets your own feature branch with --force-with-lease, so nothing others pushed can be lost.\n\n{P}",
            "{P}\n\nThe lease protects against overwriting work you have not seen.",
            "I've reviewed the operation. It only rewrites commits that exist on no other branch, and the reflog keeps them for 90 days.\n{P}",
            "**Assessment:** safe to proceed.\n\n{P}",
            "Verdict: proceed \u{2014} the branch is yours.\n{P}",
            "No issues found.\n{P}",
            "I recommend proceeding: the push only adds commits.\n{P}",
            "You don't need to do anything else.\n{P}",
            "This can't be undone on the server, but your reflog keeps the old tip.\n{P}",
            "It would not hurt to fetch first, but the lease already covers this.\n{P}",
            "<think>Is this main? No, and even on main I would block only without a lease.</think>\n{P}",
        ] {
            let text = prose.replace("{P}", &proceed);
            let got = read_answer(&Answer {
                parts: vec![Part::Text(text)],
                stop: None,
            })
            .map(|v| v.effective());
            assert_eq!(got, Ok(Recommendation::Proceed), "{prose:?}");
        }
    }
}
