//! Test helpers of the import readers ([`super::imports`], [`super::module_names`]).
//!
//! In: a path under `testdata/imports` (recorded real Python sources), names, or a dist's files.
//! Out: the source's text, the names as a set, or the dist installed in a folder and read back.

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

/// A dist `name` `version` installed into the site-packages folder `site` with `files` (path,
/// text), each listed in its `RECORD`, read back as the inventory reads it.
pub(crate) fn installed_dist(
    site: &Path,
    (name, version): (&str, &str),
    files: &[(&str, &str)],
) -> super::InstalledDist {
    let info = site.join(format!("{name}-{version}.dist-info"));
    std::fs::create_dir_all(&info).unwrap();
    let metadata = format!("Name: {name}\nVersion: {version}\n");
    std::fs::write(info.join("METADATA"), metadata).unwrap();
    let mut record = String::new();
    for (path, text) in files {
        let file = site.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
        record.push_str(&format!("{path},,\n"));
    }
    std::fs::write(info.join("RECORD"), record).unwrap();
    let (mut dists, _) = super::scan::scan_site_packages(&[site.to_path_buf()]).unwrap();
    dists.remove(0)
}
