//! PURE: the server door's input (SPEC 3.5): git's `pre-receive` lines, the
//! push options (`git push -o vouch.skip=...`), who pushes, the server's
//! skip policy. What is measured on the server is [`crate::classify::facts::ServerFacts`].
//!
//! `git/receive.rs` measures the facts; `classify/server.rs` gives the tier.
//! Nothing here touches git, the environment or the terminal.

use serde::{Deserialize, Serialize};

use crate::input::hooks::{ParseError, PushUpdate};

/// The push option that skips verification, with a reason.
pub const SKIP_OPTION: &str = "vouch.skip";
/// The push option that names an approval (`git vouch approve <id>` on the server).
pub const APPROVE_OPTION: &str = "vouch.approve";

/// Parses all of `pre-receive` stdin: `<old oid> <new oid> <ref>` lines.
/// Each becomes a [`PushUpdate`] whose remote side is the server's ref
/// (`remote_oid` the old value, `local_oid` the new one), so that the
/// push's classification applies as it is.
pub fn parse_pre_receive(input: &[u8]) -> Result<Vec<PushUpdate>, ParseError> {
    let mut updates = Vec::new();
    for (line, text, lossy) in crate::input::hooks::input_lines(input) {
        let mut parts = text.splitn(3, ' ');
        let (Some(old), Some(new), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(ParseError {
                line,
                problem: format!(
                    "expected `<old oid> <new oid> <ref>`, got `{}`",
                    crate::input::text::one_line(&text, 120)
                ),
            });
        };
        for (what, oid) in [("old", old), ("new", new)] {
            if !crate::input::git_command::valid_oid(oid) {
                return Err(ParseError {
                    line,
                    problem: format!(
                        "the {what} object id `{}` is not 40 or 64 hex digits",
                        crate::input::text::one_line(oid, 80)
                    ),
                });
            }
        }
        if old.len() != new.len() || name.is_empty() {
            return Err(ParseError {
                line,
                problem: "the object ids differ in length, or the ref name is empty".into(),
            });
        }
        updates.push(PushUpdate {
            local_ref: name.to_owned(),
            local_oid: new.to_ascii_lowercase(),
            remote_ref: name.to_owned(),
            remote_oid: old.to_ascii_lowercase(),
            lossy_name: lossy,
        });
    }
    Ok(updates)
}

/// What the pusher asked for with `git push -o`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushOptions {
    /// `-o vouch.skip=<reason>`: `Some("")` when given without a reason.
    pub skip: Option<String>,
    /// `-o vouch.approve=<id>`.
    pub approve: Option<String>,
}

impl PushOptions {
    /// Reads git's push options (`GIT_PUSH_OPTION_<n>`, in order); a later
    /// option of the same name wins, as with git's own config.
    pub fn parse(options: &[String]) -> Self {
        let mut out = Self::default();
        for option in options {
            let (key, value) = option.split_once('=').unwrap_or((option, ""));
            match key.trim() {
                SKIP_OPTION => out.skip = Some(value.trim().to_owned()),
                APPROVE_OPTION => out.approve = Some(value.trim().to_owned()),
                _ => {}
            }
        }
        out
    }
}

/// Who pushes, as the server knows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pusher {
    /// The name.
    pub name: String,
    /// Where it comes from: the variable a server sets after authenticating
    /// (`GL_USERNAME`, `GITEA_PUSHER_NAME`, `REMOTE_USER`, `GL_USER`), or
    /// `committer` (what the pushed commit says: anyone can write it).
    pub source: String,
}

impl Pusher {
    /// The variables a server sets to the authenticated pusher, first wins:
    /// GitLab, Gitea and Forgejo, a web server's authentication (smart
    /// HTTP), gitolite (the ssh key's name).
    pub const VARS: [&'static str; 4] =
        ["GL_USERNAME", "GITEA_PUSHER_NAME", "REMOTE_USER", "GL_USER"];

    /// The pusher from the server's variables, else the committer of the
    /// pushed tip (unauthenticated).
    pub fn find(var: impl Fn(&str) -> Option<String>, committer: Option<String>) -> Option<Self> {
        Self::VARS
            .iter()
            .find_map(|name| {
                var(name)
                    .map(|v| v.trim().to_owned())
                    .filter(|v| !v.is_empty())
                    .map(|v| Self {
                        name: v,
                        source: (*name).to_owned(),
                    })
            })
            .or_else(|| {
                committer.map(|name| Self {
                    name,
                    source: "committer".into(),
                })
            })
    }

    /// The server authenticated this name (not read from a commit).
    pub fn is_authenticated(&self) -> bool {
        self.source != "committer"
    }

    /// `alice (GL_USERNAME)`.
    pub fn shown(&self) -> String {
        format!("{} ({})", self.name, self.source)
    }
}

/// Where a skip (`-o vouch.skip`) is allowed, from the server's git config
/// `vouch.allowSkip`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AllowSkip {
    /// Never.
    Never,
    /// Not on the default branch nor on a protected ref (the default).
    #[default]
    Unprotected,
    /// Anywhere.
    Always,
}

impl AllowSkip {
    /// Reads the config value; an unknown word is the strictest reading.
    pub fn from_value(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            None | Some("" | "unprotected") => Self::Unprotected,
            Some("always") => Self::Always,
            Some(_) => Self::Never,
        }
    }

    /// The config word.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::Unprotected => "unprotected",
            Self::Always => "always",
        }
    }
}

/// The server's policy on skips: where (`vouch.allowSkip`) and who
/// (`vouch.skipUser`, any number; none means any authenticated pusher).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipPolicy {
    /// Where a skip counts.
    pub allow: AllowSkip,
    /// Who may skip; empty: anyone the server authenticated.
    pub users: Vec<String>,
}

impl SkipPolicy {
    /// Whether `pusher` may skip verification of a push that touches the
    /// `protected` refs (default branch or protected by the policy);
    /// `Err` says why not.
    pub fn may_skip(&self, pusher: Option<&Pusher>, protected: &[String]) -> Result<(), String> {
        match self.allow {
            AllowSkip::Never => {
                return Err("the server does not allow skips (`vouch.allowSkip = never`)".into());
            }
            AllowSkip::Unprotected if !protected.is_empty() => {
                return Err(format!(
                    "the server does not allow skips on {} (`vouch.allowSkip = unprotected`)",
                    protected
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            _ => {}
        }
        if self.users.is_empty() {
            return Ok(());
        }
        match pusher {
            Some(p) if p.is_authenticated() && self.users.contains(&p.name) => Ok(()),
            Some(p) if p.is_authenticated() => Err(format!(
                "`{}` is not among the server's `vouch.skipUser`s",
                p.name
            )),
            _ => Err("the server cannot tell who pushes, and only named users may skip (`vouch.skipUser`)".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn receive_lines_become_updates_of_the_servers_refs() {
        let input =
            format!("{A} {B} refs/heads/main\n{A} {Z} refs/heads/old\n{Z} {B} refs/tags/v1\n");
        let u = parse_pre_receive(input.as_bytes()).unwrap();
        assert_eq!(u.len(), 3);
        assert_eq!(u[0].remote_ref, "refs/heads/main");
        assert_eq!((u[0].remote_oid.as_str(), u[0].local_oid.as_str()), (A, B));
        assert!(u[1].is_delete());
        assert!(u[2].is_create());
        assert!(parse_pre_receive(b"").unwrap().is_empty());
        assert_eq!(parse_pre_receive(b"nonsense\n").unwrap_err().line, 1);
        let bad = format!("{A} xyz refs/heads/main\n");
        assert!(parse_pre_receive(bad.as_bytes()).is_err());
    }

    #[test]
    fn push_options_name_a_skip_and_an_approval() {
        let o = PushOptions::parse(&[
            "ci.skip".into(),
            "vouch.skip=restoring main after a bad merge".into(),
            "vouch.approve=abc123".into(),
        ]);
        assert_eq!(o.skip.as_deref(), Some("restoring main after a bad merge"));
        assert_eq!(o.approve.as_deref(), Some("abc123"));
        assert_eq!(
            PushOptions::parse(&["vouch.skip".into()]).skip.as_deref(),
            Some("")
        );
        assert_eq!(PushOptions::parse(&[]), PushOptions::default());
    }

    #[test]
    fn the_pusher_is_the_servers_name_before_the_committer() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let p = Pusher::find(
            vars(&[("GL_USER", "bob"), ("REMOTE_USER", "alice")]),
            Some("c".into()),
        )
        .unwrap();
        assert_eq!(
            (p.name.as_str(), p.source.as_str()),
            ("alice", "REMOTE_USER")
        );
        let p = Pusher::find(vars(&[("GL_USER", "bob")]), None).unwrap();
        assert_eq!(p.shown(), "bob (GL_USER)");
        let p = Pusher::find(vars(&[("GL_USERNAME", " ")]), Some("Carol".into())).unwrap();
        assert!(!p.is_authenticated());
        assert!(Pusher::find(vars(&[]), None).is_none());
    }

    #[test]
    fn the_skip_policy_keeps_skips_off_protected_refs_and_to_named_users() {
        let alice = Pusher {
            name: "alice".into(),
            source: "GL_USERNAME".into(),
        };
        let forged = Pusher {
            name: "alice".into(),
            source: "committer".into(),
        };
        let main = vec!["main".to_owned()];
        let default = SkipPolicy::default();
        assert!(default.may_skip(Some(&alice), &[]).is_ok());
        assert!(
            default
                .may_skip(Some(&alice), &main)
                .unwrap_err()
                .contains("`main`")
        );
        let always = SkipPolicy {
            allow: AllowSkip::Always,
            users: vec!["alice".into()],
        };
        assert!(always.may_skip(Some(&alice), &main).is_ok());
        assert!(always.may_skip(Some(&forged), &main).is_err());
        assert!(always.may_skip(None, &[]).is_err());
        let never = SkipPolicy {
            allow: AllowSkip::from_value(Some("nope")),
            users: Vec::new(),
        };
        assert!(never.may_skip(Some(&alice), &[]).is_err());
        assert_eq!(AllowSkip::from_value(None), AllowSkip::Unprotected);
    }
}
