//! The subcommands: each wires the pipeline stages together for one job.

pub mod bisect;
pub mod check;
pub mod diff;
pub mod inventory;
pub mod outdated;
pub mod propose;
pub mod resolve;
pub mod review;
pub mod snapshot;
pub mod try_;
pub mod verify;
