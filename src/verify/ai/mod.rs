//! The cross-provider AI verifier (SPEC section 5): which model judges,
//! what it is asked, and how its answer becomes a verifier result.
//!
//! Choosing the provider and building the prompt are pure (`select`,
//! `prompt.rs`); asking goes through `provider::http`; the circuit breaker
//! and the verdict cache are small JSON files in the state dir.

pub mod prompt;
mod providers;
mod state;
mod verify;

use std::time::Duration;

pub use providers::{Provider, family_of_model, ollama_base, primary, providers, select};
pub use state::{Cached, recent_failures};
pub use verify::{AiRun, AiUsage, Spent, Tried, cost, ping, verify, verify_with};

/// A provider that failed is skipped for this long (circuit breaker).
pub const BREAKER: Duration = Duration::from_mins(5);
/// Answers that are not a usable verdict are retried with feedback this often.
pub const FEEDBACK_RETRIES: u32 = 2;

#[cfg(test)]
mod tests {
    use super::providers::resolve_primary;
    use super::*;
    use crate::classify::config::{Config, ProviderConfig};
    use crate::platform::env::MapEnv;
    use crate::verify::provider::Kind;

    fn names(list: &[&Provider]) -> Vec<String> {
        list.iter().map(|p| p.name.clone()).collect()
    }

    #[test]
    fn families_come_from_the_model_vendor_not_the_transport() {
        assert_eq!(family_of_model("claude-haiku-4-5"), Some("anthropic"));
        assert_eq!(
            family_of_model("anthropic/claude-haiku-4.5"),
            Some("anthropic")
        );
        assert_eq!(family_of_model("gpt-4.1-mini"), Some("openai"));
        assert_eq!(family_of_model("o3-mini"), Some("openai"));
        assert_eq!(family_of_model("gemini-2.5-flash"), Some("google"));
        assert_eq!(family_of_model("qwen3"), None);
        assert_eq!(ollama_base("localhost:11434"), "http://localhost:11434/v1");
        assert_eq!(ollama_base("https://o.example/"), "https://o.example/v1");
    }

    #[test]
    fn another_family_is_preferred_and_the_same_family_is_the_last_resort() {
        let env = MapEnv::from_pairs(&[
            ("ANTHROPIC_API_KEY", "a"),
            ("OPENAI_API_KEY", "o"),
            ("GEMINI_API_KEY", "g"),
            ("OPENROUTER_API_KEY", "r"),
        ]);
        let mut config = Config::default();
        config.providers.insert(
            "openrouter".into(),
            ProviderConfig {
                model: Some("anthropic/claude-haiku-4.5".into()),
                ..ProviderConfig::default()
            },
        );
        let all = providers(&config, &env);
        let none = |_: &str| false;
        let (chain, same) = select(&all, Some("anthropic"), &config.ai.order, &none);
        assert!(!same);
        assert_eq!(
            names(&chain),
            ["google", "openai"],
            "OpenRouter serving Claude is the Anthropic family"
        );
        let (chain, _) = select(&all, Some("openai"), &config.ai.order, &none);
        assert_eq!(names(&chain)[..2], ["anthropic", "openrouter"]);
        let (chain, _) = select(&all, None, &config.ai.order, &none);
        assert_eq!(names(&chain)[0], "anthropic");
        // Google failed lately: skipped.
        let tripped = |n: &str| n == "google";
        let (chain, _) = select(&all, Some("anthropic"), &config.ai.order, &tripped);
        assert_eq!(names(&chain), ["openai"]);
        // Only the primary's family has a key: same-family fallback.
        let only = providers(
            &Config::default(),
            &MapEnv::from_pairs(&[("ANTHROPIC_API_KEY", "a")]),
        );
        let (chain, same) = select(&only, Some("anthropic"), &config.ai.order, &none);
        assert!(same);
        assert_eq!(names(&chain), ["anthropic"]);
    }

    #[test]
    fn primary_comes_from_vouch_primary_a_model_name_or_the_agent() {
        let p = |pairs: &[(&str, &str)]| primary(None, &MapEnv::from_pairs(pairs));
        assert_eq!(
            p(&[("VOUCH_PRIMARY", "claude-opus-4")]).as_deref(),
            Some("anthropic")
        );
        assert_eq!(p(&[("VOUCH_PRIMARY", "openai")]).as_deref(), Some("openai"));
        assert_eq!(p(&[("CLAUDECODE", "1")]).as_deref(), Some("anthropic"));
        assert_eq!(p(&[("GEMINI_CLI", "1")]).as_deref(), Some("google"));
        assert_eq!(p(&[]), None);
        let flag = primary(
            Some("gpt-5"),
            &MapEnv::from_pairs(&[("VOUCH_PRIMARY", "anthropic")]),
        );
        assert_eq!(
            flag.as_deref(),
            Some("openai"),
            "the flag wins over the environment"
        );
    }

    #[test]
    fn custom_providers_of_a_vendor_kind_start_from_its_defaults() {
        let mut config = Config::default();
        config.providers.insert(
            "work-claude".into(),
            ProviderConfig {
                kind: Some(Kind::Anthropic),
                ..ProviderConfig::default()
            },
        );
        let all = providers(&config, &MapEnv::from_pairs(&[("ANTHROPIC_API_KEY", "a")]));
        let p = all.iter().find(|p| p.name == "work-claude").unwrap();
        assert_eq!(p.base_url, "https://api.anthropic.com");
        assert_eq!(p.family, "anthropic");
        assert!(p.has_key() && p.needs_key);
        // Naming a provider as the primary means its family.
        assert_eq!(
            resolve_primary(Some("work-claude".into()), &all).as_deref(),
            Some("anthropic")
        );
    }

    #[test]
    fn base_urls_and_keys_come_from_the_sdk_variables() {
        let env = MapEnv::from_pairs(&[
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
            ("GOOGLE_API_KEY", "g"),
            ("OLLAMA_HOST", "127.0.0.1:11434"),
        ]);
        let all = providers(&Config::default(), &env);
        let get = |n: &str| all.iter().find(|p| p.name == n).unwrap();
        assert_eq!(get("anthropic").base_url, "http://127.0.0.1:9");
        assert!(!get("anthropic").has_key());
        assert_eq!(get("google").key_source, "GOOGLE_API_KEY");
        assert_eq!(get("ollama").base_url, "http://127.0.0.1:11434/v1");
        assert!(get("ollama").has_key(), "a local server needs no key");
    }
}
