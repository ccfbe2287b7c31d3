//! A planned release that fails on import through a test of another dist's version in its own
//! shipped sources: pyarrow 26.0.1 declares no numpy requirement, yet its `pyarrow/lib.pyx`
//! line 42, `if int(np.__version__.partition('.')[0]) < 2:`, raises `ImportError` ("pyarrow
//! requires NumPy 2.0 or newer, found 1.26.4") when `import pyarrow` runs `pyarrow.lib`.
//!
//! In: a changed dist's planned release (its wheel's file list and a few members, read by
//! range requests through the [`Oracle`]) and, per top-level module, the planned environment's
//! version of the dist that installs it. Out: each such test that holds there, with its file
//! and line ([`FailingCheck`]).
//!
//! Bounded to the one mechanism read: the release's top-level packages' `__init__.py` and the
//! Cython sources (`.pyx`, which a wheel may ship beside the extension built from them) of the
//! modules those import at module level, at most [`FILES_READ`] files; the tests
//! [`raising_version_tests`] reads (two exact shapes, outside functions, raising). A test in a
//! module imported later, a helper that compares versions, or an extension whose source is
//! not shipped is not seen: no claim.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::chain::package_of;
use super::imports_check::module_file;
use super::modules::top_level_of;
use super::oracle::Oracle;
use super::proposal::UncheckedEvidence;
use crate::inventory::imports::{VersionTest, raising_version_tests, unconditional_imports};
use crate::metadata::requirement::{bounded, excludes};

/// At most this many files of a release are read.
const FILES_READ: usize = 8;

/// A test of another dist's version in a planned release's sources that raises beside the
/// planned environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailingCheck {
    /// The planned release (pyarrow 26.0.1).
    pub release: (PackageName, Version),
    /// Its file (`pyarrow/lib.pyx`) and the test's line.
    pub file: String,
    pub line: usize,
    /// The test as written.
    pub test: String,
    /// The dist whose version the test reads, at its planned version (numpy 1.26.4).
    pub provider: (PackageName, Version),
    /// What the test requires of that dist for the release to import (`numpy>=2`): read from
    /// the release's own file, not from its index metadata.
    pub needs: Requirement,
}

impl FailingCheck {
    /// "pyarrow 26.0.1 (pyarrow/lib.pyx, line 42) raises on import when
    /// `int(np.__version__.partition('.')[0]) < 2`, which holds for numpy 1.26.4".
    pub(crate) fn sentence(&self) -> String {
        format!(
            "{} {} ({}, line {}) {}",
            self.release.0,
            self.release.1,
            self.file,
            self.line,
            self.what()
        )
    }

    /// Whether a plan pinning `pins` installs this release beside a version of the tested dist
    /// the test rejects (or without it): the test holds there too. A plan keeping numpy 2.3.5
    /// installs pyarrow 26.0.1 beside a numpy its `numpy>=2` accepts, and imports.
    pub(crate) fn holds_for(&self, pins: &BTreeMap<PackageName, Version>) -> bool {
        pins.get(&self.release.0) == Some(&self.release.1)
            && pins
                .get(&self.provider.0)
                .is_none_or(|v| excludes(&self.needs, v))
    }

    /// The sentence without the release and its file.
    pub(crate) fn what(&self) -> String {
        format!(
            "raises on import when `{}`, which holds for {} {}",
            self.test, self.provider.0, self.provider.1
        )
    }
}

/// A release's raising version tests, each with its file, and whether a read of its wheel
/// returned nothing (the tests found are then not all there may be).
type ReleaseTests = Arc<(Vec<(String, VersionTest)>, bool)>;

/// Per release, its raising version tests with their files, read once.
#[derive(Debug, Default)]
pub(crate) struct VersionChecksMemo {
    found: Mutex<HashMap<(PackageName, Version), ReleaseTests>>,
}

impl VersionChecksMemo {
    fn get(&self, name: &PackageName, version: &Version, oracle: &dyn Oracle) -> ReleaseTests {
        let key = (name.clone(), version.clone());
        let lock = || self.found.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        let found = Arc::new(release_tests(name, version, oracle));
        lock().insert(key, found.clone());
        found
    }
}

/// The tests of `name==version` that hold beside the planned versions `version_of` gives (the
/// dist installing a top-level module, and its version after the plan; `None`: not installed,
/// no claim).
pub(crate) fn failing_checks(
    name: &PackageName,
    version: &Version,
    oracle: &dyn Oracle,
    memo: &VersionChecksMemo,
    version_of: &dyn Fn(&str) -> Option<(PackageName, Version)>,
) -> Vec<FailingCheck> {
    let found = memo.get(name, version, oracle);
    if found.1 {
        // Read once for every plan: each plan that asks goes without the same files.
        oracle.note_unchecked(name, version, UncheckedEvidence::VersionChecks);
    }
    found
        .0
        .iter()
        .filter_map(|(file, test)| {
            let (provider, planned) = version_of(&test.module)?;
            (&provider != name && test.holds(&planned)).then(|| FailingCheck {
                release: (name.clone(), version.clone()),
                file: file.clone(),
                line: test.line,
                test: test.test.clone(),
                needs: bounded(&provider, vec![test.passing()]),
                provider: (provider, planned),
            })
        })
        .collect()
}

/// The raising version tests of a release's package `__init__.py` files and of the `.pyx`
/// sources of the modules they import at module level; and whether a read returned nothing.
fn release_tests(
    name: &PackageName,
    version: &Version,
    oracle: &dyn Oracle,
) -> (Vec<(String, VersionTest)>, bool) {
    let Some(files) = oracle.wheel_files(name, version) else {
        return (Vec::new(), true);
    };
    let mut missed = false;
    let own = top_level_of(&files);
    let mut queue: VecDeque<(String, bool)> = own
        .iter()
        .filter_map(|top| module_file(&files, top))
        .map(|file| (file, true))
        .collect();
    let mut read: BTreeMap<String, ()> = BTreeMap::new();
    let mut out = Vec::new();
    while let Some((path, init)) = queue.pop_front() {
        if read.len() == FILES_READ {
            break;
        }
        if read.insert(path.clone(), ()).is_some() {
            continue;
        }
        let Some(text) = oracle.wheel_text(name, version, &path) else {
            missed = true;
            continue;
        };
        out.extend(
            raising_version_tests(&text)
                .into_iter()
                .map(|t| (path.clone(), t)),
        );
        if !init {
            continue;
        }
        for statement in unconditional_imports(&text, &package_of(&path)) {
            let top = statement.module.split('.').next().unwrap_or_default();
            if !own.contains(top) {
                continue;
            }
            let source = format!("{}.pyx", statement.module.replace('.', "/"));
            if files.contains(&source) && !read.contains_key(&source) {
                queue.push_back((source, false));
            }
        }
    }
    (out, missed)
}
