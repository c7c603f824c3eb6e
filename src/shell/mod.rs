//! PURE: shell commands (WIP).
mod lex;
pub mod parse;
