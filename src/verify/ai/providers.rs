//! The providers (SPEC 5.1): which are configured, which have a key, and
//! which one judges an operation proposed by a given vendor.

use std::collections::BTreeMap;

use crate::classify::config::{Config, ProviderConfig};
use crate::platform::env::Env;
use crate::verify::provider::{Kind, Secret};

/// A provider ready to ask.
#[derive(Debug, Clone)]
pub struct Provider {
    /// Its name in config.
    pub name: String,
    /// Wire format.
    pub kind: Kind,
    /// Whose model it serves: `anthropic`, `openai`, `google`, or another vendor.
    pub family: String,
    /// The cheap model that judges.
    pub model: String,
    /// The tiebreaker.
    pub strong_model: String,
    /// Base URL.
    pub base_url: String,
    /// The key, if found.
    pub key: Option<Secret>,
    /// Where the key came from (a variable name, or "the user config"), never the key.
    pub key_source: String,
    /// A local server needs no key.
    pub needs_key: bool,
}

impl Provider {
    /// True when it can be asked at all.
    pub fn has_key(&self) -> bool {
        self.key.is_some() || !self.needs_key
    }
}

/// The vendor of a model name (`claude-*`, `anthropic/*`, `gpt-*`, ...).
pub fn family_of_model(model: &str) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    let vendor = m.split('/').next().unwrap_or(&m);
    if m.contains('/') {
        return match vendor {
            "anthropic" => Some("anthropic"),
            "openai" => Some("openai"),
            "google" | "gemini" => Some("google"),
            _ => None,
        };
    }
    if m.starts_with("claude") {
        Some("anthropic")
    } else if m.starts_with("gemini") {
        Some("google")
    } else if ["gpt-", "o1", "o3", "o4", "chatgpt"]
        .iter()
        .any(|p| m.starts_with(p))
    {
        Some("openai")
    } else {
        None
    }
}

pub(super) struct Builtin {
    name: &'static str,
    kind: Kind,
    model: &'static str,
    strong: &'static str,
    base_vars: &'static [&'static str],
    base: &'static str,
    key_vars: &'static [&'static str],
}

pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "anthropic",
        kind: Kind::Anthropic,
        model: "claude-haiku-4-5",
        strong: "claude-sonnet-4-5",
        base_vars: &["ANTHROPIC_BASE_URL"],
        base: "https://api.anthropic.com",
        key_vars: &["ANTHROPIC_API_KEY"],
    },
    Builtin {
        name: "openai",
        kind: Kind::Openai,
        model: "gpt-4.1-mini",
        strong: "gpt-5",
        base_vars: &["OPENAI_BASE_URL"],
        base: "https://api.openai.com/v1",
        key_vars: &["OPENAI_API_KEY"],
    },
    Builtin {
        name: "google",
        kind: Kind::Google,
        model: "gemini-2.5-flash",
        strong: "gemini-2.5-pro",
        base_vars: &["GOOGLE_GEMINI_BASE_URL"],
        base: "https://generativelanguage.googleapis.com",
        key_vars: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    },
    Builtin {
        name: "openrouter",
        kind: Kind::OpenaiCompatible,
        model: "openai/gpt-4.1-mini",
        strong: "openai/gpt-5",
        base_vars: &["OPENROUTER_BASE_URL"],
        base: "https://openrouter.ai/api/v1",
        key_vars: &["OPENROUTER_API_KEY"],
    },
];

/// `OLLAMA_HOST` as an OpenAI-compatible base URL: `http://` added when it
/// has no scheme, `/v1` appended.
pub fn ollama_base(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let with_scheme = if host.contains("://") {
        host.to_owned()
    } else {
        format!("http://{host}")
    };
    format!("{with_scheme}/v1")
}

/// Every provider vouch knows: the built-ins, Ollama when `OLLAMA_HOST` is
/// set, and `[providers.NAME]` tables (which also adjust the built-ins).
pub fn providers(config: &Config, env: &dyn Env) -> Vec<Provider> {
    let var = |name: &str| env.var(name).filter(|v| !v.trim().is_empty());
    let mut out: BTreeMap<String, Provider> = BTreeMap::new();
    for b in BUILTINS {
        let key = b
            .key_vars
            .iter()
            .find_map(|k| var(k).map(|v| (Secret::new(v), (*k).to_owned())));
        out.insert(
            b.name.to_owned(),
            Provider {
                name: b.name.to_owned(),
                kind: b.kind,
                family: family_of_model(b.model).unwrap_or(b.name).to_owned(),
                model: b.model.to_owned(),
                strong_model: b.strong.to_owned(),
                base_url: b
                    .base_vars
                    .iter()
                    .find_map(|v| var(v))
                    .unwrap_or_else(|| b.base.to_owned()),
                key_source: key
                    .as_ref()
                    .map_or_else(|| b.key_vars.join(" or "), |(_, s)| s.clone()),
                key: key.map(|(k, _)| k),
                needs_key: true,
            },
        );
    }
    if let Some(host) = var("OLLAMA_HOST") {
        out.insert(
            "ollama".into(),
            Provider {
                name: "ollama".into(),
                kind: Kind::OpenaiCompatible,
                family: "meta".into(),
                model: "llama3.1".into(),
                strong_model: "llama3.1".into(),
                base_url: ollama_base(&host),
                key: None,
                key_source: "none needed".into(),
                needs_key: false,
            },
        );
    }
    for (name, pc) in &config.providers {
        let ProviderConfig {
            kind,
            family,
            model,
            strong_model,
            base_url,
            api_key_env,
            api_key,
        } = pc;
        let entry = out.entry(name.clone()).or_insert_with(|| {
            // A new provider of a vendor's own kind starts from that vendor's defaults.
            let template = kind.and_then(|k| {
                BUILTINS
                    .iter()
                    .find(|b| b.kind == k && k != Kind::OpenaiCompatible)
            });
            Provider {
                name: name.clone(),
                kind: kind.unwrap_or(Kind::OpenaiCompatible),
                family: String::new(),
                model: template.map(|b| b.model.to_owned()).unwrap_or_default(),
                strong_model: template.map(|b| b.strong.to_owned()).unwrap_or_default(),
                base_url: template.map(|b| b.base.to_owned()).unwrap_or_default(),
                key: template.and_then(|b| b.key_vars.iter().find_map(|k| var(k)).map(Secret::new)),
                key_source: template
                    .map_or_else(|| "nothing set".into(), |b| b.key_vars.join(" or ")),
                needs_key: template.is_some(),
            }
        });
        if let Some(k) = kind {
            entry.kind = *k;
        }
        if let Some(m) = model {
            entry.model.clone_from(m);
        }
        if let Some(m) = strong_model {
            entry.strong_model.clone_from(m);
        }
        if let Some(b) = base_url {
            entry.base_url.clone_from(b);
        }
        if let Some(v) = api_key_env {
            entry.needs_key = true;
            entry.key = var(v).map(Secret::new);
            entry.key_source.clone_from(v);
        }
        if let Some(k) = api_key {
            entry.key = Some(k.clone());
            entry.key_source = "the user config".into();
        }
        if entry.strong_model.is_empty() {
            entry.strong_model = entry.model.clone();
        }
        entry.family = family
            .clone()
            .or_else(|| family_of_model(&entry.model).map(str::to_owned))
            .unwrap_or_else(|| match entry.kind {
                Kind::Anthropic => "anthropic".into(),
                Kind::Openai => "openai".into(),
                Kind::Google => "google".into(),
                Kind::OpenaiCompatible => format!("other:{name}"),
            });
    }
    out.into_values()
        .filter(|p| !p.model.is_empty() && !p.base_url.is_empty())
        .collect()
}

/// The family of the model that proposed the operation: `--primary` (in
/// `flag`), else `VOUCH_PRIMARY` (a provider or a model name), else the
/// agent running us.
pub fn primary(flag: Option<&str>, env: &dyn Env) -> Option<String> {
    let given = flag
        .map(str::to_owned)
        .or_else(|| env.var(crate::platform::env::vars::VOUCH_PRIMARY))
        .filter(|p| !p.trim().is_empty());
    if let Some(p) = given {
        let p = p.trim().to_ascii_lowercase();
        return Some(match family_of_model(&p) {
            Some(f) => f.to_owned(),
            None if p == "gemini" => "google".into(),
            None => p,
        });
    }
    if env.flag("CLAUDECODE") {
        Some("anthropic".into())
    } else if env.flag("GEMINI_CLI") {
        Some("google".into())
    } else if env.var("CODEX_SANDBOX").is_some() || env.var("CODEX_MANAGED_BY_NPM").is_some() {
        Some("openai".into())
    } else {
        None
    }
}

/// The preference order of families for a primary family (SPEC 5.1).
pub(super) fn preference(primary: Option<&str>, order: &[String]) -> Vec<String> {
    let fixed = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect();
    match primary {
        Some("anthropic") => fixed(&["google", "openai"]),
        Some("google") => fixed(&["anthropic", "openai"]),
        Some("openai") => fixed(&["anthropic", "google"]),
        _ => order.to_vec(),
    }
}

/// Who judges, in order: providers of another family than the primary, by
/// preference, that have a key and have not failed lately. When none is
/// left, the primary's own family (`same_family` is then true).
pub fn select<'a>(
    all: &'a [Provider],
    primary: Option<&str>,
    order: &[String],
    tripped: &dyn Fn(&str) -> bool,
) -> (Vec<&'a Provider>, bool) {
    let usable: Vec<&Provider> = all
        .iter()
        .filter(|p| p.has_key() && !tripped(&p.name))
        .collect();
    let rank = |p: &Provider| {
        let prefs = preference(primary, order);
        prefs
            .iter()
            .position(|f| *f == p.family || *f == p.name)
            .unwrap_or(prefs.len())
    };
    let mut others: Vec<&Provider> = usable
        .iter()
        .copied()
        .filter(|p| primary != Some(p.family.as_str()))
        .collect();
    // Direct providers before gateways serving the same family.
    others.sort_by_key(|p| (rank(p), p.kind == Kind::OpenaiCompatible));
    if !others.is_empty() {
        return (others, false);
    }
    let same: Vec<&Provider> = usable
        .into_iter()
        .filter(|p| primary == Some(p.family.as_str()))
        .collect();
    (same, true)
}

/// A primary that names a configured provider (`ollama`, `openrouter`, a
/// custom name) stands for that provider's family.
pub(super) fn resolve_primary(primary: Option<String>, all: &[Provider]) -> Option<String> {
    let p = primary?;
    Some(
        all.iter()
            .find(|x| x.name == p)
            .map_or(p, |x| x.family.clone()),
    )
}
