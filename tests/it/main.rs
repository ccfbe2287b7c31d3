//! Integration tests: one binary, one module per subcommand (see `common` for the harness).

mod common;

mod check;
mod index;
mod inventory;
mod outdated;
mod propose;
mod resolve;
mod risk_corpus;
mod snapshot;
