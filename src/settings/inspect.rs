//! The settings of the commands that read an environment and need no index: `inventory`,
//! `check`, `snapshot` and `diff`.
//!
//! In: their clap arguments. Out: [`InventorySettings`], [`CheckSettings`],
//! [`SnapshotSettings`], [`DiffSettings`].

use std::path::PathBuf;

use super::OutputFormat;
use crate::cli::{self, DiffSide};
use crate::inventory::{EnvironmentSelection, EnvironmentSource};

/// One side of `planner diff`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DiffEnv {
    /// A positional ENV: a venv folder, else a snapshot or `pip inspect` file.
    Path(PathBuf),
    /// `--venv`, `--from-snapshot` or `--python`.
    Source(EnvironmentSource),
}

/// `planner diff`.
#[derive(Debug)]
pub(crate) struct DiffSettings {
    /// A and B (or, with `since`, at most one), in command-line order.
    pub envs: Vec<DiffEnv>,
    /// `--since WHEN`, as given (parsed against the clock when the command runs).
    pub since: Option<String>,
    /// The environment `--since` reads when no path is given ($VIRTUAL_ENV, ./.venv, ...).
    pub environment: EnvironmentSelection,
    /// Output format.
    pub format: OutputFormat,
}

/// `planner inventory`.
#[derive(Debug)]
pub(crate) struct InventorySettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// `--format`.
    pub format: OutputFormat,
}

/// `planner check`.
#[derive(Debug)]
pub(crate) struct CheckSettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// `--accept PLAN` files.
    pub accept: Vec<PathBuf>,
    /// Which installed files are hashed against their `RECORD` (`--hash-binaries`: all).
    pub files: crate::inventory::integrity::Scope,
    /// `--format`.
    pub format: OutputFormat,
}

/// Where `planner snapshot` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SnapshotOutput {
    /// `--script`: print the standalone script instead.
    Script,
    /// `--out -`.
    Stdout,
    /// `--out FILE`.
    File(PathBuf),
}

/// `planner snapshot`.
#[derive(Debug)]
pub(crate) struct SnapshotSettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// Where the snapshot goes.
    pub output: SnapshotOutput,
}

/// diff's sides in command-line order (positional ENVs, `--venv`, `--from-snapshot`,
/// `--python`, as [`cli::Cli::parse_args`] ordered them).
pub(super) fn diff_envs(args: &cli::DiffArgs) -> Vec<DiffEnv> {
    args.sides
        .iter()
        .map(|side| match side {
            DiffSide::Path(path) => DiffEnv::Path(path.clone()),
            DiffSide::Venv(path) => DiffEnv::Source(EnvironmentSource::Venv(path.clone())),
            DiffSide::Snapshot(path) => DiffEnv::Source(EnvironmentSource::Snapshot(path.clone())),
            DiffSide::Python(path) => DiffEnv::Source(EnvironmentSource::Python(path.clone())),
        })
        .collect()
}
