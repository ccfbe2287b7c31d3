//! A set of output files (`propose --out-dir`) written all together, never over a user's own.
//!
//! In: relative paths and their bytes. Out: the files under the output folder, and
//! [`MANIFEST`] naming them. Everything is first written and synced in a staging folder inside
//! it; only when every file is there does the swap start: a journal in the staging folder
//! (the files of the last run to remove) is synced, the old manifest removed, the last run's
//! files that this run does not write removed, each new file renamed into place, and the new
//! manifest renamed in last. So the folder is complete exactly when its manifest is there.
//!
//! Only what a manifest names is planner's: a file it did not write (`plans/old/f` of the
//! user's) is never removed, and one in the way of a file this run writes stops the run before
//! anything is changed ([`OutDirError::NotOurs`]). A run killed during the swap (even by
//! SIGKILL) leaves its journal; the next run into the folder finishes that swap first (roll
//! forward), and removes staging folders of killed runs that never reached it. An interrupt
//! ([`crate::interrupt`]) before the swap removes the staging folder and leaves the previous
//! files as they were.
//!
//! Where the folder holds nothing but planner's own files (the usual case), a complete new
//! folder is staged beside it and exchanged with it in one `renameat2(RENAME_EXCHANGE)` on
//! Linux: a reader, or a run killed at any instant, sees the old set or the new one, never a
//! mix. The journal is the fallback where the folder also holds a user's files or the
//! filesystem cannot exchange.

use std::path::{Component, Path, PathBuf};

use crate::atomic::{self, Mode};
use crate::interrupt::{self, Critical};

/// The file naming every file planner wrote in the folder (JSON: `files`, relative paths).
pub(crate) const MANIFEST: &str = ".planner-manifest.json";
/// In a staging folder: the swap has begun (its content: the old files to remove, one a line).
const JOURNAL: &str = ".journal";
/// In a staging folder: the process id of the run that made it.
const OWNER: &str = ".pid";
const STAGING_PREFIX: &str = ".planner-staging-";
/// Between a folder's name and the random part: a whole new folder staged beside it.
const SIBLING_MARK: &str = ".planner-swap-";
/// A sibling with no owner (the old set after an exchange, a run killed just before one) is
/// removed once it is this old.
const SIBLING_GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// Why the files were not written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum OutDirError {
    /// A file or folder could not be written.
    #[error("cannot write `{}`", path.display())]
    #[diagnostic(help(
        "--out-dir names a folder planner creates or refills; pass a folder path that is not an \
         existing file, in a place you can write to"
    ))]
    Io {
        /// The path.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// `--out-dir` names something that is there and is not a folder.
    #[error("cannot write the plan's files into `{}`: it is a file, not a folder", path.display())]
    #[diagnostic(
        code(planner::out_dir::not_a_folder),
        help("--out-dir names a folder planner creates or refills; pass a folder's path")
    )]
    NotAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// A path this run writes holds something planner did not write (no manifest names it).
    #[error("`{}` is in the way and planner did not write it", path.display())]
    #[diagnostic(help(
        "planner replaces only the files its manifest (.planner-manifest.json) names, and never \
         writes through a symbolic link; move that file away or pass another --out-dir"
    ))]
    NotOurs {
        /// The path.
        path: PathBuf,
    },
    /// Ctrl-C arrived while staging: nothing was replaced.
    #[error("interrupted; the files in `{}` were left as they were", root.display())]
    Interrupted {
        /// The output folder.
        root: PathBuf,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutDirError + use<> {
    let path = path.to_path_buf();
    move |source| OutDirError::Io { path, source }
}

/// A relative path of plain components only (what a manifest may name).
fn plain(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(relative);
    let ok = !relative.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then_some(path)
}

/// The files the manifest in `root` names (none when there is none or it does not parse).
fn manifest(root: &Path) -> Vec<PathBuf> {
    let Ok(bytes) = crate::bounded::read(&root.join(MANIFEST), 16 * 1024 * 1024) else {
        return Vec::new();
    };
    let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    value["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().and_then(plain))
        .collect()
}

/// Whether `root/relative` is reached without a symbolic link on the way (its last component
/// may be anything): nothing is removed or written through a link.
fn direct(root: &Path, relative: &Path) -> bool {
    let mut at = root.to_path_buf();
    let parts: Vec<_> = relative.components().collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return false;
        }
    }
    true
}

/// Remove `root/relative` (a file of an earlier run) and the folders it leaves empty.
fn remove_ours(root: &Path, relative: &Path) -> Result<(), OutDirError> {
    let path = root.join(relative);
    if !direct(root, relative) {
        return Ok(());
    }
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_err(&path)(e)),
        _ => {}
    }
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

/// Finish the swap a staging folder's journal began: remove the old files it lists, rename
/// every staged file still there into place (the manifest last), remove the staging folder.
fn roll_forward(root: &Path, staging: &Path) -> Result<(), OutDirError> {
    roll_forward_until(root, staging, usize::MAX)
}

/// [`roll_forward`], stopping after `renames` renames (a kill there, in the tests).
fn roll_forward_until(root: &Path, staging: &Path, renames: usize) -> Result<(), OutDirError> {
    let journal =
        crate::bounded::read_to_string(&staging.join(JOURNAL), crate::bounded::USER_FILE_LIMIT)
            .map_err(io_err(staging))?;
    if staging.join(MANIFEST).is_file() {
        // Not yet renamed in: the one in `root` is the last run's, and goes first.
        let _ = std::fs::remove_file(root.join(MANIFEST));
    }
    for old in journal.lines().filter_map(plain) {
        remove_ours(root, &old)?;
    }
    let mut staged = Vec::new();
    collect_files(staging, Path::new(""), &mut staged).map_err(io_err(staging))?;
    staged.retain(|p| p != Path::new(JOURNAL) && p != Path::new(OWNER));
    // The manifest goes in last: the folder is complete when it is there.
    staged.sort_by_key(|p| p == Path::new(MANIFEST));
    for relative in staged.into_iter().take(renames) {
        let target = root.join(&relative);
        if !direct(root, &relative) {
            return Err(OutDirError::NotOurs { path: target });
        }
        let parent = target.parent().unwrap_or(root);
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        std::fs::rename(staging.join(&relative), &target).map_err(io_err(&target))?;
    }
    if renames != usize::MAX {
        return Ok(());
    }
    std::fs::remove_dir_all(staging).map_err(io_err(staging))
}

/// Every file under `dir` (relative to `base`... as joined onto `prefix`).
fn collect_files(dir: &Path, prefix: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let relative = prefix.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            collect_files(&entry.path(), &relative, out)?;
        } else {
            out.push(relative);
        }
    }
    Ok(())
}

/// Staging folders left in `root` by runs that no longer run: one whose swap began is
/// finished, one that never reached it removed.
fn recover(root: &Path) -> Result<(), OutDirError> {
    sweep_siblings(root);
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(STAGING_PREFIX) {
            continue;
        }
        let staging = entry.path();
        if running(&staging) {
            continue;
        }
        if staging.join(JOURNAL).is_file() {
            log::warn!(
                "finishing the output an interrupted run began in {}",
                root.display()
            );
            roll_forward(root, &staging)?;
        } else {
            let _ = std::fs::remove_dir_all(&staging);
        }
    }
    Ok(())
}

/// Whether the run that made `staging` still runs (its process exists).
#[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
fn running(staging: &Path) -> bool {
    let Some(pid) = crate::bounded::read_to_string(&staging.join(OWNER), 64)
        .ok()
        .and_then(|p| p.trim().parse::<i32>().ok())
    else {
        return false;
    };
    if pid == std::process::id() as i32 {
        return true;
    }
    // SAFETY: kill with signal 0 only asks whether the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether every file under `root` is one an earlier run wrote (`old`, or the manifest), with
/// no link and no other run's staging folder in it: the folder may be replaced whole.
fn only_ours(root: &Path, old: &[PathBuf]) -> bool {
    if std::fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink()) {
        return false;
    }
    let mut files = Vec::new();
    if collect_files(root, Path::new(""), &mut files).is_err() {
        return false;
    }
    files
        .iter()
        .all(|p| p == Path::new(MANIFEST) || old.iter().any(|o| o == p))
}

/// The folder `root` is in, and the name prefix of folders staged beside it.
fn beside(root: &Path) -> Option<(&Path, String)> {
    let name = root.file_name()?;
    let parent = root.parent()?;
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    Some((parent, format!(".{}{SIBLING_MARK}", name.to_string_lossy())))
}

/// `a` and `b` (both folders) exchanged in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
}

/// No atomic exchange here: the journal does the swap.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Folders staged beside `root` by runs that no longer run, or the old sets they swapped out,
/// removed.
fn sweep_siblings(root: &Path) {
    let Some((parent, prefix)) = beside(root) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_name().to_string_lossy().starts_with(&prefix) || running(&path) {
            continue;
        }
        let owned = path.join(OWNER).is_file();
        let age = entry.metadata().and_then(|m| m.modified()).ok();
        let old = age
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|a| a > SIBLING_GRACE);
        if owned || old {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// A new folder in `dir` named `prefix` and a random part, holding [`OWNER`] (this process's
/// id, so that another run knows whether it is still being written); removed when dropped.
fn owned_temp_dir(dir: &Path, prefix: &str) -> std::io::Result<tempfile::TempDir> {
    let folder = tempfile::Builder::new().prefix(prefix).tempdir_in(dir)?;
    let pid = std::process::id().to_string();
    atomic::write(&folder.path().join(OWNER), pid.as_bytes(), Mode::File)?;
    Ok(folder)
}

/// Files to write under one folder.
#[derive(Debug, Default)]
pub(crate) struct OutFiles {
    files: Vec<(PathBuf, Vec<u8>, Mode)>,
}

impl OutFiles {
    /// Add a file (`path` relative to the output folder).
    pub(crate) fn add(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files.push((path.into(), bytes.into(), Mode::File));
    }

    /// Add an executable file (mode 755 on Unix).
    pub(crate) fn add_executable(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files
            .push((path.into(), bytes.into(), Mode::Executable));
    }

    /// Write every file under `root`: staged, synced, then swapped in by a journal (module
    /// docs), the manifest last.
    pub(crate) fn commit(&self, root: &Path) -> Result<(), OutDirError> {
        if root.exists() && !root.is_dir() {
            return Err(OutDirError::NotAFolder {
                path: root.to_path_buf(),
            });
        }
        std::fs::create_dir_all(root).map_err(io_err(root))?;
        recover(root)?;
        let old = manifest(root);
        self.check_ours(root, &old)?;
        let critical = Critical::enter();
        if !self.swap_whole(root, &old, &critical)? {
            let staging = self.stage(root, &old, &critical)?;
            roll_forward(root, &staging)?;
        }
        drop(critical);
        Ok(())
    }

    /// The whole folder replaced in one exchange (module docs), when `root` holds nothing but
    /// planner's files; `false` (nothing changed) where that cannot be done.
    fn swap_whole(
        &self,
        root: &Path,
        old: &[PathBuf],
        critical: &Critical,
    ) -> Result<bool, OutDirError> {
        let Some((parent, prefix)) = beside(root) else {
            return Ok(false);
        };
        if !only_ours(root, old) {
            return Ok(false);
        }
        let Ok(sibling) = owned_temp_dir(parent, &prefix) else {
            return Ok(false);
        };
        let owner = sibling.path().join(OWNER);
        self.write_all(sibling.path(), root, critical)?;
        let mode = std::fs::metadata(root).map_err(io_err(root))?.permissions();
        std::fs::set_permissions(sibling.path(), mode).map_err(io_err(sibling.path()))?;
        std::fs::remove_file(&owner).map_err(io_err(&owner))?;
        if exchange(sibling.path(), root).is_err() {
            return Ok(false);
        }
        // `sibling` now names the old set: dropping it removes it.
        atomic::sync_dir(parent);
        Ok(true)
    }

    /// Every file and the manifest written and synced under `dir` (paths named for `root`
    /// in errors), stopping at an interrupt.
    fn write_all(&self, dir: &Path, root: &Path, critical: &Critical) -> Result<(), OutDirError> {
        for (relative, bytes, mode) in &self.files {
            let path = dir.join(relative);
            let parent = path.parent().unwrap_or(dir);
            std::fs::create_dir_all(parent)
                .and_then(|()| atomic::write(&path, bytes, *mode))
                .map_err(io_err(&root.join(relative)))?;
            interrupt::test_write_delay();
            if critical.interrupted() {
                // The staging folder is removed on the way out; `critical` then exits 130.
                return Err(OutDirError::Interrupted {
                    root: root.to_path_buf(),
                });
            }
        }
        let names: Vec<String> = self
            .files
            .iter()
            .map(|(p, _, _)| p.to_string_lossy().into_owned())
            .collect();
        let listing = serde_json::json!({ "schema": "planner-out-dir/1", "files": names });
        atomic::write(
            &dir.join(MANIFEST),
            format!("{listing:#}\n").as_bytes(),
            Mode::File,
        )
        .map_err(io_err(&root.join(MANIFEST)))
    }

    /// Every file and the manifest written and synced in a new staging folder in `root`, and
    /// its journal (the files of `old` this run does not write): the folder, from which the
    /// swap finishes whatever happens next.
    fn stage(
        &self,
        root: &Path,
        old: &[PathBuf],
        critical: &Critical,
    ) -> Result<PathBuf, OutDirError> {
        let staging = owned_temp_dir(root, STAGING_PREFIX).map_err(io_err(root))?;
        self.write_all(staging.path(), root, critical)?;
        let written: Vec<&Path> = self.files.iter().map(|(p, _, _)| p.as_path()).collect();
        let gone: Vec<String> = old
            .iter()
            .filter(|p| !written.contains(&p.as_path()))
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        atomic::write(
            &staging.path().join(JOURNAL),
            (gone.join("\n") + "\n").as_bytes(),
            Mode::File,
        )
        .map_err(io_err(staging.path()))?;
        Ok(staging.keep())
    }

    /// Every path this run writes is free, or a file an earlier run wrote (`old`), reached
    /// without a symbolic link.
    fn check_ours(&self, root: &Path, old: &[PathBuf]) -> Result<(), OutDirError> {
        for relative in self
            .files
            .iter()
            .map(|(p, _, _)| p.as_path())
            .chain([Path::new(MANIFEST)])
        {
            let path = root.join(relative);
            let taken = std::fs::symlink_metadata(&path).is_ok();
            let ours = relative == Path::new(MANIFEST) || old.iter().any(|p| p == relative);
            if plain(&relative.to_string_lossy()).is_none()
                || !direct(root, relative)
                || (taken && !ours)
            {
                return Err(OutDirError::NotOurs { path });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reused out-dir kept the previous proposal's plan folders beside the new ones.
    /// Now what planner writes replaces the previous copy whole; other entries stay.
    #[test]
    fn a_reused_folder_holds_this_run_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = OutFiles::default();
        first.add("proposal.json", "1");
        first.add("plans/1-old/plan.json", "old");
        first.add("plans/2-old/plan.json", "old");
        first.commit(dir.path()).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let mut second = OutFiles::default();
        second.add("proposal.json", "2");
        second.add("plans/1-new/plan.json", "new");
        second.commit(dir.path()).unwrap();
        let mut plans: Vec<String> = std::fs::read_dir(dir.path().join("plans"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        plans.sort();
        assert_eq!(plans, ["1-new"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("proposal.json")).unwrap(),
            "2"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
            "mine"
        );
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with(".planner-staging-")),
            "{names:?}"
        );
    }

    #[test]
    fn writes_every_file_and_leaves_no_staging_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = OutFiles::default();
        files.add("a.json", "{}");
        files.add_executable("plans/1/run.sh", "#!/bin/sh\n");
        files.commit(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.json")).unwrap(),
            "{}"
        );
        assert!(dir.path().join("plans/1/run.sh").is_file());
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with(".planner-staging-")),
            "{names:?}"
        );
    }

    /// Every file under `root` with its bytes (staging folders named as such).
    fn snapshot(root: &Path) -> Vec<(String, String)> {
        let mut files = Vec::new();
        collect_files(root, Path::new(""), &mut files).unwrap();
        let mut out: Vec<(String, String)> = files
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(root.join(p)).unwrap_or_default();
                (p.to_string_lossy().into_owned(), text)
            })
            .collect();
        out.sort();
        out
    }

    fn set(files: &[(&str, &str)]) -> OutFiles {
        let mut out = OutFiles::default();
        for (path, text) in files {
            out.add(*path, *text);
        }
        out
    }

    /// A reused `--out-dir` once removed the user's own `plans/old/f`: only what the manifest
    /// of an earlier run names is planner's to remove.
    #[test]
    fn files_planner_did_not_write_are_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("plans/old")).unwrap();
        std::fs::write(root.join("plans/old/f"), "x").unwrap();
        set(&[("proposal.json", "1"), ("plans/1-a/plan.json", "a")])
            .commit(root)
            .unwrap();
        std::fs::write(root.join("plans/1-a/notes.txt"), "mine").unwrap();
        set(&[("proposal.json", "2"), ("plans/1-b/plan.json", "b")])
            .commit(root)
            .unwrap();
        let files: Vec<String> = snapshot(root).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            files,
            [
                MANIFEST,
                "plans/1-a/notes.txt",
                "plans/1-b/plan.json",
                "plans/old/f",
                "proposal.json"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(root.join("plans/old/f")).unwrap(),
            "x"
        );
        // A file of the user's where this run would write: refused, nothing changed.
        let before = snapshot(root);
        let err = set(&[("plans/old/f", "mine now")])
            .commit(root)
            .unwrap_err();
        assert!(matches!(err, OutDirError::NotOurs { .. }), "{err}");
        assert_eq!(snapshot(root), before);
    }

    /// A run killed (SIGKILL) at any point of its swap leaves a journal; the next run into the
    /// folder finishes the swap before its own: never a mix of two runs, never a staging folder
    /// left behind, and one killed before its swap is removed.
    #[test]
    fn a_swap_killed_anywhere_is_finished_by_the_next_run() {
        let first = set(&[("proposal.json", "1"), ("plans/1-a/plan.json", "a")]);
        let second = set(&[("proposal.json", "2"), ("plans/1-b/plan.json", "b")]);
        let expected = {
            let dir = tempfile::tempdir().unwrap();
            first.commit(dir.path()).unwrap();
            second.commit(dir.path()).unwrap();
            snapshot(dir.path())
        };
        for renames in 0..=3 {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            first.commit(root).unwrap();
            let critical = Critical::enter();
            let staging = second.stage(root, &manifest(root), &critical).unwrap();
            drop(critical);
            roll_forward_until(root, &staging, renames).unwrap();
            // The killed run's process is gone.
            std::fs::write(staging.join(OWNER), "2147483646").unwrap();
            recover(root).unwrap();
            assert_eq!(snapshot(root), expected, "killed after {renames} renames");
        }
        // Killed while staging (no journal yet): the next run removes the staging folder.
        let dir = tempfile::tempdir().unwrap();
        first.commit(dir.path()).unwrap();
        let stale = dir.path().join(format!("{STAGING_PREFIX}killed"));
        std::fs::create_dir_all(stale.join("plans")).unwrap();
        std::fs::write(stale.join(OWNER), "2147483646").unwrap();
        second.commit(dir.path()).unwrap();
        assert_eq!(snapshot(dir.path()), expected);
    }

    /// A folder holding only planner's files is replaced whole in one exchange (a kill at any
    /// instant leaves the old set or the new one); one holding a user's file is refilled by
    /// the journal and keeps its identity. Neither leaves anything beside the folder.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_of_planners_files_only_is_exchanged_whole() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("out");
        set(&[("proposal.json", "1"), ("plans/1-a/plan.json", "a")])
            .commit(&root)
            .unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o750)).unwrap();
        let inode = std::fs::metadata(&root).unwrap().ino();
        set(&[("proposal.json", "2"), ("plans/1-b/plan.json", "b")])
            .commit(&root)
            .unwrap();
        let swapped = std::fs::metadata(&root).unwrap();
        assert_ne!(swapped.ino(), inode, "not exchanged whole");
        assert_eq!(swapped.permissions().mode() & 0o777, 0o750);
        let files: Vec<String> = snapshot(&root).into_iter().map(|(p, _)| p).collect();
        assert_eq!(files, [MANIFEST, "plans/1-b/plan.json", "proposal.json"]);
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
        std::fs::write(root.join("mine.txt"), "x").unwrap();
        let inode = std::fs::metadata(&root).unwrap().ino();
        set(&[("proposal.json", "3")]).commit(&root).unwrap();
        assert_eq!(std::fs::metadata(&root).unwrap().ino(), inode);
        let files: Vec<String> = snapshot(&root).into_iter().map(|(p, _)| p).collect();
        assert_eq!(files, [MANIFEST, "mine.txt", "proposal.json"]);
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
    }

    /// Left beside the folder by a run killed mid-way: a staged set whose process is gone is
    /// removed by the next run, an ownerless one only once it is older than a minute (it may
    /// be a live run's old set, about to be removed by that run).
    #[cfg(target_os = "linux")]
    #[test]
    fn sets_left_beside_the_folder_by_killed_runs_are_removed() {
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("out");
        let dead = parent.path().join(format!(".out{SIBLING_MARK}dead"));
        let young = parent.path().join(format!(".out{SIBLING_MARK}young"));
        let stranger = parent.path().join(".other.planner-swap-x");
        for dir in [&dead, &young, &stranger] {
            std::fs::create_dir_all(dir.join("plans")).unwrap();
        }
        std::fs::write(dead.join(OWNER), "2147483646").unwrap();
        set(&[("proposal.json", "1")]).commit(&root).unwrap();
        assert!(!dead.exists());
        assert!(young.exists() && stranger.exists());
    }
}
