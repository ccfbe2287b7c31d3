//! Stage 1: what is installed, and for which interpreter.
//!
//! In: a venv path, `$VIRTUAL_ENV`, `./.venv`, the `python3` on `PATH`, or a snapshot file
//! (`planner snapshot` or `pip inspect` output). Out: an [`Inventory`]: the target
//! [`Environment`] (marker environment, wheel tags, Python version) and every installed
//! distribution with its metadata. Nothing here ever writes into the environment.

pub(crate) mod assembled;
pub mod check;
mod direct_url;
mod discover;
pub(crate) mod editable;
mod error;
pub mod extensions;
pub mod graph;
pub(crate) mod hashing;
pub(crate) mod importers;
pub mod imports;
pub mod integrity;
pub(crate) mod module_files;
pub mod module_names;
mod probe;
pub(crate) mod pth;
pub(crate) mod record;
pub(crate) mod runtime;
mod scan;
pub mod snapshot;
mod target;
#[cfg(test)]
pub(crate) mod test_sources;
pub mod unowned;

use std::path::{Path, PathBuf};

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, PackageName};
use serde::{Deserialize, Serialize};

use crate::metadata::CoreMetadata;
use crate::printer::Printer;
use crate::tags::Tags;

pub(crate) use direct_url::NotReinstallable;
pub use discover::load_venv;
pub(crate) use discover::{
    EnvironmentSelection, EnvironmentSource, apply_overrides, find_on_path, load, load_python,
};
pub(crate) use error::{DistError, InventoryError};
pub use target::{Platform, cpython_tags};
pub(crate) use target::{PythonVersion, TargetPlatform, each_target};

/// How the target environment's facts were learned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EnvironmentOrigin {
    /// By asking the environment's own interpreter.
    Interpreter {
        /// The interpreter that answered.
        python: PathBuf,
        /// PEP 668: the `EXTERNALLY-MANAGED` file that marks this interpreter's packages as the
        /// distributor's (pip refuses to install there). Never set for a virtual environment.
        externally_managed: Option<PathBuf>,
    },
    /// From `pyvenv.cfg` and facts about this host, because no interpreter could run.
    PyvenvCfg {
        /// The `pyvenv.cfg` read.
        path: PathBuf,
    },
    /// From a snapshot file.
    Snapshot {
        /// The snapshot read.
        path: PathBuf,
    },
    /// Made up from `--python-version` / `--python-platform` alone (no environment read).
    Synthesized,
}

/// The target interpreter: what markers evaluate against and which wheels fit.
#[derive(Debug, Clone)]
pub struct Environment {
    /// The full Python version (`3.12.3`).
    pub python_version: Version,
    /// The PEP 508 marker environment.
    pub markers: MarkerEnvironment,
    /// Supported wheel tags, best first.
    pub tags: Tags,
    /// The site-packages folders read (empty for snapshots).
    pub site_packages: Vec<PathBuf>,
    /// Folders inside those that `.pth` files put on `sys.path`, as the interpreter reported
    /// them (empty where none ran); see [`pth`].
    pub pth_paths: Vec<PathBuf>,
    /// `sys.prefix`, when known.
    pub prefix: Option<PathBuf>,
    /// How these facts were learned.
    pub origin: EnvironmentOrigin,
    /// What had to be assumed or was overridden (a copied venv read from `pyvenv.cfg`, the
    /// host's glibc, `--python-version`), for commands to print as notes.
    pub notes: Vec<EnvNote>,
}

/// One note about how the environment was read: what had to be assumed or was overridden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvNote {
    /// What kind of assumption it records.
    pub kind: NoteKind,
    /// The sentence printed (`note: ...`).
    pub text: String,
}

/// What a note about the environment records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// The platform (wheel tags, glibc) was guessed; `--python-platform` makes it exact, and
    /// the note goes once that is given.
    PlatformGuess,
    /// Anything else assumed or overridden.
    Other,
}

impl EnvNote {
    /// A note of kind [`NoteKind::Other`].
    pub(crate) fn other(text: String) -> EnvNote {
        EnvNote {
            kind: NoteKind::Other,
            text,
        }
    }

    /// A note of kind [`NoteKind::PlatformGuess`].
    pub(crate) fn platform_guess(text: String) -> EnvNote {
        EnvNote {
            kind: NoteKind::PlatformGuess,
            text,
        }
    }
}

impl std::fmt::Display for EnvNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for EnvNote {
    // The JSON documents carry the sentence only (docs/schemas/inventory.json).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// Where an installed dist came from, per its `direct_url.json` (PEP 610).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DirectUrl {
    /// A local or remote archive (wheel or sdist file).
    Archive {
        /// The URL (credentials redacted).
        url: String,
        /// `archive_info.hash` or one of `hashes`, as `algo=hex`.
        hash: Option<String>,
    },
    /// A local directory, possibly editable.
    Directory {
        /// The URL (`file://...`).
        url: String,
        /// `dir_info.editable`.
        editable: bool,
    },
    /// A version-control checkout.
    Vcs {
        /// The repository URL (credentials redacted).
        url: String,
        /// `git`, `hg`, `bzr`, `svn`.
        vcs: String,
        /// The exact commit.
        commit_id: String,
        /// The revision the user asked for, if any.
        requested_revision: Option<String>,
    },
}

/// On-disk format of an installed dist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DistFormat {
    /// `*.dist-info` (PEP 376/627).
    DistInfo,
    /// Legacy `*.egg-info`.
    EggInfo,
    /// Read from a snapshot, not from disk.
    Snapshot,
}

/// One installed distribution.
#[derive(Debug, Clone)]
pub struct InstalledDist {
    /// Its core metadata (name and version come from here, never from the folder name).
    pub metadata: CoreMetadata,
    /// `INSTALLER` (`pip`, `uv`, ...).
    pub installer: Option<String>,
    /// Whether `REQUESTED` exists (the user asked for it by name).
    pub requested: bool,
    /// `direct_url.json`, when it was not installed from an index.
    pub direct_url: Option<DirectUrl>,
    /// Top-level import names (`top_level.txt`, else derived from `RECORD`).
    pub top_level: Vec<String>,
    /// The metadata folder (or file) it was read from.
    pub path: PathBuf,
    /// The on-disk format.
    pub format: DistFormat,
    /// Its files against its `RECORD`, when they were checked ([`integrity::attach`], or as a
    /// snapshot recorded them); `None`: not checked.
    pub files: Option<integrity::FileCheck>,
}

impl InstalledDist {
    /// The normalized name.
    pub fn name(&self) -> &PackageName {
        &self.metadata.name
    }

    /// The installed version, local label included.
    pub fn version(&self) -> &Version {
        &self.metadata.version
    }
}

/// A dist whose metadata could not be read; the rest of the inventory goes on without it.
#[derive(Debug, Clone, Serialize)]
pub struct UnreadableDist {
    /// The metadata folder.
    pub path: PathBuf,
    /// Why it could not be read.
    pub reason: String,
}

/// Everything known about one environment.
#[derive(Debug, Clone)]
pub struct Inventory {
    /// The interpreter facts.
    pub environment: Environment,
    /// Installed dists, sorted by name then version. A name can appear twice (a broken
    /// environment); `planner check` reports that.
    pub dists: Vec<InstalledDist>,
    /// Dists that could not be read.
    pub unreadable: Vec<UnreadableDist>,
}

impl Environment {
    /// PEP 668: the `EXTERNALLY-MANAGED` file of the interpreter read, when it has one (a
    /// virtual environment never does; snapshots do not record it).
    pub(crate) fn externally_managed(&self) -> Option<&Path> {
        match &self.origin {
            EnvironmentOrigin::Interpreter {
                externally_managed, ..
            } => externally_managed.as_deref(),
            _ => None,
        }
    }
}

impl Inventory {
    /// The first installed dist with this name. A binary search, as `dists` is sorted by name
    /// (a plan looks up every planned name, for each of a proposal's plans); an inventory put
    /// together unsorted still answers, by a scan when the search finds nothing.
    pub fn get(&self, name: &PackageName) -> Option<&InstalledDist> {
        let at = self.dists.partition_point(|dist| dist.name() < name);
        match self.dists.get(at) {
            Some(dist) if dist.name() == name => Some(dist),
            _ => self.dists.iter().find(|dist| dist.name() == name),
        }
    }

    /// Print the environment's notes and one warning per unreadable dist (naming its file).
    /// Every command that reads an environment calls this once.
    pub(crate) fn report(&self, printer: &Printer) {
        self.report_notes(printer);
        for bad in &self.unreadable {
            printer.warn(&format!("skipping {}: {}", bad.path.display(), bad.reason));
        }
    }

    /// The notes about the environment only, for a command whose output lists the unreadable
    /// dists as data (`check`): each is said once, there.
    pub(crate) fn report_notes(&self, printer: &Printer) {
        for note in &self.environment.notes {
            printer.note(&format!("note: {note}"));
        }
    }
}

impl InstalledDist {
    /// Whether it was installed from somewhere other than an index (a direct URL, a VCS
    /// checkout, a local directory or an editable install): never upgrade it from the index.
    pub(crate) fn is_unmanaged(&self) -> bool {
        self.direct_url.is_some() || self.format == DistFormat::EggInfo
    }

    /// Where it came from, for tables: `index`, `git@<commit>`, `editable`, `dir`, `file`,
    /// `egg-info`.
    pub(crate) fn source_label(&self) -> String {
        match (&self.direct_url, self.format) {
            (Some(url), _) => url.label(),
            (None, DistFormat::EggInfo) => "egg-info".to_string(),
            (None, _) => "index".to_string(),
        }
    }
}
