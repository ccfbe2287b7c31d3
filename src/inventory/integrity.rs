//! Files edited in place: each installed dist's files compared with its `RECORD`, the list of
//! files, sizes and sha256 digests the installer wrote.
//!
//! In: dist-info folders of an environment on disk, and a [`Scope`]. Out: a [`FileCheck`] per
//! folder that has a `RECORD`: the files whose size or digest differ from it (edited, with the
//! hashes of their lines where they are text, so two sides can be counted `+N -M lines`), the
//! files it lists that are gone (missing), the files in its package folders no `RECORD` owns
//! ([`super::unowned`]), and how many rows were hashed, compared by size alone, or could not be
//! checked.
//!
//! What cannot be checked is counted, never guessed: rows without a digest (`RECORD` itself,
//! `.pyc` files the installer compiled), rows outside site-packages (console scripts, whose
//! shebang the installer rewrote), digests other than sha256, and paths that are not regular
//! files. [`Scope::Sources`] (the default) hashes Python sources and text and compares every other
//! file by size (a different size is certain; an equal size of a binary is not proof, which
//! [`Scope::Full`] gives by hashing every file). Files are hashed on every core.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::hashing;
use super::record::{self, Entry};

/// Which files are hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Python sources and text hashed, other files compared by size.
    #[default]
    Sources,
    /// Every file hashed.
    Full,
}

/// How a file differs from its `RECORD` row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileState {
    /// On disk, with another size or digest.
    Edited,
    /// Listed, not on disk.
    Missing,
}

/// One file that differs from its `RECORD` row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileChange {
    /// The path, relative to site-packages, as `RECORD` writes it.
    pub path: String,
    /// Edited or missing.
    pub state: FileState,
    /// The size `RECORD` gives.
    #[serde(default)]
    pub recorded_size: Option<u64>,
    /// The size on disk (`None`: missing).
    #[serde(default)]
    pub size: Option<u64>,
    /// The sha256 of the file on disk, urlsafe base64 without padding as `RECORD` writes it
    /// (`None`: missing, or a binary told apart by its size alone).
    #[serde(default)]
    pub sha256: Option<String>,
    /// When the file on disk was last modified (RFC 3339).
    #[serde(default)]
    pub modified: Option<String>,
    /// An edited text file's lines, each as [`line_hashes`] writes it (`None`: missing, a
    /// binary, or over [`MAX_LINES_BYTES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_hashes: Option<Vec<String>>,
}

/// One dist's files against its `RECORD`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCheck {
    /// The files that differ, by path.
    pub changes: Vec<FileChange>,
    /// Rows whose file was hashed.
    pub hashed: usize,
    /// Rows whose file was compared by size alone.
    pub size_only: usize,
    /// Rows that could not be checked (no digest, outside site-packages, not a regular file).
    pub unchecked: usize,
    /// The files in its package folders that no `RECORD` owns, by path (`None`: not looked
    /// for, as in snapshots written before planner looked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unowned: Option<Vec<super::unowned::UnownedFile>>,
}

/// The largest text file whose lines are hashed.
pub const MAX_LINES_BYTES: u64 = 1 << 20;

/// The file check of each dist-info folder (`None`: no readable `RECORD`), in the order given;
/// every folder's files are checked on all cores together.
pub(crate) fn check_folders(folders: &[&Path], scope: Scope) -> Vec<Option<FileCheck>> {
    let rows: Vec<Option<Vec<Entry>>> = folders.iter().map(|f| record::entries(f)).collect();
    let jobs: Vec<(usize, &Entry)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|r| (i, r)))
        .flat_map(|(i, r)| r.iter().map(move |e| (i, e)))
        .collect();
    let outcomes = hashing::in_parallel(&jobs, |(i, entry)| {
        let site = folders[*i].parent().unwrap_or(Path::new("."));
        check_entry(site, entry, scope)
    });
    let mut checks: Vec<Option<FileCheck>> = rows
        .iter()
        .map(|r| r.as_ref().map(|_| FileCheck::default()))
        .collect();
    for ((i, _), outcome) in jobs.iter().zip(outcomes) {
        if let Some(check) = checks[*i].as_mut() {
            check.add(outcome);
        }
    }
    let unowned = super::unowned::find(folders, &rows);
    for (check, unowned) in checks.iter_mut().zip(unowned) {
        if let Some(check) = check.as_mut() {
            check.changes.sort();
            check.unowned = unowned;
        }
    }
    checks
}

/// Check the files of each dist of `inventory` that is on disk here and set its
/// [`files`](super::InstalledDist::files) (dists known only from a snapshot keep what the
/// snapshot recorded).
pub(crate) fn attach(inventory: &mut super::Inventory, scope: Scope) {
    let on_disk: Vec<usize> = (0..inventory.dists.len())
        .filter(|&i| inventory.dists[i].format == super::DistFormat::DistInfo)
        .collect();
    let folders: Vec<&Path> = on_disk
        .iter()
        .map(|&i| inventory.dists[i].path.as_path())
        .collect();
    let checks = check_folders(&folders, scope);
    for (i, check) in on_disk.into_iter().zip(checks) {
        inventory.dists[i].files = check;
    }
}

/// What one row's check found.
#[derive(Debug)]
enum Outcome {
    Unchecked,
    Same { hashed: bool },
    Changed(FileChange),
}

impl FileCheck {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Unchecked => self.unchecked += 1,
            Outcome::Same { hashed: true } => self.hashed += 1,
            Outcome::Same { hashed: false } => self.size_only += 1,
            Outcome::Changed(change) => {
                if change.sha256.is_some() {
                    self.hashed += 1;
                } else if change.state == FileState::Edited {
                    self.size_only += 1;
                }
                self.changes.push(change);
            }
        }
    }
}

/// Check one `RECORD` row against the file under `site`.
fn check_entry(site: &Path, entry: &Entry, scope: Scope) -> Outcome {
    let Some((algorithm, digest)) = &entry.hash else {
        return Outcome::Unchecked;
    };
    if algorithm != "sha256" || !record::is_inside(&entry.path) {
        return Outcome::Unchecked;
    }
    let path = site.join(&entry.path);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => meta,
        Ok(_) => return Outcome::Unchecked,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Outcome::Changed(FileChange {
                path: entry.path.clone(),
                state: FileState::Missing,
                recorded_size: entry.size,
                size: None,
                sha256: None,
                modified: None,
                line_hashes: None,
            });
        }
        Err(_) => return Outcome::Unchecked,
    };
    let hash_it = scope == Scope::Full || is_source(&entry.path);
    let size_differs = entry.size.is_some_and(|size| size != meta.len());
    if !hash_it && !size_differs {
        return Outcome::Same { hashed: false };
    }
    let sha256 = if hash_it {
        match hashing::sha256_of(&path) {
            Some(sha) if sha == *digest && !size_differs => return Outcome::Same { hashed: true },
            other => other,
        }
    } else {
        None
    };
    let line_hashes = (is_source(&entry.path) && meta.len() <= MAX_LINES_BYTES)
        .then(|| crate::bounded::read(&path, MAX_LINES_BYTES).ok())
        .flatten()
        .map(|bytes| line_hashes(&bytes));
    Outcome::Changed(FileChange {
        path: entry.path.clone(),
        state: FileState::Edited,
        recorded_size: entry.size,
        size: Some(meta.len()),
        sha256,
        modified: hashing::modified(&meta),
        line_hashes,
    })
}

/// Each line of a text (split at `\n`, a last empty piece left out) as the first 12 hex digits
/// of its sha256: enough to count the lines two versions of a file add and remove, without
/// keeping its text.
pub fn line_hashes(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            Sha256::digest(line)[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        })
        .collect()
}

/// The lines `new` adds and removes against `old` (each a list of [`line_hashes`]), by the
/// Myers diff.
pub fn line_counts(old: &[String], new: &[String]) -> (usize, usize) {
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, old, new);
    let (mut added, mut removed) = (0, 0);
    for op in ops {
        match op {
            similar::DiffOp::Equal { .. } => {}
            similar::DiffOp::Delete { old_len, .. } => removed += old_len,
            similar::DiffOp::Insert { new_len, .. } => added += new_len,
            similar::DiffOp::Replace {
                old_len, new_len, ..
            } => {
                removed += old_len;
                added += new_len;
            }
        }
    }
    (added, removed)
}

/// The [`line_hashes`] of a file on disk that is text and at most [`MAX_LINES_BYTES`] (`None`
/// otherwise): the side of a diff read live, where the file is as installed.
pub(crate) fn line_hashes_of(path: &Path) -> Option<Vec<String>> {
    let rel = path.to_str()?;
    if !is_source(rel) {
        return None;
    }
    let bytes = crate::bounded::read(path, MAX_LINES_BYTES).ok()?;
    Some(line_hashes(&bytes))
}

/// Python sources and text: what a person edits by hand, and cheap to hash.
fn is_source(path: &str) -> bool {
    const SOURCES: [&str; 12] = [
        "py", "pyi", "pth", "pyx", "pxd", "txt", "json", "toml", "cfg", "ini", "yaml", "yml",
    ];
    Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCES.contains(&e))
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use super::*;

    /// A dist installed the way an installer writes it: its files and a `RECORD` with their
    /// sizes and digests (a `.pyc` and `RECORD` itself without), plus a console script outside
    /// site-packages.
    fn installed(site: &Path) -> std::path::PathBuf {
        let files: [(&str, &[u8]); 3] = [
            ("demo/__init__.py", b"VALUE = 1\n"),
            ("demo/core.py", b"def f():\n    return 1\n"),
            ("demo/_native.so", b"\x7fELF binary bytes"),
        ];
        let mut record = String::new();
        for (path, bytes) in files {
            let full = site.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, bytes).unwrap();
            let digest =
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(bytes));
            record.push_str(&format!("{path},sha256={digest},{}\n", bytes.len()));
        }
        record.push_str("demo/__pycache__/core.cpython-312.pyc,,\n");
        record.push_str("../../../bin/demo,sha256=AAAA,10\n");
        record.push_str("demo-1.0.dist-info/RECORD,,\n");
        let folder = site.join("demo-1.0.dist-info");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("RECORD"), record).unwrap();
        folder
    }

    #[test]
    fn an_untouched_dist_has_no_changes_and_counts_what_it_could_not_check() {
        let dir = tempfile::tempdir().unwrap();
        let folder = installed(dir.path());
        let check = check_folders(&[&folder], Scope::Sources).remove(0).unwrap();
        assert_eq!(check.changes, []);
        assert_eq!((check.hashed, check.size_only, check.unchecked), (2, 1, 3));
        let full = check_folders(&[&folder], Scope::Full).remove(0).unwrap();
        assert_eq!((full.hashed, full.size_only, full.unchecked), (3, 0, 3));
    }

    #[test]
    fn an_edit_of_the_same_size_a_grown_binary_and_a_deleted_file_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let folder = installed(dir.path());
        // Same size, other bytes: only the digest can tell.
        std::fs::write(dir.path().join("demo/__init__.py"), b"VALUE = 2\n").unwrap();
        std::fs::write(
            dir.path().join("demo/_native.so"),
            b"\x7fELF patched, longer",
        )
        .unwrap();
        std::fs::remove_file(dir.path().join("demo/core.py")).unwrap();
        let check = check_folders(&[&folder], Scope::Sources).remove(0).unwrap();
        let summary: Vec<(&str, FileState, bool)> = check
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.state, c.sha256.is_some()))
            .collect();
        assert_eq!(
            summary,
            [
                ("demo/__init__.py", FileState::Edited, true),
                ("demo/_native.so", FileState::Edited, false),
                ("demo/core.py", FileState::Missing, false),
            ]
        );
        assert!(check.changes[0].modified.is_some());
    }

    #[test]
    fn lines_are_hashed_alike_with_or_without_a_last_newline_and_counted_by_a_diff() {
        let old = line_hashes(b"a = 1\nb = 2\nc = 3\n");
        assert_eq!(old, line_hashes(b"a = 1\nb = 2\nc = 3"));
        assert_eq!(old[0].len(), 12);
        assert_eq!(line_hashes(b""), Vec::<String>::new());
        let new = line_hashes(b"a = 1\nb = 20\nc = 3\nd = 4\n");
        assert_eq!(line_counts(&old, &new), (2, 1));
        assert_eq!(line_counts(&old, &[]), (0, 3));
    }

    #[test]
    fn a_folder_without_record_is_not_checked() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(check_folders(&[dir.path()], Scope::Sources), [None]);
    }
}
