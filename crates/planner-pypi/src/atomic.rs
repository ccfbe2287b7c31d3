//! The one atomic file writer: a reader sees the old file or the new one, never half of one.
//!
//! In: a path and the bytes (or a closure that writes them). Out: the file, written to a
//! temporary file in the same folder, synced, given its mode, then renamed over the target.
//! Errors are plain [`std::io::Error`]s; callers name the file in their own error type.

use std::io::Write;
use std::path::Path;

/// The permissions a written file gets (Unix; ignored elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `0644`: a data file.
    File,
    /// `0755`: a script.
    Executable,
}

/// Write `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8], mode: Mode) -> std::io::Result<()> {
    write_with(path, mode, |file| file.write_all(bytes))
}

/// Write `path` atomically with `fill`, which writes the contents into the temporary file.
pub fn write_with(
    path: &Path,
    mode: Mode,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    fill(&mut file)?;
    file.as_file().sync_all()?;
    set_mode(file.as_file(), mode)?;
    file.persist(path).map_err(|err| err.error)?;
    Ok(())
}

/// Sync folder `dir` so the renames in it last (best effort: not every platform can).
pub fn sync_dir(dir: &Path) {
    if let Ok(folder) = std::fs::File::open(dir) {
        let _ = folder.sync_all();
    }
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: Mode) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let bits = match mode {
        Mode::File => 0o644,
        Mode::Executable => 0o755,
    };
    file.set_permissions(std::fs::Permissions::from_mode(bits))
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: Mode) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_sets_modes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write(&path, b"first, longer text", Mode::File).unwrap();
        write(&path, b"second", Mode::Executable).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        // Nothing but the target is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_folder_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/folder/out.txt");
        assert!(write(&path, b"x", Mode::File).is_err());
        assert!(!path.exists());
    }
}
