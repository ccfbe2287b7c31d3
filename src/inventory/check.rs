//! `planner check`: what is broken or unusual in an installed set.
//!
//! In: an [`Inventory`]. Out: a [`CheckReport`], a typed, sorted list of [`Finding`]s.
//!
//! The `error` findings are exactly `pip check`'s: a base requirement (marker true with no
//! extra) on a name that is not installed, or on an installed version outside the specifier
//! (pre-releases allowed, local labels ignored by `==X`, as pip does). On top of that, what
//! pip check does not say: two metadata folders for one name (error), requirements that only
//! an extra some installed dist asks for turns on (warning), unreadable dists (warning),
//! dists installed from outside an index and local-label variants (info), and (from
//! [`super::integrity`], for an environment on disk) files edited in place or missing (warning).
//!
//! A plan may accept an override ("torch 2.11.0 requires triton==3.6.0, 3.7.0 is installed
//! on purpose"): [`CheckReport::accept`] moves exactly those findings to `accepted`.

use std::path::PathBuf;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName, Requirement};
use serde::Serialize;

use super::graph::DependencyGraph;
use super::integrity::{FileChange, FileState};
use super::runtime::Cache;
use super::unowned::UnownedFile;
use super::{DirectUrl, InstalledDist, Inventory};

/// How bad a finding is. Only errors make `planner check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Severity {
    /// Broken: exit 1.
    Error,
    /// Worth a look; does not fail the check.
    Warning,
    /// For the record.
    Info,
}

/// A name and version, the way findings refer to a dist.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DistRef {
    /// Normalized name.
    pub name: PackageName,
    /// Installed version, local label included.
    #[serde(serialize_with = "crate::metadata::ser_display")]
    pub version: Version,
}

impl DistRef {
    fn of(dist: &InstalledDist) -> DistRef {
        DistRef {
            name: dist.name().clone(),
            version: dist.version().clone(),
        }
    }
}

impl std::fmt::Display for DistRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.name, self.version)
    }
}

/// One thing `planner check` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Finding {
    /// A requirement on a name that is not installed.
    MissingDependency {
        /// Who requires it.
        dependent: DistRef,
        /// The requirement, re-serialized.
        requirement: String,
        /// The name that is missing.
        dependency: PackageName,
        /// The extra that turned the requirement on (`None`: pip check reports it too).
        via_extra: Option<ExtraName>,
    },
    /// A requirement whose installed target's version is outside the specifier.
    VersionMismatch {
        /// Who requires it.
        dependent: DistRef,
        /// The requirement, re-serialized.
        requirement: String,
        /// The specifier alone (`==3.6.0`).
        specifier: String,
        /// The installed dependency.
        installed: DistRef,
        /// The extra that turned the requirement on (`None`: pip check reports it too).
        via_extra: Option<ExtraName>,
    },
    /// Two or more metadata folders for one name (pip#4724): the one Python imports depends
    /// on folder order; do not plan it until it is cleaned up.
    DuplicateDist {
        /// The name.
        name: PackageName,
        /// The versions found, one per folder.
        #[serde(serialize_with = "display_all")]
        versions: Vec<Version>,
        /// The folders.
        paths: Vec<PathBuf>,
    },
    /// A dist whose metadata could not be read.
    UnreadableDist {
        /// The metadata folder.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Installed from a direct URL, a VCS checkout, a local folder or in editable mode:
    /// the planner never upgrades it from an index.
    NotFromIndex {
        /// The dist.
        dist: DistRef,
        /// Where it came from.
        source: DirectUrl,
    },
    /// A file the dist's `RECORD` lists that differs from what the installer wrote, or is gone
    /// (a hand patch in site-packages).
    FileChanged {
        /// The dist that owns the file.
        dist: DistRef,
        /// The file and how it differs.
        #[serde(flatten)]
        change: FileChange,
    },
    /// A file inside a dist's package folders that no `RECORD` lists (dropped in by hand,
    /// left behind by an older release, or written there by a build).
    UnownedFile {
        /// The dist whose package folder holds it.
        dist: DistRef,
        /// The file, its size, digest and time.
        #[serde(flatten)]
        file: UnownedFile,
    },
    /// A compile cache written by another version of its compiler than the one installed (a
    /// Triton cache whose metadata records `triton_version` 3.5.1 beside triton 3.6.0).
    StaleCache {
        /// `triton`.
        cache: String,
        /// The cache folder.
        path: String,
        /// The versions that wrote it that are not the installed one (`triton 3.5.1`).
        writers: Vec<String>,
        /// The installed compiler.
        installed: DistRef,
    },
    /// A local version label (`2.11.0+cu130`): a build variant the public index may not have.
    LocalVersion {
        /// The dist.
        dist: DistRef,
        /// The label after `+`.
        local: String,
    },
}

fn display_all<S: serde::Serializer>(values: &[Version], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(values.iter().map(ToString::to_string))
}

impl Finding {
    /// How bad it is.
    pub(crate) fn severity(&self) -> Severity {
        match self {
            Finding::MissingDependency { via_extra, .. }
            | Finding::VersionMismatch { via_extra, .. } => {
                if via_extra.is_none() {
                    Severity::Error
                } else {
                    Severity::Warning
                }
            }
            Finding::DuplicateDist { .. } => Severity::Error,
            Finding::UnreadableDist { .. }
            | Finding::FileChanged { .. }
            | Finding::UnownedFile { .. }
            | Finding::StaleCache { .. } => Severity::Warning,
            Finding::NotFromIndex { .. } | Finding::LocalVersion { .. } => Severity::Info,
        }
    }

    /// Whether `pip check` reports the same thing.
    pub(crate) fn pip_reports(&self) -> bool {
        matches!(
            self,
            Finding::MissingDependency {
                via_extra: None,
                ..
            } | Finding::VersionMismatch {
                via_extra: None,
                ..
            }
        )
    }

    /// Whether this is the edge a plan accepted.
    pub(crate) fn is_accepted_by(&self, edge: &AcceptedEdge) -> bool {
        match self {
            Finding::VersionMismatch {
                dependent,
                requirement,
                installed,
                ..
            } => {
                dependent.name == edge.dependent
                    && dependent.version == edge.dependent_version
                    && installed.name == edge.dependency
                    && installed.version == edge.installed
                    && same_requirement(requirement, &edge.requirement)
            }
            _ => false,
        }
    }

    /// One line, in pip check's words where pip has words for it.
    pub(crate) fn message(&self) -> String {
        match self {
            Finding::MissingDependency {
                dependent,
                requirement,
                dependency,
                via_extra,
            } => format!(
                "{dependent} requires {dependency}, which is not installed{} \
                 [requirement: {requirement}]",
                through_extra(via_extra.as_ref())
            ),
            Finding::VersionMismatch {
                dependent,
                requirement,
                installed,
                via_extra,
                ..
            } => format!(
                "{dependent} has requirement {requirement}, but you have {installed}{}",
                through_extra(via_extra.as_ref())
            ),
            Finding::DuplicateDist {
                name,
                versions,
                paths,
            } => {
                let versions: Vec<String> = versions.iter().map(ToString::to_string).collect();
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                format!(
                    "{name} is installed {} times ({}): {}",
                    versions.len(),
                    versions.join(", "),
                    paths.join(", ")
                )
            }
            Finding::UnreadableDist { path, reason } => {
                format!("{} could not be read: {reason}", path.display())
            }
            Finding::NotFromIndex { dist, source } => {
                format!(
                    "{dist} was installed from {} ({}), not from an index; it is never upgraded from one",
                    source.label(),
                    source.url()
                )
            }
            Finding::LocalVersion { dist, local } => format!(
                "{dist} is a local build variant (+{local}); the public index may not have it"
            ),
            Finding::FileChanged { dist, change } => file_changed_message(dist, change),
            Finding::UnownedFile { dist, file } => unowned_message(dist, file),
            Finding::StaleCache {
                cache,
                path,
                writers,
                installed,
            } => format!(
                "the {cache} cache {path} was written by {}, but {installed} is installed \
                 (kernels compiled by another version; clear it or point {}_CACHE_DIR elsewhere)",
                writers.join(", "),
                cache.to_uppercase()
            ),
        }
    }

    fn sort_key(&self) -> (Severity, u8, String) {
        let (order, key) = match self {
            Finding::DuplicateDist { name, .. } => (0, name.to_string()),
            Finding::MissingDependency {
                dependent,
                dependency,
                ..
            } => (1, format!("{dependent}\u{0}{dependency}")),
            Finding::VersionMismatch {
                dependent,
                installed,
                ..
            } => (1, format!("{dependent}\u{0}{}", installed.name)),
            Finding::UnreadableDist { path, .. } => (2, path.display().to_string()),
            Finding::FileChanged { dist, change } => (2, format!("{dist}\u{0}{}", change.path)),
            Finding::UnownedFile { dist, file } => (2, format!("{dist}\u{0}{}", file.path)),
            Finding::StaleCache { path, .. } => (2, path.clone()),
            Finding::NotFromIndex { dist, .. } => (3, dist.to_string()),
            Finding::LocalVersion { dist, .. } => (4, dist.to_string()),
        };
        (self.severity(), order, key)
    }
}

/// `triton 3.6.0: triton/runtime/autotuner.py was edited in place (...)`, or listed and gone.
fn file_changed_message(dist: &DistRef, change: &FileChange) -> String {
    let path = &change.path;
    if change.state == FileState::Missing {
        return format!("{dist}: {path} is listed in its RECORD but missing");
    }
    let mut how = Vec::new();
    if change.sha256.is_some() {
        how.push("its sha256 differs from RECORD".to_string());
    }
    if let (Some(was), Some(now)) = (change.recorded_size, change.size)
        && was != now
    {
        how.push(format!("{was} -> {now} bytes"));
    }
    if let Some(modified) = &change.modified {
        how.push(format!("modified {modified}"));
    }
    format!("{dist}: {path} was edited in place ({})", how.join("; "))
}

/// `triton 3.6.0: triton/runtime/extra.py is in its package folder, but no RECORD lists it
/// (...)`.
fn unowned_message(dist: &DistRef, file: &UnownedFile) -> String {
    let mut how = Vec::new();
    if let Some(size) = file.size {
        how.push(format!("{size} bytes"));
    } else {
        how.push("a symlink".to_string());
    }
    if let Some(modified) = &file.modified {
        how.push(format!("modified {modified}"));
    }
    format!(
        "{dist}: {} is in its package folder, but no RECORD lists it ({})",
        file.path,
        how.join("; ")
    )
}

fn same_requirement(a: &str, b: &str) -> bool {
    match (a.parse::<Requirement>(), b.parse::<Requirement>()) {
        (Ok(a), Ok(b)) => a.to_string() == b.to_string(),
        _ => a.trim() == b.trim(),
    }
}

/// An override a plan accepted on purpose: exactly this dependent (name and version), this
/// requirement, and this installed version of the dependency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct AcceptedEdge {
    /// The dist whose requirement is violated.
    pub dependent: PackageName,
    /// Its version.
    pub dependent_version: Version,
    /// The requirement (PEP 508 text; compared after parsing).
    pub requirement: String,
    /// The dependency's name.
    pub dependency: PackageName,
    /// The dependency's installed version that violates the requirement.
    pub installed: Version,
}

/// ` (through its extra `cuda`)` when a requirement came from an extra, else nothing.
fn through_extra(extra: Option<&ExtraName>) -> String {
    extra
        .map(|e| format!(" (through its extra `{e}`)"))
        .unwrap_or_default()
}

/// The result of `planner check`.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// Findings, most severe first, then by name.
    pub findings: Vec<Finding>,
    /// Findings a plan accepted (see [`CheckReport::accept`]); they do not fail the check.
    pub accepted: Vec<Finding>,
}

impl CheckReport {
    /// Whether anything is broken (exit 1).
    pub(crate) fn broken(&self) -> bool {
        self.findings
            .iter()
            .any(|finding| finding.severity() == Severity::Error)
    }

    /// Findings of one severity.
    pub(crate) fn of(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |finding| finding.severity() == severity)
    }

    /// Add what the file check of each dist found (its `files`, set by
    /// [`super::integrity::attach`] or recorded in a snapshot).
    pub(crate) fn add_file_checks(&mut self, inventory: &Inventory) {
        for dist in &inventory.dists {
            for change in dist.files.iter().flat_map(|c| &c.changes) {
                // The line hashes are for `diff`; the finding names the file.
                let change = FileChange {
                    line_hashes: None,
                    ..change.clone()
                };
                self.findings.push(Finding::FileChanged {
                    dist: DistRef::of(dist),
                    change,
                });
            }
            let unowned = dist.files.iter().flat_map(|c| c.unowned.iter().flatten());
            for file in unowned {
                self.findings.push(Finding::UnownedFile {
                    dist: DistRef::of(dist),
                    file: file.clone(),
                });
            }
        }
        self.findings.sort_by_key(Finding::sort_key);
    }

    /// Add a warning per compile cache written by another version of its compiler than the
    /// installed one (only Triton's cache records the version that wrote it).
    pub(crate) fn add_stale_caches(&mut self, inventory: &Inventory, caches: &[Cache]) {
        for cache in caches.iter().filter(|c| c.kind == "triton") {
            let Some(triton) = inventory
                .dists
                .iter()
                .find(|d| d.name().as_ref() == "triton")
            else {
                continue;
            };
            let installed = format!("triton {}", triton.version());
            let others: Vec<String> = cache
                .writers
                .iter()
                .filter(|w| **w != installed)
                .cloned()
                .collect();
            if !others.is_empty() {
                self.findings.push(Finding::StaleCache {
                    cache: cache.kind.clone(),
                    path: cache.path.clone(),
                    writers: others,
                    installed: DistRef::of(triton),
                });
            }
        }
        self.findings.sort_by_key(Finding::sort_key);
    }

    /// Move the findings these accepted edges describe to `accepted`.
    pub(crate) fn accept(&mut self, edges: &[AcceptedEdge]) {
        let (accepted, kept): (Vec<Finding>, Vec<Finding>) = std::mem::take(&mut self.findings)
            .into_iter()
            .partition(|finding| edges.iter().any(|edge| finding.is_accepted_by(edge)));
        self.findings = kept;
        self.accepted.extend(accepted);
    }
}

/// Check an inventory in its own environment.
pub fn check(inventory: &Inventory) -> CheckReport {
    let graph = DependencyGraph::build(inventory);
    check_graph(&graph)
}

/// Check using an already-built graph.
pub(crate) fn check_graph(graph: &DependencyGraph<'_>) -> CheckReport {
    let inventory = graph.inventory();
    let mut findings = Vec::new();

    for missing in graph.missing() {
        findings.push(Finding::MissingDependency {
            dependent: DistRef::of(missing.dependent),
            requirement: missing.requirement.to_string(),
            dependency: missing.requirement.name.clone(),
            via_extra: missing.via_extra.clone(),
        });
    }
    for edge in graph.edges() {
        let Some(specifiers) = crate::metadata::requirement::specifiers(edge.requirement) else {
            continue;
        };
        // pip: `req.specifier.contains(version, prereleases=True)`.
        if !specifiers.contains(edge.dependency.version()) {
            findings.push(Finding::VersionMismatch {
                dependent: DistRef::of(edge.dependent),
                requirement: edge.requirement.to_string(),
                specifier: specifiers.to_string(),
                installed: DistRef::of(edge.dependency),
                via_extra: edge.via_extra.clone(),
            });
        }
    }

    let mut i = 0;
    while i < inventory.dists.len() {
        let name = inventory.dists[i].name();
        let same: Vec<&InstalledDist> = inventory.dists[i..]
            .iter()
            .take_while(|dist| dist.name() == name)
            .collect();
        if same.len() > 1 {
            findings.push(Finding::DuplicateDist {
                name: name.clone(),
                versions: same.iter().map(|d| d.version().clone()).collect(),
                paths: same.iter().map(|d| d.path.clone()).collect(),
            });
        }
        i += same.len();
    }

    for bad in &inventory.unreadable {
        findings.push(Finding::UnreadableDist {
            path: bad.path.clone(),
            reason: bad.reason.clone(),
        });
    }
    for dist in &inventory.dists {
        if let Some(source) = &dist.direct_url {
            findings.push(Finding::NotFromIndex {
                dist: DistRef::of(dist),
                source: source.clone(),
            });
        }
        if let Some(local) = local_label(dist.version()) {
            findings.push(Finding::LocalVersion {
                dist: DistRef::of(dist),
                local,
            });
        }
    }
    findings.sort_by_key(Finding::sort_key);
    findings.dedup();
    CheckReport {
        findings,
        accepted: Vec::new(),
    }
}

/// The local label of a version (`cu130` of `2.11.0+cu130`).
fn local_label(version: &Version) -> Option<String> {
    let text = version.to_string();
    text.split_once('+').map(|(_, local)| local.to_string())
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::inventory::graph::tests::inventory;

    #[test]
    fn a_triton_cache_written_by_another_triton_is_a_warning() {
        let inv = inventory(&[("triton", "3.6.0", &[], &[])]);
        let cache = |writers: &[&str]| Cache {
            kind: "triton".into(),
            path: "/root/.triton/cache".into(),
            exists: true,
            entries: 2,
            bytes: 10,
            newest_write: None,
            writers: writers.iter().map(|w| w.to_string()).collect(),
        };
        let mut report = check(&inv);
        report.add_stale_caches(&inv, &[cache(&["triton 3.6.0"])]);
        assert!(report.findings.is_empty(), "{report:#?}");
        report.add_stale_caches(&inv, &[cache(&["triton 3.5.1", "triton 3.6.0"])]);
        assert_eq!(report.of(Severity::Warning).count(), 1);
        assert_eq!(
            report.findings[0].message(),
            "the triton cache /root/.triton/cache was written by triton 3.5.1, but triton 3.6.0 \
             is installed (kernels compiled by another version; clear it or point \
             TRITON_CACHE_DIR elsewhere)"
        );
    }

    #[test]
    fn pip_semantics_for_locals_and_prereleases() {
        let inv = inventory(&[
            ("torch", "2.11.0+cu130", &["triton==3.6.0"], &[]),
            ("triton", "3.6.0", &[], &[]),
            ("vllm", "0.9", &["torch==2.11.0", "xformers>=0.1"], &[]),
            ("xformers", "0.2rc1", &[], &[]),
        ]);
        let report = check(&inv);
        // `==2.11.0` holds for 2.11.0+cu130; a pre-release satisfies `>=0.1` (pip allows it).
        assert!(!report.broken(), "{report:#?}");
        assert_eq!(report.findings.len(), 1);
        assert!(matches!(report.findings[0], Finding::LocalVersion { .. }));
    }

    #[test]
    fn accepted_edges_filter_exactly_that_finding() {
        let inv = inventory(&[
            (
                "torch",
                "2.11.0",
                &["triton==3.6.0; platform_system == \"Linux\"", "filelock>=3"],
                &[],
            ),
            ("triton", "3.7.0", &[], &[]),
            ("filelock", "2.0", &[], &[]),
        ]);
        let mut report = check(&inv);
        assert_eq!(report.of(Severity::Error).count(), 2);
        let edge = AcceptedEdge {
            dependent: PackageName::from_str("torch").unwrap(),
            dependent_version: Version::from_str("2.11.0").unwrap(),
            requirement: "triton==3.6.0; platform_system == \"Linux\"".into(),
            dependency: PackageName::from_str("triton").unwrap(),
            installed: Version::from_str("3.7.0").unwrap(),
        };
        // Another installed version is not what was accepted.
        let other = AcceptedEdge {
            installed: Version::from_str("3.8.0").unwrap(),
            ..edge.clone()
        };
        report.accept(&[other]);
        assert_eq!(report.accepted.len(), 0);
        report.accept(&[edge]);
        assert_eq!(report.accepted.len(), 1);
        assert!(report.broken(), "filelock is still broken");
        assert_eq!(report.of(Severity::Error).count(), 1);
    }
}
