//! The facts stage (SPEC section 1): what git holds, measured. [`git`] is
//! the only user of libgit2 (and runs the git command line where libgit2
//! cannot read a repository); [`parent`] reads which ancestor process is
//! git and its command line, through `crate::platform`. What they measure
//! is typed in `crate::classify::facts`, which the tier reads.

pub mod git;
pub mod parent;
