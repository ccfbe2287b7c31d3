//! planner: plans upgrades of Python environments before anyone touches them.
//!
//! The pipeline, one module per stage; each stage passes plain data to the next and never
//! reaches upstream:
//!
//! 1. [`inventory`]: the installed set and the target interpreter ([`inventory::Inventory`]).
//! 2. [`index`]: what the package index offers ([`index::IndexSource`]).
//! 3. [`solve`]: pubgrub over the index and the installed set.
//! 4. [`risk`] and [`plan`]: upgrade plans, forced overrides and their risk.
//! 5. [`verify`]: what to check after a plan (imports of changed dists and their dependents,
//!    the policy's smoke tests), and running the check; [`trial`]: a plan applied and measured
//!    in a throw-away copy of the environment; [`outdated`]: each installed dist against the
//!    index (`planner outdated`).
//! 6. [`render`]: text, JSON, markdown, pip/uv commands and the verification script.
//!
//! [`commands`] wires the stages into the subcommands; [`run`] dispatches.
//!
//! Leaf helpers every stage may use: [`metadata`] (core metadata), [`tags`] (wheel tags),
//! [`terminal`] (the one terminal sanitizer), [`atomic`] (the one atomic file writer),
//! [`bounded`] (the one capped reader of local files),
//! [`printer`] (stdout and stderr) and [`logging`] (`-v` diagnostics on stderr).

// Unit tests read their own fixtures directly; clippy.toml bans that in the code they test.
#![cfg_attr(test, allow(clippy::disallowed_methods))]
// A library's own lint (the test and bench crates' helpers are `pub` for their modules).
#![warn(unreachable_pub)]

pub(crate) mod bisect;
pub(crate) mod child;
pub mod cli;
pub(crate) mod clock;
pub(crate) mod commands;
pub(crate) mod diff;
pub(crate) mod env_vars;
pub(crate) mod exit_status;
pub mod index;
pub mod interrupt;
pub mod inventory;
pub(crate) mod logging;
pub(crate) mod out_dir;
pub(crate) mod outdated;
pub mod plan;
pub mod printer;
pub mod render;
pub(crate) mod review;
pub mod risk;
pub(crate) mod settings;
pub mod solve;
pub mod terminal;
pub(crate) mod toml_error;
pub(crate) mod trial;
pub(crate) mod verify;

pub use planner_pypi::{atomic, bounded, metadata, tags};

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

pub use exit_status::ExitStatus;

use clap::CommandFactory;

use crate::cli::Cli;
use crate::printer::{ColorChoice, Printer};
use crate::settings::{CommandSettings, EnvVars, Settings};

/// Set by [`end_process_after_run`].
static ENDS_AFTER_RUN: AtomicBool = AtomicBool::new(false);

/// The run's colour choice for errors (0 auto, 1 always, 2 never), read by the error hook.
static ERROR_COLOR: AtomicU8 = AtomicU8::new(0);

/// Say that the process ends (with `_exit`) as soon as [`run`] returns, as the `planner` binary
/// does: what a run builds for its own use (the solver's version tables and the listings they
/// hold) is then left to the system instead of being taken apart piece by piece. Library users
/// and tests, which go on after a run, do not call it, and everything is dropped as usual.
pub fn end_process_after_run() {
    ENDS_AFTER_RUN.store(true, Ordering::Relaxed);
}

/// Whether [`end_process_after_run`] was called.
pub(crate) fn process_ends_after_run() -> bool {
    ENDS_AFTER_RUN.load(Ordering::Relaxed)
}

/// Run one parsed command line: resolve its settings, then the command. Errors are returned for
/// [`report_error`] to render.
pub fn run(cli: Cli) -> miette::Result<ExitStatus> {
    let env = EnvVars::from_process();
    clock::pin(env.get("PLANNER_NOW").as_deref())?;
    metadata::set_max_bytes(env.get("PLANNER_MAX_METADATA_BYTES").as_deref())?;
    let settings = Settings::resolve(cli, &env)?;
    ERROR_COLOR.store(
        match settings.color {
            ColorChoice::Auto => 0,
            ColorChoice::Always => 1,
            ColorChoice::Never => 2,
        },
        Ordering::Relaxed,
    );
    logging::init(settings.verbose, settings.quiet);
    log::debug!(
        "planner {} {}",
        env!("CARGO_PKG_VERSION"),
        settings.command.name()
    );
    for origin in &settings.origins {
        log::info!("setting {origin}");
    }
    let _timer = logging::Stage::start(settings.command.name());
    let printer = Printer::with_color(settings.quiet, settings.color);
    if settings.show_settings {
        printer.out(&format!("{settings:#?}\n"));
        return Ok(ExitStatus::Success);
    }
    match &settings.command {
        CommandSettings::Propose(s) => commands::propose::run(s, &printer),
        CommandSettings::Inventory(s) => commands::inventory::run(s, &printer),
        CommandSettings::Check(s) => commands::check::run(s, &printer),
        CommandSettings::Snapshot(s) => commands::snapshot::run(s, &printer),
        CommandSettings::Outdated(s) => commands::outdated::run(s, &printer),
        CommandSettings::Resolve(s) => commands::resolve::run(s, &printer),
        CommandSettings::Review(s) => commands::review::run(s, &printer),
        CommandSettings::Diff(s) => commands::diff::run(s, &printer),
        CommandSettings::Verify(s) => commands::verify::run(s, &printer),
        CommandSettings::Try(s) => commands::try_::run(s, &printer),
        CommandSettings::Bisect(s) => commands::bisect::run(s, &printer),
        CommandSettings::Completions(shell) => {
            let mut command = Cli::command();
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut command, "planner", &mut script);
            let hidden = hidden_flags(&command);
            printer.out(&without_flags(&String::from_utf8_lossy(&script), &hidden));
            Ok(ExitStatus::Success)
        }
        CommandSettings::Man(dir) => man(dir.as_deref(), &printer),
    }
}

/// The long names of the hidden flags of `command` and its subcommands (`show-settings`).
fn hidden_flags(command: &clap::Command) -> Vec<String> {
    let mut names: Vec<String> = command
        .get_arguments()
        .filter(|arg| arg.is_hide_set())
        .filter_map(|arg| arg.get_long().map(str::to_string))
        .collect();
    for sub in command.get_subcommands() {
        names.extend(hidden_flags(sub));
    }
    names.sort();
    names.dedup();
    names
}

/// A completion script without the flags in `hidden` (clap_complete offers hidden flags): the
/// lines that complete one of them alone (zsh, fish, elvish, PowerShell) dropped, and the flag
/// taken out of the word lists that name it among others (bash's `opts`, fish's list).
fn without_flags(script: &str, hidden: &[String]) -> String {
    let completes = |line: &str, name: &str| {
        let line = line.trim_start();
        line.starts_with(&format!("'--{name}["))
            || line.starts_with(&format!("cand --{name} "))
            || line.starts_with(&format!("[CompletionResult]::new('--{name}'"))
            || (line.starts_with("complete ") && line.contains(&format!(" -l {name} ")))
    };
    let mut out = String::with_capacity(script.len());
    for line in script.lines() {
        if hidden.iter().any(|name| completes(line, name)) {
            continue;
        }
        let is_hidden = |word: &str| {
            hidden
                .iter()
                .any(|name| word == name || word.strip_prefix("--") == Some(name))
        };
        if line.split(' ').any(is_hidden) {
            let kept: Vec<&str> = line.split(' ').filter(|w| !is_hidden(w)).collect();
            out.push_str(&kept.join(" "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// `planner man`: planner.1 on stdout, or every page (planner.1, planner-propose.1, ...)
/// written into `dir`.
fn man(dir: Option<&std::path::Path>, printer: &Printer) -> miette::Result<ExitStatus> {
    let command = Cli::command();
    match dir {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                return Err(miette::miette!(
                    help = "--dir takes a folder (created when missing), one page per command \
                            goes in it; `planner man > planner.1` writes the main page to a file",
                    "cannot write the man pages into `{}`: it is a file, not a folder",
                    dir.display()
                ));
            }
            std::fs::create_dir_all(dir).map_err(|err| {
                miette::miette!(
                    help = "pass a folder you can write to",
                    "cannot create the folder `{}` for the man pages: {err}",
                    dir.display()
                )
            })?;
            for (name, page) in man_pages(command) {
                atomic::write(&dir.join(&name), page.as_bytes(), atomic::Mode::File).map_err(
                    |err| {
                        miette::miette!(
                            help = "pass a folder you can write to",
                            "cannot write the man page `{name}` into `{}`: {err}",
                            dir.display()
                        )
                    },
                )?;
            }
            printer.note(&format!("wrote the man pages into {}", dir.display()));
        }
        None => {
            // planner.1 comes last.
            let page = man_pages(command).pop().map(|(_, page)| page);
            printer.out(&page.unwrap_or_default());
        }
    }
    Ok(ExitStatus::Success)
}

/// Every man page as (file name, roff): one per visible subcommand (planner-propose.1, ...),
/// then planner.1 last; each with the EXIT STATUS section, before VERSION.
fn man_pages(command: clap::Command) -> Vec<(String, String)> {
    fn walk(command: clap::Command, out: &mut Vec<(String, String)>) {
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub.clone(), out);
        }
        let man = clap_mangen::Man::new(command);
        let mut page = Vec::new();
        // Rendering into memory cannot fail.
        let _ = man.render(&mut page);
        let page = String::from_utf8_lossy(&page).into_owned();
        let page = match page.find("\n.SH VERSION") {
            Some(at) => format!(
                "{}\n{}{}",
                &page[..at],
                exit_status::MAN_SECTION,
                &page[at + 1..]
            ),
            None => format!("{page}{}", exit_status::MAN_SECTION),
        };
        out.push((man.get_filename(), page));
    }
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut out = Vec::new();
    walk(command, &mut out);
    out
}

/// Install miette's report handler for this process: as miette's default, except that text is
/// wrapped at spaces only, so a flag such as `--python-version` is never split at its hyphen,
/// nor a path or a hint's `PIP_CONFIG_FILE=/dev/null` after a `/` (a copy of it would not work).
pub fn install_error_hook() {
    // Only fails when a hook is already set (then that one stays).
    let _ = miette::set_hook(Box::new(|_| {
        let opts = miette::MietteHandlerOpts::new()
            .word_splitter(textwrap::WordSplitter::NoHyphenation)
            .word_separator(textwrap::WordSeparator::AsciiSpace)
            .break_words(false);
        let opts = match ERROR_COLOR.load(Ordering::Relaxed) {
            1 => opts.color(true),
            2 => opts.color(false),
            _ => opts,
        };
        Box::new(opts.build())
    }));
}

/// Render an error with miette on stderr and return exit code 2.
pub fn report_error(report: &miette::Report) -> ExitCode {
    // Every text escaped on its way out (`terminal::clean`): an error quotes what it read.
    let clean = miette::Report::new(terminal::clean(report.as_ref()));
    printer::err_line(&format!("{clean:?}"));
    ExitStatus::Error.into()
}

/// The exit status of a run that ended in `report`: 2 (the tool failed), except for the errors
/// that say what the user must change first (exit 1: a Python 2 environment).
pub fn error_status(report: &miette::Report) -> ExitStatus {
    match report.downcast_ref::<inventory::InventoryError>() {
        Some(inventory::InventoryError::Python2 { .. }) => ExitStatus::UserActionRequired,
        _ => ExitStatus::Error,
    }
}

/// Under `--format json`: the error as a `planner-error/1` document on stdout as well, so a
/// program reading stdout gets JSON whatever happened (docs/schemas/error.json).
pub fn report_error_json(report: &miette::Report) {
    let document = render::error::to_json(report.as_ref(), error_status(report).code());
    Printer::new(true).out(&document);
}
