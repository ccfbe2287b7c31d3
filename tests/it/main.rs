//! Integration tests: one binary, one module per subcommand (see `common` for the harness).

mod common;

mod check;
mod index;
mod inventory;
mod outdated;
mod propose;
mod propose_cases;
mod resolve;
mod snapshot;
