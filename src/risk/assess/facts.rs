//! What the model is told about one plan, as the plan stage gathers it: the changes
//! ([`ChangeFacts`], each with its [`Dependents`]), the broken edges of forced overrides
//! ([`BrokenEdgeFacts`], with what [`Upstream`] accepts), the accelerator line switches and the
//! coupled members whose own metadata decided their pairing. Plain data in; read by the factor
//! modules beside this one.

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};
use serde::{Deserialize, Serialize};

/// Everything the model needs to know about one plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlanFacts {
    /// Each dist that changes (upgrade, downgrade, addition, removal, reinstall).
    pub changes: Vec<ChangeFacts>,
    /// Each installed `Requires-Dist` a forced override breaks.
    pub broken_edges: Vec<BrokenEdgeFacts>,
    /// When the plan is made (for release age); `None` skips the age factor.
    pub now: Option<Timestamp>,
    /// Accelerator lines the plan leaves for another (CUDA 13 -> CUDA 12).
    pub accelerator_switches: Vec<AcceleratorSwitch>,
    /// Coupled members whose own metadata, not the policy's rule, decided their version next
    /// to the planned anchor.
    pub declared_couplings: Vec<DeclaredCoupling>,
}

/// A plan that takes the environment from one accelerator line to another: `nvidia-*-cu13`
/// to `-cu12`, `+cu130` to `+cu121`, `jax-cuda13-*` to `jax-cuda12-*`, a `+cpu` or `+rocm6.4`
/// build to the index's CUDA build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AcceleratorSwitch {
    /// The kind of line installed: what leaving it costs.
    pub leaves: LineKind,
    /// The line installed (`CUDA 13`, `the CPU build`, `ROCm 6.4`).
    pub from: String,
    /// The line the plan brings (`CUDA 12`, `the CPU build`).
    pub to: String,
    /// Its kind: a CUDA build, or a CPU or ROCm one (torch `2.9.1` -> `2.10.0+cpu` from an index
    /// serving both).
    pub arrives: LineKind,
    /// What the plan installs of the new line (`nvidia-cublas-cu12 12.1.3.1`, `torch 2.3.1+cu121`).
    pub brings: Vec<String>,
    /// Installed libraries of the old line that nothing requires after the plan (left behind,
    /// orphaned).
    pub orphaned: Vec<PackageName>,
}

/// The kind of an accelerator line: a CUDA major, a ROCm release or a CPU-only build (the last
/// two named by a local label, `+rocm6.4`, `+cpu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    Cuda,
    Rocm,
    Cpu,
}

/// A coupled member whose planned release declares its own range on the anchor, so the
/// coupled-group rule was not applied (torchaudio 2.11.1, a `py3-none` build that declares
/// `torch>=2.11`, next to torch 2.12.0, where the rule would want torchaudio 2.12.*).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredCoupling {
    /// The member (torchaudio).
    pub member: PackageName,
    /// Its planned version (2.11.1).
    pub version: Version,
    /// The anchor and its planned version (torch 2.12.0).
    pub anchor: PackageName,
    /// The anchor's planned version.
    pub anchor_version: Version,
    /// What the member declares on the anchor (`torch>=2.11`).
    pub declared: String,
    /// What the rule would pair with the anchor (`==2.12.*`).
    pub rule_wants: String,
    /// Whether the index has any release of the member the rule pairs with the anchor.
    pub rule_release_exists: bool,
}

/// One changed dist.
#[derive(Debug, Clone)]
pub(crate) struct ChangeFacts {
    /// The dist.
    pub name: PackageName,
    /// Installed version (`None`: an addition).
    pub from: Option<Version>,
    /// Planned version (`None`: a removal).
    pub to: Option<Version>,
    /// The new version is forced by an override.
    pub forced: bool,
    /// The request names this dist (a target, or every dist under `--all`): what the user asked
    /// for, not what the resolution brought along.
    pub requested: bool,
    /// How the installed dist was installed when not from an index (`vcs`, `directory`,
    /// `archive`); `None` for index installs.
    pub unmanaged_source: Option<String>,
    /// Upload time of the new release.
    pub released: Option<Timestamp>,
    /// Upload time of the installed release (how far back a downgrade goes in time).
    pub installed_released: Option<Timestamp>,
    /// For a downgrade: how many final releases lie above the planned one up to the installed
    /// one (the installed one counted), when the index's release list is known.
    pub releases_back: Option<usize>,
    /// PEP 592 yank reason of the new release (`Some("")` when yanked without a reason).
    pub yanked: Option<String>,
    /// Installed dists that depend on this one.
    pub dependents: Dependents,
    /// Installed dependents whose compiled extensions link against this dist and were released
    /// before the major line of the planned version began (empty unless the change crosses
    /// into a newer major line).
    pub abi_dependents: Vec<PackageName>,
    /// How `abi_dependents` use this dist's C API (`numpy's C API (the `_ARRAY_API` ...)`).
    pub abi_mechanism: Option<String>,
    /// For each of `abi_dependents` whose extension module was read, the evidence: `` `pandas/
    /// _libs/lib.cpython-311-x86_64-linux-gnu.so` carries `_ARRAY_API` ``.
    pub abi_carriers: Vec<(PackageName, String)>,
    /// Direct dependents released before the major line of the planned version began (empty
    /// unless an unforced change crosses into a newer major line).
    pub predating_dependents: Vec<PackageName>,
    /// Import statements of installed files that the new release breaks: a module or a name
    /// it no longer has (one sentence each, naming the file).
    pub missing_imports: Vec<String>,
    /// The statements behind `missing_imports`, as data (every one, also past the sentences).
    pub missing_citations: Vec<crate::risk::Citation>,
    /// The plan leaves this dist's planned release and another dist shipping the same
    /// top-level module (one sentence each, naming both dists and the module).
    pub module_clashes: Vec<String>,
    /// Module-level imports of the planned release itself (moved back or added) of modules no
    /// dist of the planned environment installs (one sentence each, naming the file and line),
    /// then the kept dists that import the planned release and fail with it (the chain, each
    /// link cited).
    pub planned_imports_missing: Vec<String>,
    /// The imports of the kept dists that fail through the chain, as data.
    pub planned_citations: Vec<crate::risk::Citation>,
    /// Uses of this dist inside other installed dists' function bodies that fail with the
    /// planned release when that code runs, not on import (one sentence each, naming the file,
    /// line and function).
    pub call_time_missing: Vec<String>,
    /// The uses behind `call_time_missing`, as data.
    pub call_time_citations: Vec<crate::risk::Citation>,
}

/// Installed dists that depend on a changed one (reverse edges of the installed graph).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Dependents {
    /// Dists whose `Requires-Dist` names it (sorted).
    pub direct: Vec<PackageName>,
    /// How many more reach it only through others.
    pub transitive: usize,
    /// Dists that do not require it but whose files import it when they are imported, each with
    /// the import (`transformers` and `transformers/utils/chat_template_utils.py, line 36`).
    pub importing: Vec<(PackageName, String)>,
}

/// One broken `Requires-Dist` edge of a forced override.
#[derive(Debug, Clone)]
pub(crate) struct BrokenEdgeFacts {
    /// The dist whose requirement is overridden (torch).
    pub dependent: PackageName,
    /// Its version (2.11.0+cu130).
    pub dependent_version: Version,
    /// The requirement as the dependent declares it (`triton==3.6.0; platform_system == "Linux"`).
    pub requirement: Requirement,
    /// The version the override installs instead (3.7.0).
    pub forced_version: Version,
    /// The dependent ships platform-specific wheels.
    pub dependent_platform_specific: bool,
    /// The forced dist ships platform-specific wheels.
    pub forced_platform_specific: bool,
    /// Whether any release of the dependent accepts the forced version.
    pub upstream: Upstream,
    /// The violated clause is an upper bound the dependent declared before any release it
    /// excludes existed (a guess, not a known incompatibility).
    pub defensive_bound: bool,
    /// The edge was broken before the plan (both sides stay as installed): the plan keeps a
    /// break, it does not make one.
    pub kept: bool,
}

/// Whether any release of the dependent accepts the forced version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Upstream {
    /// These releases of the dependent accept it (newest first, a few).
    Accepts {
        /// The accepting releases.
        versions: Vec<Version>,
    },
    /// No release on the index accepts it.
    Never,
    /// Not known (the index could not be asked).
    Unknown,
}
