//! The settings of the commands that run things in an environment: `verify`, `try` and
//! `bisect`.
//!
//! In: their clap arguments and the [`Sources`]. Out: [`VerifySettings`], [`TrySettings`],
//! [`BisectSettings`]; the last two share a [`TrialEnvironment`].

use std::path::PathBuf;

use miette::miette;

use super::EnvVars;
use super::OutputFormat;
use super::index::IndexOptions;
use super::sources::{Sources, active_venv};
use crate::cli::{self, IndexArgs};
use crate::inventory::EnvironmentSelection;
use crate::risk::Policy;

/// `planner verify`.
#[derive(Debug)]
pub(crate) struct VerifySettings {
    /// Which environment to read (`--venv`, `$VIRTUAL_ENV`, discovery), unless `python` names
    /// an interpreter.
    pub environment: EnvironmentSelection,
    /// `--python`.
    pub python: Option<PathBuf>,
    /// `--plan`.
    pub plan: Option<PathBuf>,
    /// `--all`.
    pub all: bool,
    /// The policy whose smoke tests run (`--policy`, else the built-in one), loaded.
    pub policy: Policy,
    /// What is passed through to `verify.py`.
    pub run: crate::verify::run::RunOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// The environment `try` and `bisect` work in, as `trial::environment::choose_environment` picks
/// it from these, and the `--test` command lines they run there.
#[derive(Debug)]
pub(crate) struct TrialEnvironment {
    /// `--venv`.
    pub venv: Option<PathBuf>,
    /// `--python`.
    pub python: Option<PathBuf>,
    /// `$VIRTUAL_ENV`, when set: the venv used when nothing else names one.
    pub active_venv: Option<PathBuf>,
    /// `--test` command lines.
    pub tests: Vec<String>,
}

impl TrialEnvironment {
    /// The flags, with `$VIRTUAL_ENV` read from `env`.
    pub(super) fn new(
        venv: Option<PathBuf>,
        python: Option<PathBuf>,
        tests: Vec<String>,
        env: &EnvVars,
    ) -> TrialEnvironment {
        TrialEnvironment {
            venv,
            python,
            active_venv: active_venv(env),
            tests,
        }
    }
}

/// `planner try`.
#[derive(Debug)]
pub(crate) struct TrySettings {
    /// The plan file or plan folder.
    pub plan: PathBuf,
    /// The venv to try the plan in (when neither flag names one, the plan's own comes before
    /// `$VIRTUAL_ENV`), and the tests.
    pub environment: TrialEnvironment,
    /// `--keep DIR`.
    pub keep: Option<PathBuf>,
    /// `--index-url`.
    pub index_url: Option<String>,
    /// The policy whose smoke tests run, loaded.
    pub policy: Policy,
    /// `--timeout`, `--jobs`, `--no-smoke` for `verify.py`.
    pub run: crate::verify::run::RunOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// Where `planner bisect`'s good state comes from.
#[derive(Debug)]
pub(crate) enum GoodState {
    /// `--good FILE|VENV`.
    File(PathBuf),
    /// `--since WHEN`.
    Since(String),
}

/// `planner bisect`.
#[derive(Debug)]
pub(crate) struct BisectSettings {
    /// The good state.
    pub good: GoodState,
    /// The venv that fails now, and the tests that say so.
    pub environment: TrialEnvironment,
    /// `--verify`.
    pub verify: bool,
    /// `--retries`.
    pub retries: u32,
    /// `--timeout`.
    pub timeout: Option<std::time::Duration>,
    /// `--keep DIR`.
    pub keep: Option<PathBuf>,
    /// `--index-url` (for the installer).
    pub index_url: Option<String>,
    /// The index, for `--since`'s upload times.
    pub index: IndexOptions,
    /// The policy whose smoke tests `--verify` runs, loaded.
    pub policy: Policy,
    /// `--format`.
    pub format: OutputFormat,
}

pub(super) fn bisect(
    args: cli::BisectArgs,
    sources: &Sources<'_>,
) -> miette::Result<BisectSettings> {
    let good = match (args.good, args.since) {
        (Some(file), _) => GoodState::File(file),
        (None, Some(when)) => GoodState::Since(when),
        (None, None) => {
            return Err(miette!(
                help = "pass --good SNAPSHOT (a `planner snapshot` file, `pip inspect` output or a venv) or --since 3d",
                "which state was good? bisect needs --good or --since"
            ));
        }
    };
    if args.timeout == Some(0) {
        return Err(miette!(
            "--timeout 0 would kill every check at once; give seconds"
        ));
    }
    Ok(BisectSettings {
        good,
        environment: TrialEnvironment::new(args.venv, args.python, args.tests, sources.env),
        verify: args.verify,
        retries: args.retries,
        timeout: args.timeout.map(std::time::Duration::from_secs),
        keep: args.keep,
        index: IndexOptions::new(
            &IndexArgs {
                index_url: args.index_url.clone(),
                ..IndexArgs::default()
            },
            sources,
        )?,
        index_url: args.index_url,
        policy: sources.policy(args.policy.as_deref())?,
        format: OutputFormat::new(args.format)?,
    })
}
