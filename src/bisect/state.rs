//! The changes between the good state and now, and the consistent state for a subset of them
//! reverted.
//!
//! In: the good [`Inventory`] (a snapshot, `pip inspect` output, a venv, or one reconstructed by
//! `--since`) and the current one. Out: the [`Change`]s ([`crate::diff::diff`]'s, each marked
//! revertable or not), and for a set of changes to apply a [`Target`]: the state the solver
//! finds over the two environments' own releases, where every applied change is as it is now,
//! every other changed dist prefers its good version, and every unchanged dist stays. A change
//! and what its version needs move as one unit (an edit in place, [`ChangeKind::EditedInPlace`],
//! moves no version: it is applied exactly when asked): a reverted change takes its old version's
//! requirements with it where they can be had, and a change an applied one needs stays applied
//! (the target says which); a set that no choice of the two states makes consistent is an
//! error that says why.
//!
//! Requirements already broken in either environment (what `planner check` reports there) are
//! left out of that release wherever it appears: they are the user's state, not the bisect's to
//! repair. A release installed against a requirement (`pip install --no-deps`, a forced
//! override) is thus a valid state, installed the way the override was; the change says which
//! requirement it overrides.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::{Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement};
use serde::Serialize;

use crate::diff::{self, ChangeKind, DistChange};
use crate::inventory::check::{self, Finding};
use crate::inventory::{Environment, InstalledDist, Inventory};
use crate::metadata::{CoreMetadata, requirement};
use crate::solve::{self, InstalledCandidate, MemIndex, PrereleaseMode, SolveError, SolveRequest};

/// One change between the good state and now.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Change {
    /// The dist.
    #[serde(serialize_with = "crate::review::pins::display")]
    pub name: PackageName,
    /// How it changed.
    pub kind: ChangeKind,
    /// The version in the good state (`None`: added since).
    pub from: Option<String>,
    /// The version now (`None`: removed since).
    pub to: Option<String>,
    /// Source or build details of the change (`source index -> file`, `local label ...`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// Why it cannot be reverted (`None`: it can): it then stays as it is now in every step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<String>,
    /// The requirements its current version breaks that the good state met (`jax 0.10.2
    /// requires ml-dtypes>=0.5.0`): a forced override, kept as it was installed in every state
    /// that applies it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// Edited in place ([`ChangeKind::EditedInPlace`]): the files (relative to site-packages)
    /// whose state against `RECORD` differs from the good state's. Reverting it reinstalls the
    /// same release.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl Change {
    /// `name from -> to` (`(absent)` for a side without the dist); `name version edited in
    /// place: FILE, ...` for an edit.
    pub(crate) fn label(&self) -> String {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".to_string());
        if self.kind == ChangeKind::EditedInPlace {
            return format!(
                "{} {} edited in place: {}",
                self.name,
                side(&self.to),
                self.files.join(", ")
            );
        }
        format!("{} {} -> {}", self.name, side(&self.from), side(&self.to))
    }

    /// The requirement that installs the good version (`None`: it was absent then).
    pub(crate) fn revert_spec(&self) -> Option<String> {
        self.from.as_ref().map(|v| format!("{}=={v}", self.name))
    }
}

/// The changes from `good` to `now`, by name; a change whose good side was not installed from
/// an index (a file, a directory, a VCS checkout) cannot be reinstalled by version and is marked
/// `fixed`, as is a source change with the same version.
pub(crate) fn changes(good: &Inventory, now: &Inventory) -> Vec<Change> {
    let diff = diff::diff("good", good, "now", now);
    let broken = diff.broken;
    diff.changes
        .into_iter()
        .map(|c| {
            let fixed = fixed_reason(&c, good);
            let overrides = broken
                .iter()
                .filter(|e| e.installed.is_some() && e.dependency == c.name.as_ref())
                .map(|e| format!("{} requires {}", e.dependent, e.requirement))
                .collect();
            Change {
                files: c.files.iter().map(|f| f.path.clone()).collect(),
                name: c.name,
                kind: c.kind,
                from: c.from.map(|s| s.version),
                to: c.to.map(|s| s.version),
                details: c.details,
                fixed,
                overrides,
            }
        })
        .collect()
}

fn fixed_reason(change: &DistChange, good: &Inventory) -> Option<String> {
    if let Some(own) = change.files.iter().find(|f| f.a.is_some()) {
        return Some(format!(
            "the good state had its own edit of {}: a reinstall brings back the release's \
             files, not that edit",
            own.path
        ));
    }
    if change.kind == ChangeKind::EditedInPlace && change.files.is_empty() {
        let paths: Vec<&str> = change.unowned.iter().map(|f| f.path.as_str()).collect();
        return Some(format!(
            "only files no RECORD owns differ ({}): a reinstall neither removes nor restores them",
            paths.join(", ")
        ));
    }
    if change.kind == ChangeKind::SourceChanged {
        return Some(format!(
            "same version, other source ({}): a version pin cannot bring the old build back",
            change.details.join("; ")
        ));
    }
    let old = good.get(&change.name)?;
    old.direct_url.as_ref().map(|url| {
        format!(
            "the good state's {} {} came from {}, not an index",
            change.name,
            old.version(),
            url.label()
        )
    })
}

/// A release of the environments that the solver's universe cannot hold (no wheel file name
/// carries its name or version).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BadRelease(String);

/// Why a set of changes has no consistent state: the solver's answer (a conflict's report on
/// one line).
#[derive(Debug, thiserror::Error)]
#[error("{}", one_line(.0))]
pub(crate) struct NoState(SolveError);

fn one_line(err: &SolveError) -> String {
    match err {
        SolveError::NoSolution(no) => no.report.lines().collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    }
}

/// The environments' own releases, for the solver.
pub(crate) struct Universe {
    index: MemIndex,
    environment: Environment,
    good: BTreeMap<PackageName, CoreMetadata>,
    now: BTreeMap<PackageName, CoreMetadata>,
}

/// The consistent state for one set of changes applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// Every change applied there (indices into the changes): those asked, and those they
    /// need; the others are reverted.
    pub applied: BTreeSet<usize>,
}

impl Universe {
    /// The releases of `good` and `now` (without the requirements broken in either
    /// environment: a release installed against one is a valid state in every step), solved
    /// for `now`'s interpreter.
    pub(crate) fn new(good: &Inventory, now: &Inventory) -> Result<Universe, BadRelease> {
        let environment = now.environment.clone();
        let mut overridden = broken(good);
        overridden.extend(broken(now));
        let (good, now) = (releases(good, &overridden), releases(now, &overridden));
        let mut index = MemIndex::new();
        let mut added = BTreeSet::new();
        for metadata in good.values().chain(now.values()) {
            if added.insert((metadata.name.clone(), metadata.version.clone())) {
                index
                    .add_metadata(metadata.clone())
                    .map_err(|err| BadRelease(err.to_string()))?;
            }
        }
        Ok(Universe {
            index,
            environment,
            good,
            now,
        })
    }

    /// The consistent state with the changes in `applied` (indices into `changes`) as they are
    /// now and the others reverted where they can be: the solver keeps every applied change,
    /// prefers the good version of every other one, and keeps one as it is now only when an
    /// applied change needs it (a change and what its version needs move as one unit). A dist
    /// removed since comes back unless its removal is applied; one added since is absent
    /// unless applied or needed. `Err`: no consistent state, and why. Fixed changes are always
    /// applied.
    pub(crate) fn target(
        &self,
        changes: &[Change],
        applied: &BTreeSet<usize>,
    ) -> Result<Target, NoState> {
        let mut request = SolveRequest {
            prerelease: PrereleaseMode::Allow,
            ..SolveRequest::default()
        };
        let changed: BTreeSet<&PackageName> = changes.iter().map(|c| &c.name).collect();
        for (name, now) in &self.now {
            if !changed.contains(name) {
                request
                    .requirements
                    .push(requirement::pin(name, &now.version));
            }
        }
        for (i, change) in changes.iter().enumerate() {
            let keep = applied.contains(&i) || change.fixed.is_some();
            let good = self.good.get(&change.name);
            match (keep, good, self.now.get(&change.name)) {
                (true, _, Some(now)) => request
                    .requirements
                    .push(requirement::pin(&change.name, &now.version)),
                // Removed since, and the removal applied: it stays out.
                (true, _, None) => request.constraints.push(absent(&change.name)),
                (false, Some(good), Some(now)) => {
                    request.requirements.push(either(&change.name, good, now));
                    request
                        .preferences
                        .insert(change.name.clone(), candidate(good));
                }
                // Removed since and reverted: back at its good version.
                (false, Some(good), None) => request
                    .requirements
                    .push(requirement::pin(&change.name, &good.version)),
                // Added since and reverted: absent, unless an applied change needs it.
                (false, None, _) => {}
            }
        }
        request.installed_roots.extend(self.now.keys().cloned());
        let resolution = solve::solve(&self.index, &self.environment, &request).map_err(NoState)?;
        let state: BTreeMap<&PackageName, String> = resolution
            .packages
            .iter()
            .map(|(name, r)| (name, r.version.to_string()))
            .collect();
        // An edit in place does not move a version: it is applied exactly when asked.
        let applied = changes
            .iter()
            .enumerate()
            .filter(|(i, c)| match c.kind {
                ChangeKind::EditedInPlace => applied.contains(i) || c.fixed.is_some(),
                _ => state.get(&c.name) == c.to.as_ref(),
            })
            .map(|(i, _)| i)
            .collect();
        Ok(Target { applied })
    }
}

/// A requirement as one release declares it: (name, version, requirement).
type Declared = (PackageName, String, String);

/// The requirements broken in `inventory` (`planner check`'s missing and mismatched
/// dependencies), by the release that declares them.
fn broken(inventory: &Inventory) -> BTreeSet<Declared> {
    check::check(inventory)
        .findings
        .into_iter()
        .filter_map(|finding| match finding {
            Finding::MissingDependency {
                dependent,
                requirement,
                ..
            }
            | Finding::VersionMismatch {
                dependent,
                requirement,
                ..
            } => Some((dependent.name, dependent.version.to_string(), requirement)),
            _ => None,
        })
        .collect()
}

/// Each dist's metadata once (the first of a name, as Python imports it), with the
/// requirements in `broken` left out.
fn releases(
    inventory: &Inventory,
    broken: &BTreeSet<Declared>,
) -> BTreeMap<PackageName, CoreMetadata> {
    let mut out = BTreeMap::new();
    for dist in &inventory.dists {
        out.entry(dist.name().clone())
            .or_insert_with(|| without(dist, broken));
    }
    out
}

fn without(dist: &InstalledDist, broken: &BTreeSet<Declared>) -> CoreMetadata {
    let mut metadata = dist.metadata.clone();
    let version = dist.version().to_string();
    metadata
        .requires_dist
        .retain(|r| !broken.contains(&(dist.name().clone(), version.clone(), r.to_string())));
    metadata.requires_python = None;
    metadata
}

fn candidate(metadata: &CoreMetadata) -> InstalledCandidate {
    InstalledCandidate {
        metadata: std::sync::Arc::new(metadata.clone()),
        import_names: Vec::new(),
    }
}

/// A constraint no version meets (`name<0`): `name` stays out unless something that must stay
/// needs it (then there is no solution).
fn absent(name: &PackageName) -> Requirement {
    requirement::below(name, &Version::new([0]))
}

/// `name` at its good or its current version (the universe holds no other): `name>=LO,<=HI`,
/// their public versions.
fn either(name: &PackageName, good: &CoreMetadata, now: &CoreMetadata) -> Requirement {
    let (lo, hi) = if good.version <= now.version {
        (&good.version, &now.version)
    } else {
        (&now.version, &good.version)
    };
    requirement::bounded(
        name,
        vec![
            VersionSpecifier::greater_than_equal_version(lo.clone().without_local()),
            VersionSpecifier::less_than_equal_version(hi.clone().without_local()),
        ],
    )
}
