//! The report of `planner outdated` (also the JSON document of `docs/outdated-json.md`,
//! `docs/schemas/outdated.json`).
//!
//! In: what [`super::build_report`] and [`super::check_own_requirements`] find. Out: plain
//! data, names and versions typed (JSON writes them normalized); `render::outdated` draws its
//! table and writes it as JSON.

use pep440_rs::Version;
use pep508_rs::PackageName;
use serde::Serialize;

use crate::plan::{BreakKind, Unchecked};

/// The `schema` value of `planner outdated --format json` (`docs/schemas/outdated.json`).
pub(crate) const SCHEMA: &str = "planner-outdated/1";

/// The whole report (also the JSON document).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutdatedReport {
    /// Always `planner-outdated/1`.
    pub schema: &'static str,
    /// The target Python version.
    pub python_version: Version,
    /// The indexes searched, in order (credentials redacted).
    pub indexes: Vec<String>,
    /// Every dist found on the index, sorted by name.
    pub packages: Vec<PackageStatus>,
    /// Dists installed from outside the index: never compared.
    pub unmanaged: Vec<Unmanaged>,
    /// Dists no configured index has.
    pub not_found: Vec<NameVersion>,
    /// Dists whose index page could not be read.
    pub errors: Vec<PackageError>,
}

/// One dist compared with the index.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PackageStatus {
    /// Normalized name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
    /// The newest final release this environment can install (tags, Requires-Python, not
    /// yanked), or `null` when none can be.
    pub newest_compatible: Option<Version>,
    /// The newest final release on the index, any platform (not yanked).
    pub newest_on_index: Option<Version>,
    /// The newest compatible release that every installed dependent accepts and whose own
    /// requirements the installed versions meet (what an upgrade of this dist alone reaches).
    pub newest_allowed: Option<Version>,
    /// Whether `newest_compatible` is newer than the installed version.
    pub outdated: bool,
    /// Installed dists whose requirements exclude `newest_compatible`.
    pub held_back_by: Vec<HeldBackBy>,
    /// The requirements of the newest release the installed dependents accept (above
    /// `newest_allowed`) that the installed versions do not meet: torchvision 0.29.2's
    /// `torch>=2.14` with torch 2.11.0 installed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<Needs>,
    /// The installed dists that the newest release above `newest_allowed` whose own
    /// requirements the installed versions meet breaks, by planner's analysis (the evidence
    /// `propose` weighs), not by any declared requirement: numpy 2.4.6 under pandas 1.5.3's
    /// compiled extensions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breaks: Vec<Breaks>,
    /// Why that same release fails on import itself, by planner's analysis of its own files:
    /// a test of an installed dist's version in its sources that holds here, one sentence each
    /// with the file and line (pyarrow 26.0.1's `pyarrow/lib.pyx` line 42 beside numpy 1.26.4).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fails_on_import: Vec<String>,
    /// For a dist on an accelerator line that no release moves alone: the other dists that
    /// `propose`'s first plan for the bare name changes with it (`newest_allowed` is then that
    /// plan's version: torch 2.10.0 with triton 3.6.0, on the installed CUDA line).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moves_with: Vec<MovesWith>,
    /// Why `newest_allowed` could not be checked: a read it needed failed (the network, a
    /// cache `--offline` lacks), its error naming the URL. `newest_allowed` then claims no
    /// move ("?" in the text, never "-").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_checked: Option<String>,
    /// The checks `newest_allowed` was judged without, its wheel's files not read (`--offline`
    /// and not cached, not served, a failed read): the move is claimed on the metadata and
    /// the checks that could read, not as clean (`unchecked` of `docs/plan-json.md`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<Unchecked>,
    /// Which index answered.
    pub index: String,
}

/// A dist that moves with another in `propose`'s plan for it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MovesWith {
    /// Normalized name.
    pub name: PackageName,
    /// Installed version (`null`: the plan adds it).
    pub from: Option<Version>,
    /// Planned version (`null`: the plan removes it).
    pub to: Option<Version>,
}

/// An installed dist whose requirement caps another.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct HeldBackBy {
    /// Its name.
    pub name: PackageName,
    /// Its installed version.
    pub version: Version,
    /// The requirement's version specifiers (e.g. `==2.11.0`).
    pub specifier: String,
}

/// A requirement of a newer release that an installed version does not meet.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Needs {
    /// The newer release that declares it.
    pub release: Version,
    /// The required dist.
    pub name: PackageName,
    /// Its installed version.
    pub installed: Version,
    /// The requirement's version specifiers (e.g. `>=2.14`).
    pub specifier: String,
}

/// An installed dist that a newer release breaks, by analysis: its compiled extensions or its
/// imports, not its declared requirements.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Breaks {
    /// The newer release that breaks it.
    pub release: Version,
    /// The installed dist it breaks.
    pub name: PackageName,
    /// Its installed version.
    pub installed: Version,
    /// The evidence: `abi-break` (its compiled extensions link against the dist and were
    /// released before the release's major line) or `import-target-missing` (its files import
    /// a module or a name the release no longer has, or import a dist that does and fails
    /// with it).
    #[serde(serialize_with = "evidence_key")]
    pub evidence: BreakKind,
    /// For `import-target-missing`, the failing imports, one sentence each naming the file
    /// and line (the first few of the release).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    /// For `abi-break`, the evidence `propose`'s factor cites: the compiled extension module
    /// that carries the C API's marker (its path in `RECORD`) and, for a dist that does not
    /// require the release's dist, where it imports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extension: Option<String>,
}

/// The risk factor's key for a break's evidence.
pub(crate) fn evidence_word(how: BreakKind) -> &'static str {
    match how {
        BreakKind::Abi => "abi-break",
        BreakKind::Import | BreakKind::ImportChain => "import-target-missing",
        BreakKind::CallTime => "call-time-target-missing",
    }
}

fn evidence_key<S: serde::Serializer>(how: &BreakKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(evidence_word(*how))
}

/// A dist installed from outside the index.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unmanaged {
    /// Name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
    /// Where it came from (`git@<commit>`, `editable`, `file`, `egg-info`).
    pub source: String,
}

/// A name and version.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NameVersion {
    /// Name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
}

/// A dist whose page could not be read.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PackageError {
    /// Name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
    /// The error (URLs redacted).
    pub error: String,
}
