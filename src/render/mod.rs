//! Stage 5: what the user reads and runs.
//!
//! Every command's output is built here. For `propose`: a [`Proposal`](crate::plan::Proposal)
//! (or one [`Plan`](crate::plan::Plan)) becomes text for a terminal ([`text`], colour only when
//! asked), markdown for a pull request or a ticket ([`markdown`]; a layered `--all` in
//! [`layers`]: one pull request body per layer), the pip and uv commands and
//! files that carry a plan out ([`commands`]), and the post-upgrade verification script
//! ([`verify`]). The other commands' text and JSON documents: [`inventory`], [`check`],
//! [`outdated`] and [`resolve`] (`snapshot` writes its data type as it is). Every JSON document
//! goes through the one writer, [`json`]; every outside string shown on a terminal through
//! [`crate::terminal::escape`].
//!
//! Security rules (reliability.md §3): every value that reaches a command or a script is
//! re-serialized from its parsed form and checked ([`safe`]); every shell token is single-quoted
//! with `shlex`; requirements follow `--`; plan data goes into the Python script as one JSON
//! literal, never into code or comments; no credentials are ever written.

pub mod bisect;
pub mod check;
pub mod commands;
pub mod diff;
pub mod error;
pub mod inventory;
pub mod json;
pub mod layers;
pub mod markdown;
pub mod outdated;
pub mod resolve;
pub mod review;
pub mod rollback;
pub mod safe;
pub mod text;
pub mod trial;
pub mod verify;
