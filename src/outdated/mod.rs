//! Stage 5 (beside `plan`): the analysis of `planner outdated`. For each installed dist, the
//! installed version, the newest this environment can install (wheel tags and
//! Requires-Python), the newest on the index, and which installed dists hold it back (their
//! requirements exclude the newer version); "Can move to" is a release whose own requirements
//! the installed versions meet too, and that the evidence `propose` weighs names nothing it
//! breaks; for a dist on an accelerator line that no release moves alone, what `propose`
//! recommends for it ([`line_move`]). Dists installed from outside the index (direct URLs, VCS, editables, egg-info) are
//! listed apart and never compared with index versions.
//!
//! In: an [`Inventory`] and the index's [`Project`]s (read through an [`IndexSource`]). Out: an
//! [`OutdatedReport`] ([`report`]), rendered by `render::outdated` as a table or JSON
//! (`docs/outdated-json.md`).

mod line_move;
pub(crate) mod report;

pub(crate) use line_move::check_line_moves;

use std::collections::BTreeMap;
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::PackageName;

use crate::index::{
    BinaryPolicy, DistFile, DistFilename, IndexError, IndexSource, Project, candidates,
};
use crate::inventory::graph::DependencyGraph;
use crate::inventory::{self, InstalledDist, Inventory};
use crate::metadata::requirement;
use crate::metadata::version_line::line_floor;
use crate::plan::{
    AloneBreaks, BreakKind, InstalledImports, Unchecked, variant_of, with_alone_evidence,
};

use report::{
    Breaks, HeldBackBy, NameVersion, Needs, OutdatedReport, PackageError, PackageStatus, SCHEMA,
    Unmanaged,
};

/// Compare the inventory with the index pages.
pub(crate) fn build_report(
    inventory: &Inventory,
    projects: &BTreeMap<PackageName, Result<Option<Arc<Project>>, IndexError>>,
    policy: &BinaryPolicy,
    indexes: Vec<String>,
) -> OutdatedReport {
    let graph = DependencyGraph::build(inventory);
    let env = &inventory.environment;
    let mut report = OutdatedReport {
        schema: SCHEMA,
        python_version: env.python_version.clone(),
        indexes,
        packages: Vec::new(),
        unmanaged: Vec::new(),
        not_found: Vec::new(),
        errors: Vec::new(),
    };
    for dist in &inventory.dists {
        let name = dist.name().clone();
        let installed = dist.version().clone();
        if dist.is_unmanaged() {
            report.unmanaged.push(Unmanaged {
                name,
                installed,
                source: dist.source_label(),
            });
            continue;
        }
        match projects.get(dist.name()) {
            None | Some(Ok(None)) => report.not_found.push(NameVersion { name, installed }),
            Some(Err(err)) => report.errors.push(PackageError {
                name,
                installed,
                error: err.to_string(),
            }),
            Some(Ok(Some(project))) => {
                report
                    .packages
                    .push(compare(dist, project, &graph, env, policy));
            }
        }
    }
    report
}

fn compare(
    dist: &InstalledDist,
    project: &Project,
    graph: &DependencyGraph<'_>,
    env: &inventory::Environment,
    policy: &BinaryPolicy,
) -> PackageStatus {
    let all = candidates(project, env, policy);
    let is_final = |v: &Version| !v.any_prerelease();
    let newest_compatible = all
        .iter()
        .find(|c| c.is_usable() && is_final(&c.version))
        .map(|c| c.version.clone());
    let newest_on_index = project
        .files
        .heads()
        .filter(|f| !f.yanked && is_final(f.version))
        .map(|f| f.version)
        .max()
        .cloned();
    // Requirements of installed dependents (whose markers hold) on this name.
    let dependents = graph.dependents(dist.name());
    let accepts = |version: &Version| {
        dependents
            .iter()
            .all(|(_, req)| requirement::accepts(req, version))
    };
    let mut held_back_by = Vec::new();
    if let Some(newest) = &newest_compatible
        && newest > dist.version()
    {
        for (dependent, req) in &dependents {
            if let Some(specs) = requirement::specifiers(req)
                && !specs.contains(newest)
            {
                let entry = HeldBackBy {
                    name: dependent.name().clone(),
                    version: dependent.version().clone(),
                    specifier: specs.to_string(),
                };
                if !held_back_by.contains(&entry) {
                    held_back_by.push(entry);
                }
            }
        }
    }
    let newest_allowed = all
        .iter()
        .find(|c| c.is_usable() && is_final(&c.version) && accepts(&c.version))
        .map(|c| c.version.clone());
    PackageStatus {
        name: dist.name().clone(),
        installed: dist.version().clone(),
        outdated: newest_compatible
            .as_ref()
            .is_some_and(|v| v > dist.version()),
        newest_compatible,
        newest_on_index,
        newest_allowed,
        held_back_by,
        needs: Vec::new(),
        breaks: Vec::new(),
        fails_on_import: Vec::new(),
        moves_with: Vec::new(),
        not_checked: None,
        unchecked: Vec::new(),
        index: project.index.clone(),
    }
}

/// How many releases above the installed one (that the dependents accept) are read for their
/// own requirements, newest first (those of a major line known to break, unread, not counted).
const OWN_SCAN: usize = 8;

/// "Can move to" is a release that an upgrade of the dist alone reaches: the dependents accept
/// it (see [`compare`]), its own requirements accept the installed versions (torchvision
/// 0.29.2 requires `torch>=2.14`: with torch 2.11.0 it cannot be had alone), and the evidence
/// `propose` weighs names no installed dist it breaks (numpy 2 under pandas 1.5.3's compiled
/// extensions; werkzeug 3 under flask 2.0.3's imports: [`with_alone_evidence`]). Each
/// candidate's metadata is read (prefetched for every package first); the first that fits,
/// newest first, is `newest_allowed`; what the newest one read needs is `needs`, and what the
/// newest one whose requirements are met breaks is `breaks`. A release whose metadata is
/// unusable (its own fault: [`IndexError::is_release_level`]) ends the scan as the answer
/// (checked against the dependents only), unless what the index served for it failed an
/// integrity check (a name or hash mismatch: passed over); a read that fails (the network, a cache `--offline`
/// lacks) leaves the row without an answer and says why (`not_checked`).
pub(crate) fn check_own_requirements(
    report: &mut OutdatedReport,
    inventory: &Inventory,
    projects: &BTreeMap<PackageName, Result<Option<Arc<Project>>, IndexError>>,
    index: &dyn IndexSource,
    policy: &BinaryPolicy,
    imports: &Arc<InstalledImports>,
) {
    let env = &inventory.environment;
    // Per package with a newer release: its row, its project and the releases to read.
    type Pending = (usize, Arc<Project>, Vec<(Version, DistFile)>);
    let mut scans: Vec<Pending> = Vec::new();
    for (i, status) in report.packages.iter().enumerate() {
        let Some(Ok(Some(project))) = projects.get(&status.name) else {
            continue;
        };
        let Some(dist) = inventory.get(&status.name) else {
            continue;
        };
        let Some(allowed) = status
            .newest_allowed
            .as_ref()
            .filter(|v| *v > dist.version())
        else {
            continue;
        };
        let accepted: Vec<(Version, DistFile)> = candidates(project, env, policy)
            .into_iter()
            .filter(|c| c.is_usable() && !c.version.any_prerelease())
            .filter(|c| &c.version <= allowed && &c.version > dist.version())
            // Another build of the dist (`2.10.0+cpu` for a CUDA torch, the index's CUDA build
            // for `2.9.1+cpu`) is a line switch, never a move alone.
            .filter(|c| variant_of(&c.version) == variant_of(dist.version()))
            .filter(|c| dependents_accept(inventory, dist, &c.version))
            .filter_map(|c| Some((c.version.clone(), c.file?.clone())))
            .collect();
        if let Some((_, file)) = accepted.first() {
            index.prefetch_metadata(project, file);
        }
        scans.push((i, project.clone(), accepted));
    }
    with_alone_evidence(index, inventory, policy, imports, |evidence| {
        for (i, project, accepted) in scans {
            let scan = scan_releases(index, inventory, &project, &accepted, |version| {
                evidence.breaks(&project.name, version)
            });
            let status = &mut report.packages[i];
            status.newest_allowed = scan.found;
            status.needs = scan.needs;
            status.breaks = scan.breaks;
            status.fails_on_import = scan.fails;
            status.not_checked = scan.not_checked;
            status.unchecked = (scan.unchecked.into_iter())
                .find(|(v, _)| Some(v) == status.newest_allowed.as_ref())
                .map(|(_, unchecked)| unchecked)
                .unwrap_or_default();
        }
    });
}

/// What a scan of one dist's releases (newest first) found.
struct Scan {
    /// The first release that fits.
    found: Option<Version>,
    /// What the newest release read needs that the installed versions do not meet.
    needs: Vec<Needs>,
    /// What the newest release whose requirements are met breaks.
    breaks: Vec<Breaks>,
    /// Why the newest release whose requirements are met fails on import itself.
    fails: Vec<String>,
    /// The first read that failed (its error, with the URL): the scan then claims no release.
    not_checked: Option<String>,
    /// Per release that fits, the checks it was judged without (its wheel not read).
    unchecked: Vec<(Version, Vec<Unchecked>)>,
}

/// How many more releases, below the [`OWN_SCAN`] newest, a bisection reads at most (enough
/// for a thousand releases).
const BISECT_READS: usize = 10;

/// What one release read says.
enum Fit {
    /// Its requirements are met and the evidence names nothing it breaks.
    Fits,
    /// Its requirements on installed dists that the installed versions do not meet.
    Needs(Vec<Needs>),
    /// What it breaks (its requirements are met).
    Breaks(AloneBreaks),
    /// Its metadata is unusable (the release's own fault: no metadata without a build).
    Unknown,
    /// What the index served for it failed an integrity check ([`IndexError::is_suspect`]: a
    /// hash or name mismatch, a refused shape): passed over, as the solver passes it over and
    /// as the warning about it says ("the answer was reached without those releases").
    Suspect,
    /// Its metadata could not be read (the network, a cache `--offline` lacks).
    Unread,
}

/// Read `accepted` newest first, at most [`OWN_SCAN`] of them, for the first release whose own
/// requirements are met and that `breaks` names nothing for. A release in a major line whose
/// newer release already broke a compiled dependent breaks it too (the `abi-break` rule dates
/// the line, not the release): it is passed over unread and not counted, so numpy 1.26.4 is
/// reached below a run of numpy 2 releases. When none of those fits, the older ones are
/// bisected (at most [`BISECT_READS`] reads; newer releases need newer dependencies, so a
/// release that fits under one that does not is the boundary): celery 5.4.0 under nine newer
/// celery releases that need kombu 5.5 or newer.
fn scan_releases(
    index: &dyn IndexSource,
    inventory: &Inventory,
    project: &Project,
    accepted: &[(Version, DistFile)],
    breaks: impl Fn(&Version) -> AloneBreaks,
) -> Scan {
    let mut scan = Scan {
        found: None,
        needs: Vec::new(),
        breaks: Vec::new(),
        fails: Vec::new(),
        not_checked: None,
        unchecked: Vec::new(),
    };
    let mut abi_broken_line: Option<Version> = None;
    let fit = |version: &Version, file: &DistFile, scan: &mut Scan| {
        let metadata = match index.metadata(project, file) {
            Ok(metadata) => metadata,
            Err(err) if err.is_suspect() => return Fit::Suspect,
            Err(err) if err.is_release_level() => return Fit::Unknown,
            Err(err) => {
                log::debug!("{} {version}: {err}", project.name);
                scan.not_checked.get_or_insert_with(|| err.to_string());
                return Fit::Unread;
            }
        };
        let unmet = unmet_requirements(inventory, &project.name, version, &metadata);
        let result = if !unmet.is_empty() {
            Fit::Needs(unmet)
        } else {
            let found = breaks(version);
            if found.breaks.is_empty() && found.fails.is_empty() {
                if !found.unchecked.is_empty() {
                    scan.unchecked.push((version.clone(), found.unchecked));
                }
                Fit::Fits
            } else {
                Fit::Breaks(found)
            }
        };
        match &result {
            Fit::Needs(unmet) if scan.needs.is_empty() => scan.needs = unmet.clone(),
            Fit::Breaks(found) if scan.breaks.is_empty() && scan.fails.is_empty() => {
                scan.breaks = breaks_of(inventory, found);
                scan.fails = found.fails.clone();
            }
            _ => {}
        }
        result
    };
    let mut read = 0;
    let mut rest = accepted.len();
    for (i, (version, file)) in accepted.iter().enumerate() {
        if abi_broken_line.as_ref() == Some(&line_floor(version)) {
            continue;
        }
        if read == OWN_SCAN {
            rest = i;
            break;
        }
        read += 1;
        match fit(version, file, &mut scan) {
            // Unknown is not "held back": the dependents' answer stands, unchecked.
            Fit::Unknown | Fit::Fits => {
                scan.found = Some(version.clone());
                return scan;
            }
            // A read that failed answers nothing: no release is claimed past it.
            Fit::Unread => return scan,
            Fit::Breaks(found) if found.breaks.iter().any(|b| b.how == BreakKind::Abi) => {
                abi_broken_line = Some(line_floor(version));
            }
            _ => {}
        }
    }
    let mut older: Vec<&(Version, DistFile)> = accepted[rest..]
        .iter()
        .filter(|(v, _)| abi_broken_line.as_ref() != Some(&line_floor(v)))
        .collect();
    // An sdist's requirements are rarely known without a build, so the bisection reads the
    // releases with a wheel here when there are any (SQLAlchemy 1.4.0 to 1.4.41 are sdists on
    // CPython 3.11, 1.4.42 to 1.4.54 have wheels).
    let is_wheel =
        |(_, file): &&(Version, DistFile)| matches!(file.filename, DistFilename::Wheel(_));
    if older.iter().any(is_wheel) {
        older.retain(is_wheel);
    }
    scan.found = bisect_older(&older, |version, file| {
        match fit(version, file, &mut scan) {
            Fit::Fits => Some(true),
            Fit::Unknown | Fit::Unread | Fit::Suspect => None,
            Fit::Needs(_) | Fit::Breaks(_) => Some(false),
        }
    });
    if scan.not_checked.is_some() {
        scan.found = None;
    }
    scan
}

/// The newest of `older` (newest first) that `fits`, found by bisection: it fits and the one
/// above it (when read) does not. At most [`BISECT_READS`] releases are read; what was not
/// read to a fit is not claimed. A release `fits` cannot judge (`None`: its metadata could not be
/// read, an sdist of a release older than the interpreter's wheels) says nothing of the boundary:
/// it is left out and the bisection goes on among the others (SQLAlchemy 1.4.27, an sdist on
/// CPython 3.11, between 2.0.3, which breaks alembic 1.5.8, and 1.4.54, which fits).
fn bisect_older<F>(
    older: &[&(Version, F)],
    mut fits: impl FnMut(&Version, &F) -> Option<bool>,
) -> Option<Version> {
    let mut older: Vec<&(Version, F)> = older.to_vec();
    // Invariant: every index below `low` was read not to fit (or lies above one that did not);
    // `high` is the newest index read to fit (`older.len()`: none yet).
    let (mut low, mut high) = (0, older.len());
    let mut found = None;
    let mut reads = 0;
    while low < high && reads < BISECT_READS {
        let mid = low + (high - low) / 2;
        reads += 1;
        let (version, file) = older[mid];
        match fits(version, file) {
            Some(true) => {
                found = Some(version.clone());
                high = mid;
            }
            Some(false) => low = mid + 1,
            None => {
                older.remove(mid);
                high -= 1;
            }
        }
    }
    found
}

/// Whether every installed dependent's requirement on `dist` (markers true here) accepts
/// `version`.
fn dependents_accept(inventory: &Inventory, dist: &InstalledDist, version: &Version) -> bool {
    let markers = &inventory.environment.markers;
    inventory.dists.iter().all(|d| {
        d.metadata.requires_dist.iter().all(|r| {
            &r.name != dist.name()
                || !r.marker.evaluate(markers, &[])
                || requirement::accepts(r, version)
        })
    })
}

/// The requirements of `name==version` (markers true here, no extras) on installed dists that
/// the installed versions do not meet.
fn unmet_requirements(
    inventory: &Inventory,
    name: &PackageName,
    version: &Version,
    metadata: &crate::metadata::CoreMetadata,
) -> Vec<Needs> {
    let markers = &inventory.environment.markers;
    metadata
        .requires_dist
        .iter()
        .filter(|r| &r.name != name && r.marker.evaluate(markers, &[]))
        .filter_map(|r| {
            let installed = inventory.get(&r.name)?;
            let specs = requirement::specifiers(r)?;
            (!specs.contains(installed.version())).then(|| Needs {
                release: version.clone(),
                name: r.name.clone(),
                installed: installed.version().clone(),
                specifier: specs.to_string(),
            })
        })
        .collect()
}

/// The breaks of one release, each with the installed version of the dependent and its
/// evidence: the sentences naming its failing imports, or for an `abi-break` the sentence
/// citing its extension module (`propose`'s, [`AloneBreaks::abi`]).
fn breaks_of(inventory: &Inventory, found: &AloneBreaks) -> Vec<Breaks> {
    found
        .breaks
        .iter()
        .filter_map(|b| {
            let installed = inventory.get(&b.dependent)?.version().clone();
            let prefix = format!("{} {installed} (", b.dependent);
            let sentences = match b.how {
                BreakKind::Abi => &[][..],
                BreakKind::Import | BreakKind::ImportChain => &found.imports[..],
                BreakKind::CallTime => &found.call_time[..],
            };
            let imports: Vec<String> = (sentences.iter())
                .filter(|s| s.starts_with(&prefix))
                .cloned()
                .collect();
            let extension = match b.how {
                BreakKind::Abi => (found.abi.iter())
                    .find(|(d, _)| d == &b.dependent)
                    .map(|(_, cite)| cite.clone()),
                BreakKind::Import | BreakKind::ImportChain | BreakKind::CallTime => None,
            };
            Some(Breaks {
                release: b.to.clone(),
                name: b.dependent.clone(),
                installed,
                evidence: b.how,
                imports,
                extension,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use pep440_rs::Version;

    use super::bisect_older;

    #[test]
    fn a_release_that_cannot_be_judged_is_left_out_of_the_bisection() {
        // As SQLAlchemy under alembic 1.5.8 on CPython 3.11: newest first, 2.0.x breaks the
        // dependent, 1.4.54 fits, the older 1.4 releases are sdists whose metadata cannot be
        // read. Judging those as "does not fit" led the bisection below all of them.
        let versions = [
            "2.0.3", "2.0.0", "1.4.54", "1.4.27", "1.4.13", "1.4.6", "1.4.2", "1.4.0",
        ];
        let all: Vec<(Version, ())> = versions
            .iter()
            .map(|v| (Version::from_str(v).unwrap(), ()))
            .collect();
        let older: Vec<&(Version, ())> = all.iter().collect();
        let mut read = Vec::new();
        let found = bisect_older(&older, |version, ()| {
            read.push(version.to_string());
            match version.to_string().as_str() {
                "2.0.3" | "2.0.0" => Some(false),
                "1.4.54" => Some(true),
                _ => None,
            }
        });
        assert_eq!(
            found,
            Some(Version::from_str("1.4.54").unwrap()),
            "read {read:?}"
        );
    }
}
