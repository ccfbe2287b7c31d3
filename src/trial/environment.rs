//! Which environment a plan is tried in (`try`, `bisect`, `propose --try`, `review --try`).
//!
//! In: where the command was told to look ([`Choice`]: `--venv`, `--python`, the interpreter
//! the plan's commands name, `$VIRTUAL_ENV`, `./.venv`). Out: the [`Chosen`] venv or
//! interpreter, and the [`Original`] a trial starts from: a writable venv is copied; a
//! read-only one, or an interpreter that is not a venv's, gets a fresh venv built from its
//! exact pins ([`base_interpreter`] is the interpreter that venv is made with).

use std::path::{Path, PathBuf};

use miette::miette;

use crate::plan::Plan;
use crate::trial;

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

/// The interpreter the plan's install steps install into.
pub(crate) fn planned_python(plan: &Plan) -> Option<&Path> {
    plan.install
        .as_ref()
        .and_then(|steps| steps.python.as_deref())
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

/// The interpreter a venv was made from: its `bin/python` resolved when it links outside the
/// venv, else `home` of `pyvenv.cfg` (`home/python3`), else `bin/python` itself.
pub(crate) fn base_interpreter(venv: &Path) -> PathBuf {
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
