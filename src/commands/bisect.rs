//! `planner bisect --good SNAPSHOT|--since WHEN (--test CMD | --verify)`: which of the changes
//! since a known-good state broke the check.
//!
//! Finds the venv (`--venv`, `--python`, `$VIRTUAL_ENV`, `./.venv`), reads it and the good
//! state (a snapshot, `pip inspect` output, a venv; `--since` reconstructs it from install
//! records and the index's upload times), each venv in a throw-away copy (reading runs its
//! interpreter, which must not run in the original) with its files checked against their
//! `RECORD`s, lists the changes (`diff`, edits in place included), and hands them
//! to [`bisect::bisect`] with the check. The whole run is one interrupt critical section:
//! Ctrl-C kills the running child, removes the copy and exits 130.
//!
//! Exit codes: 0 the culprits were found; 1 they were not (the good state fails too, nothing
//! fails now, nothing changed, or no set could be isolated); 2 the tool failed.

use std::path::{Path, PathBuf};

use miette::miette;

use crate::ExitStatus;
use crate::bisect::states::{self, installer, read_good, read_venv};
use crate::bisect::{self, BisectInput, Universe, Verdict, state};
use crate::interrupt::Critical;
use crate::inventory::Inventory;
use crate::printer::Printer;
use crate::render::bisect as render;
use crate::settings::{BisectSettings, GoodState, OutputFormat};
use crate::trial::Installer;
use crate::trial::environment::{Choice, Chosen, choose_environment};

/// Run `planner bisect`.
pub(crate) fn run(args: &BisectSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let original = current_venv(args)?;
    let critical = Critical::enter();
    let now = read_venv(&original)?;
    let (good, label, assumed) = match &args.good {
        GoodState::File(path) => (read_good(path)?, path.display().to_string(), Vec::new()),
        GoodState::Since(when) => since_state(args, &original, &now, when, printer)?,
    };
    let changes = state::changes(&good, &now);
    let universe = Universe::new(&good, &now).map_err(|why| miette!("{why}"))?;
    has_interpreter(&original)?;
    let work = tempfile::Builder::new()
        .prefix("planner-bisect-work-")
        .tempdir()
        .map_err(|err| miette!("cannot make a temp folder: {err}"))?;
    let tests = check_commands(args, &now, &good, &changes, work.path())?;
    let installer = installer(&now)?;
    printer.note(&format!(
        "{} change(s) since {}; each step reverts some in a copy of {} ({})",
        changes.len(),
        label,
        original.display(),
        match installer {
            Installer::Uv => "uv",
            Installer::Pip => "pip",
        }
    ));
    let input = BisectInput {
        original: &original,
        tests: &tests,
        installer,
        index_url: args.index_url.as_deref(),
        retries: args.retries,
        timeout: args.timeout,
        keep: args.keep.as_deref(),
    };
    let outcome = bisect::bisect(&changes, &universe, &input, &critical, &mut |step| {
        printer.note(&render::step_line(step));
    })?;
    let report = render::BisectReport::new(
        original,
        label,
        render::CheckInfo {
            tests,
            verify: args.verify,
            retries: args.retries,
            timeout: args.timeout.map(|t| t.as_secs()),
        },
        changes,
        outcome,
        args.index_url.as_deref(),
    );
    let report = render::BisectReport { assumed, ..report };
    match args.format {
        OutputFormat::Json => printer.out(&crate::render::json::to_json(&report)?),
        OutputFormat::Markdown => printer.out(&render::markdown(&report)),
        OutputFormat::Text => printer.text(&render::text(&report)),
    }
    Ok(if report.outcome.verdict == Verdict::Found {
        ExitStatus::Success
    } else {
        ExitStatus::UserActionRequired
    })
}

/// The venv that fails now: `--venv`, the venv of `--python`, `$VIRTUAL_ENV`, `./.venv`.
fn current_venv(args: &BisectSettings) -> miette::Result<PathBuf> {
    let venv = given_venv(args)?;
    std::path::absolute(&venv).map_err(|err| miette!("`{}`: {err}", venv.display()))
}

fn given_venv(args: &BisectSettings) -> miette::Result<PathBuf> {
    let chosen = choose_environment(&Choice::of("bisect", &args.environment, None))?;
    match chosen {
        Chosen::Venv(venv) => Ok(venv),
        Chosen::Interpreter(python) => Err(miette!(
            help = "bisect copies a virtual environment: pass --venv DIR, or --python with a \
                    venv's bin/python",
            "`{}` is not the interpreter of a virtual environment (no pyvenv.cfg beside its \
             bin/)",
            python.display()
        )),
    }
}

/// Each step installs into a copy of `venv` and runs the check with its own interpreter: a venv
/// read from its metadata alone (no bin/python) would fail every step, the good state first, and
/// the run would blame the good state. Refused before the first step.
fn has_interpreter(venv: &Path) -> miette::Result<()> {
    if ["python", "python3"]
        .iter()
        .any(|p| venv.join("bin").join(p).exists())
    {
        return Ok(());
    }
    Err(miette!(
        code = "planner::bisect::no_interpreter",
        help = "run bisect where the environment lives, with its interpreter; a venv read from \
                its metadata alone (pyvenv.cfg and site-packages) cannot be bisected",
        "`{}` has no interpreter (no bin/python): bisect installs into copies of it and runs \
         the check with it",
        venv.display()
    ))
}

/// The check's command lines: `--test` as given; `--verify` adds the verification script
/// (every import of the changed dists and of what depends on them, among the dists both states
/// have; `pip check`; the policy's smoke tests for them), run by the copy's `python`.
fn check_commands(
    args: &BisectSettings,
    now: &Inventory,
    good: &Inventory,
    changes: &[state::Change],
    work: &Path,
) -> miette::Result<Vec<String>> {
    let mut tests = args.environment.tests.clone();
    if args.verify {
        let both = states::verify_scope(now, good, changes);
        let spec = crate::verify::select(None, &both, &args.policy, true);
        let script = work.join("verify.py");
        std::fs::write(&script, crate::verify::script::script(&spec))
            .map_err(|err| miette!("cannot write {}: {err}", script.display()))?;
        tests.push(format!(
            "python {} --quiet --plain",
            crate::render::safe::quote(&script.display().to_string())
        ));
    }
    Ok(tests)
}

/// `--since WHEN`: the good state reconstructed from install records and upload times.
fn since_state(
    args: &BisectSettings,
    original: &Path,
    now: &Inventory,
    when: &str,
    printer: &Printer,
) -> miette::Result<(Inventory, String, Vec<String>)> {
    // The wall clock, not `clock::now()`: the cut-off is compared with real file times.
    let (cutoff, how) = crate::diff::since::parse_when_in(
        when,
        jiff::Timestamp::now(),
        &jiff::tz::TimeZone::system(),
    )?;
    if let Some(how) = how {
        printer.note(&format!("note: {how}"));
    }
    let mut settings = args.index.resolve(Some(original))?;
    settings.target_tags = Some(now.environment.tags.clone());
    let index = crate::index::Index::new(settings, printer)?;
    let reconstructed = states::reconstruct_since(now, original, (cutoff, when), &index)?;
    index.finish_progress();
    for note in &reconstructed.notes {
        printer.note(&format!("note: {note}"));
    }
    Ok((
        reconstructed.good,
        format!("the state before {cutoff} (--since {when}, reconstructed)"),
        reconstructed.notes,
    ))
}
