//! PURE: the value types of a `[providers.<name>]` entry that are not
//! plain text: the wire format it names (`kind`) and its key. The config
//! reads them; the verifiers' providers ([`crate::verify::provider`]) speak
//! them. They live here, below both, so that the config never depends on
//! the verifiers (issue 39 item 2).

use std::fmt;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI Chat Completions.
    Openai,
    /// Google Gemini `generateContent`.
    Google,
    /// Any server speaking OpenAI Chat Completions (Ollama, vLLM, LM Studio,
    /// llama.cpp, OpenRouter).
    OpenaiCompatible,
}

impl Kind {
    /// The name used in config.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::Openai => "openai",
            Self::Google => "google",
            Self::OpenaiCompatible => "openai-compatible",
        }
    }
}

/// A secret (an API key): never printed, never logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(key: String) -> Self {
        Self(key)
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("****")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("****")
    }
}
