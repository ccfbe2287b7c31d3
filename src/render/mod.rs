//! Stage 5: what the user reads and runs.
//!
//! Every command's output is built here. For `propose`: a [`Proposal`](crate::plan::Proposal)
//! (or one [`Plan`](crate::plan::Plan)) becomes text for a terminal ([`text`], colour only when
//! asked), markdown for a pull request or a ticket ([`markdown`]; a layered `--all` in
//! [`layers`]: one pull request body per layer), the pip and uv commands and
//! files that carry a plan out ([`commands`]; the post-upgrade verification script is
//! [`crate::verify::script`]'s). The other commands' text and JSON documents: [`inventory`], [`check`],
//! [`outdated`] and [`resolve`] (`snapshot` writes its data type as it is). Every JSON document
//! goes through the one writer, [`json`]; every outside string shown on a terminal through
//! [`crate::terminal::escape`].
//!
//! Security rules (reliability.md §3): every value that reaches a command or a script is
//! re-serialized from its parsed form and checked ([`safe`]); every shell token is single-quoted
//! with `shlex`; requirements follow `--`; plan data goes into the Python script as one JSON
//! literal, never into code or comments; no credentials are ever written.

pub(crate) mod bisect;
pub(crate) mod check;
pub(crate) mod commands;
pub(crate) mod diff;
pub(crate) mod error;
pub(crate) mod inventory;
pub(crate) mod json;
pub(crate) mod layers;
pub(crate) mod markdown;
pub(crate) mod outdated;
pub(crate) mod plan_folder;
pub(crate) mod resolve;
pub(crate) mod review;
pub(crate) mod rollback;
pub mod safe;
pub(crate) mod text;
pub(crate) mod trial;
