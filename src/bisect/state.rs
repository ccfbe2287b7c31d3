//! The changes between the good state and now, and the consistent state for a subset of them
//! reverted.
//!
//! In: the good [`Inventory`] (a snapshot, `pip inspect` output, a venv, or one reconstructed by
//! `--since`) and the current one. Out: the [`Change`]s ([`crate::diff::diff`]'s, each marked
//! revertable or not), and for a set of changes to revert a [`Target`]: the state the solver
//! finds over the two environments' own releases, where every reverted dist is at its good
//! version, every other changed dist prefers its current one, and every unchanged dist stays.
//! A reverted change takes what its old version needs with it (the solver moves those dists
//! back too, and the target says so); a set that no choice of the two states makes consistent
//! is an error that says why.
//!
//! Requirements already broken in the environment that declares them (what `planner check`
//! reports there) are left out of the universe: they are the user's state, not the bisect's to
//! repair.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use pep508_rs::{PackageName, Requirement};
use serde::Serialize;

use crate::diff::{self, ChangeKind, DistChange};
use crate::inventory::check::{self, Finding};
use crate::inventory::{Environment, InstalledDist, Inventory};
use crate::metadata::CoreMetadata;
use crate::solve::{self, InstalledCandidate, MemIndex, PrereleaseMode, SolveError, SolveRequest};

/// One change between the good state and now.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
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
}

impl Change {
    /// `name from -> to` (`(absent)` for a side without the dist).
    pub fn label(&self) -> String {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".to_string());
        format!("{} {} -> {}", self.name, side(&self.from), side(&self.to))
    }

    /// The requirement that installs the good version (`None`: it was absent then).
    pub fn revert_spec(&self) -> Option<String> {
        self.from.as_ref().map(|v| format!("{}=={v}", self.name))
    }
}

/// The changes from `good` to `now`, by name; a change whose good side was not installed from
/// an index (a file, a directory, a VCS checkout) cannot be reinstalled by version and is marked
/// `fixed`, as is a source change with the same version.
pub fn changes(good: &Inventory, now: &Inventory) -> Vec<Change> {
    diff::diff("good", good, "now", now)
        .changes
        .into_iter()
        .map(|c| {
            let fixed = fixed_reason(&c, good);
            Change {
                name: c.name,
                kind: c.kind,
                from: c.from.map(|s| s.version),
                to: c.to.map(|s| s.version),
                details: c.details,
                fixed,
            }
        })
        .collect()
}

fn fixed_reason(change: &DistChange, good: &Inventory) -> Option<String> {
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

/// The environments' own releases, for the solver.
pub struct Universe {
    index: MemIndex,
    environment: Environment,
    good: BTreeMap<PackageName, CoreMetadata>,
    now: BTreeMap<PackageName, CoreMetadata>,
}

/// The consistent state for one set of changes reverted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Every change reverted there (indices into the changes): those asked and those their
    /// old versions need.
    pub reverted: BTreeSet<usize>,
}

impl Universe {
    /// The releases of `good` and `now` (each without the requirements broken in its own
    /// environment), solved for `now`'s interpreter.
    pub fn new(good: &Inventory, now: &Inventory) -> Result<Universe, String> {
        let environment = now.environment.clone();
        let (good, now) = (releases(good), releases(now));
        let mut index = MemIndex::new();
        let mut added = BTreeSet::new();
        for metadata in good.values().chain(now.values()) {
            if added.insert((metadata.name.clone(), metadata.version.clone())) {
                index.add_metadata(metadata.clone())?;
            }
        }
        Ok(Universe {
            index,
            environment,
            good,
            now,
        })
    }

    /// The consistent state with `revert` reverted (indices into `changes`), or why there is
    /// none. Fixed changes are never reverted.
    pub fn target(&self, changes: &[Change], revert: &BTreeSet<usize>) -> Result<Target, String> {
        let mut request = SolveRequest {
            prerelease: PrereleaseMode::Allow,
            ..SolveRequest::default()
        };
        let changed: BTreeMap<&PackageName, usize> = changes
            .iter()
            .enumerate()
            .map(|(i, c)| (&c.name, i))
            .collect();
        for (name, now) in &self.now {
            if !changed.contains_key(name) {
                request
                    .requirements
                    .push(exact(name, &now.version.to_string())?);
            }
        }
        for (i, change) in changes.iter().enumerate() {
            let back = revert.contains(&i) && change.fixed.is_none();
            let good = self.good.get(&change.name);
            let now = self.now.get(&change.name);
            match (back, good, now) {
                (true, Some(good), _) => {
                    request
                        .requirements
                        .push(exact(&change.name, &good.version.to_string())?);
                }
                // Added since: reverting it is its absence; what still needs it cannot stay.
                (true, None, _) => request
                    .constraints
                    .push(parse(&format!("{}<0", change.name))?),
                (false, good, Some(now)) => {
                    request.requirements.push(either(&change.name, good, now)?);
                    request
                        .preferences
                        .insert(change.name.clone(), candidate(now));
                }
                // Removed since and kept removed: back only when a reverted dist needs it.
                (false, _, None) => {}
            }
        }
        request.installed_roots.extend(self.now.keys().cloned());
        let resolution =
            solve::solve(&self.index, &self.environment, &request).map_err(|err| match err {
                SolveError::NoSolution(no) => no.report.lines().collect::<Vec<_>>().join(" "),
                other => other.to_string(),
            })?;
        let state: BTreeMap<&PackageName, String> = resolution
            .packages
            .iter()
            .map(|(name, r)| (name, r.version.to_string()))
            .collect();
        let mut reverted = BTreeSet::new();
        for (i, change) in changes.iter().enumerate() {
            let is = state.get(&change.name);
            if is == change.from.as_ref() && is != change.to.as_ref() {
                reverted.insert(i);
            }
        }
        Ok(Target { reverted })
    }
}

/// Each dist's metadata once (the first of a name, as Python imports it), with the
/// requirements that are broken in this environment left out.
fn releases(inventory: &Inventory) -> BTreeMap<PackageName, CoreMetadata> {
    let broken: BTreeSet<(PackageName, String)> = check::check(inventory)
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
            } => Some((dependent.name, requirement)),
            _ => None,
        })
        .collect();
    let mut out = BTreeMap::new();
    for dist in &inventory.dists {
        out.entry(dist.name().clone())
            .or_insert_with(|| without(dist, &broken));
    }
    out
}

fn without(dist: &InstalledDist, broken: &BTreeSet<(PackageName, String)>) -> CoreMetadata {
    let mut metadata = dist.metadata.clone();
    metadata
        .requires_dist
        .retain(|r| !broken.contains(&(dist.name().clone(), r.to_string())));
    metadata.requires_python = None;
    metadata
}

fn candidate(metadata: &CoreMetadata) -> InstalledCandidate {
    InstalledCandidate {
        metadata: std::sync::Arc::new(metadata.clone()),
        import_names: Vec::new(),
    }
}

fn parse(text: &str) -> Result<Requirement, String> {
    Requirement::from_str(text).map_err(|err| format!("`{text}`: {err}"))
}

fn exact(name: &PackageName, version: &str) -> Result<Requirement, String> {
    parse(&format!("{name}=={version}"))
}

/// `name` at its good or its current version (the universe holds no other).
fn either(
    name: &PackageName,
    good: Option<&CoreMetadata>,
    now: &CoreMetadata,
) -> Result<Requirement, String> {
    match good {
        None => exact(name, &now.version.to_string()),
        Some(good) => {
            let (lo, hi) = if good.version <= now.version {
                (&good.version, &now.version)
            } else {
                (&now.version, &good.version)
            };
            let (lo, hi) = (lo.clone().without_local(), hi.clone().without_local());
            parse(&format!("{name}>={lo},<={hi}"))
        }
    }
}
