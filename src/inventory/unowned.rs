//! Files inside a dist's package folders that no `RECORD` lists: a module dropped beside a
//! patched one, a file an older release left behind, a build output written into the package.
//!
//! In: the dist-info folders being checked and their `RECORD` rows. Out: per folder, the files
//! under the top-level folders its `RECORD` names (`triton/`) that no dist of the same
//! site-packages owns (a `RECORD`, or an egg-info's `installed-files.txt`), each with its size,
//! sha256 and modification time.
//!
//! `__pycache__` folders and `.pyc`/`.pyo` files are left out (the interpreter writes them), and
//! symlinked folders are not followed. A folder several dists share (`nvidia/`, a namespace
//! package) is walked once; a file no one owns in it goes to the dist owning files in its
//! nearest folder, the first by dist-info folder name where several do (the snapshot script
//! decides the same way).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};

use serde::{Deserialize, Serialize};

use super::hashing;
use super::record::{self, Entry};

/// A file inside a dist's package folders (`triton/`) that no `RECORD` of its site-packages
/// lists .
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnownedFile {
    /// The path, relative to site-packages, with `/` between parts.
    pub path: String,
    /// Its size (`None`: a symlink).
    #[serde(default)]
    pub size: Option<u64>,
    /// Its sha256, urlsafe base64 without padding (`None`: a symlink, or over
    /// [`MAX_HASHED_BYTES`]).
    #[serde(default)]
    pub sha256: Option<String>,
    /// When it was last modified (RFC 3339, whole seconds).
    #[serde(default)]
    pub modified: Option<String>,
}

/// The largest unowned file hashed (a bigger one is recorded with its size and time alone).
pub(crate) const MAX_HASHED_BYTES: u64 = 64 << 20;

/// The unowned files of each folder, in the order given: `None` where the folder has no
/// readable `RECORD`, else the files by path.
pub(crate) fn find(
    folders: &[&Path],
    rows: &[Option<Vec<Entry>>],
) -> Vec<Option<Vec<UnownedFile>>> {
    let mut sites: BTreeMap<&Path, Vec<usize>> = BTreeMap::new();
    for (i, folder) in folders.iter().enumerate() {
        if rows[i].is_some() {
            sites
                .entry(folder.parent().unwrap_or(Path::new(".")))
                .or_default()
                .push(i);
        }
    }
    let mut found: Vec<(usize, PathBuf, String)> = Vec::new();
    for (root, group) in sites {
        let others = owned_by_others(root, &group.iter().map(|&i| folders[i]).collect());
        let site = Site::new(root, folders, rows, &group, &others);
        let tops: Vec<(&str, &Vec<usize>)> = site.tops.iter().map(|(t, n)| (*t, n)).collect();
        let walked = hashing::in_parallel(&tops, |(top, names)| site.walk(top, names));
        found.extend(walked.into_iter().flatten());
    }
    let files = hashing::in_parallel(&found, |(_, full, path)| describe(full, path));
    let mut out: Vec<Option<Vec<UnownedFile>>> = rows
        .iter()
        .map(|r| r.as_ref().map(|_| Vec::new()))
        .collect();
    for ((i, _, _), file) in found.iter().zip(files) {
        if let (Some(list), Some(file)) = (out[*i].as_mut(), file) {
            list.push(file);
        }
    }
    for list in out.iter_mut().flatten() {
        list.sort();
    }
    out
}

/// One site-packages folder: what its dists own, and which of the checked dists name each
/// folder (every path borrowed from the `RECORD` rows).
struct Site<'a> {
    root: &'a Path,
    folders: &'a [&'a Path],
    /// Every path a `RECORD` or `installed-files.txt` there lists.
    owned: FxHashSet<&'a str>,
    /// A folder (`triton/runtime`) -> the checked dists with a file directly in it.
    dir_owners: FxHashMap<&'a str, Vec<usize>>,
    /// A top-level folder (`triton`) -> the checked dists whose `RECORD` names it.
    tops: BTreeMap<&'a str, Vec<usize>>,
}

impl<'a> Site<'a> {
    fn new(
        root: &'a Path,
        folders: &'a [&'a Path],
        rows: &'a [Option<Vec<Entry>>],
        group: &[usize],
        others: &'a [String],
    ) -> Site<'a> {
        let mut site = Site {
            root,
            folders,
            owned: others.iter().map(String::as_str).collect(),
            dir_owners: FxHashMap::default(),
            tops: BTreeMap::new(),
        };
        for &i in group {
            let inside = rows[i]
                .iter()
                .flatten()
                .filter(|e| record::is_inside(&e.path));
            for entry in inside {
                let path = entry.path.as_str();
                site.owned.insert(path);
                let Some((dir, _)) = path.rsplit_once('/') else {
                    continue;
                };
                let owners = site.dir_owners.entry(dir).or_default();
                if owners.last() != Some(&i) {
                    owners.push(i);
                }
                if let Some(top) = package_folder(path) {
                    let names = site.tops.entry(top).or_default();
                    if names.last() != Some(&i) {
                        names.push(i);
                    }
                }
            }
        }
        site
    }

    /// `(dist, full path, path relative to site-packages)` of each unowned file under one
    /// top-level folder.
    fn walk(&self, top: &str, names: &[usize]) -> Vec<(usize, PathBuf, String)> {
        let folder = self.root.join(top);
        if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
            return Vec::new();
        }
        let Some(prefix) = self.root.to_str().map(|r| r.len() + 1) else {
            return Vec::new();
        };
        let walk = walkdir::WalkDir::new(&folder)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| !(e.file_type().is_dir() && e.file_name() == "__pycache__"));
        let mut found = Vec::new();
        for entry in walk.filter_map(Result::ok) {
            if entry.file_type().is_dir() || is_compiled(entry.path()) {
                continue;
            }
            let Some(path) = entry.path().to_str().and_then(|p| p.get(prefix..)) else {
                continue;
            };
            if !self.owned.contains(path) {
                let dist = self.owner(path, top, names);
                found.push((dist, entry.path().to_path_buf(), path.to_string()));
            }
        }
        found
    }

    /// The dist an unowned file goes to: the first (by folder name) owning a file in its
    /// nearest folder, else the first naming its top-level folder.
    fn owner(&self, path: &str, top: &str, names: &[usize]) -> usize {
        let first = |dists: &[usize]| {
            dists
                .iter()
                .copied()
                .min_by_key(|&i| self.folders[i].file_name())
                .unwrap_or(names[0])
        };
        let mut dir = path;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if let Some(owners) = self.dir_owners.get(parent) {
                return first(owners);
            }
            if parent == top {
                break;
            }
            dir = parent;
        }
        first(names)
    }
}

/// The top-level folder a `RECORD` path lies in (`triton` of `triton/runtime/autotuner.py`),
/// `None` for a file at the top, the dist's own metadata folders and `__pycache__`.
fn package_folder(path: &str) -> Option<&str> {
    let (top, _) = path.split_once('/')?;
    let metadata = [".dist-info", ".data", ".egg-info"]
        .iter()
        .any(|suffix| top.ends_with(suffix));
    (!metadata && !matches!(top, "" | "." | "__pycache__")).then_some(top)
}

/// The paths the dists of `root` that are not being checked own: other dist-info folders'
/// `RECORD`s, and egg-info folders' `installed-files.txt` (paths relative to that folder).
fn owned_by_others(root: &Path, checked: &FxHashSet<&Path>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut owned = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let folder = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let other_dist = name.ends_with(".dist-info") && !checked.contains(folder.as_path());
        if other_dist || (name.ends_with(".egg-info") && folder.is_dir()) {
            owned.extend(record::inside_paths(&folder).unwrap_or_default());
        }
    }
    owned
}

/// `.pyc` and `.pyo` files: written by the interpreter, not by a person.
fn is_compiled(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pyc" || e == "pyo")
}

/// Size, digest and time of one unowned file (`None`: it went away meanwhile).
fn describe(full: &Path, path: &str) -> Option<UnownedFile> {
    let meta = std::fs::symlink_metadata(full).ok()?;
    let regular = meta.is_file();
    Some(UnownedFile {
        path: path.to_string(),
        size: regular.then_some(meta.len()),
        sha256: (regular && meta.len() <= MAX_HASHED_BYTES)
            .then(|| hashing::sha256_of(full))
            .flatten(),
        modified: hashing::modified(&meta),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `site/<name>-1.0.dist-info/RECORD` listing `files` (written too, with `x` as content).
    fn dist(site: &Path, name: &str, files: &[&str]) -> PathBuf {
        let folder = site.join(format!("{name}-1.0.dist-info"));
        std::fs::create_dir_all(&folder).unwrap();
        let mut record = String::new();
        for file in files {
            let full = site.join(file);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, "x\n").unwrap();
            record.push_str(&format!("{file},,\n"));
        }
        record.push_str(&format!("{name}-1.0.dist-info/RECORD,,\n"));
        std::fs::write(folder.join("RECORD"), record).unwrap();
        folder
    }

    fn paths(found: &Option<Vec<UnownedFile>>) -> Vec<&str> {
        found.iter().flatten().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn a_file_no_record_lists_is_found_with_its_digest_and_caches_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path();
        let demo = dist(site, "demo", &["demo/__init__.py", "demo/sub/core.py"]);
        std::fs::write(site.join("demo/sub/patch.py"), "y = 1\n").unwrap();
        std::fs::create_dir_all(site.join("demo/__pycache__")).unwrap();
        std::fs::write(site.join("demo/__pycache__/core.cpython-312.pyc"), "c").unwrap();
        std::fs::write(site.join("demo/old.pyc"), "c").unwrap();
        std::fs::write(site.join("stray.py"), "top level: no package folder").unwrap();
        let rows = vec![record::entries(&demo)];
        let found = find(&[&demo], &rows);
        assert_eq!(paths(&found[0]), ["demo/sub/patch.py"]);
        let file = &found[0].as_ref().unwrap()[0];
        assert_eq!(file.size, Some(6));
        assert_eq!(
            file.sha256.as_deref(),
            hashing::sha256_of(&site.join("demo/sub/patch.py")).as_deref()
        );
        assert!(file.modified.is_some());
    }

    #[test]
    fn a_shared_folder_gives_a_stray_file_to_the_dist_owning_its_nearest_folder() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path();
        let blas = dist(
            site,
            "nvidia_cublas",
            &["nvidia/__init__.py", "nvidia/cublas/lib/a.so"],
        );
        let nccl = dist(
            site,
            "nvidia_nccl",
            &["nvidia/__init__.py", "nvidia/nccl/lib/b.so"],
        );
        std::fs::write(site.join("nvidia/nccl/lib/extra.so"), "z").unwrap();
        std::fs::write(site.join("nvidia/notes.txt"), "z").unwrap();
        let rows = vec![record::entries(&nccl), record::entries(&blas)];
        let found = find(&[&nccl, &blas], &rows);
        assert_eq!(paths(&found[0]), ["nvidia/nccl/lib/extra.so"]);
        assert_eq!(paths(&found[1]), ["nvidia/notes.txt"]);
    }

    #[test]
    fn files_another_dist_or_an_egg_info_owns_are_not_unowned() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path();
        let demo = dist(site, "demo", &["demo/__init__.py"]);
        // A dist not among the checked ones (its metadata unreadable, say) owns a plugin.
        dist(site, "plugin", &["demo/plugins/p.py"]);
        let egg = site.join("legacy-1.0-py3.12.egg-info");
        std::fs::create_dir_all(&egg).unwrap();
        std::fs::write(site.join("demo/legacy.py"), "l").unwrap();
        std::fs::write(
            egg.join("installed-files.txt"),
            "../demo/legacy.py\nPKG-INFO\n",
        )
        .unwrap();
        let rows = vec![record::entries(&demo)];
        assert_eq!(paths(&find(&[&demo], &rows)[0]), Vec::<&str>::new());
    }

    #[test]
    fn metadata_and_top_level_files_are_in_no_package_folder() {
        assert_eq!(package_folder("demo-1.0.dist-info/RECORD"), None);
        assert_eq!(package_folder("demo/x.py"), Some("demo"));
        assert_eq!(package_folder("demo.py"), None);
    }
}
