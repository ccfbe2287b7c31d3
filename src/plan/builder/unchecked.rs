//! What a plan could not check: per planned release whose wheel files could not be read (the
//! [`Oracle::unread`] of this run), the checks that needed them. Changes in, [`Unchecked`]
//! entries out; none where no check would have read the release.

use std::collections::BTreeMap;

use pep440_rs::Version;
use pep508_rs::PackageName;

use crate::plan::oracle::Oracle;
use crate::plan::proposal::{Action, Change, Unchecked, UncheckedEvidence};

/// The evidence each change's planned release would have given and did not: what it imports
/// (a release moved back or added: the planned-imports check) and whether it keeps what the
/// installed files import from it (a changed dist with importers: the removed-module check).
/// A change that belongs to `base` (a lower layer) is that layer's.
pub(super) fn unchecked(
    changes: &[Change],
    base: Option<&BTreeMap<PackageName, Version>>,
    oracle: &dyn Oracle,
) -> Vec<Unchecked> {
    let mut out = Vec::new();
    for change in changes {
        let Some(to) = &change.to else { continue };
        if base.is_some_and(|base| base.get(&change.name) == Some(to)) {
            continue;
        }
        let Some(why) = oracle.unread(&change.name, to) else {
            continue;
        };
        let mut evidence = Vec::new();
        if matches!(change.action, Action::Downgrade | Action::Add) {
            evidence.push(UncheckedEvidence::PlannedImports);
        }
        if change.from.is_some() && !oracle.import_uses(&change.name).is_empty() {
            evidence.push(UncheckedEvidence::RemovedModules);
        }
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
