//! `planner diff`: what changed between two environments, and since when.
//!
//! In: two [`Inventory`]s (each read from a venv, a `planner snapshot` file or `pip inspect`
//! output). Out: an [`EnvDiff`]: every dist added, removed, upgraded, downgraded or whose source
//! changed (index build to local build, a local label such as `+cu130` gained or lost, another
//! git commit, editable or not), and the requirement edges that became broken or satisfied
//! (`planner check`'s findings on each side, compared). [`since`] answers the same question
//! for one environment from its install records' file times. `render::diff` prints both.

pub(crate) mod files;
pub(crate) mod runtime;
pub(crate) mod since;

use std::collections::{BTreeMap, BTreeSet};

use pep508_rs::PackageName;
use serde::Serialize;

use crate::inventory::check::{self, Finding};
use crate::inventory::{InstalledDist, Inventory};
pub(crate) use files::{FileDiff, UnownedDiff};
use files::{file_diffs, unowned_diffs};

/// `schema` of `planner diff --format json`.
pub(crate) const DIFF_SCHEMA: &str = "planner-diff/1";

/// How one dist changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ChangeKind {
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// A newer public version in B.
    Upgraded,
    /// An older public version in B.
    Downgraded,
    /// The same public version from another source or build.
    SourceChanged,
    /// The same install, with files that differ from its `RECORD` on one side and not the
    /// other (a hand patch, or one undone), or files in its package folders that no `RECORD`
    /// owns added, removed or changed.
    EditedInPlace,
}

/// One side of a dist's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct DistState {
    /// The version, local label included.
    pub version: String,
    /// `index`, `file`, `dir`, `editable`, `git@<commit>`, `egg-info`.
    pub source: String,
    /// `INSTALLER`, when recorded.
    pub installer: Option<String>,
}

impl DistState {
    fn of(dist: &InstalledDist) -> DistState {
        DistState {
            version: dist.version().to_string(),
            source: dist.source_label(),
            installer: dist.installer.clone(),
        }
    }
}

/// One dist that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct DistChange {
    /// The dist.
    #[serde(serialize_with = "crate::review::pins::display")]
    pub name: PackageName,
    /// How.
    pub kind: ChangeKind,
    /// In A (`None`: added).
    pub from: Option<DistState>,
    /// In B (`None`: removed).
    pub to: Option<DistState>,
    /// What else changed: `local label +cu130 lost`, `source index -> file`, `git commit a -> b`.
    pub details: Vec<String>,
    /// Its files whose state against `RECORD` differs between A and B (where both sides
    /// recorded one: a venv read here, or a snapshot).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileDiff>,
    /// Files in its package folders that no `RECORD` owns, added, removed or changed between
    /// A and B (where both sides looked for them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unowned: Vec<UnownedDiff>,
}

/// A requirement edge that is broken on one side and not on the other.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct EdgeChange {
    /// The dist that declares the requirement (`name version`).
    pub dependent: String,
    /// The requirement as declared.
    pub requirement: String,
    /// The required name.
    pub dependency: String,
    /// What is installed on the side where the edge is broken (`None`: missing).
    pub installed: Option<String>,
    /// `planner check`'s sentence for it (pip check's words).
    pub message: String,
}

/// What differs between A and B.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EnvDiff {
    /// Always [`DIFF_SCHEMA`].
    pub schema: &'static str,
    /// Where A was read from.
    pub a: String,
    /// Where B was read from.
    pub b: String,
    /// Dists that differ, by name.
    pub changes: Vec<DistChange>,
    /// Edges broken in B that were not broken in A.
    pub broken: Vec<EdgeChange>,
    /// Edges broken in A that B satisfies.
    pub satisfied: Vec<EdgeChange>,
    /// The runtime context that differs (driver, GPUs, CUDA toolkits, steering variables,
    /// compile caches; [`runtime::compare`]); left out of the JSON when nothing differs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runtime: Vec<runtime::RuntimeChange>,
}

impl EnvDiff {
    /// Whether nothing differs.
    pub(crate) fn is_empty(&self) -> bool {
        self.changes.is_empty()
            && self.broken.is_empty()
            && self.satisfied.is_empty()
            && self.runtime.is_empty()
    }
}

/// Compare two environments.
pub(crate) fn diff(a_label: &str, a: &Inventory, b_label: &str, b: &Inventory) -> EnvDiff {
    let first = |inv: &Inventory| -> BTreeMap<PackageName, InstalledDist> {
        let mut map = BTreeMap::new();
        for dist in &inv.dists {
            map.entry(dist.name().clone())
                .or_insert_with(|| dist.clone());
        }
        map
    };
    let (old, new) = (first(a), first(b));
    let names: BTreeSet<&PackageName> = old.keys().chain(new.keys()).collect();
    let mut changes: Vec<DistChange> = names
        .into_iter()
        .filter_map(|name| change(name, old.get(name), new.get(name)))
        .collect();
    explain_added(&mut changes, b);
    let (broken_a, broken_b) = (broken_edges(a), broken_edges(b));
    EnvDiff {
        schema: DIFF_SCHEMA,
        a: a_label.to_string(),
        b: b_label.to_string(),
        changes,
        broken: broken_b
            .iter()
            .filter(|(key, _)| !broken_a.contains_key(*key))
            .map(|(_, e)| e.clone())
            .collect(),
        satisfied: broken_a
            .iter()
            .filter(|(key, _)| !broken_b.contains_key(*key))
            .map(|(_, e)| e.clone())
            .collect(),
        runtime: Vec::new(),
    }
}

/// How one name changed, or `None` when it did not.
pub(crate) fn change(
    name: &PackageName,
    old: Option<&InstalledDist>,
    new: Option<&InstalledDist>,
) -> Option<DistChange> {
    let (files, unowned) = match (old, new) {
        (Some(a), Some(b)) => (file_diffs(a, b), unowned_diffs(a, b)),
        _ => (Vec::new(), Vec::new()),
    };
    let (kind, details) = match (old, new) {
        (None, None) => return None,
        (None, Some(_)) => (ChangeKind::Added, Vec::new()),
        (Some(_), None) => (ChangeKind::Removed, Vec::new()),
        (Some(a), Some(b)) => {
            let details = source_details(a, b);
            let (va, vb) = (
                a.version().clone().without_local(),
                b.version().clone().without_local(),
            );
            let kind = if vb > va {
                ChangeKind::Upgraded
            } else if vb < va {
                ChangeKind::Downgraded
            } else if !details.is_empty() || a.version() != b.version() {
                ChangeKind::SourceChanged
            } else if !files.is_empty() || !unowned.is_empty() {
                ChangeKind::EditedInPlace
            } else {
                return None;
            };
            (kind, details)
        }
    };
    Some(DistChange {
        name: name.clone(),
        kind,
        from: old.map(DistState::of),
        to: new.map(DistState::of),
        details,
        files,
        unowned,
    })
}

/// Source and build differences between two installs of one name.
fn source_details(a: &InstalledDist, b: &InstalledDist) -> Vec<String> {
    let mut details = Vec::new();
    let local = |d: &InstalledDist| {
        let local = d.version().local();
        (!local.is_empty()).then(|| {
            local
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(".")
        })
    };
    match (local(a), local(b)) {
        (None, Some(l)) => details.push(format!("local label +{l} gained")),
        (Some(l), None) => details.push(format!("local label +{l} lost")),
        (Some(x), Some(y)) if x != y => details.push(format!("local label +{x} -> +{y}")),
        _ => {}
    }
    let (sa, sb) = (a.source_label(), b.source_label());
    if sa != sb {
        let what = match (&a.direct_url, &b.direct_url) {
            (Some(x), Some(y)) if x.label().contains('@') && y.label().contains('@') => "commit",
            _ => "source",
        };
        details.push(format!("{what} {sa} -> {sb}"));
    }
    let installer = |d: &InstalledDist| {
        d.installer
            .as_deref()
            .map(|i| i.trim().to_ascii_lowercase())
    };
    if let (Some(x), Some(y)) = (installer(a), installer(b))
        && x != y
    {
        details.push(format!("installer {x} -> {y}"));
    }
    details
}

/// Why each added dist is there: the dists of `b` that require it (markers evaluated on `b`).
fn explain_added(changes: &mut [DistChange], b: &Inventory) {
    let markers = &b.environment.markers;
    for change in changes.iter_mut().filter(|c| c.kind == ChangeKind::Added) {
        let mut via: Vec<String> = b
            .dists
            .iter()
            .filter(|d| {
                d.metadata
                    .requires_dist
                    .iter()
                    .any(|r| r.name == change.name && r.evaluate_markers(markers, &[]))
            })
            .map(|d| d.name().to_string())
            .collect();
        via.sort();
        via.dedup();
        if !via.is_empty() {
            change.details.push(format!("via {}", via.join(", ")));
        }
    }
}

/// The broken edges of an environment (what `pip check` reports), keyed for comparison.
pub(crate) fn broken_edges(
    inventory: &Inventory,
) -> BTreeMap<(String, String, String), EdgeChange> {
    let mut out = BTreeMap::new();
    for finding in check::check(inventory).findings {
        let edge = match &finding {
            Finding::VersionMismatch {
                dependent,
                requirement,
                installed,
                via_extra: None,
                ..
            } => EdgeChange {
                dependent: dependent.to_string(),
                requirement: requirement.clone(),
                dependency: installed.name.to_string(),
                installed: Some(installed.version.to_string()),
                message: finding.message(),
            },
            Finding::MissingDependency {
                dependent,
                requirement,
                dependency,
                via_extra: None,
            } => EdgeChange {
                dependent: dependent.to_string(),
                requirement: requirement.clone(),
                dependency: dependency.to_string(),
                installed: None,
                message: finding.message(),
            },
            _ => continue,
        };
        let key = (
            edge.dependent.clone(),
            edge.requirement.clone(),
            edge.dependency.clone(),
        );
        out.insert(key, edge);
    }
    out
}
