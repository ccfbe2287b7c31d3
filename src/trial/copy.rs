//! The throw-away copy of a virtual environment that `planner try` applies a plan in.
//!
//! In: the original venv's root, the dists the plan changes or removes, and where the copy goes
//! (a temp folder, or `--keep DIR`). Out: a [`VenvCopy`], removed when dropped unless kept.
//!
//! The guard: nothing a process in the copy may open for writing is shared with the original.
//! How each entry is copied ([`entries`]; the original is only ever read):
//! - **reflink** (`FICLONE`, btrfs/XFS/...) for every file when the filesystem has it: a true
//!   copy-on-write copy, nothing shared;
//! - otherwise a **hard link** only for a shared library (`*.so`, `*.so.N`) or compiled
//!   bytecode (`__pycache__/*.pyc`) that no step edits: the loader maps a library read-only,
//!   Python replaces a stale `.pyc` whole, pip and uv replace rather than edit either, and they
//!   are where a large venv's bytes are; **real copies** of everything else (Python files, data
//!   files a module may open with `r+` at import, `pyvenv.cfg`, `bin/`, `.pth` files, each
//!   changed dist's `RECORD` files and `.dist-info`), with the original's mtimes (so that the
//!   bytecode stays valid for its copied source). Text files that name the original's path
//!   (`pyvenv.cfg`, `bin/*`, `*.pth`) have it replaced by the copy's;
//! - a **symbolic link** whose target lies inside the venv stays a link (retargeted to the
//!   copy when absolute); one that leaves the venv is followed and copied as the real file or
//!   folder it names (no hard links under it), except the venv's interpreter (`bin/python*`),
//!   which stays a link to the base interpreter's absolute path; a link that leaves the venv
//!   and names nothing is refused ([`CopyError::LinkOutside`]);
//! - when no hard link can be made there (another filesystem), real copies of everything.
//!
//! [`VenvCopy::linked_changed`] still checks each hard-linked file's size, mode and mtime
//! afterwards: only a process that opens another dist's shared library for writing could reach
//! the original, and that is reported (exit 2). `PLANNER_TRY_COPY=full` closes that too: no
//! hard link at all, every file a real copy where the filesystem cannot clone (on the 7.3 GB
//! H200 venv, 6.3 GB of it shared libraries: 17-21 s instead of 1.9 s).

use std::collections::HashSet;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::inventory::hashing::in_parallel_on;
use pep508_rs::PackageName;
use serde::Serialize;

mod entries;

use entries::Copier;

/// How the files were copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CopyMethod {
    /// Copy-on-write clones of every file.
    Reflink,
    /// Hard links for unedited shared libraries, real copies of everything else.
    Hardlink,
    /// Real copies of every file (no hard link could be made there).
    Copy,
    /// No copy: a fresh venv from the original's exact pins (`fresh` says why and how).
    Fresh,
}

/// What making the copy did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CopyStats {
    /// How.
    pub method: CopyMethod,
    /// Regular files.
    pub files: usize,
    /// Of them hard-linked to the original.
    pub linked: usize,
    /// Of them copied (or cloned).
    pub copied: usize,
    /// Bytes copied (hard links excluded).
    pub bytes_copied: u64,
    /// Wall seconds.
    pub seconds: f64,
    /// With [`CopyMethod::Fresh`]: why, and what was built.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fresh: Option<FreshStats>,
}

impl CopyStats {
    /// Nothing done yet, by `method`.
    pub(super) fn none(method: CopyMethod) -> CopyStats {
        CopyStats {
            method,
            files: 0,
            linked: 0,
            copied: 0,
            bytes_copied: 0,
            seconds: 0.0,
            fresh: None,
        }
    }
}

/// What building the fresh venv did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FreshStats {
    /// Why no copy could be made.
    pub why: String,
    /// The interpreter it was made from.
    pub base_python: PathBuf,
    /// Dists installed from the original's exact pins.
    pub pinned: usize,
    /// Dists copied as they are (their `.dist-info` and `RECORD` files).
    pub copied: Vec<String>,
    /// Dists reinstalled from their `direct_url.json` (copying could not work), as requirements.
    pub reinstalled: Vec<String>,
    /// Each step's argv and how it ended.
    pub steps: Vec<super::Step>,
}

/// A copy of a venv; removed on drop unless kept.
#[derive(Debug)]
pub(crate) struct VenvCopy {
    /// The copy's root.
    pub root: PathBuf,
    /// The original's root.
    pub original: PathBuf,
    /// What making it did.
    pub stats: CopyStats,
    keep: bool,
    /// Each hard-linked original file with (size, mode, mtime) when it was linked.
    linked: Vec<(PathBuf, (u64, u32, i64, i64))>,
    _temp: Option<tempfile::TempDir>,
}

/// Why the copy could not be made.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum CopyError {
    /// Reading or writing failed.
    #[error("cannot copy `{}`: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// `--keep DIR` is inside the environment copied.
    #[error("`{}` is inside the environment being copied", path.display())]
    #[diagnostic(help("--keep names a new folder outside the venv"))]
    KeepInside {
        /// The folder.
        path: PathBuf,
    },
    /// A symbolic link that leaves the venv and names nothing (or a loop): a write through it
    /// from the copy would create a file outside.
    #[error(
        "`{}` is a symbolic link to `{}`, outside the environment, which does not exist",
        path.display(),
        target.display()
    )]
    #[diagnostic(help(
        "remove the dangling link from the environment (or make what it names): planner will \
         not copy a link through which the copy could write outside itself"
    ))]
    LinkOutside {
        /// The link.
        path: PathBuf,
        /// What it says.
        target: PathBuf,
    },
    /// A folder reached through a link that leads back into a folder being copied.
    #[error("`{}` leads back into a folder it is inside (a symbolic link loop)", path.display())]
    #[diagnostic(help("remove the looping link from the environment"))]
    LinkLoop {
        /// The link.
        path: PathBuf,
    },
    /// `--keep DIR` exists and is not empty.
    #[error("`{}` already exists and is not empty", path.display())]
    #[diagnostic(help("--keep names a new folder for the copy"))]
    KeepExists {
        /// The folder.
        path: PathBuf,
    },
    /// `PLANNER_TRY_COPY` holds something else than `full` or `link`.
    #[error("PLANNER_TRY_COPY is `{value}`, not `full` or `link`")]
    #[diagnostic(help(
        "PLANNER_TRY_COPY=full copies every file (no hard link into the original); `link` (the \
         default) hard-links shared libraries no step edits"
    ))]
    CopySetting {
        /// The value found.
        value: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CopyError + '_ {
    move |source| CopyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl VenvCopy {
    /// Copy the venv at `original`. `changed`: the dists the plan changes or removes (their
    /// RECORD-listed files are real copies). `keep`: the folder to make the copy in and keep.
    pub(crate) fn make(
        original: &Path,
        changed: &[PackageName],
        keep: Option<&Path>,
    ) -> Result<VenvCopy, CopyError> {
        let started = Instant::now();
        let original = std::path::absolute(original).map_err(io_err(original))?;
        let (root, temp) = place(&original, keep, true)?;
        fs::create_dir_all(&root).map_err(io_err(&root))?;
        let edited = edited_files(&original, changed);
        let method = match (probe_method(&original, &root), full_copy_asked()?) {
            (CopyMethod::Hardlink, true) => CopyMethod::Copy,
            (method, _) => method,
        };
        let real_original = fs::canonicalize(&original).map_err(io_err(&original))?;
        let mut copier = Copier {
            original: &original,
            real_original: &real_original,
            root: &root,
            method,
            edited: &edited,
            stats: CopyStats::none(method),
            linked: Vec::new(),
            outside: Vec::new(),
            pending: Vec::new(),
            modes: Vec::new(),
        };
        copier.dir(&original, &root)?;
        copier.finish()?;
        let mut stats = copier.stats;
        let linked = copier.linked;
        stats.seconds = started.elapsed().as_secs_f64();
        log::debug!(
            "copied {} to {} ({:?}: {} files, {} linked) in {:.3}s",
            original.display(),
            root.display(),
            stats.method,
            stats.files,
            stats.linked,
            stats.seconds
        );
        let mut copy = VenvCopy::new(&original, root, keep.is_some(), temp, stats);
        copy.linked = linked;
        Ok(copy)
    }

    /// A copy at `root` (placed by [`place`]) with nothing linked yet.
    pub(super) fn new(
        original: &Path,
        root: PathBuf,
        keep: bool,
        temp: Option<tempfile::TempDir>,
        stats: CopyStats,
    ) -> VenvCopy {
        VenvCopy {
            root,
            original: original.to_path_buf(),
            stats,
            keep,
            linked: Vec::new(),
            _temp: temp,
        }
    }

    /// The copy's interpreter.
    pub(crate) fn python(&self) -> PathBuf {
        self.root.join("bin").join("python")
    }

    /// Whether the copy stays after the run (`--keep`).
    pub(crate) fn kept(&self) -> bool {
        self.keep
    }

    /// The hard-linked originals whose size, mode or mtime changed since they were linked
    /// (written through a link: never by pip or uv; a `--test` that edits the environment in
    /// place could).
    pub(crate) fn linked_changed(&self) -> Vec<PathBuf> {
        self.linked
            .iter()
            .filter(|(path, was)| fs::symlink_metadata(path).map(|m| stamp(&m)).ok() != Some(*was))
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// How many hard-linked files [`VenvCopy::linked_changed`] checks.
    pub(crate) fn linked_count(&self) -> usize {
        self.linked.len()
    }

    /// Remove the copy now (also done on drop, unless kept).
    pub(crate) fn discard(mut self) -> io::Result<()> {
        self.keep = false;
        remove_all(&self.root)
    }
}

/// Where a copy of `original` goes: `keep` (new or empty, outside `original`), else a temp
/// folder (on its filesystem when `link`, so that hard links work); the folder is made.
pub(super) fn place(
    original: &Path,
    keep: Option<&Path>,
    link: bool,
) -> Result<(PathBuf, Option<tempfile::TempDir>), CopyError> {
    let (root, temp) = match keep {
        Some(dir) => {
            if resolved(dir).is_some_and(|d| resolved(original).is_some_and(|o| d.starts_with(o))) {
                return Err(CopyError::KeepInside {
                    path: dir.to_path_buf(),
                });
            }
            if fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
                return Err(CopyError::KeepExists {
                    path: dir.to_path_buf(),
                });
            }
            fs::create_dir_all(dir).map_err(io_err(dir))?;
            (std::path::absolute(dir).map_err(io_err(dir))?, None)
        }
        None if !link => {
            clean_stale(&std::env::temp_dir());
            let temp = tempfile::Builder::new()
                .prefix("planner-try-")
                .tempdir()
                .map_err(io_err(&std::env::temp_dir()))?;
            mark_owner(temp.path())?;
            (temp.path().join("venv"), Some(temp))
        }
        None => {
            clean_stale(&std::env::temp_dir());
            if let Some(parent) = original.parent() {
                clean_stale(parent);
            }
            let temp = temp_dir_beside(original)?;
            mark_owner(temp.path())?;
            (temp.path().join("venv"), Some(temp))
        }
    };
    fs::create_dir_all(&root).map_err(io_err(&root))?;
    Ok((root, temp))
}

impl Drop for VenvCopy {
    fn drop(&mut self) {
        if !self.keep {
            let _ = remove_all(&self.root);
        }
    }
}

/// The file in a temp copy's folder naming the process that made it.
const OWNER: &str = ".planner-pid";

/// Write this process's id into a temp copy's folder, so a later run can tell a copy left by
/// a killed run from one still in use ([`clean_stale`]).
fn mark_owner(folder: &Path) -> Result<(), CopyError> {
    let path = folder.join(OWNER);
    fs::write(&path, std::process::id().to_string()).map_err(io_err(&path))
}

/// Remove the temp copies in `dir` (`planner-try-*`, `.planner-try-*`) whose run is gone (killed
/// before it could remove them): those whose owner file names a process that no longer exists.
/// A copy without one, or whose process runs, is left alone; a failure is only logged.
#[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
pub(super) fn clean_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with("planner-try-") || name.starts_with(".planner-try-")) {
            continue;
        }
        let Some(pid) = crate::bounded::read_to_string(&entry.path().join(OWNER), 64)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: kill with signal 0 only asks whether the process exists.
        let gone = pid > 0
            && unsafe { libc::kill(pid, 0) } != 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            match remove_all(&entry.path()) {
                Ok(()) => log::debug!("removed {}, left by a killed run", entry.path().display()),
                Err(e) => log::debug!("cannot remove {}: {e}", entry.path().display()),
            }
        }
    }
}

/// `path` made absolute with `..` and links resolved as far as it exists (its missing tail
/// joined lexically): `--keep v/../v/inside` and `--keep link-to-v/inside` are inside `v`.
pub(super) fn resolved(path: &Path) -> Option<PathBuf> {
    let absolute = lexical_join(
        Path::new("/"),
        &std::path::absolute(path).ok()?.to_string_lossy(),
    );
    let mut existing = absolute.as_path();
    let mut tail = Vec::new();
    loop {
        if let Ok(real) = fs::canonicalize(existing) {
            return Some(
                tail.iter()
                    .rev()
                    .fold(real, |acc: PathBuf, part| acc.join(part)),
            );
        }
        tail.push(existing.file_name()?.to_os_string());
        existing = existing.parent()?;
    }
}

/// Remove a tree, retrying while a process that still runs in it creates files. Most of it
/// goes on several threads first ([`remove_in_parallel`]); what that leaves, the standard walk.
fn remove_all(root: &Path) -> io::Result<()> {
    remove_in_parallel(root);
    let mut last = Ok(());
    for _ in 0..5 {
        last = match fs::remove_dir_all(root) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
            other => other,
        };
        if last.is_ok() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    last
}

/// Threads that remove a copy: removal waits on the disk, not on a core.
const REMOVERS: usize = 16;

/// Remove what is under `root` on [`REMOVERS`] threads: every file and link, then the folders,
/// deepest first, each depth side by side. One thread's unlinks wait on each other: where the
/// filesystem waits on each freed block (ext4 mounted with `discard`, as on the 2-core test
/// machine: ~2.5 ms per folder or copied file), a 24,000-file copy took 30-40 s to remove alone,
/// about a tenth of that on 16 threads. Best effort: an error leaves the entry to
/// [`fs::remove_dir_all`] after it; a link is removed, never followed.
fn remove_in_parallel(root: &Path) {
    let mut files = Vec::new();
    let mut folders: Vec<Vec<PathBuf>> = Vec::new();
    let mut todo = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = todo.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => todo.push((entry.path(), depth + 1)),
                Ok(_) => files.push(entry.path()),
                Err(_) => {}
            }
        }
        if depth > 0 {
            if folders.len() < depth {
                folders.resize_with(depth, Vec::new);
            }
            folders[depth - 1].push(dir);
        }
    }
    on_threads(&files, |path| {
        let _ = fs::remove_file(path);
    });
    for level in folders.iter().rev() {
        on_threads(level, |path| {
            let _ = fs::remove_dir(path);
        });
    }
}

/// `f` over `items` on up to [`REMOVERS`] threads.
fn on_threads(items: &[PathBuf], f: impl Fn(&Path) + Sync) {
    let threads = REMOVERS.min(items.len().div_ceil(64));
    in_parallel_on(threads, items, |path| f(path));
}

fn stamp(meta: &fs::Metadata) -> (u64, u32, i64, i64) {
    (meta.len(), meta.mode(), meta.mtime(), meta.mtime_nsec())
}

/// A temp folder on the original's filesystem when the temp dir is on another one (so hard
/// links work): `$TMPDIR` first, else beside the venv (`.planner-try-*` in its parent).
fn temp_dir_beside(original: &Path) -> Result<tempfile::TempDir, CopyError> {
    let dev = |path: &Path| fs::metadata(path).map(|m| m.dev()).ok();
    let temp = tempfile::Builder::new()
        .prefix("planner-try-")
        .tempdir()
        .map_err(io_err(&std::env::temp_dir()))?;
    if dev(temp.path()) == dev(original) {
        return Ok(temp);
    }
    let beside = original.parent().and_then(|parent| {
        tempfile::Builder::new()
            .prefix(".planner-try-")
            .tempdir_in(parent)
            .ok()
    });
    Ok(beside.unwrap_or(temp))
}

/// Whether `PLANNER_TRY_COPY=full` asks for no hard links at all (module docs).
fn full_copy_asked() -> Result<bool, CopyError> {
    match crate::env_vars::EnvVars::process().get("PLANNER_TRY_COPY") {
        None => Ok(false),
        Some(v) if v.trim() == "full" => Ok(true),
        Some(v) if v.trim() == "link" || v.trim().is_empty() => Ok(false),
        Some(v) => Err(CopyError::CopySetting {
            value: crate::terminal::field(&v).into_owned(),
        }),
    }
}

/// Reflink when the filesystem clones, else hard links when they can be made, else copies.
fn probe_method(original: &Path, dir: &Path) -> CopyMethod {
    let Some(sample) = first_file(original) else {
        return CopyMethod::Copy;
    };
    let target = dir.join(".planner-probe");
    let _ = fs::remove_file(&target);
    let method = if reflink_copy::reflink(&sample, &target).is_ok() {
        CopyMethod::Reflink
    } else if fs::hard_link(&sample, &target).is_ok() {
        CopyMethod::Hardlink
    } else {
        CopyMethod::Copy
    };
    let _ = fs::remove_file(&target);
    method
}

fn first_file(dir: &Path) -> Option<PathBuf> {
    let cfg = dir.join("pyvenv.cfg");
    if cfg.is_file() {
        return Some(cfg);
    }
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_file())
}

/// The files the installer removes or replaces: each changed dist's `.dist-info` folder and
/// every file its `RECORD` lists (absolute, under the original).
fn edited_files(original: &Path, changed: &[PackageName]) -> HashSet<PathBuf> {
    let mut out = HashSet::new();
    for site in site_packages(original) {
        let Ok(entries) = fs::read_dir(&site) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let name = file_name.to_string_lossy();
            let Some(stem) = name.strip_suffix(".dist-info") else {
                continue;
            };
            let Some(dist) = stem
                .split_once('-')
                .and_then(|(n, _)| n.parse::<PackageName>().ok())
            else {
                continue;
            };
            if !changed.contains(&dist) {
                continue;
            }
            let info = entry.path();
            out.insert(info.clone());
            for path in crate::inventory::record::paths(&info).unwrap_or_default() {
                out.insert(lexical_join(&site, &path));
            }
        }
    }
    out
}

/// `base/rel` with `..` and `.` resolved without touching the filesystem.
pub(super) fn lexical_join(base: &Path, rel: &str) -> PathBuf {
    let mut out = base.to_path_buf();
    for part in Path::new(rel).components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(p) => out.push(p),
            _ => {}
        }
    }
    out
}

/// `lib/python*/site-packages` folders of a venv (lib64 is usually a link to lib).
pub(crate) fn site_packages(venv: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(entries) = fs::read_dir(venv.join(lib)) else {
            continue;
        };
        for entry in entries.flatten() {
            let site = entry.path().join("site-packages");
            if site.is_dir() && !out.iter().any(|p: &PathBuf| same_dir(p, &site)) {
                out.push(site);
            }
        }
    }
    out
}

/// Whether this user may write into `folder` (`access(2)`: also false on a read-only mount).
#[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
pub(crate) fn writable(folder: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(path) = std::ffi::CString::new(folder.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access(2) reads a NUL-terminated path that outlives the call.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_joins_resolve_parent_steps() {
        assert_eq!(
            lexical_join(
                Path::new("/v/lib/python3.12/site-packages"),
                "../../../bin/tool"
            ),
            PathBuf::from("/v/bin/tool")
        );
    }

    #[test]
    fn a_copy_links_what_is_not_edited_and_rewrites_the_venv_path() {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("venv");
        let site = venv.join("lib/python3.12/site-packages");
        fs::create_dir_all(site.join("keep")).unwrap();
        fs::create_dir_all(site.join("edit-1.0.dist-info")).unwrap();
        fs::create_dir_all(venv.join("bin")).unwrap();
        fs::write(site.join("keep/__init__.py"), "x = 1\n").unwrap();
        fs::write(
            site.join("keep/_speedups.cpython-312-x86_64-linux-gnu.so"),
            "ELF",
        )
        .unwrap();
        fs::create_dir_all(site.join("keep/__pycache__")).unwrap();
        fs::create_dir_all(site.join("__pycache__")).unwrap();
        fs::write(
            site.join("keep/__pycache__/__init__.cpython-312.pyc"),
            "pyc",
        )
        .unwrap();
        fs::write(site.join("__pycache__/edit.cpython-312.pyc"), "pyc").unwrap();
        let old = filetime::FileTime::from_unix_time(1_600_000_000, 123);
        filetime::set_file_mtime(site.join("keep/__init__.py"), old).unwrap();
        fs::write(site.join("edit.py"), "y = 1\n").unwrap();
        fs::write(
            site.join("edit-1.0.dist-info/RECORD"),
            "edit.py,,\n__pycache__/edit.cpython-312.pyc,,\nedit-1.0.dist-info/RECORD,,\n",
        )
        .unwrap();
        let shebang = format!("#!{}/bin/python\nprint()\n", venv.display());
        fs::write(venv.join("bin/tool"), &shebang).unwrap();
        fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        std::os::unix::fs::symlink("/usr/bin/python3", venv.join("bin/python")).unwrap();
        let keep = dir.path().join("copy");
        let name: PackageName = "edit".parse().unwrap();
        let copy = VenvCopy::make(&venv, &[name], Some(&keep)).unwrap();
        let ino = |p: &Path| fs::metadata(p).unwrap().ino();
        let csite = keep.join("lib/python3.12/site-packages");
        if copy.stats.method == CopyMethod::Hardlink {
            let lib = "keep/_speedups.cpython-312-x86_64-linux-gnu.so";
            let pyc = "keep/__pycache__/__init__.cpython-312.pyc";
            assert_eq!(ino(&csite.join(lib)), ino(&site.join(lib)));
            assert_eq!(ino(&csite.join(pyc)), ino(&site.join(pyc)));
            assert_eq!(copy.stats.linked, 2);
        }
        assert_ne!(ino(&csite.join("edit.py")), ino(&site.join("edit.py")));
        let edited_pyc = "__pycache__/edit.cpython-312.pyc";
        assert_ne!(ino(&csite.join(edited_pyc)), ino(&site.join(edited_pyc)));
        // A copied source keeps its mtime: the bytecode recorded for it stays valid.
        let mtime =
            |p: &Path| filetime::FileTime::from_last_modification_time(&fs::metadata(p).unwrap());
        assert_eq!(mtime(&csite.join("keep/__init__.py")), old);
        assert_eq!(
            fs::read_to_string(keep.join("bin/tool")).unwrap(),
            format!("#!{}/bin/python\nprint()\n", keep.display())
        );
        assert_eq!(fs::read_to_string(venv.join("bin/tool")).unwrap(), shebang);
        assert_eq!(
            fs::read_link(keep.join("bin/python")).unwrap(),
            PathBuf::from("/usr/bin/python3")
        );
        assert!(copy.linked_changed().is_empty());
        assert!(matches!(
            VenvCopy::make(&venv, &[], Some(&venv.join("inside"))),
            Err(CopyError::KeepInside { .. })
        ));
        assert!(!venv.join("inside").exists());
        assert!(copy.kept());
        copy.discard().unwrap();
        assert!(!keep.exists());
    }

    /// A venv with `demo` installed as a link to a folder outside it, `shared` as a relative
    /// link leaving it, `lib64 -> lib`, and an unchanged dist with a data file.
    fn linked_venv(dir: &Path) -> (PathBuf, PathBuf) {
        let venv = dir.join("venv");
        let site = venv.join("lib/python3.12/site-packages");
        let outside = dir.join("outside");
        fs::create_dir_all(outside.join("demo")).unwrap();
        fs::create_dir_all(outside.join("shared")).unwrap();
        fs::write(outside.join("demo/__init__.py"), "VERSION = 1\n").unwrap();
        fs::write(outside.join("shared/data.txt"), "old\n").unwrap();
        fs::create_dir_all(site.join("stateful")).unwrap();
        fs::write(site.join("stateful/state.txt"), "clean\n").unwrap();
        fs::create_dir_all(venv.join("bin")).unwrap();
        std::os::unix::fs::symlink(outside.join("demo"), site.join("demo")).unwrap();
        std::os::unix::fs::symlink("../../../../outside/shared", site.join("shared")).unwrap();
        std::os::unix::fs::symlink("lib", venv.join("lib64")).unwrap();
        (venv, outside)
    }

    /// Nothing written in the copy reaches the original or what its links name: a package
    /// folder linked from outside the venv (absolute or relative) is copied as a real folder,
    /// and a data file of an unchanged dist is a real copy, not a hard link (pip once wrote a
    /// new release through the link, and an import that opened its own `state.txt` with `r+`
    /// wrote through the hard link).
    #[test]
    fn writes_in_the_copy_never_reach_the_original_or_what_its_links_name() {
        let dir = tempfile::tempdir().unwrap();
        let (venv, outside) = linked_venv(dir.path());
        let keep = dir.path().join("copy");
        let copy = VenvCopy::make(&venv, &[], Some(&keep)).unwrap();
        let csite = keep.join("lib/python3.12/site-packages");
        for linked in ["demo", "shared"] {
            let meta = fs::symlink_metadata(csite.join(linked)).unwrap();
            assert!(meta.is_dir(), "{linked} is still a link in the copy");
        }
        fs::write(csite.join("demo/__init__.py"), "VERSION = 2\n").unwrap();
        fs::write(csite.join("shared/data.txt"), "new\n").unwrap();
        let mut state = fs::OpenOptions::new()
            .write(true)
            .open(csite.join("stateful/state.txt"))
            .unwrap();
        io::Write::write_all(&mut state, b"dirty\n").unwrap();
        let read = |p: PathBuf| fs::read_to_string(p).unwrap();
        assert_eq!(read(outside.join("demo/__init__.py")), "VERSION = 1\n");
        assert_eq!(read(outside.join("shared/data.txt")), "old\n");
        let site = venv.join("lib/python3.12/site-packages");
        assert_eq!(read(site.join("stateful/state.txt")), "clean\n");
        // A link inside the venv stays a link.
        assert_eq!(
            fs::read_link(keep.join("lib64")).unwrap(),
            PathBuf::from("lib")
        );
        assert!(copy.linked_changed().is_empty());
    }

    /// A link leaving the venv that names nothing is refused: a write through it from the copy
    /// would create the file outside.
    #[test]
    fn a_dangling_link_leaving_the_venv_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (venv, _) = linked_venv(dir.path());
        let site = venv.join("lib/python3.12/site-packages");
        std::os::unix::fs::symlink(dir.path().join("nowhere/x.py"), site.join("x.py")).unwrap();
        let err = VenvCopy::make(&venv, &[], None).unwrap_err();
        assert!(matches!(err, CopyError::LinkOutside { .. }), "{err}");
        assert!(!dir.path().join("nowhere").exists());
    }

    /// `--keep` with `..` (or through a link) that lands inside the venv is refused: the copy
    /// once copied itself into itself.
    #[test]
    fn keep_inside_the_venv_through_dots_or_links_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (venv, _) = linked_venv(dir.path());
        fs::create_dir_all(dir.path().join("other")).unwrap();
        std::os::unix::fs::symlink(&venv, dir.path().join("alias")).unwrap();
        for keep in [
            dir.path().join("other/../venv/inside"),
            dir.path().join("alias/inside"),
            dir.path().join("other/../venv/lib/../new/deeper"),
        ] {
            let err = VenvCopy::make(&venv, &[], Some(&keep)).unwrap_err();
            assert!(
                matches!(err, CopyError::KeepInside { .. }),
                "{}: {err}",
                keep.display()
            );
        }
        assert!(!venv.join("inside").exists() && !venv.join("new").exists());
    }

    /// Copies left by killed runs (hard links into the venv) stayed forever: the next copy
    /// removes those whose run is gone, and only those.
    #[test]
    fn copies_left_by_killed_runs_are_removed_by_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let make = |name: &str, owner: Option<String>| {
            let copy = dir.path().join(name);
            fs::create_dir_all(copy.join("venv/lib")).unwrap();
            fs::write(copy.join("venv/lib/x.py"), "x").unwrap();
            if let Some(pid) = owner {
                fs::write(copy.join(OWNER), pid).unwrap();
            }
            copy
        };
        let killed = make("planner-try-killed", Some("2147483646".to_string()));
        let beside = make(".planner-try-killed", Some("2147483645".to_string()));
        let running = make("planner-try-running", Some(std::process::id().to_string()));
        let unknown = make("planner-try-unknown", None);
        let other = make("someone-else", Some("2147483646".to_string()));
        clean_stale(dir.path());
        assert!(!killed.exists() && !beside.exists());
        assert!(running.exists() && unknown.exists() && other.exists());
    }

    /// The removal on threads takes the whole tree, folders of every depth and links, and never
    /// goes through a link: what a link names outside the copy stays.
    #[test]
    fn a_copy_is_removed_whole_and_never_through_its_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("data.txt"), "keep").unwrap();
        let root = dir.path().join("copy");
        for i in 0..300 {
            let deep = root.join(format!("lib/p{}/q{i}/r", i % 7));
            fs::create_dir_all(&deep).unwrap();
            fs::write(deep.join("m.py"), "x = 1\n").unwrap();
            fs::write(root.join(format!("lib/p{}/q{i}/f.txt", i % 7)), "y").unwrap();
        }
        std::os::unix::fs::symlink(&outside, root.join("lib/to-folder")).unwrap();
        std::os::unix::fs::symlink(outside.join("data.txt"), root.join("lib/to-file")).unwrap();
        remove_all(&root).unwrap();
        assert!(!root.exists());
        assert_eq!(
            fs::read_to_string(outside.join("data.txt")).unwrap(),
            "keep"
        );
        remove_all(&root).unwrap(); // gone already: not an error
    }
}
