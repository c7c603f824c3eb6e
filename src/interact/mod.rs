//! The interaction stage (SPEC 1): what a person reads and answers. The
//! terminal and the question asked there ([`prompt`]), the one place that
//! prints ([`ui`]), the text about an operation and its verdict
//! ([`report`], pure), and the review requests and approvals a person
//! leaves in the state directory ([`review`]), and the approvals a
//! person gives at an agent's prompt ([`asked`]).

pub mod asked;
pub mod prompt;
pub mod report;
pub mod review;
pub mod ui;
