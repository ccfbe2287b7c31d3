//! `planner try PLAN`: apply a plan in a throw-away copy of the environment and measure it.
//!
//! Reads the plan (a plan.json or a plan folder), finds the venv (`--venv`, `--python`, the
//! venv the plan's commands name, `$VIRTUAL_ENV`, `./.venv`), copies it ([`VenvCopy`]), reads
//! the COPY's inventory (the probe runs Python, which must not run in the original), refuses a
//! plan made from other versions than the copy holds, selects the plan's checks there, renders
//! the install steps for the copy's interpreter (uv when on PATH, else pip), and hands all of
//! it to [`trial::measure`]. The whole run is one interrupt critical section: Ctrl-C kills the
//! running child, removes the copy and exits 130.
//!
//! Exit codes: 0 applied, nothing regressed; 1 a regression (each named); 2 it could not be
//! tried (why), or the tool failed.

use std::path::{Path, PathBuf};

use miette::miette;
use pep508_rs::PackageName;

use crate::ExitStatus;
use crate::interrupt::Critical;
use crate::inventory::{self, Inventory};
use crate::plan::Plan;
use crate::printer::Printer;
use crate::render::commands::{self, CommandOptions};
use crate::render::trial as render;
use crate::settings::{OutputFormat, TrialEnvironment, TrySettings};
use crate::trial::{self, Installer, TrialInput, TrialOutcome, Tried, VenvCopy, Verdict};

/// Run `planner try`.
pub(crate) fn run(args: &TrySettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let plan_file = plan_file(&args.plan);
    let plan = crate::plan::read_plan(&plan_file)?;
    let original = Original::of(choose_environment(&Choice::of(
        "try",
        &args.environment,
        planned_python(&plan),
    ))?);
    let critical = Critical::enter();
    let tried = try_plan(
        &plan,
        &original,
        &TrialSettings {
            tests: &args.environment.tests,
            keep: args.keep.as_deref(),
            index_url: args.index_url.as_deref(),
            policy: &args.policy,
            run: &args.run,
        },
        &critical,
        printer,
    )?;
    let mut report = render::TryReport::new(&plan, &plan_file, original.path(), tried);
    report.verbose = crate::logging::verbose();
    match args.format {
        OutputFormat::Json => printer.out(&crate::render::json::to_json(&report)?),
        OutputFormat::Markdown => printer.out(&render::markdown(&report)),
        OutputFormat::Text => printer.out(&render::text(&report)),
    }
    Ok(exit_status(&report))
}

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
    let copy = match original {
        Original::Venv(venv) => {
            let changed: Vec<PackageName> = plan.changes.iter().map(|c| c.name.clone()).collect();
            VenvCopy::make(venv, &changed, settings.keep)?
        }
        Original::Fresh { .. } => {
            fresh_copy(plan, original, settings, installer, work.path(), critical)?
        }
    };
    printer.note(&render::copy_line(&copy));
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
    let script = crate::verify::script::script(&spec);
    let no_pip = installer == Installer::Pip && inventory.get(&pip_name()).is_none();
    let outer = no_pip
        .then(|| outer_pip(&[&copy.root, original.path()]))
        .flatten();
    let steps = install_steps(
        plan,
        settings.index_url,
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
        let mut outcome = trial::measure(
            &copy,
            &TrialInput {
                script: &script,
                installer,
                steps: &steps,
                tests: settings.tests,
                verify: settings.run.clone(),
                work: work.path(),
            },
            critical,
        )?;
        outcome.installer_note = outer.map(|o| o.note);
        outcome
    };
    let tried = Tried {
        outcome,
        copy_path: copy.kept().then(|| copy.root.clone()),
        copy: copy.stats.clone(),
        original: trial::OriginalCheck {
            checked: copy.linked_count(),
            changed: copy.linked_changed(),
        },
    };
    if copy.kept() {
        printer.note(&format!("the copy is kept in {}", copy.root.display()));
    } else {
        copy.discard()
            .map_err(|err| miette!("cannot remove the copy: {err}"))?;
    }
    Ok(tried)
}

fn exit_status(report: &render::TryReport<'_>) -> ExitStatus {
    if !report.tried.original.changed.is_empty() {
        return ExitStatus::Error;
    }
    match report.tried.outcome.verdict {
        Verdict::Clean => ExitStatus::Success,
        Verdict::Regressed => ExitStatus::UserActionRequired,
        Verdict::NotTried => ExitStatus::Error,
    }
}

/// A plan folder's `plan.json`, or the file itself.
fn plan_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("plan.json")
    } else {
        path.to_path_buf()
    }
}

fn pip_name() -> PackageName {
    PackageName::new("pip".to_string()).expect("a valid name")
}

/// Where a command was told to find the environment (`try`, `bisect`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Choice<'a> {
    /// The command's name, for the errors.
    pub command: &'a str,
    /// `--venv`.
    pub venv: Option<&'a Path>,
    /// `--python`.
    pub python: Option<&'a Path>,
    /// The interpreter the plan's commands name (`try`).
    pub planned: Option<&'a Path>,
    /// `$VIRTUAL_ENV`.
    pub active: Option<&'a Path>,
}

impl<'a> Choice<'a> {
    /// `command`'s environment flags and `$VIRTUAL_ENV`, with the interpreter a plan names.
    pub(crate) fn of(
        command: &'a str,
        environment: &'a TrialEnvironment,
        planned: Option<&'a Path>,
    ) -> Choice<'a> {
        Choice {
            command,
            venv: environment.venv.as_deref(),
            python: environment.python.as_deref(),
            planned,
            active: environment.active_venv.as_deref(),
        }
    }
}

/// The environment chosen: a venv, or an interpreter that is not a venv's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Chosen {
    /// A venv's root.
    Venv(PathBuf),
    /// A system or conda interpreter (no `pyvenv.cfg` beside its `bin/`).
    Interpreter(PathBuf),
}

/// The environment: `--venv`, `--python` (its venv, else the interpreter itself), the venv or
/// interpreter the plan's commands name, `$VIRTUAL_ENV`, `./.venv`.
pub(crate) fn choose_environment(choice: &Choice<'_>) -> miette::Result<Chosen> {
    if let Some(venv) = choice.venv {
        return require_venv(venv, "--venv", choice.command).map(Chosen::Venv);
    }
    if let Some(python) = choice.python {
        return Ok(match venv_of_interpreter(python) {
            Some(venv) => Chosen::Venv(venv),
            None => Chosen::Interpreter(python.to_path_buf()),
        });
    }
    if let Some(python) = choice.planned {
        if let Some(venv) = venv_of_interpreter(python) {
            return Ok(Chosen::Venv(venv));
        }
        if python.is_absolute() && python.is_file() {
            return Ok(Chosen::Interpreter(python.to_path_buf()));
        }
    }
    if let Some(venv) = choice.active {
        return require_venv(venv, "$VIRTUAL_ENV", choice.command).map(Chosen::Venv);
    }
    if Path::new(".venv/pyvenv.cfg").is_file() {
        return Ok(Chosen::Venv(PathBuf::from(".venv")));
    }
    Err(miette!(
        help = "name it with --venv DIR (or --python DIR/bin/python)",
        "which environment to {}? {}$VIRTUAL_ENV is not set and there is no ./.venv",
        choice.command,
        if choice.planned.is_some() {
            "The plan does not name an environment that exists, "
        } else {
            ""
        }
    ))
}

fn require_venv(venv: &Path, from: &str, command: &str) -> miette::Result<PathBuf> {
    if venv.join("pyvenv.cfg").is_file() {
        Ok(venv.to_path_buf())
    } else {
        Err(miette!(
            help = format!(
                "{command} works on a virtual environment (a folder with pyvenv.cfg and \
                 bin/python); for a system or conda interpreter pass --python"
            ),
            "`{}` ({from}) is not a virtual environment: it has no pyvenv.cfg",
            venv.display()
        ))
    }
}

/// `V` for `V/bin/python` when `V/pyvenv.cfg` exists (the path as given, links not resolved:
/// a venv's python is a link to the base interpreter).
fn venv_of_interpreter(python: &Path) -> Option<PathBuf> {
    let venv = std::path::absolute(python)
        .ok()?
        .parent()?
        .parent()?
        .to_path_buf();
    venv.join("pyvenv.cfg").is_file().then_some(venv)
}

/// The interpreter the plan's first command runs.
fn planned_python(plan: &Plan) -> Option<&Path> {
    plan.commands
        .as_ref()
        .and_then(|c| c.pip.first())
        .and_then(|step| step.first())
        .map(Path::new)
}

/// The environment a plan is tried in.
#[derive(Debug, Clone)]
pub(crate) enum Original {
    /// A venv that is copied.
    Venv(PathBuf),
    /// One that cannot be: a fresh venv is built from its exact pins instead.
    Fresh {
        /// The venv, or the interpreter's `sys.prefix` (known once it is read).
        path: PathBuf,
        /// Its interpreter (`--python`), or `None` for a venv.
        python: Option<PathBuf>,
        /// Why no copy.
        why: String,
    },
}

impl Original {
    /// A chosen environment: a writable venv is copied; a read-only one, or an interpreter
    /// that is not a venv's, gets a fresh venv.
    pub(crate) fn of(chosen: Chosen) -> Original {
        match chosen {
            Chosen::Venv(venv) => match read_only(&venv) {
                Some(what) => Original::Fresh {
                    why: format!(
                        "`{}` is read-only ({what}): a copy of it could not be changed",
                        venv.display()
                    ),
                    path: venv,
                    python: None,
                },
                None => Original::Venv(venv),
            },
            Chosen::Interpreter(python) => Original::Fresh {
                why: format!(
                    "`{}` is not a venv's interpreter (a system or conda interpreter): its \
                     prefix is not copied",
                    python.display()
                ),
                path: python.clone(),
                python: Some(python),
            },
        }
    }

    /// The venv, or the interpreter.
    pub(crate) fn path(&self) -> &Path {
        match self {
            Original::Venv(path) | Original::Fresh { path, .. } => path,
        }
    }
}

/// The first of the venv's root and site-packages folders that is read-only (no write bit,
/// or not writable by this user, or on a read-only filesystem), said in words.
fn read_only(venv: &Path) -> Option<String> {
    let mut folders = vec![venv.to_path_buf()];
    folders.extend(trial::copy::site_packages(venv));
    folders.into_iter().find_map(|folder| {
        let meta = std::fs::metadata(&folder).ok()?;
        let writable = !meta.permissions().readonly() && trial::copy::writable(&folder);
        (!writable).then(|| format!("{} cannot be written", folder.display()))
    })
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
        let pin = crate::render::safe::pin(dist.name(), dist.version())?;
        // The installer tools are copied as they are too: `uv venv` makes none and `-m venv`
        // its own version, and a test index need not carry them.
        let seed = ["pip", "setuptools", "wheel"].contains(&dist.name().as_ref());
        match &dist.direct_url {
            None if !seed => pins.push(pin),
            source => carried.push(trial::Carried {
                name: dist.name().to_string(),
                dist_info: dist.path.clone(),
                reinstall: crate::render::rollback::requirement(
                    dist.name(),
                    dist.version(),
                    source.as_ref(),
                    true,
                )?,
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

/// The interpreter a venv was made from: its `bin/python` resolved when it links outside the
/// venv, else `home` of `pyvenv.cfg` (`home/python3`), else `bin/python` itself.
fn base_interpreter(venv: &Path) -> PathBuf {
    let python = venv.join("bin").join("python");
    if let Ok(real) = std::fs::canonicalize(&python)
        && let Ok(root) = std::fs::canonicalize(venv)
        && !real.starts_with(root)
    {
        return real;
    }
    let home =
        crate::bounded::read_to_string(&venv.join("pyvenv.cfg"), crate::bounded::USER_FILE_LIMIT)
            .ok()
            .and_then(|cfg| {
                cfg.lines().find_map(|line| {
                    let (key, value) = line.split_once('=')?;
                    (key.trim() == "home").then(|| PathBuf::from(value.trim()).join("python3"))
                })
            });
    home.filter(|p| p.is_file()).unwrap_or(python)
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
/// written into `work`. The index and the binary rule are the ones the plan was made with
/// (read from its commands), unless `--index-url` names another index.
fn install_steps(
    plan: &Plan,
    index_url: Option<&str>,
    copy: &VenvCopy,
    installer: Installer,
    work: &Path,
    outer: Option<&OuterPip>,
) -> miette::Result<Vec<Vec<String>>> {
    let planned: Vec<&Vec<String>> = plan.commands.iter().flat_map(|c| c.pip.iter()).collect();
    let index_url = plan_index_url(plan, index_url);
    let installs: Vec<&&Vec<String>> = planned
        .iter()
        .filter(|step| step.iter().any(|t| t == "install"))
        .collect();
    let allow_build = !installs.is_empty()
        && installs
            .iter()
            .all(|s| !s.iter().any(|t| t == "--only-binary"));
    let files = commands::install_files(
        plan,
        &CommandOptions {
            python: copy.python().display().to_string(),
            index_url,
            files_dir: Some(work.display().to_string()),
            constraints: true,
            allow_build,
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

/// `--index-url`, else the index the plan's commands name.
fn plan_index_url(plan: &Plan, index_url: Option<&str>) -> Option<String> {
    index_url.map(str::to_string).or_else(|| {
        plan.commands
            .iter()
            .flat_map(|c| c.pip.iter())
            .find_map(|step| {
                step.windows(2)
                    .find(|pair| pair[0] == "--index-url")
                    .map(|pair| pair[1].clone())
            })
    })
}
