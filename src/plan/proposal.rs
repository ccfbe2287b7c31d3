//! The plan data model: [`Proposal`] (what `propose` prints) and [`Plan`] (one complete,
//! installable plan; also the plan file). Every type serializes to the JSON schema documented in
//! `docs/plan-json.md`; names and versions are typed, so the emitters re-serialize parsed values.

use std::collections::BTreeMap;
use std::fmt;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};
use serde::{Deserialize, Serialize};

use super::requirement_text::{said, said_once};
use crate::risk::{Citation, FactorKind, RiskScore};

/// `schema` of a proposal document.
pub(crate) const PROPOSAL_SCHEMA: &str = "planner-proposal/1";
/// `schema` of a plan file.
pub(crate) const PLAN_SCHEMA: &str = "planner-plan/2";
/// `schema` of a plan file before the plan stored its install steps (read, never written).
pub(crate) const PLAN_SCHEMA_1: &str = "planner-plan/1";

/// Everything `planner propose` found: the request, the conflict (if any) and the plans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Proposal {
    /// Always [`PROPOSAL_SCHEMA`].
    pub schema: String,
    /// The planner version that wrote it.
    pub planner_version: String,
    /// The environment planned for.
    pub environment: EnvironmentSummary,
    /// What was asked.
    pub request: Request,
    /// Requirements of installed dists that the installed set did not meet before any plan
    /// (what `pip check` reports): the plans repair them, and say so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub already_broken: Vec<BrokenEdge>,
    /// Why the request cannot be had as asked (`None` when it can).
    pub conflict: Option<Conflict>,
    /// Complete plans, best first (the first is the recommendation).
    pub plans: Vec<Plan>,
    /// Environment-wide warnings (unmanaged dists kept, unreadable dists, offline data).
    pub warnings: Vec<String>,
}

/// The environment a proposal is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EnvironmentSummary {
    /// Where it was read from (venv path or snapshot file).
    pub source: String,
    /// The target Python version.
    pub python_version: String,
    /// The target platform (`sys_platform` + `platform_machine`).
    pub platform: String,
    /// How many dists are installed.
    pub dists: usize,
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Request {
    /// Targets as parsed (PEP 508, re-serialized).
    #[serde(deserialize_with = "crate::metadata::de_requirements")]
    pub targets: Vec<Requirement>,
    /// `--all`.
    pub all: bool,
    /// `--allow-override`.
    pub allow_override: bool,
    /// `--allow-build`: plans may use source distributions (the commands then build them).
    #[serde(default)]
    pub allow_build: bool,
    /// The risk policy's name.
    pub policy: String,
    /// `--all --layer`: which layers were asked for (`None`: the default, every layer but
    /// `everything`; absent without `--all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<LayerChoice>,
}

/// An installed requirement the installed set does not meet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BrokenEdge {
    /// The dist that declares the requirement.
    pub dependent: PackageName,
    /// Its installed version.
    pub dependent_version: Version,
    /// The requirement as declared.
    pub requirement: Requirement,
    /// The installed version of the required dist (`None`: not installed).
    pub installed: Option<Version>,
}

impl BrokenEdge {
    /// `edges` in words, each requirement once per dependent ([`said_edges`]): `torch
    /// 2.11.0+cu130 requires triton==3.6.0, but triton 3.7.0 is installed` (the marker, which
    /// held here, dropped; the extras it came through named). The JSON keeps the declared
    /// requirement.
    pub(crate) fn lines(edges: &[BrokenEdge]) -> Vec<String> {
        let edges: Vec<&BrokenEdge> = edges.iter().collect();
        said_edges(&edges)
            .into_iter()
            .map(|(edge, requires)| {
                let name = &edge.requirement.name;
                match &edge.installed {
                    Some(v) => format!("{requires}, but {name} {v} is installed"),
                    None => format!("{requires}, but {name} is not installed"),
                }
            })
            .collect()
    }
}

/// The first edge of each dependent and requirement of `edges` with its words, `torch
/// 2.11.0+cu130 requires triton==3.6.0` ([`said_once`]: the marker dropped, the extras of every
/// edge of that dependent with the same requirement named); later such edges are left out.
pub(crate) fn said_edges<'a>(edges: &[&'a BrokenEdge]) -> Vec<(&'a BrokenEdge, String)> {
    let keyed: Vec<_> = (edges.iter())
        .map(|e| ((&e.dependent, &e.dependent_version), &e.requirement))
        .collect();
    (edges.iter().zip(said_once(&keyed)))
        .filter_map(|(edge, words)| {
            let requires = format!(
                "{} {} requires {}",
                edge.dependent, edge.dependent_version, words?
            );
            Some((*edge, requires))
        })
        .collect()
}

/// Why a request has no solution as asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Conflict {
    /// The solver's explanation, in Python terms.
    pub explanation: String,
    /// Installed requirements that exclude a target.
    pub blockers: Vec<Blocker>,
    /// What a person can change, in words (e.g. "did you mean triton instead of `tritonn`?").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

/// An installed (or planned) `Requires-Dist` that holds a package back.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Blocker {
    /// The dist that declares the requirement.
    pub dependent: PackageName,
    /// Its version.
    pub dependent_version: Version,
    /// The requirement as declared.
    #[serde(deserialize_with = "crate::metadata::de_requirement")]
    pub requirement: Requirement,
}

/// Which alternative a plan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanKind {
    /// The request as asked, solved with the whole environment.
    Upgrade,
    /// The blockers move forward to releases that accept the target; nothing else goes back,
    /// unless no plan keeps everything forward (the title then names what it takes back).
    MoveBlockers,
    /// A blocker goes back to an older release that accepts the target: offered only when no
    /// forward move exists.
    DowngradeBlockers,
    /// The request with the installed dependents its evidence says it breaks (compiled against
    /// the old ABI, importing what the new release lacks) moved to releases made for it.
    MoveDependents,
    /// The newest release of the target that fits without moving anything else it conflicts with.
    NewestFitting,
    /// The target as asked, with the violated edges overridden.
    ForcedOverride,
    /// Nothing changes: the bare targets stay where they are, because the plan as asked moves
    /// one up only by taking a dist not asked about far back, predicting a break.
    NoChange,
}

impl PlanKind {
    /// The kebab-case name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PlanKind::Upgrade => "upgrade",
            PlanKind::MoveBlockers => "move-blockers",
            PlanKind::DowngradeBlockers => "downgrade-blockers",
            PlanKind::MoveDependents => "move-dependents",
            PlanKind::NewestFitting => "newest-fitting",
            PlanKind::ForcedOverride => "forced-override",
            PlanKind::NoChange => "no-change",
        }
    }
}

impl fmt::Display for PlanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One complete plan. Serialized alone, it is the plan file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Always [`PLAN_SCHEMA`].
    pub schema: String,
    /// Which alternative.
    pub kind: PlanKind,
    /// One line for humans.
    pub title: String,
    /// The targets this plan serves (as asked, or as adjusted: `triton==3.6.x` for
    /// newest-fitting).
    #[serde(deserialize_with = "crate::metadata::de_requirements")]
    pub targets: Vec<Requirement>,
    /// Every dist that changes, sorted by name.
    pub changes: Vec<Change>,
    /// The edges this plan overrides (forced plans only), each with its reason.
    pub overrides: Vec<Override>,
    /// Targets (or, with `--all`, dists) that do not reach their newest release, and why.
    pub held_back: Vec<HeldBack>,
    /// Every dist of the environment after the plan, except dists installed from outside the
    /// index, which are kept as they are: the constraints the installers get.
    pub pins: BTreeMap<PackageName, Version>,
    /// Loud notes (an unmanaged or local build replaced by an index build, yanked releases).
    pub warnings: Vec<String>,
    /// The plan's risk.
    pub risk: RiskScore,
    /// Which layer of a layered `--all` this plan is (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<Layer>,
    /// What carries it out, as data: each step's releases and the flags they share; the
    /// commands are rendered from it (`None` until `propose` sets the flags).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<InstallSteps>,
    /// The commands that carry it out, as `propose` printed them (`None` until rendered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<PlanCommandLines>,
    /// The installed dependents its own evidence says the plan breaks (the `abi-break` and
    /// `import-target-missing` factors, by name): what a plan that moves them fixes. Not part of
    /// the plan file (the factors say it in words).
    #[serde(skip)]
    pub breaks: Vec<Break>,
    /// The evidence the plan would have used but could not read, one entry per release (its
    /// wheel's files: offline and not cached, not served, a failed read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<Unchecked>,
}

/// Evidence a plan would have used about one planned release and could not read: `what jinja2
/// 2.11.3 imports (its wheel's files could not be read: --offline and not in the cache)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unchecked {
    /// The dist (jinja2).
    pub name: PackageName,
    /// Its planned version (2.11.3).
    pub version: Version,
    /// Which checks went without it.
    pub evidence: Vec<UncheckedEvidence>,
    /// Why it could not be read: `offline-not-cached`, `no-wheel-file`, `not-a-wheel`,
    /// `read-failed`.
    pub reason: String,
    /// The reason in words (`--offline and not in the cache`, the read's error).
    pub detail: String,
    /// What would fill the gap, where something would (`run once without --offline ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// A check that needs a planned release's wheel files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UncheckedEvidence {
    /// What the release imports, against the planned environment (a release moved back or
    /// added: `planned-import-missing`).
    PlannedImports,
    /// Whether it still has the modules and names the installed files import from it
    /// (`import-target-missing`).
    RemovedModules,
    /// Whether it ships a module another dist after the plan ships too (a module clash).
    ModuleClashes,
    /// Whether a test of another dist's version in its own sources raises on import beside
    /// the planned versions (`planned-import-missing`: pyarrow's `lib.pyx`).
    VersionChecks,
    /// Whether its generated protobuf modules build descriptors the planned protobuf refuses.
    GeneratedCode,
    /// Which kept dists fail with it through their imports (an import chain).
    ImportChains,
    /// Whether it still has what the installed files use inside functions
    /// (`call-time-target-missing`).
    CallTime,
}

impl UncheckedEvidence {
    /// The check in a few words (`version checks`), for a list of them.
    pub fn label(self) -> &'static str {
        match self {
            UncheckedEvidence::PlannedImports => "its imports",
            UncheckedEvidence::RemovedModules => "removed modules",
            UncheckedEvidence::ModuleClashes => "module clashes",
            UncheckedEvidence::VersionChecks => "version checks",
            UncheckedEvidence::GeneratedCode => "generated code",
            UncheckedEvidence::ImportChains => "import chains",
            UncheckedEvidence::CallTime => "call-time uses",
        }
    }

    /// The check in words, about `subject` (`jinja2 2.11.3`, or `it` after the first).
    fn clause(self, subject: &str) -> String {
        match self {
            UncheckedEvidence::PlannedImports => format!("what {subject} imports"),
            UncheckedEvidence::RemovedModules => {
                format!("whether {subject} still has what the installed files import from it")
            }
            UncheckedEvidence::ModuleClashes => {
                format!("whether {subject} ships a module another dist ships")
            }
            UncheckedEvidence::VersionChecks => format!(
                "whether {subject} raises on import over another dist's version (a test in its \
                 own sources)"
            ),
            UncheckedEvidence::GeneratedCode => {
                format!("whether {subject} ships generated modules the planned protobuf refuses")
            }
            UncheckedEvidence::ImportChains => {
                format!("which kept dists fail with {subject} through their imports")
            }
            UncheckedEvidence::CallTime => {
                format!("whether {subject} still has what the installed files use inside functions")
            }
        }
    }
}

impl Unchecked {
    /// `what jinja2 2.11.3 imports (its wheel's files could not be read: --offline and not in
    /// the cache; run once without --offline to fill the cache)`.
    pub fn sentence(&self) -> String {
        let (name, version) = (&self.name, &self.version);
        let first = format!("{name} {version}");
        let mut what: Vec<String> = (self.evidence.iter().enumerate())
            .map(|(i, e)| e.clause(if i == 0 { &first } else { "it" }))
            .collect();
        let hint = (self.hint.as_ref()).map_or(String::new(), |h| format!("; {h}"));
        let last = what.pop().unwrap_or_default();
        let listed = if what.is_empty() {
            last
        } else {
            format!("{}, and {last}", what.join(", "))
        };
        format!(
            "{listed} (its wheel's files could not be read: {}{hint})",
            self.detail
        )
    }
}

/// An installed dependent that a changed dist's planned release breaks, as the plan's evidence
/// says.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Break {
    /// The changed dist (numpy).
    pub package: PackageName,
    /// Its planned version (2.3.5).
    pub to: Version,
    /// The installed dependent that breaks (pandas), kept at its installed version by the plan.
    pub dependent: PackageName,
    /// How it breaks.
    pub how: BreakKind,
    /// The dependent's import that fails (an import break): its file and line, and what it
    /// imports.
    pub cited: Option<Citation>,
}

/// How a planned release breaks an installed dependent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BreakKind {
    /// Its compiled extensions were built against an older major line (`abi-break`).
    Abi,
    /// Its files import a module or a name the planned release no longer has
    /// (`import-target-missing`).
    Import,
    /// Its files import, when imported, a dist that fails on import after the plan (the chain
    /// of `import-target-missing` or `planned-import-missing`): moving it does not fix it.
    ImportChain,
    /// Its files use, in a function body, a module, a name or a private attribute the planned
    /// release no longer has (`call-time-target-missing`): it fails when that code runs, not on
    /// import. `planner outdated` holds such a break ([`crate::plan::alone`]); a plan's
    /// `breaks` are import-time only, its call-time ones read from its factors
    /// ([`Plan::call_time_breaks`]), which move-dependents moves too.
    CallTime,
}

/// The layers of `propose --all` (`--layer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayerKind {
    /// Upgrades inside their major line that move no coupled group and drag nothing heavy.
    Safe,
    /// One coupled group (the torch stack, the jax stack) moved, on top of the safe layer.
    Group,
    /// One package into a newer major line, on top of the safe layer.
    Major,
    /// Everything that can move, at once (the unlayered `--all`).
    Everything,
}

/// Which layers `--all --layer` asks for.
pub(crate) type LayerChoice = LayerKind;

impl LayerKind {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::Safe => "safe",
            LayerKind::Group => "group",
            LayerKind::Major => "major",
            LayerKind::Everything => "everything",
        }
    }
}

impl fmt::Display for LayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--layer` value that names no layer.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a layer\n  hint: --layer safe, group, major or everything")]
pub struct UnknownLayer(String);

impl std::str::FromStr for LayerKind {
    type Err = UnknownLayer;

    fn from_str(text: &str) -> Result<Self, UnknownLayer> {
        match text {
            "safe" => Ok(LayerKind::Safe),
            "group" => Ok(LayerKind::Group),
            "major" => Ok(LayerKind::Major),
            "everything" => Ok(LayerKind::Everything),
            other => Err(UnknownLayer(other.to_string())),
        }
    }
}

/// A plan's place among the layers of `propose --all`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layer {
    /// Which kind of layer.
    pub kind: LayerKind,
    /// Its name: `safe`, `torch-stack`, `major-huggingface-hub`, `everything` (also the plan's
    /// folder name under `--out-dir`).
    pub name: String,
    /// The layer it is built on (`safe`): the base's changes are in this plan's pins and
    /// commands too, and scored there, not here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The changes this layer makes beyond its base (all of them when it has no base).
    pub own: Vec<PackageName>,
    /// What the layer is about: the coupled group's installed members, or the one package that
    /// crosses into a new major line.
    pub moves: Vec<PackageName>,
}

/// One plan's install commands, each an argv (tokens unquoted; join them quoted for a shell),
/// and the files they read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCommandLines {
    /// pip steps, in order.
    pub pip: Vec<Vec<String>>,
    /// uv steps, in order.
    pub uv: Vec<Vec<String>>,
    /// The files the steps name, by the name used in them, when `propose` did not write them
    /// (`--out-dir` not given): write them first (`constraints.txt`, `overrides.txt`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

/// A plan's install steps: what each installs or removes, and the flags they share.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct InstallSteps {
    /// The interpreter of the environment the steps install into, as the plan was made for it
    /// (absent for a plan made from a snapshot or a target with no interpreter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// `--index-url`: the index the plan was made against, when one was named (never with
    /// credentials); the installers' own configuration otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_url: Option<String>,
    /// `propose --allow-build`: the installers may build source distributions (no
    /// `--only-binary :all:`, no `--no-build`).
    pub allow_build: bool,
    /// Releases installed under the plan's constraints.
    pub install: Vec<Pin>,
    /// Forced releases, installed over what their dependents require (pip:
    /// `--force-reinstall --no-deps`; uv: `--overrides`).
    pub force: Vec<Pin>,
    /// Releases reinstalled at the installed version from the index (a local build such as
    /// `2.11.0+cu130` replaced by `2.11.0`).
    pub reinstall: Vec<Pin>,
    /// Dists uninstalled.
    pub remove: Vec<PackageName>,
}

/// One release to install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    /// The dist.
    pub name: PackageName,
    /// Its version.
    pub version: Version,
}

/// What happens to one dist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// To a newer version.
    Upgrade,
    /// To an older version.
    Downgrade,
    /// Newly installed.
    Add,
    /// Uninstalled.
    Remove,
    /// Same public version, another build (a `+cu130` local build for the index build).
    Reinstall,
}

/// One dist's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The dist.
    pub name: PackageName,
    /// Installed version (`None`: added).
    pub from: Option<Version>,
    /// Planned version (`None`: removed).
    pub to: Option<Version>,
    /// What happens.
    pub action: Action,
    /// Why (at least one).
    pub reasons: Vec<Reason>,
    /// The new version violates a dependent's requirement (installed with an override).
    pub forced: bool,
    /// PEP 592 yank reason of the new release, when yanked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yanked: Option<String>,
    /// Upload time of the new release, when the index says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_time: Option<jiff::Timestamp>,
    /// A repair: the change serves no target, only edges that were broken before the plan
    /// (its reasons are [`Reason::Repairs`], or follow another repair).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repair: bool,
    /// The index lists the installed version with only an sdist, which the plan's wheel-only
    /// rule does not install: the rollback scripts cannot put it back without a build.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_source_only: bool,
    /// Import names, when known from the installed dist (the verify script finds the rest).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top_level: Vec<String>,
}

impl Change {
    /// A move of `name` from `from` to `to` as a question to the plan builder, with nothing else
    /// known of it: no reason, no override, no yank or upload time.
    pub(crate) fn asked(
        name: &PackageName,
        from: Option<Version>,
        to: &Version,
        top_level: Vec<String>,
    ) -> Change {
        Change {
            name: name.clone(),
            from,
            to: Some(to.clone()),
            action: Action::Upgrade,
            reasons: Vec::new(),
            forced: false,
            yanked: None,
            upload_time: None,
            repair: false,
            from_source_only: false,
            top_level,
        }
    }
}

/// Why a dist changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Reason {
    /// The user asked for it.
    Requested {
        /// The target.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        requirement: Requirement,
    },
    /// `--all`: it can move, so it does.
    UpgradeAll,
    /// A planned dist needs the new version (its requirement excludes the old one).
    RequiredBy {
        /// The planned dist.
        dependent: PackageName,
        /// Its planned version.
        dependent_version: Version,
        /// Its requirement.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        requirement: Requirement,
    },
    /// It blocks a target; its new version accepts the target.
    Unblocks {
        /// The target it unblocks.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        target: Requirement,
        /// Its old requirement that excluded the target.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        blocking: Requirement,
    },
    /// Its installed version required another dist at a version the plan moves away from, so it
    /// moves along (torchvision follows torch).
    Follows {
        /// The dist that moves.
        package: PackageName,
        /// Its planned version.
        version: Version,
        /// The installed version's requirement that excluded it.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        requirement: Requirement,
    },
    /// A coupled-group rule of the policy (not the installed release's metadata) paired the
    /// installed version with the anchor's installed line, and the plan moves the anchor
    /// (torchaudio 2.11.0, which declares nothing on torch, next to torch 2.11 -> 2.12).
    CoupledRule {
        /// The anchor that moves (torch).
        anchor: PackageName,
        /// Its planned version.
        version: Version,
        /// The rule, in words (`the coupled-group rule `torchaudio = "{major}.{minor}"` of
        /// policy `default``).
        rule: String,
    },
    /// The environment was broken before the plan: an installed dist's requirement was not met
    /// by what is installed, and this change repairs that edge (requests 2.25.1 requires
    /// `chardet<5` while chardet 5.2.0 is installed: requests moves on).
    Repairs {
        /// The installed dist whose requirement was broken.
        dependent: PackageName,
        /// Its installed version.
        dependent_version: Version,
        /// The broken requirement.
        requirement: Requirement,
        /// The installed version of the required dist (`None`: not installed).
        installed: Option<Version>,
    },
    /// Its installed release breaks under another dist's planned release (compiled against the
    /// older line, or importing what the planned release no longer has): it moves to a release
    /// made for that one (pandas 1.5.3 -> 2.2.3 with numpy 2).
    MovesWith {
        /// The dist it moves with (numpy).
        package: PackageName,
        /// The release of that dist the installed one breaks under (the plan the move was made
        /// for planned it; this plan may install another).
        version: Version,
        /// How the installed release breaks.
        how: BreakKind,
        /// For an import break: the installed release's importing file (its path in `RECORD`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
        /// That import's line (1-based).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<usize>,
        /// The module it imports, or imports from (`werkzeug.security`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        module: Option<String>,
        /// The name it takes from that module (`safe_str_cmp`); absent where the module itself
        /// is what fails.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A planned dist's own file tests this dist's version when it is imported and raises
    /// below what it needs: pyarrow 26.0.1's `pyarrow/lib.pyx` line 41 raises beside numpy 1, so
    /// numpy moves to 2. A requirement read from the release's file, not from its index
    /// metadata (which states none).
    NeededOnImport {
        /// The planned dist (pyarrow).
        dependent: PackageName,
        /// Its planned version.
        dependent_version: Version,
        /// What its test requires (`numpy>=2`).
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        requirement: Requirement,
        /// The file (`pyarrow/lib.pyx`) and the test's line.
        file: String,
        line: usize,
    },
    /// A planned dist's own file imports names from this dist that its newer releases lack:
    /// Jinja2 2.11.3's `jinja2/filters.py` line 13 imports `soft_unicode` from `markupsafe`,
    /// which MarkupSafe dropped in 2.1.0, so markupsafe moves to 2.0.1. A requirement read from
    /// the release's file, not from its index metadata (which requires only `MarkupSafe>=0.23`).
    ImportsName {
        /// The planned dist (jinja2).
        dependent: PackageName,
        /// Its planned version.
        dependent_version: Version,
        /// What its import implies (`markupsafe<2.1.0`).
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        requirement: Requirement,
        /// The module imported from (`markupsafe`) and the names (`soft_unicode`).
        module: String,
        names: Vec<String>,
        /// The importing file (`jinja2/filters.py`) and line.
        file: String,
        line: usize,
    },
    /// Its installed release's requirement (`blocking`: Flask 3.1.2's `werkzeug>=3.1.0`)
    /// excluded every release of a dist that a planned dist's own import needs
    /// ([`Reason::ImportsName`]: Flask-Login 0.6.2's `flask_login/utils.py` line 14 imports
    /// `url_decode` from `werkzeug.urls`, so `werkzeug<3.0.0`), so it moves to a release that
    /// accepts one (Flask 2.3.3). Said where it would read "follows werkzeug": werkzeug moves
    /// for the import, and this dist for werkzeug.
    UnblocksImport {
        /// The planned dist whose import needs it (flask-login).
        dependent: PackageName,
        /// Its planned version.
        dependent_version: Version,
        /// What its import implies (`werkzeug<3.0.0`).
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        requirement: Requirement,
        /// The module imported from (`werkzeug.urls`) and the names (`url_decode`).
        module: String,
        names: Vec<String>,
        /// The importing file (`flask_login/utils.py`) and line.
        file: String,
        line: usize,
        /// Its installed release's requirement that excluded what the import needs.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        blocking: Requirement,
    },
    /// Installed against a dependent's requirement (see the plan's overrides).
    Override {
        /// The requirement installed instead.
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        replacement: Requirement,
    },
    /// The newest version that fits the environment, in place of a request that cannot be had.
    NewestFitting {
        /// What the user asked (which this version does not meet).
        #[serde(deserialize_with = "crate::metadata::de_requirement")]
        asked: Requirement,
        /// The release nearest the version asked that fits (`jinja2==2.11.3` asked: 3.0.0),
        /// not the newest.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        closest: bool,
    },
    /// The solver moved it and no single requirement explains it (e.g. a preference).
    Resolution,
}

/// One overridden edge, with its reason: what `planner check --accept` stops reporting.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Override {
    /// The dist whose requirement is overridden.
    pub dependent: PackageName,
    /// Its version (the override is accepted for this version only).
    pub dependent_version: Version,
    /// The requirement as the dependent declares it.
    #[serde(deserialize_with = "crate::metadata::de_requirement")]
    pub requirement: Requirement,
    /// The dist installed against it.
    pub package: PackageName,
    /// The version installed against it (the override is accepted for this version only).
    pub version: Version,
    /// The requirement that replaces it (what uv's overrides file holds).
    #[serde(deserialize_with = "crate::metadata::de_requirement")]
    pub replacement: Requirement,
    /// Why it was accepted.
    pub reason: String,
}

impl Override {
    /// `overrides`, each with its declared requirement in words ([`said_once`]: the marker,
    /// which held here, dropped; the extras it came through named), said once per dependent and
    /// requirement: later overrides of the same are left out. The JSON keeps the declared one.
    pub(crate) fn said(overrides: &[Override]) -> Vec<(&Override, String)> {
        let keyed: Vec<_> = (overrides.iter())
            .map(|o| ((&o.dependent, &o.dependent_version), &o.requirement))
            .collect();
        (overrides.iter().zip(said_once(&keyed)))
            .filter_map(|(o, words)| Some((o, words?)))
            .collect()
    }
}

/// A package that does not reach its newest release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldBack {
    /// The dist.
    pub name: PackageName,
    /// The newest release the index offers for this environment.
    pub newest: Version,
    /// The version the plan gives it (`None`: not installed).
    pub planned: Option<Version>,
    /// The requirements that exclude the newest release (only those no release meets, when
    /// some of the newest release's own are such).
    pub blockers: Vec<Blocker>,
    /// Coupled members (the policy's `versions`) with no release to go with the newest: why a
    /// coupled group is held back as a whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched: Vec<UnmatchedMember>,
    /// Heavy packages (coupled members) its newest release would drag along: why a layered
    /// `--all` holds a light package back instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<NeededMove>,
    /// The layer plan where it moves (`torch-stack`, `major-huggingface-hub`), when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub see: Option<String>,
    /// The newest release inside its major line is younger than the policy's
    /// `young-release-days`: the safe layer waits for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Waiting>,
    /// Why the newest release cannot be installed here at all when no requirement of the
    /// environment excludes it: its metadata cannot be read, or its own requirements cannot be
    /// met (the solver's reason, as `resolve NAME==NEWEST` gives it); or, beside `blockers`
    /// holding only that requirement, that no release meets one of its own requirements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// A release the safe layer waits for: too young for the policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    /// The release (the newest inside the dist's major line).
    pub version: Version,
    /// How many days ago it was uploaded.
    pub days: i64,
    /// The policy's `young-release-days`.
    pub min_days: i64,
}

/// A heavy package that would have to move for a held-back package to reach its newest release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeededMove {
    /// The heavy package (torch).
    pub name: PackageName,
    /// Its version now.
    pub from: Version,
    /// The newest release of it that accepts the held-back package's newest (`None`: none does).
    pub to: Option<Version>,
    /// Its requirement that excludes the newest release (`setuptools<82`).
    pub requirement: Requirement,
}

/// A coupled member with no release that corresponds to its anchor's newest release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnmatchedMember {
    /// The member (torchaudio).
    pub member: PackageName,
    /// What the policy requires of it next to the anchor's newest release (`==2.15.*`).
    pub needs: String,
}

impl HeldBack {
    /// Why it stays, one line each: the requirements that exclude the newest release, then the
    /// coupled members with no release to go with it.
    pub(crate) fn reasons(&self) -> Vec<String> {
        // Each requirement in words, once per dependent (cuda-toolkit requires nvidia-cublas
        // through two of its extras: one line).
        let keyed: Vec<_> = (self.blockers.iter())
            .map(|b| ((&b.dependent, &b.dependent_version), &b.requirement))
            .collect();
        let blockers = (self.blockers.iter())
            .zip(said_once(&keyed))
            .filter_map(|(b, words)| {
                Some(format!(
                    "{} {} requires {}",
                    b.dependent, b.dependent_version, words?
                ))
            });
        let unmatched = self.unmatched.iter().map(|u| {
            format!(
                "{} has no release {} to go with {} {} (coupled group)",
                u.member, u.needs, self.name, self.newest
            )
        });
        let needs = self.needs.iter().map(|n| {
            let to = n.to.as_ref().map_or_else(
                || "a release that accepts it (none has)".to_string(),
                ToString::to_string,
            );
            format!(
                "moving it needs {} {} -> {} ({} {} requires {})",
                n.name,
                n.from,
                to,
                n.name,
                n.from,
                said(&n.requirement)
            )
        });
        let waiting = self.waiting.iter().map(|w| {
            format!(
                "{} was released {} day{} ago; the safe layer takes releases at least {} days old",
                w.version,
                w.days,
                if w.days == 1 { "" } else { "s" },
                w.min_days
            )
        });
        let see = self.see.iter().map(|s| format!("see the {s} plan"));
        let unavailable = self.unavailable.iter().cloned();
        // A newest release that is a pre-release is not taken unless asked for: the reason when
        // nothing else holds it.
        let nothing_else = self.blockers.is_empty()
            && self.unmatched.is_empty()
            && self.needs.is_empty()
            && self.waiting.is_none()
            && self.see.is_none()
            && self.unavailable.is_none();
        let prerelease = (nothing_else
            && self.newest.any_prerelease()
            && !self.planned.as_ref().is_some_and(Version::any_prerelease))
        .then(|| {
            format!(
                "{} is a pre-release, planned only with `--prerelease allow` (or a target that \
                 names a pre-release)",
                self.newest
            )
        });
        if self.needs.is_empty() {
            blockers
                .chain(unmatched)
                .chain(waiting)
                .chain(see)
                .chain(unavailable.clone())
                .chain(prerelease)
                .collect()
        } else {
            needs
                .chain(unmatched)
                .chain(waiting)
                .chain(see)
                .chain(unavailable)
                .chain(prerelease)
                .collect()
        }
    }
}

impl Proposal {
    /// Whether the recommended plan delivers the request (a plan that is not the newest-that-fits
    /// compromise): the proposal's exit code is 0 only then.
    pub(crate) fn meets_request(&self) -> bool {
        self.plans
            .first()
            .is_some_and(|plan| plan.kind != PlanKind::NewestFitting)
    }
}

impl Plan {
    /// The change for `name`, if it changes.
    pub(crate) fn change(&self, name: &PackageName) -> Option<&Change> {
        self.changes.iter().find(|change| &change.name == name)
    }

    /// Names of the dists installed against a dependent's requirement.
    pub(crate) fn overridden_packages(&self) -> Vec<&PackageName> {
        let mut names: Vec<&PackageName> = self.overrides.iter().map(|o| &o.package).collect();
        names.sort();
        names.dedup();
        names
    }

    /// Whether its own risk factors predict that something installed breaks: a compiled
    /// dependent across an ABI boundary, an import of what a planned release no longer has, a
    /// planned release importing a module nothing installs.
    /// One [`BreakKind::CallTime`] per use a `call-time-target-missing` factor cites
    /// (`scrapy/utils/ossignal.py` line 19 under twisted 23.8.0): the installed dependent, the
    /// changed dist at its planned version, the use (`breaks` holds the import-time ones).
    pub(crate) fn call_time_breaks(&self) -> Vec<Break> {
        let mut breaks = Vec::new();
        let factors = self.risk.factors.iter();
        for factor in factors.filter(|f| f.kind == FactorKind::CallTimeTargetMissing) {
            let Ok(package) = factor.package.parse::<PackageName>() else {
                continue;
            };
            let Some(to) = self.pins.get(&package) else {
                continue;
            };
            for cited in &factor.citations {
                let Ok(dependent) = cited.dist.parse::<PackageName>() else {
                    continue;
                };
                breaks.push(Break {
                    package: package.clone(),
                    to: to.clone(),
                    dependent,
                    how: BreakKind::CallTime,
                    cited: Some(cited.clone()),
                });
            }
        }
        breaks
    }

    pub(crate) fn predicts_break(&self) -> bool {
        self.risk.factors.iter().any(|f| {
            matches!(
                f.kind,
                FactorKind::AbiBreak
                    | FactorKind::ImportTargetMissing
                    | FactorKind::PlannedImportMissing
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::BrokenEdge;

    fn edge(dependent: &str, version: &str, requirement: &str, installed: &str) -> BrokenEdge {
        let v = |s: &str| s.parse::<pep440_rs::Version>().unwrap();
        BrokenEdge {
            dependent: dependent.parse().unwrap(),
            dependent_version: v(version),
            requirement: crate::metadata::parse_requirement(requirement).unwrap(),
            installed: (!installed.is_empty()).then(|| v(installed)),
        }
    }

    /// The already-broken line of the canonical forced venv: torch's triton pin without its
    /// marker, which held (`triton==3.6.0 ; platform_system == 'Linux'` was the line).
    #[test]
    fn a_broken_edge_says_its_requirement_without_the_marker() {
        let edges = [edge(
            "torch",
            "2.11.0+cu130",
            "triton==3.6.0 ; platform_system == 'Linux'",
            "3.7.0",
        )];
        assert_eq!(
            BrokenEdge::lines(&edges),
            ["torch 2.11.0+cu130 requires triton==3.6.0, but triton 3.7.0 is installed"]
        );
    }

    /// One dependent's requirement broken through two extras is one line naming both; a
    /// missing dependency says so.
    #[test]
    fn broken_edges_name_their_extras_once_per_dependent() {
        let cublas = |extra: &str| {
            let marker = format!("sys_platform == 'linux' and extra == '{extra}'");
            let requirement = format!("nvidia-cublas==13.1.0.3.* ; {marker}");
            edge("cuda-toolkit", "13.0.2", &requirement, "13.4.1.3")
        };
        let edges = [
            cublas("cublas"),
            cublas("cusolver"),
            edge("torch", "2.11.0+cu130", "nvidia-nccl-cu13==2.28.9", ""),
        ];
        assert_eq!(
            BrokenEdge::lines(&edges),
            [
                "cuda-toolkit 13.0.2 requires nvidia-cublas==13.1.0.3.*, through its extras \
                 cublas, cusolver, but nvidia-cublas 13.4.1.3 is installed",
                "torch 2.11.0+cu130 requires nvidia-nccl-cu13==2.28.9, but nvidia-nccl-cu13 is \
                 not installed",
            ]
        );
    }
}
