//! Test helpers of the import readers ([`super::imports`], [`super::module_names`]).
//!
//! In: a path under `testdata/imports` (recorded real Python sources), or names. Out: the
//! source's text, or the names as a set.

use std::collections::BTreeSet;
use std::path::Path;

/// The recorded source at `testdata/imports/PATH` (a panic naming it when absent).
pub(super) fn real(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/imports")
        .join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `names` as owned strings.
pub(super) fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}
