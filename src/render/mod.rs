//! Stage 5: what the user reads and runs.
//!
//! In: a [`Proposal`](crate::plan::Proposal) (or one [`Plan`](crate::plan::Plan)). Out: text for
//! a terminal ([`text`], colour only when asked), JSON ([`json`]), markdown for a pull request or
//! a ticket ([`markdown`]), the pip and uv commands and files that carry a plan out
//! ([`commands`]), and the post-upgrade verification script ([`verify`]).
//!
//! Security rules (reliability.md §3): every value that reaches a command or a script is
//! re-serialized from its parsed form and checked ([`safe`]); every shell token is single-quoted
//! with `shlex`; requirements follow `--`; plan data goes into the Python script as one JSON
//! literal, never into code or comments; no credentials are ever written.

pub mod commands;
pub mod diff;
pub mod json;
pub mod markdown;
pub mod review;
pub mod safe;
pub mod text;
pub mod verify;
