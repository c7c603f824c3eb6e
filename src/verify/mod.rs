//! The verifiers stage (SPEC sections 4 and 5): who judges an operation and
//! how their answers are read.
//!
//! - [`builtin`] (pure): vouch's own checks, the classifier's findings in
//!   the result shape every verifier returns;
//! - [`programs`]: the verifier programs a team configures, discovered and
//!   run with the context JSON;
//! - [`ai`]: the cross-provider AI verifier (which model judges, the
//!   prompt, asking, the circuit breaker);
//! - [`provider`] (pure): each AI provider's wire format;
//! - [`verdict`] (pure): results and verdicts read and combined; an
//!   unusable answer is never read as proceed.

pub mod ai;
pub mod builtin;
pub mod programs;
pub mod provider;
pub mod store;
pub mod verdict;
