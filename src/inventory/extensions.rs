//! Whether an installed dist's compiled extension modules are built against another package.
//!
//! In: an installed dist read from disk (its `RECORD` lists its files) and the import names of
//! another package (`numpy`). Out: whether any of its extension modules (`.so`, `.pyd`) names one
//! of them as a module path. An extension built against numpy's C API imports
//! `numpy.core.multiarray` (or `numpy._core._multiarray_umath`) by name when it loads; one that
//! calls into another package's C API or generated code names it the same way. A dist read from
//! a snapshot has no files, so the answer is "no" (not known): see `docs/risk-model.md`.

use std::path::Path;

use memchr::memmem;

use super::{DistFormat, InstalledDist};

/// At most this many bytes are read from one extension module (the import strings of a
/// CPython extension sit in its read-only data, far below this).
const MAX_FILE_BYTES: u64 = 256 << 20;
/// At most this many bytes are read per dist.
const MAX_DIST_BYTES: u64 = 1 << 30;

/// Whether `dist`'s compiled extension modules name any of `modules` (import names).
pub(crate) fn links_against(dist: &InstalledDist, modules: &[String]) -> bool {
    if dist.format != DistFormat::DistInfo || modules.is_empty() {
        return false;
    }
    let Some(site) = dist.path.parent() else {
        return false;
    };
    let Some(record) = super::scan::read_record(&dist.path) else {
        return false;
    };
    let finders: Vec<memmem::Finder<'_>> = modules
        .iter()
        .map(|m| memmem::Finder::new(m.as_bytes()))
        .collect();
    let mut budget = MAX_DIST_BYTES;
    for line in record.lines() {
        let path = line.split(',').next().unwrap_or("").trim_matches('"');
        if !is_extension(path) || path.split('/').any(|part| part == "..") {
            continue;
        }
        let Some(bytes) = read_capped(&site.join(path), budget.min(MAX_FILE_BYTES)) else {
            continue;
        };
        budget = budget.saturating_sub(bytes.len() as u64);
        if finders.iter().any(|f| names_module(&bytes, f)) {
            return true;
        }
        if budget == 0 {
            break;
        }
    }
    false
}

fn is_extension(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.ends_with(".so") || file.ends_with(".pyd") || file.contains(".so.")
}

/// The first `cap` bytes of an installed file (a regular file only: a FIFO listed in `RECORD`
/// must not hang the scan).
pub(super) fn read_capped(path: &Path, cap: u64) -> Option<Vec<u8>> {
    crate::bounded::read_prefix(path, cap).ok()
}

/// Whether `bytes` hold the finder's name as a whole module path: not preceded by a name
/// character or a dot, and followed by a dot or a non-name character (`numpy.core`, `"numpy"`,
/// not `numpydoc` or `_numpy`).
fn names_module(bytes: &[u8], finder: &memmem::Finder<'_>) -> bool {
    let len = finder.needle().len();
    let name_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    finder.find_iter(bytes).any(|at| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + len).copied();
        !before.is_some_and(|b| name_char(b) || b == b'.') && !after.is_some_and(name_char)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(bytes: &[u8], name: &str) -> bool {
        names_module(bytes, &memmem::Finder::new(name.as_bytes()))
    }

    #[test]
    fn a_module_path_is_found_and_a_longer_name_is_not() {
        assert!(finds(b"\0numpy.core.multiarray\0", "numpy"));
        assert!(finds(b"import \"numpy\" failed", "numpy"));
        assert!(!finds(b"\0numpydoc\0_numpy\0np.numpy_x\0", "numpy"));
        assert!(!finds(b"\0pkg.numpy\0", "numpy"));
    }
}
