//! The files of one install compared between A and B: those whose state against `RECORD`
//! differs (edited in place, missing, as installed again), counted in lines added and removed
//! where both sides' text is known, and the files no `RECORD` owns that came, went or changed.
//!
//! In: the two sides' [`InstalledDist`]s with their file checks. Out: [`FileDiff`]s and
//! [`UnownedDiff`]s. A side's text is known from the line hashes its check recorded for an
//! edited file, or, for a file as installed on a side read from disk, from the file itself; a
//! snapshot does not keep the text of files as installed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use crate::inventory::integrity::{self, FileChange, FileCheck, FileState};
use crate::inventory::unowned::UnownedFile;
use crate::inventory::{DistFormat, InstalledDist};

/// One file of a dist whose state against its `RECORD` differs between A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FileDiff {
    /// The path, relative to site-packages.
    pub path: String,
    /// How it differed from `RECORD` in A (`None`: as installed).
    pub a: Option<FileChange>,
    /// How it differs from `RECORD` in B (`None`: as installed).
    pub b: Option<FileChange>,
    /// The lines B adds and removes against A (`None`: one side's text is not known).
    pub lines: Option<LineCounts>,
}

/// Lines added and removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct LineCounts {
    /// Lines in B that are not in A.
    pub added: usize,
    /// Lines in A that are not in B.
    pub removed: usize,
}

/// A file in a dist's package folders that no `RECORD` owns, on one side only or changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct UnownedDiff {
    /// The path, relative to site-packages.
    pub path: String,
    /// The file in A (`None`: not there).
    pub a: Option<UnownedFile>,
    /// The file in B (`None`: not there).
    pub b: Option<UnownedFile>,
}

/// The files of one install whose state against `RECORD` differs between A and B; none where
/// either side was not checked, or the versions differ (another release, other files).
pub(crate) fn file_diffs(a: &InstalledDist, b: &InstalledDist) -> Vec<FileDiff> {
    let (Some(fa), Some(fb)) = (&a.files, &b.files) else {
        return Vec::new();
    };
    if a.version() != b.version() {
        return Vec::new();
    }
    let by_path = |check: &FileCheck| -> BTreeMap<String, FileChange> {
        check
            .changes
            .iter()
            .map(|c| (c.path.clone(), c.clone()))
            .collect()
    };
    let (ma, mb) = (by_path(fa), by_path(fb));
    let paths: BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    paths
        .into_iter()
        .filter(|path| !same_state(ma.get(*path), mb.get(*path)))
        .map(|path| {
            let (ca, cb) = (ma.get(path), mb.get(path));
            let lines = side_lines(a, ca, path)
                .zip(side_lines(b, cb, path))
                .map(|(old, new)| {
                    let (added, removed) = integrity::line_counts(&old, &new);
                    LineCounts { added, removed }
                });
            FileDiff {
                path: path.clone(),
                a: ca.cloned(),
                b: cb.cloned(),
                lines,
            }
        })
        .collect()
}

/// Whether a file is in the same state on both sides (the modification time aside).
fn same_state(a: Option<&FileChange>, b: Option<&FileChange>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => (x.state, x.size, &x.sha256) == (y.state, y.size, &y.sha256),
        _ => false,
    }
}

/// One side's lines of a file, as line hashes: those its check recorded for an edit, none for
/// a missing file, and for a file as installed the file itself where the side is on disk.
fn side_lines(
    dist: &InstalledDist,
    change: Option<&FileChange>,
    path: &str,
) -> Option<Vec<String>> {
    match change {
        Some(c) if c.state == FileState::Missing => Some(Vec::new()),
        Some(c) => c.line_hashes.clone(),
        None if dist.format == DistFormat::DistInfo => {
            let site = dist.path.parent()?;
            integrity::line_hashes_of(&site.join(Path::new(path)))
        }
        None => None,
    }
}

/// The files no `RECORD` owns that are on one side only or differ (size or digest), where
/// both sides looked for them; compared across versions too (a file an older release left
/// behind stays unowned after an upgrade).
pub(crate) fn unowned_diffs(a: &InstalledDist, b: &InstalledDist) -> Vec<UnownedDiff> {
    let listed = |d: &InstalledDist| d.files.as_ref().and_then(|f| f.unowned.clone());
    let (Some(ua), Some(ub)) = (listed(a), listed(b)) else {
        return Vec::new();
    };
    let by_path = |files: Vec<UnownedFile>| -> BTreeMap<String, UnownedFile> {
        files.into_iter().map(|f| (f.path.clone(), f)).collect()
    };
    let (ma, mb) = (by_path(ua), by_path(ub));
    let paths: BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    paths
        .into_iter()
        .filter(|path| match (ma.get(*path), mb.get(*path)) {
            (Some(x), Some(y)) => (x.size, &x.sha256) != (y.size, &y.sha256),
            _ => true,
        })
        .map(|path| UnownedDiff {
            path: path.clone(),
            a: ma.get(path).cloned(),
            b: mb.get(path).cloned(),
        })
        .collect()
}
