//! A set of output files (`propose --out-dir`) written all together or not at all.
//!
//! In: relative paths and their bytes. Out: the files under the output folder. Everything is
//! first written and synced in a staging folder inside it; only when every file is there are they
//! renamed into place. An interrupt ([`crate::interrupt`]) before that point removes the staging
//! folder and leaves the previous files as they were (reliability item 30).

use std::path::{Path, PathBuf};

use crate::atomic::{self, Mode};
use crate::interrupt::{self, Critical};

/// Why the files were not written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum OutDirError {
    /// A file or folder could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
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
pub struct OutFiles {
    files: Vec<(PathBuf, Vec<u8>, Mode)>,
}

impl OutFiles {
    /// Add a file (`path` relative to the output folder).
    pub fn add(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files.push((path.into(), bytes.into(), Mode::File));
    }

    /// Add an executable file (mode 755 on Unix).
    pub fn add_executable(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files
            .push((path.into(), bytes.into(), Mode::Executable));
    }

    /// Write every file under `root`: staged, synced, then renamed into place.
    pub fn commit(&self, root: &Path) -> Result<(), OutDirError> {
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
        for (relative, _, _) in &self.files {
            let target = root.join(relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::rename(staging.path().join(relative), &target).map_err(io(&target))?;
        }
        drop(staging);
        drop(critical);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
