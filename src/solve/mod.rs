//! Stage 3: pubgrub over the index and the installed set.
//!
//! In: an [`IndexSource`] (what the index offers), the target [`Environment`] (markers, wheel
//! tags, Python version) and a [`SolveRequest`]: root requirements, constraints (narrow only,
//! never add), overrides (replace the requirements on a name, on every edge or only on the edges
//! from named dependents), the installed versions as preferences, the packages being upgraded,
//! the pre-release and binary policies. Out: a [`Resolution`] (one version per distribution,
//! where it comes from, who asked for it, which extras, and every edge an override replaced), or
//! a [`SolveError`]; [`SolveError::NoSolution`] carries a [`NoSolution`]: a derivation in
//! Python terms, hints a person can act on, and the same facts as typed data ([`Fact`]) for
//! `propose` to find what blocks a target.
//!
//! # How packaging maps onto pubgrub
//!
//! - Packages ([`Pkg`]): `Root` (the requirements), `Python` (one version, the target's; every
//!   release depends on it through its `Requires-Python`, file-level or in its metadata, so a
//!   failure says "foo==2.0 requires Python>=3.12"), one per distribution, and one virtual
//!   package per `name[extra]` pinned to its base's version.
//! - Versions come from the index, plus the installed version (a candidate even when the index
//!   lacks it, e.g. `2.11.0+cu130` from another index; its dependencies are then read from the
//!   installed metadata). The installed version is chosen whenever the range allows it, unless the
//!   package is in [`SolveRequest::upgrade`]; otherwise the newest allowed version.
//! - `Requires-Dist` markers are evaluated against the target environment with the active extras.
//! - A version is unusable (pubgrub's `Unavailable`, with the reason kept for the explanation)
//!   when no file fits: no wheel for the target's tags and no sdist, only an sdist under
//!   `--only-binary`, only wheels under `--no-binary`, every file yanked (PEP 592: yanked files
//!   are used only for an exact `==`/`===` pin among the root requirements, constraints or
//!   overrides), or sdist metadata that declares its dependencies dynamic.
//! - Pre-releases ([`PrereleaseMode::IfNecessary`], as packse expects): a package's pre-releases
//!   are candidates when a root requirement, constraint or override on it names a pre-release, or
//!   when it has no final release at all.
//! - Local versions: `==2.11.0` matches `2.11.0+cu130` ([`ranges`] explains the hull).
//!
//! Metadata of the packages a release depends on is prefetched through
//! [`IndexSource::prefetch`] as soon as the release is read. A step and time budget
//! ([`SolveLimits`]) stops pathological cases with [`SolveError::Budget`].
//!
//! # The parts, by role (none imports another of the same rank)
//!
//! - `catalog`: the [`Catalog`], the only code that asks the index (version tables, release
//!   metadata, prefetch) and the [`Catalog::accepting_releases`] query;
//! - `rules`: what the request allows (overrides, constraints, pre-releases, yanked pins);
//! - `provider`: the pubgrub `DependencyProvider` over the catalog and the rules;
//! - `resolve`: the loop (pubgrub, prefetch threads) and the [`Resolution`] it builds;
//! - `explain`: a failure in Python terms, from the catalog and the rules, never the provider.

mod candidates;
mod catalog;
mod correspond;
mod error;
mod explain;
mod mem_index;
mod package;
mod provider;
pub(crate) mod ranges;
pub(crate) mod requirements_file;
mod resolve;
mod rules;
mod suggest;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName, Requirement};
use serde::Serialize;

use crate::index::{BinaryPolicy, DistFile, IndexSource};
use crate::inventory::{Environment, InstalledDist};
use crate::metadata::CoreMetadata;

#[cfg(test)]
pub(crate) use catalog::AcceptingReleases;
pub(crate) use catalog::{AcceptingQuery, Among, Catalog, CatalogCore};
pub(crate) use correspond::{Correspondence, TemplateError, VersionTemplate};
pub use error::SolveError;
pub(crate) use error::{Fact, FactPackage, Hint, HintKind, NoSolution, Unavailable};
pub use mem_index::MemIndex;

/// Which pre-releases are candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrereleaseMode {
    /// PEP 440 as packse reads it: a package's pre-releases are candidates when a root
    /// requirement, constraint or override on it names a pre-release, or when it has no final
    /// release at all.
    #[default]
    IfNecessary,
    /// Pre-releases are ordinary candidates.
    Allow,
    /// Never a pre-release (an installed one stays a candidate).
    Disallow,
}

/// An installed distribution offered to the solver: preferred when in range, and a candidate
/// even when the index lacks its version.
#[derive(Debug, Clone)]
pub struct InstalledCandidate {
    /// Its metadata (version and `Requires-Dist` are read from here).
    pub metadata: Arc<CoreMetadata>,
    /// Its top-level import names (`yaml` for `pyyaml`), for "did you mean" hints.
    pub import_names: Vec<String>,
}

impl From<&InstalledDist> for InstalledCandidate {
    fn from(dist: &InstalledDist) -> Self {
        InstalledCandidate {
            metadata: Arc::new(dist.metadata.clone()),
            import_names: dist.top_level.clone(),
        }
    }
}

/// An override: replaces every requirement on `requirement.name` (uv's semantics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// The replacement (its marker is evaluated against the target, with the dependent's
    /// active extras; when false, the edge is dropped).
    pub requirement: Requirement,
    /// `None`: every edge, root requirements included. `Some(names)`: only the edges from these
    /// dependents.
    pub only_from: Option<BTreeSet<PackageName>>,
}

/// The step and time budget of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolveLimits {
    /// Most version decisions (pubgrub `choose_version` calls).
    pub max_steps: u64,
    /// Most wall-clock time, metadata fetches included.
    pub max_time: Duration,
}

impl Default for SolveLimits {
    fn default() -> Self {
        SolveLimits {
            max_steps: 200_000,
            max_time: Duration::from_secs(300),
        }
    }
}

/// What to solve.
#[derive(Debug, Clone, Default)]
pub struct SolveRequest {
    /// Root requirements (markers evaluated against the target).
    pub requirements: Vec<Requirement>,
    /// Constraints: narrow the versions of a name when something requires it; never add it.
    pub constraints: Vec<Requirement>,
    /// Overrides: replace the requirements on a name.
    pub overrides: Vec<Override>,
    /// Installed versions: preferred when in range, and candidates even when the index lacks them.
    pub preferences: BTreeMap<PackageName, InstalledCandidate>,
    /// Exempt from the preference (being upgraded).
    pub upgrade: BTreeSet<PackageName>,
    /// Pre-release policy.
    pub prerelease: PrereleaseMode,
    /// `--only-binary` / `--no-binary`.
    pub binary: BinaryPolicy,
    /// Step and time budget.
    pub limits: SolveLimits,
    /// Coupled-group correspondences (members that are installed only): a member release whose
    /// metadata is silent about its anchor, or looser than its binary coupling, requires the
    /// anchor releases the rule pairs with it (`solve::correspond`).
    pub correspondences: Vec<Correspondence>,
    /// Root requirements that come from the installed environment, not from the user (every
    /// installed dist, a blocker the request as asked keeps): explanations say "stays as
    /// installed" for them, never "you require".
    pub installed_roots: BTreeSet<PackageName>,
    /// Root requirements that come from neither the user nor the index but from a file (what a
    /// release's own version test needs on import), each with the clause that says so in
    /// explanations ("pyarrow 26.0.1 needs numpy>=2 on import (its own pyarrow/lib.pyx, line
    /// 41; ...)"), never "you require".
    pub root_origins: Vec<(Requirement, String)>,
}

/// Where a chosen version comes from.
#[derive(Debug, Clone)]
pub enum ResolvedSource {
    /// From the index; the file the target would install (`None` when unknown).
    Index {
        /// The chosen file.
        file: Option<Box<DistFile>>,
    },
    /// The installed version, kept.
    Installed,
}

/// Why a package is in the resolution.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum Via {
    /// A root requirement (`-r`, the command line).
    #[serde(serialize_with = "serialize_root")]
    Root,
    /// A requirement of this resolved package.
    Package(PackageName),
}

fn serialize_root<S: serde::Serializer>(s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str("<root>")
}

/// One resolved distribution.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The chosen version.
    pub version: Version,
    /// Where it comes from.
    pub source: ResolvedSource,
    /// Its core metadata (the installed copy for [`ResolvedSource::Installed`]).
    pub metadata: Arc<CoreMetadata>,
    /// The release ships platform-specific wheels (compiled code).
    pub platform_specific: bool,
    /// Who requires it.
    pub via: BTreeSet<Via>,
    /// The extras requested of it.
    pub extras: BTreeSet<ExtraName>,
}

/// Whose requirement an override replaced.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dependent {
    /// One of the user's own root requirements (the command line, `-r` files).
    Root,
    /// A requirement a resolved distribution declares (for `name[extra]`, the base's name).
    Dist {
        /// The distribution.
        name: PackageName,
        /// Its resolved version.
        version: Version,
    },
}

impl Dependent {
    /// The distribution, when the edge starts at one.
    pub(crate) fn dist(&self) -> Option<(&PackageName, &Version)> {
        match self {
            Dependent::Root => None,
            Dependent::Dist { name, version } => Some((name, version)),
        }
    }
}

impl std::fmt::Display for Dependent {
    /// `<root>` or `name==version`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dependent::Root => f.write_str("<root>"),
            Dependent::Dist { name, version } => write!(f, "{name}=={version}"),
        }
    }
}

/// A requirement an override replaced, on an edge of the resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverriddenEdge {
    /// Whose requirement was replaced: a resolved distribution, or the user's own requirements
    /// (an override on every edge also replaces a root requirement on its name).
    pub dependent: Dependent,
    /// The requirement as declared.
    pub original: Requirement,
    /// What replaced it.
    pub replacement: Requirement,
}

/// A successful resolution.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// One entry per distribution, sorted by name.
    pub packages: BTreeMap<PackageName, Resolved>,
    /// Edges whose requirement an override replaced: root requirements first, then edges
    /// from resolved distributions (only at their resolved versions), sorted.
    pub overridden: Vec<OverriddenEdge>,
}

/// Solve `request` for the target `env` against `index`.
pub fn solve(
    index: &dyn IndexSource,
    env: &Environment,
    request: &SolveRequest,
) -> Result<Resolution, SolveError> {
    let _stage = crate::logging::Stage::start("solve");
    resolve::solve(index, env, request)
}

/// Solve `request` over a [`CatalogCore`] shared with other solves (of one proposal): the
/// version tables and metadata they read are reused, and what this solve reads is kept for
/// them. The answer is the one [`solve`] gives; a core that reads the index otherwise than the
/// request would (another binary policy or installed set) is not used.
pub(crate) fn solve_on(
    core: &CatalogCore<'_>,
    request: &SolveRequest,
) -> Result<Resolution, SolveError> {
    let _stage = crate::logging::Stage::start("solve");
    resolve::solve_on(core, request)
}

#[cfg(test)]
mod tests;
