//! Integration tests: one binary, one module per subcommand (see `common` for the harness).

// Tests read and write their own fixtures directly (clippy.toml bans that in src/).
#![allow(clippy::disallowed_methods)]

mod common;

mod bad_inputs;
mod bisect;
mod check;
mod color;
mod compile_caches;
mod cuda_line;
mod cuda_line_older;
mod diff;
mod evidence_truth;
mod index;
mod interrupt;
mod inventory;
mod logging;
mod no_pip;
mod outdated;
mod outdated_breaks;
mod outdated_line;
mod pep668;
mod propose;
mod propose_allow_build;
mod propose_cases;
mod propose_layers;
mod propose_ml;
mod propose_move_dependents;
mod propose_must_move;
mod propose_unchecked;
mod propose_unchecked_steps;
mod propose_version_implied;
mod propose_web;
mod propose_wheel_only;
mod propose_wheel_only_blockers;
mod resolve;
mod review;
mod review_real;
mod review_try;
mod risk_corpus;
mod runtime;
mod scenarios;
mod secrets;
mod shipping;
mod snapshot;
mod terminal_width;
mod try_;
mod try_cases;
mod verify;
