//! A set of output files (`propose --out-dir`) written all together or not at all.
//!
//! In: relative paths and their bytes. Out: the files under the output folder. Everything is
//! first written and synced in a staging folder inside it; only when every file is there are they
//! renamed into place. Each top-level entry written (`proposal.json`, the `plans` folder) replaces
//! the previous one whole: a folder of the last run is moved aside and removed, so no plan folder
//! of an earlier proposal stays beside the new ones (issue 25); entries planner does not write are
//! left alone. An interrupt ([`crate::interrupt`]) before that point removes the staging
//! folder and leaves the previous files as they were (reliability item 30).

use std::path::{Path, PathBuf};

use crate::atomic::{self, Mode};
use crate::interrupt::{self, Critical};

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
    /// Ctrl-C arrived while staging: nothing was replaced.
    #[error("interrupted; the files in `{}` were left as they were", root.display())]
    Interrupted {
        /// The output folder.
        root: PathBuf,
    },
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

    /// The distinct first components of the paths, in order.
    fn top_level(&self) -> Vec<&std::ffi::OsStr> {
        let mut tops = Vec::new();
        for (relative, _, _) in &self.files {
            if let Some(std::path::Component::Normal(top)) = relative.components().next()
                && !tops.contains(&top)
            {
                tops.push(top);
            }
        }
        tops
    }

    /// Write every file under `root`: staged, synced, then renamed into place.
    pub(crate) fn commit(&self, root: &Path) -> Result<(), OutDirError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| OutDirError::Io { path, source }
        };
        std::fs::create_dir_all(root).map_err(io(root))?;
        let critical = Critical::enter();
        let staging = tempfile::Builder::new()
            .prefix(".planner-staging-")
            .tempdir_in(root)
            .map_err(io(root))?;
        for (relative, bytes, mode) in &self.files {
            let path = staging.path().join(relative);
            let parent = path.parent().unwrap_or(staging.path());
            std::fs::create_dir_all(parent)
                .and_then(|()| atomic::write(&path, bytes, *mode))
                .map_err(io(&root.join(relative)))?;
            interrupt::test_write_delay();
            if critical.interrupted() {
                // `staging` is removed on the way out; `critical` then exits 130.
                return Err(OutDirError::Interrupted {
                    root: root.to_path_buf(),
                });
            }
        }
        let previous = staging.path().join(".previous");
        std::fs::create_dir(&previous).map_err(io(&previous))?;
        for top in self.top_level() {
            let target = root.join(top);
            let aside = previous.join(top);
            let moved = std::fs::symlink_metadata(&target).is_ok();
            if moved {
                std::fs::rename(&target, &aside).map_err(io(&target))?;
            }
            if let Err(source) = std::fs::rename(staging.path().join(top), &target) {
                if moved {
                    let _ = std::fs::rename(&aside, &target);
                }
                return Err(OutDirError::Io {
                    path: target,
                    source,
                });
            }
        }
        // The previous entries go with the staging folder.
        drop(staging);
        drop(critical);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 25: a reused out-dir kept the previous proposal's plan folders beside the new ones.
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
}
