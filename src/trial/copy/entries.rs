//! How each entry of a venv is copied: one folder of the original in, its copy under the copy's
//! root out (a reflink, a hard link for a shared library or a compiled `.pyc` no step edits, a
//! real copy keeping the original's modification time, a link kept or followed; the paths of the
//! original in text files replaced), with the [`CopyStats`] and the hard-linked files' stamps.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{CopyError, CopyMethod, CopyStats, io_err, lexical_join, stamp};
use crate::inventory::hashing::in_parallel_on;

pub(super) struct Copier<'a> {
    pub(super) original: &'a Path,
    /// The original with every link resolved: what "inside the venv" means.
    pub(super) real_original: &'a Path,
    pub(super) root: &'a Path,
    pub(super) method: CopyMethod,
    pub(super) edited: &'a HashSet<PathBuf>,
    pub(super) stats: CopyStats,
    pub(super) linked: Vec<(PathBuf, (u64, u32, i64, i64))>,
    /// The folders outside the venv being copied through links (innermost last): everything
    /// under them is a real copy, and a link back into one of them is a loop.
    pub(super) outside: Vec<PathBuf>,
    /// The venv's own files, (original, copy), copied by [`Copier::finish`] on several threads.
    pub(super) pending: Vec<(PathBuf, PathBuf)>,
    /// Each folder made and the original's permissions, set once the files are in.
    pub(super) modes: Vec<(PathBuf, fs::Permissions)>,
}

/// What copying one file did.
enum Done {
    /// Hard-linked; the original's stamp then.
    Linked((u64, u32, i64, i64)),
    /// Copied (or cloned), so many bytes written.
    Copied(u64),
}

/// Threads that copy files: creating a file waits on the disk as much as on a core (on the
/// 2-core test machine the 65-dist venv's copy took 4.2-5.5 s on 8 threads against 9.9-10.2 s on
/// one, in interleaved runs; docs/measurements/2026-12-05-speed-7.md).
const COPIERS: usize = 8;

/// Whether a file is a shared library (`x.so`, `libx.so.12`, `x.cpython-312-x86_64-linux-gnu.so`).
fn shared_library(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.ends_with(".so") || name.contains(".so.")
}

/// Whether a file is compiled bytecode in a `__pycache__` folder. Python never writes one in
/// place: a stale one is replaced whole (`importlib`'s atomic write, a temp file renamed over
/// it; `py_compile` and `compileall` write the same way), and pip and uv remove, not edit, them.
fn bytecode(path: &Path) -> bool {
    path.extension() == Some(OsStr::new("pyc"))
        && path.parent().and_then(Path::file_name) == Some(OsStr::new("__pycache__"))
}

/// A real copy of `from` at `to` (bytes, permission bits), with `from`'s access and
/// modification times: Python trusts a `.pyc` only while its source's mtime is the one it
/// recorded, so a copied `.py` with a new mtime would make every import recompile (and, with
/// bytecode writing off, recompile again in each run). Returns the bytes copied.
fn copy_file(from: &Path, to: &Path) -> io::Result<u64> {
    let bytes = fs::copy(from, to)?;
    keep_times(from, to)?;
    Ok(bytes)
}

/// `to` gets `from`'s access and modification times.
fn keep_times(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::metadata(from)?;
    filetime::set_file_times(
        to,
        filetime::FileTime::from_last_access_time(&meta),
        filetime::FileTime::from_last_modification_time(&meta),
    )
}

impl Copier<'_> {
    pub(super) fn dir(&mut self, from: &Path, to: &Path) -> Result<(), CopyError> {
        match fs::create_dir(to) {
            Err(err) if err.kind() != io::ErrorKind::AlreadyExists => {
                return Err(io_err(to)(err));
            }
            _ => {}
        }
        for entry in fs::read_dir(from).map_err(io_err(from))? {
            let entry = entry.map_err(io_err(from))?;
            let path = entry.path();
            let target = to.join(entry.file_name());
            let kind = entry.file_type().map_err(io_err(&path))?;
            if kind.is_symlink() {
                self.symlink(&path, &target)?;
            } else if kind.is_dir() {
                self.dir(&path, &target)?;
            } else if kind.is_file() && self.outside.is_empty() {
                self.pending.push((path, target));
            } else if kind.is_file() {
                self.file(&path, &target)?;
            }
            // Sockets, fifos and devices have no place in a venv: left out.
        }
        let mode = fs::metadata(from).map_err(io_err(from))?.permissions();
        self.modes.push((to.to_path_buf(), mode));
        Ok(())
    }

    /// The files [`Copier::dir`] left pending, copied or linked on [`COPIERS`] threads (the
    /// first error in walk order is the answer), then each folder's permissions (a read-only
    /// folder gets its mode after its files are in).
    pub(super) fn finish(&mut self) -> Result<(), CopyError> {
        let pending = std::mem::take(&mut self.pending);
        let threads = COPIERS.min(pending.len().div_ceil(64));
        let this = &*self;
        let done = in_parallel_on(threads, &pending, |(from, to)| this.one_file(from, to));
        for (result, (from, _)) in done.into_iter().zip(&pending) {
            self.stats.files += 1;
            match result? {
                Done::Linked(stamp) => {
                    self.stats.linked += 1;
                    self.linked.push((from.clone(), stamp));
                }
                Done::Copied(bytes) => {
                    self.stats.copied += 1;
                    self.stats.bytes_copied += bytes;
                }
            }
        }
        for (folder, mode) in std::mem::take(&mut self.modes).into_iter().rev() {
            fs::set_permissions(&folder, mode).map_err(io_err(&folder))?;
        }
        Ok(())
    }

    /// A link inside the venv stays a link; one leaving it is copied as what it names (the
    /// interpreter's links aside), so no write in the copy can go through it.
    fn symlink(&mut self, from: &Path, to: &Path) -> Result<(), CopyError> {
        let target = fs::read_link(from).map_err(io_err(from))?;
        let Ok(real) = fs::canonicalize(from) else {
            let base = match target.is_absolute() {
                true => Path::new("/"),
                false => from.parent().unwrap_or(from),
            };
            let lexical = lexical_join(base, &target.to_string_lossy());
            if self.outside.is_empty() && lexical.starts_with(self.original) {
                // Dangling inside the venv: the copy's link names the copy's (missing) path.
                return std::os::unix::fs::symlink(&target, to).map_err(io_err(to));
            }
            return Err(CopyError::LinkOutside {
                path: from.to_path_buf(),
                target,
            });
        };
        if self.outside.is_empty() && real.starts_with(self.real_original) {
            let target = match real.strip_prefix(self.real_original) {
                Ok(rest) if target.is_absolute() => self.root.join(rest),
                _ => target,
            };
            return std::os::unix::fs::symlink(&target, to).map_err(io_err(to));
        }
        if self.is_interpreter(from) && real.is_file() {
            // An absolute link as it is; a relative one would name another file from the copy.
            let target = if target.is_absolute() { target } else { real };
            return std::os::unix::fs::symlink(&target, to).map_err(io_err(to));
        }
        if real.is_dir() {
            if self.outside.iter().any(|dir| real.starts_with(dir))
                || real.starts_with(self.real_original)
            {
                return Err(CopyError::LinkLoop {
                    path: from.to_path_buf(),
                });
            }
            self.outside.push(real.clone());
            let copied = self.dir(&real, to);
            self.outside.pop();
            return copied;
        }
        if real.is_file() {
            self.stats.files += 1;
            self.stats.copied += 1;
            self.stats.bytes_copied += copy_file(&real, to).map_err(io_err(to))?;
        }
        Ok(())
    }

    /// The venv's own interpreter links (`bin/python`, `bin/python3.12`, `bin/pypy3`): they
    /// name the base interpreter, which nothing in the copy writes.
    fn is_interpreter(&self, from: &Path) -> bool {
        let name = from.file_name().unwrap_or_default().to_string_lossy();
        self.outside.is_empty()
            && from.parent() == Some(self.original.join("bin").as_path())
            && (name.starts_with("python") || name.starts_with("pypy"))
    }

    /// A file under a folder reached through a link that leaves the venv: a real copy, now.
    fn file(&mut self, from: &Path, to: &Path) -> Result<(), CopyError> {
        self.stats.files += 1;
        self.stats.copied += 1;
        if let Done::Copied(bytes) = self.one_file(from, to)? {
            self.stats.bytes_copied += bytes;
        }
        Ok(())
    }

    /// One file: a hard link (an unedited shared library or `.pyc` of the venv's own, not
    /// through a link that leaves it), else a retargeted, cloned or real copy.
    fn one_file(&self, from: &Path, to: &Path) -> Result<Done, CopyError> {
        let rewrite = self.rewritten(from);
        if self.method == CopyMethod::Hardlink
            && self.outside.is_empty()
            && !rewrite
            && !self.edited.contains(from)
            && (shared_library(from) || bytecode(from))
        {
            let meta = fs::symlink_metadata(from).map_err(io_err(from))?;
            fs::hard_link(from, to).map_err(io_err(to))?;
            return Ok(Done::Linked(stamp(&meta)));
        }
        if rewrite && let Some(text) = self.retargeted(from)? {
            fs::write(to, &text).map_err(io_err(to))?;
            let mode = fs::metadata(from)
                .map_err(io_err(from))?
                .permissions()
                .mode();
            fs::set_permissions(to, fs::Permissions::from_mode(mode)).map_err(io_err(to))?;
            return Ok(Done::Copied(text.len() as u64));
        }
        if self.method == CopyMethod::Reflink && reflink_copy::reflink(from, to).is_ok() {
            let mode = fs::metadata(from).map_err(io_err(from))?.permissions();
            fs::set_permissions(to, mode).map_err(io_err(to))?;
            keep_times(from, to).map_err(io_err(to))?;
            return Ok(Done::Copied(0));
        }
        Ok(Done::Copied(copy_file(from, to).map_err(io_err(to))?))
    }

    /// Files that may name the venv's own path: `pyvenv.cfg`, `bin/*`, `*.pth`.
    fn rewritten(&self, from: &Path) -> bool {
        let rel = from.strip_prefix(self.original).unwrap_or(from);
        rel == Path::new("pyvenv.cfg")
            || rel.starts_with("bin")
            || rel.extension() == Some(OsStr::new("pth"))
    }

    /// The file's text with the original's path replaced by the copy's, when it is text that
    /// names it; `None` for binaries, large files and files that do not name it.
    fn retargeted(&self, from: &Path) -> Result<Option<String>, CopyError> {
        let meta = fs::metadata(from).map_err(io_err(from))?;
        if meta.len() > 1 << 20 {
            return Ok(None);
        }
        let bytes = crate::bounded::read(from, 1 << 20).map_err(|e| io_err(from)(e.into_io()))?;
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(None);
        };
        let original = self.original.to_string_lossy();
        if text.contains('\0') || !text.contains(original.as_ref()) {
            return Ok(None);
        }
        Ok(Some(
            text.replace(original.as_ref(), &self.root.to_string_lossy()),
        ))
    }
}
