//! The subcommands: each wires the pipeline stages together for one job.

pub(crate) mod bisect;
pub(crate) mod check;
pub(crate) mod diff;
pub(crate) mod inventory;
pub(crate) mod outdated;
pub(crate) mod propose;
pub(crate) mod resolve;
pub(crate) mod review;
pub(crate) mod snapshot;
pub(crate) mod try_;
pub(crate) mod verify;
