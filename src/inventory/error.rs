//! Why an environment could not be read. A single bad dist is not an error (it is listed as
//! unreadable and the rest goes on, with a [`DistError`] as its reason); the
//! [`InventoryError`]s are the failures that stop the command (exit 2).

use std::path::PathBuf;

use super::direct_url::DirectUrlError;
use super::probe::ProbeError;
use super::snapshot::SnapshotError;
use crate::bounded::ReadError;
use crate::metadata::MetadataError;

/// Why one dist's metadata could not be read (its [`super::UnreadableDist`] reason).
#[derive(Debug, thiserror::Error)]
pub(crate) enum DistError {
    /// A metadata file is absent (`no METADATA`).
    #[error("no {file}")]
    Missing {
        /// The file's name.
        file: String,
    },
    /// A metadata file or folder is not what it should be (`METADATA is a device, not a
    /// regular file`).
    #[error("{file} {error}")]
    Read {
        /// The file's name.
        file: String,
        /// What it is instead, or the OS error.
        error: ReadError,
    },
    /// A `.dist-info` that is a file.
    #[error("not a folder")]
    NotAFolder,
    /// `METADATA` / `PKG-INFO` does not parse.
    #[error("{file}: {error}")]
    Metadata {
        /// The file's name.
        file: String,
        /// Why not.
        error: MetadataError,
    },
    /// A snapshot's metadata fields do not parse.
    #[error(transparent)]
    Fields(#[from] MetadataError),
    /// An egg's `requires.txt` is not UTF-8.
    #[error("requires.txt is not valid UTF-8")]
    RequiresNotUtf8,
    /// A line of an egg's `requires.txt` is not a requirement.
    #[error("requires.txt: invalid requirement `{line}`: {error}")]
    Requirement {
        /// The requirement as written (sections applied).
        line: String,
        /// Why not.
        error: Box<pep508_rs::Pep508Error>,
    },
    /// `direct_url.json` does not parse.
    #[error("direct_url.json: {0}")]
    DirectUrlFile(DirectUrlError),
    /// A snapshot's `direct_url` does not parse.
    #[error("direct_url: {0}")]
    DirectUrl(DirectUrlError),
}

/// Why the inventory stage failed.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum InventoryError {
    /// The `--venv` path (or `$VIRTUAL_ENV`) does not exist.
    #[error("the environment `{}` does not exist", path.display())]
    #[diagnostic(
        code(planner::inventory::not_found),
        help(
            "pass the folder of a virtual environment (the one holding `pyvenv.cfg`) with --venv"
        )
    )]
    NotFound {
        /// The path given.
        path: PathBuf,
        /// Where the path came from (`--venv`, `$VIRTUAL_ENV`).
        from: &'static str,
    },

    /// The path exists but holds no `pyvenv.cfg`, no interpreter and no site-packages.
    #[error("`{}` is not a virtual environment (no pyvenv.cfg, no bin/python, no lib/python*/site-packages)", path.display())]
    #[diagnostic(
        code(planner::inventory::not_a_venv),
        help(
            "pass the venv's root folder (the one holding `pyvenv.cfg`), not its site-packages or bin/"
        )
    )]
    NotAVenv {
        /// The path given.
        path: PathBuf,
    },

    /// A venv read from its pyvenv.cfg (no interpreter ran) with no site-packages folder: there
    /// is nothing to read, and "0 distributions" would be a wrong answer.
    #[error(
        "`{}` has no site-packages folder (no lib/python{version}/site-packages): it is not a whole virtual environment, and there is nothing installed to read",
        path.display()
    )]
    #[diagnostic(
        code(planner::inventory::no_site_packages),
        help(
            "pass the root of a venv made by `python3 -m venv` or `uv venv` (pyvenv.cfg beside lib/), or read one that lives elsewhere with --from-snapshot (`planner snapshot --script` writes one there)"
        )
    )]
    NoSitePackages {
        /// The venv given.
        path: PathBuf,
        /// Its Python's `X.Y`, from pyvenv.cfg.
        version: String,
    },

    /// No environment was named and none could be found.
    #[error(
        "no Python environment found: no --venv, no $VIRTUAL_ENV, no ./.venv, no python3 on PATH"
    )]
    #[diagnostic(
        code(planner::inventory::no_environment),
        help(
            "pass --venv PATH (a virtual environment) or --from-snapshot FILE (a snapshot or `pip inspect` output)"
        )
    )]
    NoEnvironment,

    /// The interpreter could not be asked and `pyvenv.cfg` does not say the Python version.
    #[error("cannot tell the Python version of `{}`: {reason}", path.display())]
    #[diagnostic(
        code(planner::inventory::unknown_python),
        help(
            "pass --python-version X.Y[.Z] (and --python-platform) to say which Python the environment is for"
        )
    )]
    UnknownPython {
        /// The environment.
        path: PathBuf,
        /// What was tried.
        reason: String,
    },

    /// A Python 2 environment: pip and uv no longer install into one, so no plan could be
    /// carried out there. The user must act (exit 1), not a failure of the tool.
    #[error(
        "`{}` is a Python {version} environment: planner plans for Python 3 only, and \
         neither pip (since 21.0) nor uv installs into Python 2",
        path.display()
    )]
    #[diagnostic(
        code(planner::inventory::python2),
        help(
            "make a Python 3 environment (`python3 -m venv .venv`) and plan for it; \
             `planner resolve -r requirements.txt --python-version 3.12` shows what your \
             requirements get there"
        )
    )]
    Python2 {
        /// The environment (or snapshot) read.
        path: PathBuf,
        /// Its Python version.
        version: String,
    },

    /// The `python3` on PATH (the last discovery step) could not be asked.
    #[error("could not ask `{}` about its environment: {reason}", python.display())]
    #[diagnostic(
        code(planner::inventory::probe_failed),
        help("pass --venv PATH to read a virtual environment instead")
    )]
    ProbeFailed {
        /// The interpreter.
        python: PathBuf,
        /// What went wrong.
        reason: ProbeError,
    },

    /// A folder could not be listed (permissions).
    #[error("cannot read `{}`", path.display())]
    #[diagnostic(
        code(planner::inventory::io),
        help("check that the folder exists and is readable by this user")
    )]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },

    /// Dists were installed or removed while the environment was read, twice in a row.
    #[error("`{}` changed while it was being read", path.display())]
    #[diagnostic(
        code(planner::inventory::changed),
        help("wait for the running install to finish, then run the planner again")
    )]
    ChangedDuringScan {
        /// A metadata folder that disappeared.
        path: PathBuf,
    },

    /// `--python-version` is not `X.Y` or `X.Y.Z`.
    #[error("invalid Python version `{version}`: {message}")]
    #[diagnostic(
        code(planner::inventory::python_version),
        help("write it as X.Y or X.Y.Z, e.g. --python-version 3.12")
    )]
    InvalidPythonVersion {
        /// The text given.
        version: String,
        /// Why it was refused.
        message: String,
    },

    /// `--python-platform` is not a platform the planner knows.
    #[error("unknown Python platform `{platform}`")]
    #[diagnostic(
        code(planner::inventory::python_platform),
        help(
            "use uv's spelling: x86_64-manylinux_2_28, aarch64-manylinux_2_28, \
             x86_64-unknown-linux-gnu (linux), aarch64-apple-darwin (macos), \
             x86_64-apple-darwin, x86_64-pc-windows-msvc (windows)"
        )
    )]
    UnknownPlatform {
        /// The text given.
        platform: String,
    },

    /// A snapshot file could not be read or is not a snapshot.
    #[error("cannot read the snapshot `{}`: {reason}", path.display())]
    #[diagnostic(
        code(planner::inventory::snapshot),
        help(
            "pass a file written by `planner snapshot --out`, by the `planner snapshot --script` script, or by `python -m pip inspect`"
        )
    )]
    Snapshot {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: SnapshotError,
    },

    /// A snapshot could not be written.
    #[error("cannot write the snapshot to `{}`", path.display())]
    #[diagnostic(
        code(planner::inventory::write),
        help("check that the folder exists and is writable")
    )]
    Write {
        /// The target file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}
