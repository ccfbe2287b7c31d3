//! A plan tried in a copy of its environment, from the copy to its removal: what `try`,
//! `propose --try` and `review --try` share.
//!
//! In: the [`Plan`], the [`Original`] environment ([`super::environment`] chooses it) and the
//! [`TrialSettings`] (`--test`, `--keep`, `--index-url`, the policy, `verify.py`'s options).
//! Out: [`Tried`]: the outcome [`trial::measure`] returns, the copy's figures and whether the
//! original's hard-linked files are as they were. On the way it copies the venv (or builds a
//! fresh one from the original's exact pins), reads the COPY's inventory (the probe runs
//! Python, which must not run in the original), refuses a plan made from other versions than
//! the copy holds, selects the plan's checks there, and renders the install steps for the
//! copy's interpreter (uv when on PATH, else pip; an outer pip when the copy has none) from the
//! plan's typed install steps. The commands and lines themselves are written by the render stage,
//! through the [`TrialText`] its caller hands it ([`TrialSettings::text`]).
//!
//! Besides one plan: each plan `propose --try` lists ([`try_plans`]), and each finding's plans
//! `review --try` judged ([`try_findings`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use miette::miette;
use pep440_rs::Version;
use pep508_rs::PackageName;

use crate::interrupt::Critical;
use crate::inventory::{self, DirectUrl, Inventory, NotReinstallable};
use crate::plan::{InstallSteps, Plan, Proposal};
use crate::printer::Printer;
use crate::review::{Measured, MeasuredPlan, Review};
use crate::trial::environment::{Chosen, Original, base_interpreter};
use crate::trial::{self, Installer, TrialInput, TrialOutcome, Tried, VenvCopy};

/// What trying one plan needs besides the plan and the venv.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrialSettings<'a> {
    /// `--test` command lines.
    pub tests: &'a [String],
    /// `--keep DIR`.
    pub keep: Option<&'a Path>,
    /// `--index-url` (else the plan's own).
    pub index_url: Option<&'a str>,
    /// The policy whose smoke tests run.
    pub policy: &'a crate::risk::Policy,
    /// Passed through to `verify.py`.
    pub run: &'a crate::verify::run::RunOptions,
    /// Who writes the commands and lines ([`crate::render::trial::TrialWriter`]).
    pub text: &'a dyn TrialText,
}

/// What trying a plan needs written, which the render stage writes: the commands that carry out
/// a plan's install steps in a copy, the pins and reinstall requirements of a fresh venv, the
/// line saying how the copy was made. The trial runs them; it does not write them.
pub(crate) trait TrialText: std::fmt::Debug {
    /// The line printed once the copy exists.
    fn copy_line(&self, copy: &VenvCopy) -> String;
    /// The commands that carry out `steps` for `target`, and the files they read.
    fn install(
        &self,
        plan: &Plan,
        steps: &InstallSteps,
        target: &InstallTarget,
    ) -> miette::Result<InstallCommands>;
    /// `name==version`, checked.
    fn pin(&self, name: &PackageName, version: &Version) -> miette::Result<String>;
    /// The requirement that reinstalls an installed dist from its `direct_url.json` (a build
    /// allowed), or why none can.
    fn reinstall(
        &self,
        name: &PackageName,
        version: &Version,
        source: Option<&DirectUrl>,
    ) -> miette::Result<Result<String, NotReinstallable>>;
}

/// Where a plan's install commands run in a copy.
#[derive(Debug, Clone)]
pub(crate) struct InstallTarget {
    /// The copy's interpreter.
    pub python: String,
    /// The folder that holds `constraints.txt` and `overrides.txt`.
    pub files_dir: String,
    /// The copy has no pip: pip runs from outside (`python3 -m pip --python PY`).
    pub pip_outside: bool,
}

/// A plan's install commands for a copy, each an argv, and the files they read.
#[derive(Debug, Clone)]
pub(crate) struct InstallCommands {
    /// pip's steps.
    pub pip: Vec<Vec<String>>,
    /// uv's steps.
    pub uv: Vec<Vec<String>>,
    /// `constraints.txt`.
    pub constraints: String,
    /// `overrides.txt`.
    pub overrides: String,
}

/// Copy `original`, try `plan` in the copy, remove the copy (unless kept). An interrupt inside
/// `critical` ends it with [`trial::TrialError::Interrupted`] after the copy is removed.
pub(crate) fn try_plan(
    plan: &Plan,
    original: &Original,
    settings: &TrialSettings<'_>,
    critical: &Critical,
    printer: &Printer,
) -> miette::Result<Tried> {
    let work = tempfile::Builder::new()
        .prefix("planner-try-work-")
        .tempdir()
        .map_err(|err| miette!("cannot make a temp folder: {err}"))?;
    let installer = if inventory::find_on_path("uv").is_some() {
        Installer::Uv
    } else {
        Installer::Pip
    };
    let mode = trial::baseline_mode()?;
    let changed: Vec<PackageName> = plan.changes.iter().map(|c| c.name.clone()).collect();
    let copy = match original {
        Original::Venv(venv) => VenvCopy::make(venv, &changed, settings.keep)?,
        Original::Fresh { .. } => {
            fresh_copy(plan, original, settings, installer, work.path(), critical)?
        }
    };
    printer.note(&settings.text.copy_line(&copy));
    if critical.interrupted() {
        return Err(trial::TrialError::Interrupted.into());
    }
    let inventory = inventory::load_venv(&copy.root)?;
    if let Some(drift) = drift(plan, &inventory) {
        return Err(miette!(
            help = "make the plan again from the environment as it is now (`planner propose`)",
            "`{}` no longer matches the plan ({}): {drift}",
            original.path().display(),
            plan.title
        ));
    }
    let spec = crate::verify::select(Some(plan), &inventory, settings.policy, false);
    let changed_tops: BTreeSet<String> = changed
        .iter()
        .filter_map(|name| inventory.get(name))
        .flat_map(|dist| dist.top_level.iter().cloned())
        .collect();
    let script = crate::verify::script::script(&spec);
    let no_pip = installer == Installer::Pip && inventory.get(&pip_name()).is_none();
    let outer = no_pip
        .then(|| outer_pip(&[&copy.root, original.path()]))
        .flatten();
    let steps = install_steps(
        plan,
        settings,
        &copy,
        installer,
        work.path(),
        outer.as_ref(),
    )?;
    let outcome = if no_pip && outer.is_none() {
        TrialOutcome::not_tried(
            installer,
            "no uv on PATH, no pip in the environment, and no python3 on PATH with pip 22.3 or \
             newer to run against it: nothing can apply the plan (install uv, or pip into the \
             venv)",
        )
    } else {
        let second = |venv: &Path| VenvCopy::make(venv, &changed, None);
        let make = match original {
            Original::Venv(venv) if mode != trial::BaselineMode::First => {
                Some(move || second(venv))
            }
            _ => None,
        };
        let mut outcome = trial::measure(
            &copy,
            &TrialInput {
                script: &script,
                installer,
                steps: &steps,
                tests: settings.tests,
                verify: settings.run.clone(),
                work: work.path(),
                changed_tops: &changed_tops,
            },
            mode,
            make.as_ref().map(|m| m as trial::MakeCopy<'_>),
            critical,
        )?;
        outcome.installer_note = outer.map(|o| o.note);
        outcome
    };
    let tried = tried(outcome, &copy);
    if copy.kept() {
        printer.note(&format!("the copy is kept in {}", copy.root.display()));
    } else {
        copy.discard()
            .map_err(|err| miette!("cannot remove the copy: {err}"))?;
    }
    Ok(tried)
}

/// The trial's report: its outcome, the copy's figures, and the original's hard-linked files
/// afterwards, as linked from the copy and from the baseline's own copy when it had one.
fn tried(mut outcome: TrialOutcome, copy: &VenvCopy) -> Tried {
    let mut original = trial::OriginalCheck {
        checked: copy.linked_count(),
        changed: copy.linked_changed(),
    };
    if let Some(beside) = outcome.baseline_original.take() {
        original.checked += beside.checked;
        original.changed.extend(beside.changed);
    }
    Tried {
        outcome,
        copy_path: copy.kept().then(|| copy.root.clone()),
        copy: copy.stats.clone(),
        original,
    }
}

/// `propose --try`: each plan of `proposal` (or the first `top`) tried in a copy of the venv
/// `inventory` was read from (else a fresh venv for its interpreter), in order, with `on`'s
/// `--test` lines, `verify.py` options, policy and writer; `None` for a plan not tried.
pub(crate) fn try_plans(
    proposal: &Proposal,
    inventory: &Inventory,
    top: Option<usize>,
    on: (
        &[String],
        &crate::verify::run::RunOptions,
        &crate::risk::Policy,
        &dyn TrialText,
    ),
    printer: &Printer,
) -> miette::Result<Vec<Option<Tried>>> {
    let (tests, run, policy, text) = on;
    let settings = &TrialSettings {
        tests,
        keep: None,
        index_url: None,
        policy,
        run,
        text,
    };
    let python = match &inventory.environment.origin {
        inventory::EnvironmentOrigin::Interpreter { python, .. } => Some(python.as_path()),
        _ => None,
    };
    let venv = inventory.environment.prefix.as_deref();
    let original = match (venv.filter(|v| v.join("pyvenv.cfg").is_file()), python) {
        (Some(venv), _) => Chosen::Venv(venv.to_path_buf()),
        (None, Some(python)) => Chosen::Interpreter(python.to_path_buf()),
        (None, None) => {
            return Err(miette::miette!(
                help = "--try needs the environment on this machine: pass --venv DIR or \
                        --python P (or drop --try)",
                "--try cannot try plans made from a snapshot"
            ));
        }
    };
    let original = Original::of(original);
    let critical = crate::interrupt::Critical::enter();
    let top = top.unwrap_or(usize::MAX);
    let mut tried = Vec::new();
    for (i, plan) in proposal.plans.iter().enumerate() {
        if i >= top {
            tried.push(None);
            continue;
        }
        printer.note(&format!(
            "trying plan {} ({}) in a copy of {}",
            i + 1,
            plan.kind,
            original.path().display()
        ));
        let one = try_plan(plan, &original, settings, &critical, printer)?;
        tried.push(Some(one));
    }
    Ok(tried)
}

fn pip_name() -> PackageName {
    PackageName::new("pip".to_string()).expect("a valid name")
}

/// Build the fresh venv for `original` (not a copyable venv) from its inventory's exact pins.
fn fresh_copy(
    plan: &Plan,
    original: &Original,
    settings: &TrialSettings<'_>,
    installer: Installer,
    work: &Path,
    critical: &Critical,
) -> miette::Result<VenvCopy> {
    let Original::Fresh { path, python, why } = original else {
        unreachable!("fresh_copy is called for Original::Fresh");
    };
    // Read in place: there is no copy to read. The probe runs with -I -B (no bytecode written).
    let inventory = match python {
        Some(python) => inventory::load_python(python)?,
        None => inventory::load_venv(path)?,
    };
    let prefix = inventory
        .environment
        .prefix
        .clone()
        .unwrap_or_else(|| path.clone());
    let base_python = match python {
        Some(python) => python.clone(),
        None => base_interpreter(path),
    };
    let mut pins = Vec::new();
    let mut carried = Vec::new();
    for dist in &inventory.dists {
        let pin = settings.text.pin(dist.name(), dist.version())?;
        // The installer tools are copied as they are too: `uv venv` makes none and `-m venv`
        // its own version, and a test index need not carry them.
        let seed = ["pip", "setuptools", "wheel"].contains(&dist.name().as_ref());
        match &dist.direct_url {
            None if !seed => pins.push(pin),
            source => carried.push(trial::Carried {
                name: dist.name().to_string(),
                dist_info: dist.path.clone(),
                reinstall: settings
                    .text
                    .reinstall(dist.name(), dist.version(), source.as_ref())?,
            }),
        }
    }
    let copy = VenvCopy::fresh(
        &trial::FreshSpec {
            why: why.clone(),
            original: &prefix,
            base_python,
            installer,
            pins,
            carried,
            index_url: plan_index_url(plan, settings.index_url),
        },
        settings.keep,
        work,
        critical,
    )?;
    let built = inventory::load_venv(&copy.root)?;
    if let Some(differ) = differences(&inventory, &built) {
        return Err(miette!(
            help = "make a venv of the environment yourself and try the plan there with --venv",
            "the fresh venv does not match `{}`: {differ}",
            original.path().display()
        ));
    }
    Ok(copy)
}

/// The dists whose version differs between two inventories, said in words.
fn differences(original: &Inventory, built: &Inventory) -> Option<String> {
    let versions = |inv: &Inventory| -> std::collections::BTreeMap<String, String> {
        inv.dists
            .iter()
            .map(|d| (d.name().to_string(), d.version().to_string()))
            .collect()
    };
    let (was, now) = (versions(original), versions(built));
    let differ: Vec<String> = was
        .keys()
        .chain(now.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|name| was.get(*name) != now.get(*name))
        .map(|name| {
            let at = |m: &std::collections::BTreeMap<String, String>| {
                m.get(name).map_or("absent".to_string(), |v| v.clone())
            };
            format!("{name} {} there, {} in the original", at(&now), at(&was))
        })
        .collect();
    (!differ.is_empty()).then(|| differ.join("; "))
}

/// The changes whose installed version is not the plan's `from`, said in words.
fn drift(plan: &Plan, inventory: &Inventory) -> Option<String> {
    let at = |v: Option<&pep440_rs::Version>| {
        v.map_or("not installed".to_string(), |v| format!("at {v}"))
    };
    let drifted: Vec<String> = plan
        .changes
        .iter()
        .filter_map(|change| {
            let installed = inventory.get(&change.name).map(|d| d.version());
            (installed != change.from.as_ref()).then(|| {
                format!(
                    "{} is {} there, but {} when the plan was made",
                    change.name,
                    at(installed),
                    at(change.from.as_ref())
                )
            })
        })
        .collect();
    (!drifted.is_empty()).then(|| drifted.join("; "))
}

/// The plan's steps for the copy's interpreter, with `constraints.txt` and `overrides.txt`
/// written into `work`. The index and the build rule are the ones the plan was made with
/// ([`trial_steps`]), unless `--index-url` names another index.
fn install_steps(
    plan: &Plan,
    settings: &TrialSettings<'_>,
    copy: &VenvCopy,
    installer: Installer,
    work: &Path,
    outer: Option<&OuterPip>,
) -> miette::Result<Vec<Vec<String>>> {
    let files = settings.text.install(
        plan,
        &trial_steps(plan, settings.index_url),
        &InstallTarget {
            python: copy.python().display().to_string(),
            files_dir: work.display().to_string(),
            pip_outside: outer.is_some(),
        },
    )?;
    for (name, content) in [
        ("constraints.txt", &files.constraints),
        ("overrides.txt", &files.overrides),
    ] {
        std::fs::write(work.join(name), content)
            .map_err(|err| miette!("cannot write {name} in {}: {err}", work.display()))?;
    }
    Ok(match (installer, outer) {
        (Installer::Uv, _) => files.uv,
        (Installer::Pip, None) => files.pip,
        (Installer::Pip, Some(outer)) => files.pip.into_iter().map(|s| outer.step(s)).collect(),
    })
}

/// The install steps a copy gets: the plan's own (a plan `propose` did not finish has its
/// changes' steps, from the index's own configuration, wheels only), on `--index-url` when
/// given.
fn trial_steps(plan: &Plan, index_url: Option<&str>) -> InstallSteps {
    let mut steps = plan
        .install
        .clone()
        .unwrap_or_else(|| InstallSteps::of(&plan.changes, None, false));
    if let Some(url) = index_url {
        steps.index_url = Some(url.to_string());
    }
    steps
}

/// The pip that applies a plan to a copy without one: an interpreter outside the copy and the
/// original with pip 22.3 or newer (`--python`).
#[derive(Debug, Clone)]
struct OuterPip {
    /// Its absolute path.
    python: PathBuf,
    /// What the report says of it.
    note: String,
}

impl OuterPip {
    /// `python3 -m pip --python COPY ...` (the install script's form for a venv without pip)
    /// with this interpreter's absolute path and `-B` (no bytecode written outside the copy).
    /// The steps run with the copy activated: a bare `python3` would be the copy's, without pip.
    fn step(&self, mut argv: Vec<String>) -> Vec<String> {
        if argv.first().is_some_and(|t| t == "python3") {
            argv[0] = self.python.display().to_string();
            argv.insert(1, "-B".to_string());
        }
        argv
    }
}

/// The first `python3` on PATH, outside `exclude` (the copy, the original), whose pip runs and
/// is 22.3 or newer.
fn outer_pip(exclude: &[&Path]) -> Option<OuterPip> {
    let path = crate::env_vars::EnvVars::process().get_os("PATH")?;
    let excluded: Vec<PathBuf> = exclude
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    std::env::split_paths(&path)
        .map(|dir| dir.join("python3"))
        .filter(|python| python.is_absolute() && python.is_file())
        .filter(|python| {
            let real = std::fs::canonicalize(python.parent().unwrap_or(python));
            !real.is_ok_and(|real| excluded.iter().any(|e| real.starts_with(e)))
        })
        .find_map(|python| {
            let out = std::process::Command::new(&python)
                .args(["-B", "-m", "pip", "--version"])
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .ok()
                .filter(|out| out.status.success())?;
            let text = String::from_utf8_lossy(&out.stdout);
            let version = text.split_whitespace().nth(1)?.to_string();
            let parts: Vec<u32> = version
                .split('.')
                .take(2)
                .map_while(|p| p.parse().ok())
                .collect();
            (parts.as_slice() >= [22, 3].as_slice()).then(|| OuterPip {
                note: format!(
                    "the copy has no pip: pip {version} of {} ran against it (`-m pip --python`)",
                    python.display()
                ),
                python,
            })
        })
}

/// `--index-url`, else the index the plan was made against.
fn plan_index_url(plan: &Plan, index_url: Option<&str>) -> Option<String> {
    trial_steps(plan, index_url).index_url
}

/// `--try`: for each finding, its plan as pinned and its safer plan, each tried in a throw-away
/// copy of `venv` ([`try_plan`]); the same plan (by title and changes) once.
pub(crate) fn try_findings(
    review: &mut Review,
    venv: &Path,
    trial_settings: &TrialSettings<'_>,
    printer: &Printer,
) -> miette::Result<()> {
    let original = Original::of(Chosen::Venv(venv.to_path_buf()));
    let critical = Critical::enter();
    let mut done: Vec<(String, MeasuredPlan)> = Vec::new();
    let mut try_one = |plan: &Plan, what: &str| -> miette::Result<_> {
        let key = serde_json::to_string(&plan.changes).unwrap_or_default();
        if let Some((_, measured)) = done.iter().find(|(k, _)| *k == key) {
            return Ok(Some(measured.clone()));
        }
        printer.note(&format!(
            "trying {what} ({}) in a copy of {}",
            plan.title,
            venv.display()
        ));
        let tried = try_plan(plan, &original, trial_settings, &critical, printer)?;
        let measured = MeasuredPlan::new(&plan.title, tried);
        done.push((key, measured.clone()));
        Ok(Some(measured))
    };
    for finding in &mut review.findings {
        let what = format!("`{}` as pinned", finding.pin.requirement);
        for verdict in &mut finding.targets {
            let pinned = match &verdict.pinned {
                Some(plan) => try_one(plan, &what)?,
                None => None,
            };
            let safer = match &verdict.safer {
                Some(plan) => try_one(plan, "the safer plan")?,
                None => None,
            };
            if pinned.is_some() || safer.is_some() {
                verdict.tried = Some(Box::new(Measured { pinned, safer }));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanCommandLines;
    use crate::plan::test_plans;

    /// A copy is installed from the plan's typed steps: their index and build rule, whatever
    /// the rendered commands beside them say; `--index-url` replaces only the index.
    #[test]
    fn a_copy_gets_the_plans_typed_steps_not_its_rendered_commands() {
        let mut plan = test_plans::forced();
        let made = InstallSteps {
            python: Some("/venv/bin/python".to_string()),
            ..InstallSteps::of(
                &plan.changes,
                Some("http://127.0.0.1:1/simple/".to_string()),
                true,
            )
        };
        plan.install = Some(made.clone());
        plan.commands = Some(PlanCommandLines {
            pip: vec![
                ["python", "-m", "pip", "install", "--only-binary", ":all:"]
                    .iter()
                    .chain(&["--index-url", "http://elsewhere.invalid/simple/"])
                    .map(|t| t.to_string())
                    .collect(),
            ],
            uv: Vec::new(),
            files: Default::default(),
        });
        assert_eq!(trial_steps(&plan, None), made);
        let other = trial_steps(&plan, Some("http://127.0.0.2:2/simple/"));
        assert_eq!(
            other.index_url.as_deref(),
            Some("http://127.0.0.2:2/simple/")
        );
        assert!(other.allow_build);
        assert_eq!(other.force, made.force);
        // A plan `propose` did not finish (no steps): its changes, wheels only.
        plan.install = None;
        let bare = trial_steps(&plan, None);
        assert_eq!(bare, InstallSteps::of(&plan.changes, None, false));
        assert!(!bare.force.is_empty());
    }
}
