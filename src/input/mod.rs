//! The input stage (SPEC section 1): what git and the git command line hand
//! vouch, as typed data. Everything here is pure.
//!
//! - [`hooks`]: a hook's arguments and lines (pre-push);
//! - [`git_command`]: git's own command lines and options, and the lines
//!   of a reference transaction (the hook gate compiles it too);
//! - [`receive`]: the server door's lines, push options and skip policy;
//! - [`git_options`]: the long options of the git commands vouch reads,
//!   generated from git's option tables.

pub mod git_command;
pub mod git_options;
pub mod hooks;
pub mod receive;
pub mod text;
