//! [`Oracle`]: what the plan builder asks beyond the plan itself (the index: upstream releases,
//! upload dates, wheel file lists; the installed files: extensions, imports, RECORD).
//!
//! In: a dist name and version per question. Out: the answer, or `None` / empty where it cannot
//! be had (offline with nothing cached, a snapshot without files). Implemented by the proposer
//! over the index and the venv, and by the risk corpus test over recorded answers.

use std::collections::BTreeSet;
use std::sync::Arc;

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::PackageName;

use crate::inventory::imports::{ImportUse, ModuleWords};
use crate::risk::Upstream;

/// What the builder asks beyond the plan itself: the index and the installed files.
pub trait Oracle {
    /// Whether any release of `dependent` accepts `package` at `version`.
    fn upstream(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        version: &Version,
    ) -> Upstream;
    /// Whether the installed `dependent`'s compiled extensions link against `package`.
    fn links(&self, dependent: &PackageName, package: &PackageName) -> bool;
    /// When `name` `version` was first uploaded (`None`: not known).
    fn released(&self, name: &PackageName, version: &Version) -> Option<Timestamp>;
    /// When the first final release of `name` at or above `version` was uploaded.
    fn first_release_from(&self, name: &PackageName, version: &Version) -> Option<Timestamp>;
    /// The top-level modules the planned release `name==version` installs (its wheel's file
    /// list, read by [`super::modules::top_level_of`]), when they can be had; `None` otherwise.
    fn installs(&self, name: &PackageName, version: &Version) -> Option<Arc<BTreeSet<String>>> {
        let _ = (name, version);
        None
    }
    /// Every path the planned release `name==version`'s wheel holds (its file list), when it
    /// can be had; `None` otherwise.
    fn wheel_files(&self, name: &PackageName, version: &Version) -> Option<Vec<String>> {
        let _ = (name, version);
        None
    }
    /// The import statements of `package`'s top-level modules in the other installed dists'
    /// files (empty when the files cannot be read: a snapshot).
    fn import_uses(&self, package: &PackageName) -> Vec<ImportUse> {
        let _ = package;
        Vec::new()
    }
    /// The paths the installed `name` holds (its `RECORD`), when known.
    fn installed_files(&self, name: &PackageName) -> Option<Vec<String>> {
        let _ = name;
        None
    }
    /// The text of the file `path` in the planned release `name==version`'s wheel (read by range
    /// requests, at most [`crate::inventory::imports::MAX_FILE_BYTES`]), when it can be had.
    fn wheel_text(&self, name: &PackageName, version: &Version, path: &str) -> Option<String> {
        let _ = (name, version, path);
        None
    }
    /// What the module file `path` of `name` `version` mentions of `asked`: the installed copy
    /// when `version` is installed, else the planned release's wheel member.
    fn module_words(
        &self,
        name: &PackageName,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<ModuleWords> {
        let _ = (name, version, path, asked);
        None
    }
}
