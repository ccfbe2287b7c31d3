//! What a plan could not check: per planned release whose wheel files could not be read (the
//! [`Oracle::unread`] of this run), the checks that needed them. Changes in, [`Unchecked`]
//! entries out; none where no check would have read the release.
//!
//! Two of the checks are known from the plan alone (what a release moved back or added imports;
//! whether a changed dist keeps what its importers import). The others say so as they read:
//! each runs over a [`Step`], which notes a read that returned nothing with the check's name,
//! and the plan's [`Gaps`] keeps the note where the read failed (not where a file is simply
//! not in the wheel).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::PackageName;

use crate::index::WheelUnread;
use crate::inventory::extensions::AbiLink;
use crate::inventory::imports::ImportUse;
use crate::inventory::module_names::ModuleNames;
use crate::plan::oracle::Oracle;
use crate::plan::proposal::{Action, Change, Unchecked, UncheckedEvidence};
use crate::risk::Upstream;

/// The checks one plan (or one `outdated` question) noted as going without a release's files.
type Noted = BTreeSet<(PackageName, Version, UncheckedEvidence)>;

/// One plan's evidence: `inner`, keeping the checks that went without a release's wheel
/// because its read failed ([`Oracle::note_unchecked`]).
pub(in crate::plan) struct Gaps<'a> {
    inner: &'a dyn Oracle,
    noted: Mutex<Noted>,
}

impl<'a> Gaps<'a> {
    /// Nothing noted yet.
    pub(in crate::plan) fn new(inner: &'a dyn Oracle) -> Self {
        Gaps {
            inner,
            noted: Mutex::default(),
        }
    }

    /// The evidence each change's planned release would have given and did not: what it
    /// imports (a release moved back or added: the planned-imports check), whether it keeps
    /// what the installed files import from it (a changed dist with importers: the
    /// removed-module check), and each check noted while the plan was built. A change that
    /// belongs to `base` (a lower layer) is that layer's.
    pub(in crate::plan) fn unchecked(
        &self,
        changes: &[Change],
        base: Option<&BTreeMap<PackageName, Version>>,
    ) -> Vec<Unchecked> {
        let noted = self.noted.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for change in changes {
            let Some(to) = &change.to else { continue };
            if base.is_some_and(|base| base.get(&change.name) == Some(to)) {
                continue;
            }
            let Some(why) = self.inner.unread(&change.name, to) else {
                continue;
            };
            let mut evidence = Vec::new();
            if matches!(change.action, Action::Downgrade | Action::Add) {
                evidence.push(UncheckedEvidence::PlannedImports);
            }
            if change.from.is_some() && !self.inner.import_uses(&change.name).is_empty() {
                evidence.push(UncheckedEvidence::RemovedModules);
            }
            evidence.extend(
                (noted.iter())
                    .filter(|(name, version, _)| name == &change.name && version == to)
                    .map(|(.., e)| *e),
            );
            evidence.sort();
            evidence.dedup();
            if evidence.is_empty() {
                continue;
            }
            out.push(Unchecked {
                name: change.name.clone(),
                version: to.clone(),
                evidence,
                reason: why.kind().to_string(),
                detail: why.sentence(),
                hint: why.hint().map(str::to_string),
            });
        }
        out
    }
}

/// One check's view of the evidence: a wheel read that returns nothing is noted against the
/// check (`evidence`) on the plan's [`Gaps`].
pub(in crate::plan) struct Step<'a> {
    inner: &'a dyn Oracle,
    evidence: UncheckedEvidence,
}

impl<'a> Step<'a> {
    /// `evidence`'s reads of `inner`.
    pub(in crate::plan) fn new(inner: &'a dyn Oracle, evidence: UncheckedEvidence) -> Self {
        Step { inner, evidence }
    }

    fn noted<T>(&self, name: &PackageName, version: &Version, got: Option<T>) -> Option<T> {
        if got.is_none() {
            self.inner.note_unchecked(name, version, self.evidence);
        }
        got
    }
}

/// The [`Oracle`] methods that read no planned wheel, passed to `self.inner` unchanged.
macro_rules! passed_on {
    () => {
        fn upstream(
            &self,
            dependent: &PackageName,
            package: &PackageName,
            version: &Version,
        ) -> Upstream {
            self.inner.upstream(dependent, package, version)
        }
        fn abi_link(
            &self,
            dependent: &PackageName,
            package: &PackageName,
            from: &Version,
            to: &Version,
        ) -> Option<AbiLink> {
            self.inner.abi_link(dependent, package, from, to)
        }
        fn released(&self, name: &PackageName, version: &Version) -> Option<Timestamp> {
            self.inner.released(name, version)
        }
        fn first_release_from(&self, name: &PackageName, version: &Version) -> Option<Timestamp> {
            self.inner.first_release_from(name, version)
        }
        fn releases_back(&self, name: &PackageName, to: &Version, from: &Version) -> Option<usize> {
            self.inner.releases_back(name, to, from)
        }
        fn source_only(&self, name: &PackageName, version: &Version) -> bool {
            self.inner.source_only(name, version)
        }
        fn import_uses(&self, package: &PackageName) -> Vec<ImportUse> {
            self.inner.import_uses(package)
        }
        fn installed_files(&self, name: &PackageName) -> Option<Vec<String>> {
            self.inner.installed_files(name)
        }
        fn unread(&self, name: &PackageName, version: &Version) -> Option<WheelUnread> {
            self.inner.unread(name, version)
        }
    };
}

impl Oracle for Gaps<'_> {
    passed_on!();

    fn installs(&self, name: &PackageName, version: &Version) -> Option<Arc<BTreeSet<String>>> {
        self.inner.installs(name, version)
    }

    fn wheel_files(&self, name: &PackageName, version: &Version) -> Option<Vec<String>> {
        self.inner.wheel_files(name, version)
    }

    fn wheel_text(&self, name: &PackageName, version: &Version, path: &str) -> Option<String> {
        self.inner.wheel_text(name, version, path)
    }

    fn module_names(
        &self,
        name: &PackageName,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<ModuleNames> {
        self.inner.module_names(name, version, path, asked)
    }

    fn note_unchecked(&self, name: &PackageName, version: &Version, evidence: UncheckedEvidence) {
        if self.inner.unread(name, version).is_some() {
            let mut noted = self.noted.lock().unwrap_or_else(|e| e.into_inner());
            noted.insert((name.clone(), version.clone(), evidence));
        }
    }

    fn folder_sources(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
    ) -> Option<Arc<Vec<(String, String)>>> {
        self.inner.folder_sources(name, version, prefix)
    }
}

impl Oracle for Step<'_> {
    passed_on!();

    fn installs(&self, name: &PackageName, version: &Version) -> Option<Arc<BTreeSet<String>>> {
        self.noted(name, version, self.inner.installs(name, version))
    }

    fn wheel_files(&self, name: &PackageName, version: &Version) -> Option<Vec<String>> {
        self.noted(name, version, self.inner.wheel_files(name, version))
    }

    fn wheel_text(&self, name: &PackageName, version: &Version, path: &str) -> Option<String> {
        self.noted(name, version, self.inner.wheel_text(name, version, path))
    }

    fn module_names(
        &self,
        name: &PackageName,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<ModuleNames> {
        let got = self.inner.module_names(name, version, path, asked);
        self.noted(name, version, got)
    }

    fn note_unchecked(&self, name: &PackageName, version: &Version, evidence: UncheckedEvidence) {
        self.inner.note_unchecked(name, version, evidence);
    }

    fn folder_sources(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
    ) -> Option<Arc<Vec<(String, String)>>> {
        let got = self.inner.folder_sources(name, version, prefix);
        self.noted(name, version, got)
    }
}
