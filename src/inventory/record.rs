//! The one reader of an installed dist's `RECORD`, and of a legacy egg-info's file list.
//!
//! In: a `.dist-info` folder, or an `.egg-info` folder. Out: the paths its `RECORD` lists, in
//! order ([`paths`]), or its rows with their digests and sizes ([`entries`]); the files a
//! dist of either kind installed inside site-packages ([`inside_paths`]: for an egg-info folder,
//! its `installed-files.txt`); and the one check that a listed path stays inside site-packages
//! ([`is_inside`]).
//!
//! `RECORD` is CSV (`path,hash,size`, written by Python's `csv` module): a path holding a comma
//! is quoted, and a quote inside it doubled. It is read with the `csv` crate, as uv reads it.

use std::path::Path;

/// The largest `RECORD` read (torch's is 2.5 MB).
pub(crate) const MAX_RECORD_BYTES: u64 = 64 << 20;

/// The paths a dist-info folder's `RECORD` lists, in order, empty ones left out (`None`: no
/// `RECORD`, unreadable, not a regular file, not UTF-8, over [`MAX_RECORD_BYTES`]). Paths that
/// leave site-packages (`../../bin/tool`) are kept: filter with [`is_inside`] before reading one.
pub(crate) fn paths(folder: &Path) -> Option<Vec<String>> {
    let text = crate::bounded::read_text(&folder.join("RECORD"), MAX_RECORD_BYTES).ok()?;
    Some(parse(&text))
}

/// The files a dist installed inside site-packages: the paths a dist-info folder's `RECORD`
/// lists that stay inside it ([`is_inside`]), or for a legacy egg-info folder (`setup.py install
/// --record`, as pip before 23.1 installed an sdist) those its `installed-files.txt` lists
/// ([`egg_info_paths`]). `None` where there is no such list (a bare egg-info file, a dist-info
/// without `RECORD`).
pub(crate) fn inside_paths(folder: &Path) -> Option<Vec<String>> {
    let name = folder.file_name()?.to_str()?;
    if name.ends_with(".egg-info") {
        return egg_info_paths(name, folder);
    }
    let mut paths = paths(folder)?;
    paths.retain(|path| is_inside(path));
    Some(paths)
}

/// An egg-info folder's `installed-files.txt` (paths relative to that folder:
/// `../demo/__init__.py`, `PKG-INFO`) as paths relative to site-packages; those that leave it
/// (`../../../bin/tool`) dropped.
fn egg_info_paths(name: &str, folder: &Path) -> Option<Vec<String>> {
    let text =
        crate::bounded::read_text(&folder.join("installed-files.txt"), MAX_RECORD_BYTES).ok()?;
    Some(
        text.lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('/') && !line.contains('\\'))
            .filter_map(|line| normalize(&format!("{name}/{line}")))
            .collect(),
    )
}

/// `a/b/../c` as `a/c`; `None` where it leaves the folder it starts in.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// One row of `RECORD`: `path,algorithm=digest,size`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The path, relative to site-packages.
    pub path: String,
    /// `(algorithm, digest)` as written (`sha256`, urlsafe base64 without padding); `None`
    /// where the row has none (`RECORD` itself, `.pyc` files the installer compiled).
    pub hash: Option<(String, String)>,
    /// The size in bytes, where the row gives one.
    pub size: Option<u64>,
}

/// The rows of a dist-info folder's `RECORD` (`None` as for [`paths`]).
pub(crate) fn entries(folder: &Path) -> Option<Vec<Entry>> {
    let text = crate::bounded::read_text(&folder.join("RECORD"), MAX_RECORD_BYTES).ok()?;
    Some(parse_entries(&text))
}

/// The first field of each row of `RECORD` text, empty ones left out. A row the CSV reader
/// cannot read is skipped, not the whole file.
pub(crate) fn parse(text: &str) -> Vec<String> {
    parse_entries(text).into_iter().map(|e| e.path).collect()
}

/// The rows of `RECORD` text, those without a path left out.
pub(crate) fn parse_entries(text: &str) -> Vec<Entry> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .into_records()
        .filter_map(Result::ok)
        .filter_map(|row| {
            let path = row.get(0).filter(|p| !p.is_empty())?.to_string();
            let hash = row
                .get(1)
                .and_then(|h| h.split_once('='))
                .filter(|(algorithm, digest)| !algorithm.is_empty() && !digest.is_empty())
                .map(|(algorithm, digest)| (algorithm.to_string(), digest.to_string()));
            let size = row.get(2).and_then(|s| s.trim().parse().ok());
            Some(Entry { path, hash, size })
        })
        .collect()
}

/// Whether a path `RECORD` lists names a file under site-packages: relative, and no `..`
/// component (scripts are listed as `../../../bin/tool`; a hostile `RECORD` could list
/// `/etc/passwd`).
pub(crate) fn is_inside(path: &str) -> bool {
    !path.starts_with('/')
        && !path.starts_with('\\')
        && !Path::new(path).is_absolute()
        && !path.split(['/', '\\']).any(|part| part == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A RECORD as pip writes it (Python's `csv.writer`): the path holding a comma quoted, a
    /// quote inside a path doubled, the RECORD's own row without hash or size.
    const RECORD: &str = "demo/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\r\n\
\"demo/data/a,b.py\",sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\r\n\
\"demo/say \"\"hi\"\".py\",,\r\n\
../../../bin/demo,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,212\r\n\
demo-1.0.dist-info/RECORD,,\r\n";

    #[test]
    fn quoted_paths_are_read_whole() {
        assert_eq!(
            parse(RECORD),
            [
                "demo/__init__.py",
                "demo/data/a,b.py",
                "demo/say \"hi\".py",
                "../../../bin/demo",
                "demo-1.0.dist-info/RECORD",
            ]
        );
    }

    #[test]
    fn rows_keep_their_digest_and_size() {
        let rows = parse_entries(RECORD);
        assert_eq!(rows[0].size, Some(0));
        assert_eq!(
            rows[0].hash,
            Some((
                "sha256".to_string(),
                "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU".to_string()
            ))
        );
        assert_eq!((rows[2].hash.as_ref(), rows[2].size), (None, None));
        assert_eq!(rows[4].path, "demo-1.0.dist-info/RECORD");
    }

    #[test]
    fn blank_lines_and_short_rows_are_skipped_or_kept_by_their_path() {
        assert_eq!(parse("a.py\n\n,,\nb.py,,\n"), ["a.py", "b.py"]);
    }

    /// A legacy egg-info folder's `installed-files.txt` as pip 22 wrote it for `setup.py
    /// install`: its paths are relative to the folder; the script in `bin` leaves site-packages.
    #[test]
    fn an_egg_info_lists_its_files_relative_to_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let egg = dir.path().join("demo-1.0-py3.11.egg-info");
        std::fs::create_dir(&egg).unwrap();
        std::fs::write(
            egg.join("installed-files.txt"),
            "../demo/__init__.py\n../demo/__pycache__/__init__.cpython-311.pyc\n\
             ../demo/_speedups.cpython-311-x86_64-linux-gnu.so\nPKG-INFO\n\
             ../../../../bin/demo\n/etc/passwd\n",
        )
        .unwrap();
        assert_eq!(
            inside_paths(&egg).unwrap(),
            [
                "demo/__init__.py",
                "demo/__pycache__/__init__.cpython-311.pyc",
                "demo/_speedups.cpython-311-x86_64-linux-gnu.so",
                "demo-1.0-py3.11.egg-info/PKG-INFO",
            ]
        );
        assert_eq!(inside_paths(&dir.path().join("bare-1.0.egg-info")), None);
        assert_eq!(
            normalize("a.egg-info/../demo/x.py").as_deref(),
            Some("demo/x.py")
        );
        assert_eq!(normalize("a.egg-info/../../bin/tool"), None);
    }

    #[test]
    fn only_relative_paths_without_parent_steps_are_inside() {
        assert!(is_inside("demo/__init__.py"));
        assert!(is_inside("demo/..hidden.py"));
        assert!(!is_inside("../../../bin/demo"));
        assert!(!is_inside("demo/../../x.py"));
        assert!(!is_inside("/etc/passwd"));
        assert!(!is_inside("demo\\..\\..\\x.py"));
    }

    /// The RECORD pip wrote installing a wheel with `commademo/a,b.py` (testdata/record).
    #[test]
    fn the_record_pip_wrote_for_a_path_with_a_comma() {
        let folder =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/record/commademo-1.0.dist-info");
        let paths = paths(&folder).unwrap();
        assert_eq!(paths.len(), 10);
        assert!(paths.contains(&"commademo/a,b.py".to_string()));
        assert!(paths.contains(&"commademo/__pycache__/a,b.cpython-311.pyc".to_string()));
        assert!(
            !paths
                .iter()
                .any(|p| p.starts_with('"') || p == "commademo/a")
        );
    }

    #[test]
    fn a_record_on_disk_is_read_and_filtered() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("RECORD"), RECORD).unwrap();
        let inside = inside_paths(dir.path()).unwrap();
        assert_eq!(inside.len(), 4);
        assert!(inside.contains(&"demo/data/a,b.py".to_string()));
        assert!(!inside.iter().any(|p| p.contains("bin/demo")));
        assert_eq!(paths(&dir.path().join("missing")), None);
    }
}
