//! A fresh venv where no copy of the environment can be made: a system or conda interpreter
//! (no venv to copy), a read-only prefix (a copy would be read-only too, or cannot be linked).
//!
//! In: a [`FreshSpec`]: why no copy, the base interpreter, the exact pins of every dist the
//! original installed from an index, and its dists from direct URLs, VCS or editable installs
//! ([`Carried`]). Out: a [`VenvCopy`] whose stats say `fresh`, with what was built and what it
//! cost ([`FreshStats`]); removed when dropped unless kept.
//!
//! The venv is made from the base interpreter (`uv venv --python BASE`, else `BASE -m venv`),
//! then the pins go in with `--no-deps` (the set is the original's, whole) from wheels only
//! (`--only-binary :all:` / `--no-build`: no build backend from the index runs), with uv when it
//! is on PATH, else pip. A carried dist is copied as it is: its `.dist-info` and every file its
//! `RECORD` lists (scripts retargeted at the fresh venv); where that cannot work (no `RECORD`,
//! a listed file that cannot be read) it is reinstalled from its `direct_url.json`, and the
//! stats say which. The original is only read.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::Installer;
use super::copy::{self, CopyError, CopyMethod, CopyStats, FreshStats, VenvCopy};
use super::exec::{self, Ran};
use crate::interrupt::Critical;
use crate::inventory::NotReinstallable;

/// A dist from a direct URL, VCS or an editable install.
#[derive(Debug, Clone)]
pub(crate) struct Carried {
    /// Its name.
    pub name: String,
    /// Its `.dist-info` folder in the original.
    pub dist_info: PathBuf,
    /// The requirement that reinstalls it from its `direct_url.json`, or why none can.
    pub reinstall: Result<String, NotReinstallable>,
}

/// What the fresh venv is built from.
#[derive(Debug)]
pub(crate) struct FreshSpec<'a> {
    /// Why no copy could be made.
    pub why: String,
    /// The original's prefix (only read).
    pub original: &'a Path,
    /// The interpreter the venv is made from.
    pub base_python: PathBuf,
    /// The installer.
    pub installer: Installer,
    /// `name==version` of every dist installed from an index.
    pub pins: Vec<String>,
    /// The dists from direct URLs, VCS and editable installs.
    pub carried: Vec<Carried>,
    /// `--index-url` for the pins (else the installer's default).
    pub index_url: Option<String>,
}

/// Why the fresh venv could not be built.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum FreshError {
    /// Placing or filling the folder failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Copy(#[from] CopyError),
    /// A step failed.
    #[error(
        "the fresh venv could not be built ({why}): `{}` {status}: {last}",
        argv.join(" ")
    )]
    #[diagnostic(help(
        "a fresh venv needs every installed version on the index (or in the wheel cache); \
         make a venv of the environment yourself and try the plan there with --venv"
    ))]
    Step {
        /// Why a fresh venv was built.
        why: String,
        /// The step.
        argv: Vec<String>,
        /// How it ended.
        status: String,
        /// The last line of its output.
        last: String,
    },
    /// A carried dist can be neither copied nor reinstalled.
    #[error("{name} cannot be put in the fresh venv: {reason}")]
    #[diagnostic(help(
        "make a venv of the environment yourself and try the plan there with --venv"
    ))]
    Carry {
        /// The dist.
        name: String,
        /// Why.
        reason: String,
    },
    /// A child could not be started.
    #[error("cannot run `{what}`: {source}")]
    Spawn {
        /// What.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// Ctrl-C or SIGTERM.
    #[error("interrupted; the fresh venv is removed and the original was not touched")]
    Interrupted,
}

impl VenvCopy {
    /// Build a fresh venv from `spec` (in `keep`, else a temp folder); `work` holds the pins
    /// file.
    pub(crate) fn fresh(
        spec: &FreshSpec<'_>,
        keep: Option<&Path>,
        work: &Path,
        critical: &Critical,
    ) -> Result<VenvCopy, FreshError> {
        let started = Instant::now();
        let (root, temp) = copy::place(spec.original, keep, false)?;
        // Removed on every early return unless kept, like any copy.
        let mut venv = VenvCopy::new(
            spec.original,
            root,
            keep.is_some(),
            temp,
            CopyStats::none(CopyMethod::Fresh),
        );
        let mut fresh = FreshStats {
            why: spec.why.clone(),
            base_python: spec.base_python.clone(),
            pinned: spec.pins.len(),
            copied: Vec::new(),
            reinstalled: Vec::new(),
            steps: Vec::new(),
        };
        let (copied, reinstalled) = sort_carried(&spec.carried)?;
        let write = |name: &str, lines: &[String]| {
            let file = work.join(name);
            fs::write(&file, lines.join("\n") + "\n")
                .map(|()| file.display().to_string())
                .map_err(|source| CopyError::Io {
                    path: file.clone(),
                    source,
                })
        };
        let pins_file = write("fresh-pins.txt", &spec.pins)?;
        let direct_file = write("fresh-direct.txt", &reinstalled)?;
        let python = venv.python().display().to_string();
        let pip_copied = copied.iter().any(|c| c.name == "pip");
        let (make, install) = build_steps(spec, &venv.root, &python, pip_copied);
        fresh
            .steps
            .push(run_step(make, &venv.root, &spec.why, critical)?);
        let site = copy::site_packages(&venv.root).into_iter().next();
        let mut files = 0;
        for carried in &copied {
            let Some(site) = &site else {
                return Err(FreshError::Carry {
                    name: carried.name.to_string(),
                    reason: format!(
                        "the fresh venv {} has no site-packages",
                        venv.root.display()
                    ),
                });
            };
            files += venv.carry(carried, site)?;
            fresh.copied.push(carried.name.to_string());
        }
        // The pins come from the index: wheels only. A reinstalled dist comes from the source
        // the user installed it from (its `direct_url.json`), built as it was then.
        let binary = super::binary_only(spec.installer);
        let runs = [
            (&spec.pins, binary, pins_file),
            (&reinstalled, Vec::new(), direct_file),
        ];
        for (requirements, flags, file) in runs {
            if requirements.is_empty() {
                continue;
            }
            let mut argv = install.clone();
            argv.extend(flags);
            argv.extend(["-r".to_string(), file]);
            fresh
                .steps
                .push(run_step(argv, &venv.root, &spec.why, critical)?);
        }
        fresh.reinstalled = reinstalled;
        venv.stats.copied = files;
        venv.stats.files = files;
        venv.stats.seconds = started.elapsed().as_secs_f64();
        venv.stats.fresh = Some(fresh);
        Ok(venv)
    }

    /// Copy one carried dist's files into `site` (the fresh venv's); returns how many.
    fn carry(&self, carried: &CarryFiles<'_>, site: &Path) -> Result<usize, FreshError> {
        for from in &carried.files {
            let to = match from.strip_prefix(carried.site) {
                Ok(rel) => site.join(rel),
                // Checked in `carry_files`: every file is under the prefix.
                Err(_) => self
                    .root
                    .join(from.strip_prefix(carried.prefix).unwrap_or(from)),
            };
            copy_carried(from, &to, carried.prefix, &self.python())?;
        }
        Ok(carried.files.len())
    }
}

/// Copy one file; a script whose shebang names the original's interpreter names the fresh
/// venv's instead.
fn copy_carried(from: &Path, to: &Path, prefix: &Path, python: &Path) -> Result<(), CopyError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CopyError::Io { path, source }
    };
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(io(parent))?;
    }
    fs::copy(from, to).map_err(io(to))?;
    let Ok(text) = crate::bounded::read_text(to, crate::bounded::USER_FILE_LIMIT) else {
        return Ok(());
    };
    let Some((first, rest)) = text.split_once('\n') else {
        return Ok(());
    };
    if first
        .strip_prefix("#!")
        .is_some_and(|p| Path::new(p.trim()).starts_with(prefix))
    {
        let mode = fs::metadata(to).map_err(io(to))?.permissions();
        fs::write(to, format!("#!{}\n{rest}", python.display())).map_err(io(to))?;
        fs::set_permissions(to, mode).map_err(io(to))?;
    }
    Ok(())
}

/// Run one build step in the fresh venv; a failure is an error.
fn run_step(
    argv: Vec<String>,
    root: &Path,
    why: &str,
    critical: &Critical,
) -> Result<super::Step, FreshError> {
    let ran = exec::run_argv(&argv, root, critical).map_err(|source| FreshError::Spawn {
        what: argv.join(" "),
        source,
    })?;
    if critical.interrupted() {
        return Err(FreshError::Interrupted);
    }
    if !ran.ok() {
        return Err(step_error(why, &argv, &ran));
    }
    Ok(super::Step { argv, ran })
}

/// Making the venv (`uv venv`, or `BASE -m venv`, without its own pip when the original's is
/// copied), and the head of an install into it with `--no-deps` (its flags and `-r FILE` go
/// after).
fn build_steps(
    spec: &FreshSpec<'_>,
    root: &Path,
    python: &str,
    pip_copied: bool,
) -> (Vec<String>, Vec<String>) {
    let base = spec.base_python.display().to_string();
    let root = root.display().to_string();
    let index: Vec<String> = spec
        .index_url
        .iter()
        .flat_map(|url| ["--index-url".to_string(), url.clone()])
        .collect();
    let argv = |parts: &[&str]| parts.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (make, mut install) = match spec.installer {
        Installer::Uv => (
            argv(&["uv", "venv", "--quiet", "--python", &base, &root]),
            argv(&["uv", "pip", "install", "--python", python, "--no-deps"]),
        ),
        Installer::Pip => (
            if pip_copied {
                argv(&[&base, "-m", "venv", "--without-pip", &root])
            } else {
                argv(&[&base, "-m", "venv", &root])
            },
            argv(&[python, "-m", "pip", "install", "--no-deps"]),
        ),
    };
    install.extend(index);
    (make, install)
}

fn step_error(why: &str, argv: &[String], ran: &Ran) -> FreshError {
    FreshError::Step {
        why: why.to_string(),
        argv: argv.to_vec(),
        status: ran.status_text(),
        last: ran.tail.lines().last().unwrap_or("").to_string(),
    }
}

/// A carried dist that is copied: its site-packages folder, prefix, and files.
#[derive(Debug)]
struct CarryFiles<'a> {
    name: &'a str,
    site: &'a Path,
    prefix: &'a Path,
    files: Vec<PathBuf>,
}

/// Which carried dists are copied (every `RECORD` file readable) and which reinstalled (their
/// requirements); a dist that can be neither is an error.
fn sort_carried(carried: &[Carried]) -> Result<(Vec<CarryFiles<'_>>, Vec<String>), FreshError> {
    let mut copied = Vec::new();
    let mut reinstalled = Vec::new();
    for dist in carried {
        match carry_files(dist) {
            Ok(files) => copied.push(files),
            Err(why) => match &dist.reinstall {
                Ok(requirement) => {
                    log::info!("{} is reinstalled, not copied: {why}", dist.name);
                    reinstalled.push(requirement.clone());
                }
                Err(cannot) => {
                    return Err(FreshError::Carry {
                        name: dist.name.clone(),
                        reason: format!("it cannot be copied ({why}), nor reinstalled ({cannot})"),
                    });
                }
            },
        }
    }
    Ok((copied, reinstalled))
}

/// Why a carried dist cannot be copied as it is (it is reinstalled then, where it can be).
#[derive(Debug, thiserror::Error)]
enum NotCopyable {
    /// The `.dist-info` path has no parent.
    #[error("its metadata has no folder")]
    NoFolder,
    /// `RECORD` is missing or unreadable.
    #[error("its RECORD cannot be read: {0}")]
    Record(crate::bounded::ReadError),
    /// `RECORD` names a file outside the dist's prefix.
    #[error("RECORD lists {}, outside its prefix", .0.display())]
    OutsidePrefix(PathBuf),
    /// A listed file cannot be opened.
    #[error("{} cannot be read: {source}", file.display())]
    Unreadable {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Every file `RECORD` lists, each readable; else why not.
fn carry_files(dist: &Carried) -> Result<CarryFiles<'_>, NotCopyable> {
    let site = dist.dist_info.parent().ok_or(NotCopyable::NoFolder)?;
    let prefix = prefix_of_site(site);
    let record = crate::bounded::read_text(
        &dist.dist_info.join("RECORD"),
        crate::inventory::record::MAX_RECORD_BYTES,
    )
    .map_err(NotCopyable::Record)?;
    let mut files = Vec::new();
    for path in crate::inventory::record::parse(&record) {
        let file = copy::lexical_join(site, &path);
        if !file.starts_with(prefix) {
            return Err(NotCopyable::OutsidePrefix(file));
        }
        match fs::File::open(&file) {
            Ok(_) => files.push(file),
            // pip lists the `.pyc` files it may write; one never written is not missing.
            Err(_) if file.extension().is_some_and(|e| e == "pyc") => {}
            Err(source) => return Err(NotCopyable::Unreadable { file, source }),
        }
    }
    Ok(CarryFiles {
        name: &dist.name,
        site,
        prefix,
        files,
    })
}

/// `P` for `P/lib/pythonX.Y/site-packages` (and Debian's `P/lib/python3/dist-packages`).
fn prefix_of_site(site: &Path) -> &Path {
    site.ancestors().nth(3).unwrap_or(site)
}
