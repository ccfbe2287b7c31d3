//! The settings layer: where the command line ends.
//!
//! In: the parsed command line ([`Cli`], clap types; values such as targets, `--max-risk`,
//! `--python-version` and `--python-platform` are already domain types, parsed by clap's value
//! parsers in `cli.rs`), the process environment ([`EnvVars`]) and the config files (planner's
//! own, found by [`config::find`]; the risk policy file here; pip.conf in
//! [`IndexOptions::resolve`], because the site pip.conf belongs to the environment read). Out:
//! [`Settings`], one typed struct per command that the commands and stages read. No type from
//! `cli.rs` goes further than this module.
//!
//! Precedence, for every value that has more than one source: the flag, then the environment
//! variable, then planner's config file (then pip.conf, for the index). Where each value came
//! from is kept in [`Settings::origins`] and logged under `-v`.

pub(crate) mod config;
mod index;
mod inspect;
mod planning;
mod sources;
#[cfg(test)]
mod tests;
mod trial;

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use miette::IntoDiagnostic;

use crate::cli::{self, Cli, Command, EnvArgs};
pub(crate) use crate::env_vars::EnvVars;
use crate::printer::ColorChoice;
pub(crate) use crate::settings::index::IndexOptions;
use crate::settings::inspect::diff_envs;
pub(crate) use crate::settings::inspect::{
    CheckSettings, DiffEnv, DiffSettings, InventorySettings, SnapshotOutput, SnapshotSettings,
};
pub(crate) use crate::settings::planning::{
    OutdatedSettings, ProposeSettings, ResolveSettings, ReviewFormat, ReviewSettings,
};
use crate::settings::planning::{propose, review};
use crate::settings::sources::{Sources, environment};
use crate::settings::trial::bisect;
pub(crate) use crate::settings::trial::{
    BisectSettings, GoodState, TrialEnvironment, TrySettings, VerifySettings,
};
use crate::solve::PrereleaseMode;

/// How data is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputFormat {
    /// For people.
    Text,
    /// The documented JSON schema.
    Json,
    /// For a pull request or a ticket (`propose` only).
    Markdown,
}

/// Everything one run reads.
#[derive(Debug)]
pub(crate) struct Settings {
    /// `-q`: silence warnings and progress.
    pub quiet: bool,
    /// `-v` (1), `-vv` (2), ...: how much [`crate::logging`] writes on stderr.
    pub verbose: u8,
    /// `--show-settings` (hidden): print these settings and stop.
    pub show_settings: bool,
    /// `--color`, else NO_COLOR / FORCE_COLOR / CLICOLOR_FORCE, else auto.
    pub color: ColorChoice,
    /// Where each value that has several sources came from (`policy = ml-cuda (from ...)`),
    /// logged under `-v`.
    pub origins: Vec<String>,
    /// The subcommand's settings.
    pub command: CommandSettings,
}

/// One subcommand's settings.
#[derive(Debug)]
pub(crate) enum CommandSettings {
    /// `planner propose`.
    Propose(ProposeSettings),
    /// `planner inventory`.
    Inventory(InventorySettings),
    /// `planner check`.
    Check(CheckSettings),
    /// `planner snapshot`.
    Snapshot(SnapshotSettings),
    /// `planner outdated`.
    Outdated(OutdatedSettings),
    /// `planner resolve`.
    Resolve(ResolveSettings),
    /// `planner review`.
    Review(ReviewSettings),
    /// `planner diff`.
    Diff(DiffSettings),
    /// `planner verify`.
    Verify(VerifySettings),
    /// `planner try`.
    Try(TrySettings),
    /// `planner bisect`.
    Bisect(BisectSettings),
    /// `planner completions SHELL`.
    Completions(clap_complete::Shell),
    /// `planner man [--dir DIR]`.
    Man(Option<PathBuf>),
}

impl CommandSettings {
    /// The subcommand's name, as typed.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            CommandSettings::Propose(_) => "propose",
            CommandSettings::Inventory(_) => "inventory",
            CommandSettings::Check(_) => "check",
            CommandSettings::Snapshot(_) => "snapshot",
            CommandSettings::Outdated(_) => "outdated",
            CommandSettings::Resolve(_) => "resolve",
            CommandSettings::Review(_) => "review",
            CommandSettings::Diff(_) => "diff",
            CommandSettings::Verify(_) => "verify",
            CommandSettings::Try(_) => "try",
            CommandSettings::Bisect(_) => "bisect",
            CommandSettings::Completions(_) => "completions",
            CommandSettings::Man(_) => "man",
        }
    }
}

impl Settings {
    /// Resolve the command line against the environment and the config files (planner's own
    /// found from the current folder).
    pub(crate) fn resolve(cli: Cli, env: &EnvVars) -> miette::Result<Settings> {
        let cwd = std::env::current_dir().into_diagnostic()?;
        Settings::resolve_in(cli, env, &cwd)
    }

    /// [`Settings::resolve`], with planner's config file looked for from `cwd` up.
    pub(crate) fn resolve_in(cli: Cli, env: &EnvVars, cwd: &Path) -> miette::Result<Settings> {
        let config = config::find(cwd, env)?;
        let sources = Sources {
            env,
            config: config.as_ref(),
            origins: std::cell::RefCell::new(Vec::new()),
        };
        if let Some(config) = &config {
            sources.note("config", &config.origin, "the nearest config file");
        }
        let color = color_choice(cli.color, &sources);
        let command = command(cli.command, &sources)?;
        Ok(Settings {
            quiet: cli.quiet,
            verbose: cli.verbose,
            show_settings: cli.show_settings,
            color,
            origins: sources.origins.into_inner(),
            command,
        })
    }
}

/// One subcommand's settings.
fn command(command: Command, sources: &Sources<'_>) -> miette::Result<CommandSettings> {
    let env = sources.env;
    Ok(match command {
        Command::Propose(args) => CommandSettings::Propose(propose(args, sources)?),
        Command::Resolve(args) => CommandSettings::Resolve(ResolveSettings {
            requirements: args.requirements,
            requirement_files: args.requirement_files,
            constraint_files: args.constraint_files,
            override_files: args.override_files,
            prerelease: args.prerelease.into(),
            environment: environment(&args.env, env),
            index: IndexOptions::new(&args.index, sources)?,
            format: OutputFormat::new(args.format)?,
        }),
        Command::Review(args) => CommandSettings::Review(review(args, sources)?),
        Command::Diff(args) => CommandSettings::Diff(DiffSettings {
            envs: diff_envs(&args),
            since: args.since,
            environment: environment(&EnvArgs::default(), env),
            format: OutputFormat::new(args.format)?,
        }),
        Command::Outdated(args) => CommandSettings::Outdated(OutdatedSettings {
            environment: environment(&args.env, env),
            index: IndexOptions::new(&args.index, sources)?,
            format: OutputFormat::new(args.format)?,
        }),
        Command::Inventory(args) => CommandSettings::Inventory(InventorySettings {
            environment: environment(&args.env, env),
            format: OutputFormat::new(args.format)?,
        }),
        Command::Check(args) => CommandSettings::Check(CheckSettings {
            environment: environment(&args.env, env),
            accept: args.accept,
            files: if args.hash_binaries {
                crate::inventory::integrity::Scope::Full
            } else {
                crate::inventory::integrity::Scope::Sources
            },
            format: OutputFormat::new(args.format)?,
        }),
        Command::Verify(args) => CommandSettings::Verify(VerifySettings {
            environment: environment(
                &EnvArgs {
                    venv: args.venv,
                    ..EnvArgs::default()
                },
                env,
            ),
            python: args.python,
            plan: args.plan,
            all: args.all,
            policy: sources.policy(args.policy.as_deref())?,
            run: crate::verify::run::RunOptions {
                baseline: args.baseline,
                compare: args.compare,
                report: args.report,
                budget: args.budget,
                no_fork: args.no_fork,
                plain: args.plain,
                tests: args.tests,
                ..run_options(args.run)
            },
            format: OutputFormat::new(args.format)?,
        }),
        Command::Try(args) => CommandSettings::Try(TrySettings {
            plan: args.plan,
            environment: TrialEnvironment::new(args.venv, args.python, args.tests, env),
            keep: args.keep,
            index_url: args.index_url,
            policy: sources.policy(args.policy.as_deref())?,
            run: run_options(args.run),
            format: OutputFormat::new(args.format)?,
        }),
        Command::Bisect(args) => CommandSettings::Bisect(bisect(args, sources)?),
        Command::Snapshot(args) => CommandSettings::Snapshot(SnapshotSettings {
            environment: environment(&args.env, env),
            output: match (args.script, args.out) {
                (true, _) => SnapshotOutput::Script,
                (false, Some(path)) if path.as_os_str() != "-" => SnapshotOutput::File(path),
                (false, _) => SnapshotOutput::Stdout,
            },
        }),
        Command::Completions(args) => CommandSettings::Completions(args.shell),
        Command::Man(args) => CommandSettings::Man(args.dir),
    })
}

/// `--color`, else NO_COLOR (never), else FORCE_COLOR or CLICOLOR_FORCE (always), else auto.
fn color_choice(flag: Option<cli::ColorChoice>, sources: &Sources<'_>) -> ColorChoice {
    let set = |var: &str| sources.env.get(var).is_some_and(|v| !v.is_empty());
    let forced = |var: &str| set(var) && sources.env.get(var).as_deref() != Some("0");
    let (choice, from) = match flag {
        Some(cli::ColorChoice::Always) => (ColorChoice::Always, "--color"),
        Some(cli::ColorChoice::Never) => (ColorChoice::Never, "--color"),
        Some(cli::ColorChoice::Auto) => (ColorChoice::Auto, "--color"),
        None if set("NO_COLOR") => (ColorChoice::Never, "NO_COLOR"),
        None if forced("FORCE_COLOR") => (ColorChoice::Always, "FORCE_COLOR"),
        None if forced("CLICOLOR_FORCE") => (ColorChoice::Always, "CLICOLOR_FORCE"),
        None => return ColorChoice::Auto,
    };
    sources.note("color", &format!("{choice:?}").to_lowercase(), from);
    choice
}

impl From<cli::PrereleaseMode> for PrereleaseMode {
    fn from(mode: cli::PrereleaseMode) -> Self {
        match mode {
            cli::PrereleaseMode::IfNecessary => PrereleaseMode::IfNecessary,
            cli::PrereleaseMode::Allow => PrereleaseMode::Allow,
            cli::PrereleaseMode::Disallow => PrereleaseMode::Disallow,
        }
    }
}

impl OutputFormat {
    /// `--format` of a command that writes text, JSON or markdown. clap offers each command only
    /// the formats it writes, so `github` and `sarif` (review's own) are refused here too.
    fn new(format: cli::Format) -> miette::Result<Self> {
        match format {
            cli::Format::Text => Ok(OutputFormat::Text),
            cli::Format::Json => Ok(OutputFormat::Json),
            cli::Format::Markdown => Ok(OutputFormat::Markdown),
            cli::Format::Github | cli::Format::Sarif => Err(miette::miette!(
                help = "use --format text, json or markdown",
                "--format {} is written by `planner review` only",
                format
                    .to_possible_value()
                    .map_or_else(String::new, |v| v.get_name().to_string())
            )),
        }
    }
}

/// The verification options `verify` and `try` share.
fn run_options(args: cli::VerifyRunArgs) -> crate::verify::run::RunOptions {
    crate::verify::run::RunOptions {
        timeout: args.timeout,
        jobs: args.jobs,
        no_smoke: args.no_smoke,
        warm_caches: args.warm_caches,
        ..Default::default()
    }
}
