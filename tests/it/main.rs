//! Integration tests: one binary, one module per subcommand (see `common` for the harness).

mod common;
mod index;
mod propose;
