//! The on-disk cache of index replies.
//!
//! In: a bucket (pages, metadata), the redacted URL a reply came from, the reply's validators
//! and body. Out: the same, later, when the entry is intact.
//!
//! Layout: `<root>/v3/<bucket>/<sha256>`, where the hash is of the bucket and the *redacted*
//! URL, so no server-chosen name or credential ever becomes a path (reliability 32, 34). One
//! folder per bucket: v2 put each entry in a folder named by its hash's first two digits, so a
//! cold run created a folder for nearly every entry it wrote
//! (docs/measurements/2026-12-01-propose-all-and-cold-resolves.md, "One cache folder per
//! bucket"). Each entry is `planner-cache v3\n`, one JSON header line (the key,
//! validators, fetch time, the body's length and CRC-32), then the body. An entry whose magic,
//! key, length or checksum is wrong is treated as missing and refetched (docs/reliability.md, item 29). Entries are
//! written to a temp file in the same folder and renamed into place, so two planners at once
//! see either the old or the new entry, never half of one (item 30). If the folder cannot be
//! created or written (read-only, a file, disk full) the planner warns once and runs uncached
//! (item 28).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::hashes::hex;
use crate::printer::Printer;

const MAGIC: &[u8] = b"planner-cache v3\n";
const SCHEMA: &str = "v3";

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bucket {
    /// Project pages, compact (revalidated).
    Pages,
    /// Core metadata of release files (immutable).
    Metadata,
}

impl Bucket {
    fn dir(self) -> &'static str {
        match self {
            // Project pages in their compact form (`super::compact`); until then, whole pages
            // were kept under `pages` and parsed on every read.
            Bucket::Pages => "projects",
            Bucket::Metadata => "metadata",
        }
    }
}

/// The header of one entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct EntryMeta {
    /// The redacted URL (checked on read against the one asked for).
    pub key: String,
    /// `ETag` of the reply.
    pub etag: Option<String>,
    /// `Last-Modified` of the reply.
    pub last_modified: Option<String>,
    /// `Content-Type` of the reply.
    pub content_type: Option<String>,
    /// When it was fetched or last revalidated (Unix seconds).
    pub fetched_at: i64,
    /// Seconds it stays fresh without revalidation.
    pub max_age: u64,
    /// Body length.
    pub len: u64,
    /// Body CRC-32 (a checksum against corruption, cheap enough to check on every read of a
    /// multi-megabyte page).
    pub crc32: u32,
}

impl EntryMeta {
    /// Whether it may be used without asking the server.
    pub(crate) fn is_fresh(&self, now: i64) -> bool {
        now >= self.fetched_at && now - self.fetched_at < self.max_age as i64
    }
}

/// A cache folder, or none (uncached).
#[derive(Debug)]
pub(crate) struct Cache {
    root: Option<PathBuf>,
    writable: AtomicBool,
    /// Whether this run has looked for temp files killed writers left ([`sweep_orphans`]).
    swept: AtomicBool,
    printer: Printer,
}

impl Cache {
    /// A cache at `root` (`None`: uncached).
    pub(crate) fn new(root: Option<PathBuf>, printer: Printer) -> Cache {
        Cache {
            root,
            writable: AtomicBool::new(true),
            swept: AtomicBool::new(false),
            printer,
        }
    }

    /// The folder, if caching.
    pub(crate) fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    fn path(&self, bucket: Bucket, key: &str) -> Option<PathBuf> {
        let root = self.root.as_ref()?;
        let mut hasher = Sha256::new();
        hasher.update(bucket.dir().as_bytes());
        hasher.update([0]);
        hasher.update(key.as_bytes());
        let hash = hex(&hasher.finalize());
        Some(root.join(SCHEMA).join(bucket.dir()).join(hash))
    }

    /// The entry for `key`, if present and intact.
    pub(crate) fn read(&self, bucket: Bucket, key: &str) -> Option<(EntryMeta, Body)> {
        let (meta, body) = self.read_framed(bucket, key)?;
        body.is_intact(&meta).then_some((meta, body))
    }

    /// The entry for `key`, if present and of its stated length, its checksum not verified: for
    /// a body that carries checksums of its own and is read in parts (a compact page, whose
    /// reader checks each part it uses), so that a warm run does not read a whole
    /// multi-megabyte page to use a few of its files. Anything else is checked with
    /// [`Body::is_intact`] before use.
    pub(crate) fn read_framed(&self, bucket: Bucket, key: &str) -> Option<(EntryMeta, Body)> {
        let path = self.path(bucket, key)?;
        let bytes = Stored::read(&path)?;
        let rest = bytes.strip_prefix(MAGIC)?;
        let newline = memchr::memchr(b'\n', rest)?;
        let meta: EntryMeta = serde_json::from_slice(&rest[..newline]).ok()?;
        let start = MAGIC.len() + newline + 1;
        if meta.key != key || meta.len != (bytes.len() - start) as u64 {
            return None;
        }
        Some((meta, Body { bytes, start }))
    }

    /// Store an entry (the body's length and checksum are filled in). Failures turn caching
    /// off with one warning.
    pub(crate) fn write(&self, bucket: Bucket, mut meta: EntryMeta, body: &[u8]) {
        if !self.writable.load(Ordering::Relaxed) {
            return;
        }
        let Some(path) = self.path(bucket, &meta.key) else {
            return;
        };
        if !self.swept.swap(true, Ordering::Relaxed)
            && let Some(root) = &self.root
        {
            sweep_orphans(&root.join(SCHEMA), std::time::SystemTime::now());
        }
        meta.len = body.len() as u64;
        meta.crc32 = crc32fast::hash(body);
        if let Err(err) = write_atomic(&path, &meta, body)
            && self.writable.swap(false, Ordering::Relaxed)
        {
            let root = self.root.as_deref().unwrap_or(Path::new(""));
            self.printer.warn(&format!(
                "cannot write the cache at {} ({err}); running uncached",
                root.display()
            ));
        }
    }
}

/// Entries at least this large are mapped rather than read: a copy of a multi-megabyte page
/// costs fresh memory the kernel must zero first, and a mapped page is read only where it is
/// used; a small entry is cheaper to read than to map.
const MAP_AT: u64 = 64 * 1024;

/// An entry's bytes: mapped from its file, or read into memory.
enum Stored {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl Stored {
    #[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
    fn read(path: &Path) -> Option<Stored> {
        // A regular file only: anything else where an entry belongs is a miss (and replaced
        // on the next write, `write_atomic`).
        let mut file = crate::bounded::open_regular(path).ok()?;
        let len = file.metadata().ok()?.len();
        if len < MAP_AT {
            let mut bytes = Vec::with_capacity(len as usize);
            std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
            return Some(Stored::Read(bytes));
        }
        // SAFETY: entries are never written in place: every write goes to a temp file renamed
        // over the entry, so a mapped file keeps its bytes while mapped (a run that replaces an
        // entry replaces the name, not the inode). Checksums are verified before any use.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        Some(Stored::Mapped(map))
    }
}

impl std::ops::Deref for Stored {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Stored::Mapped(map) => map,
            Stored::Read(bytes) => bytes,
        }
    }
}

/// The body of an entry read back (checked against its length and checksum), in place in the
/// entry's bytes: no second copy of a multi-megabyte page.
pub(crate) struct Body {
    bytes: Stored,
    start: usize,
}

impl Body {
    /// Whether the body matches its header's checksum.
    pub(crate) fn is_intact(&self, meta: &EntryMeta) -> bool {
        meta.crc32 == crc32fast::hash(self)
    }

    /// Let the kernel take back the pages of a mapped body read so far: they stay in the page
    /// cache, and a later read maps them again. For a body kept to read a few parts of later
    /// (the records of a compact page's kept files), so that what was read once to decode it
    /// does not stay in the process's resident memory.
    #[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
    pub(crate) fn release_resident(&self) {
        if let Stored::Mapped(map) = &self.bytes {
            // SAFETY: the mapping is read-only and shared, of a file that is never written in
            // place (see `Stored::read`): MADV_DONTNEED only drops its page table entries, and
            // a later read maps the same bytes again from the file.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

impl std::ops::Deref for Body {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[self.start..]
    }
}

/// Remove what is at an entry's path when it is not a regular file or a symlink (a folder, a
/// FIFO: a rename cannot replace a folder, so every later run would miss that entry). The path
/// is a hash inside the cache's own bucket folder, so nothing else is ever named by it.
fn clear_non_file(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => std::fs::remove_file(path),
        _ => Ok(()),
    }
}

/// How old a writer's temp file must be to count as left by a killed run: no entry takes
/// this long to write.
const ORPHAN_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Remove the temp files (`.tmp*`) that writers killed mid-write left in the buckets under
/// `schema_dir` (done by the first write of a run: one listing of each bucket); a temp file
/// younger than [`ORPHAN_AGE`], or stamped after `now`, may be a concurrent run's and is kept.
/// Best effort: a failure leaves the files for the next run.
fn sweep_orphans(schema_dir: &Path, now: std::time::SystemTime) {
    // `None`: no such file, or a time after `now` (a file another run is writing right now).
    let age = |path: &Path| {
        std::fs::symlink_metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
    };
    let buckets = std::fs::read_dir(schema_dir)
        .into_iter()
        .flatten()
        .flatten();
    for bucket in buckets.filter(|b| b.file_type().is_ok_and(|t| t.is_dir())) {
        for entry in std::fs::read_dir(bucket.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with(".tmp")
                && age(&path).is_some_and(|a| a >= ORPHAN_AGE)
            {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

fn write_atomic(path: &Path, meta: &EntryMeta, body: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(MAGIC)?;
    // A cache entry's header, not an output document: compact, read back only by `read_entry`.
    #[allow(clippy::disallowed_methods)]
    serde_json::to_writer(&mut tmp, meta)?;
    tmp.write_all(b"\n")?;
    tmp.write_all(body)?;
    tmp.as_file().sync_data()?;
    clear_non_file(path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The platform cache folder for planner: `$XDG_CACHE_HOME/planner` or `~/.cache/planner` on
/// Linux, `~/Library/Caches/planner` on macOS, `%LOCALAPPDATA%\planner\cache` on Windows.
pub(crate) fn default_dir(get: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let non_empty = |k: &str| get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        return non_empty("LOCALAPPDATA").map(|d| d.join("planner").join("cache"));
    }
    if cfg!(target_os = "macos") {
        return non_empty("HOME").map(|h| h.join("Library/Caches/planner"));
    }
    non_empty("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .map(|d| d.join("planner"))
        .or_else(|| non_empty("HOME").map(|h| h.join(".cache/planner")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(key: &str) -> EntryMeta {
        EntryMeta {
            key: key.to_string(),
            etag: Some("\"e1\"".to_string()),
            last_modified: None,
            content_type: Some("application/json".to_string()),
            fetched_at: 100,
            max_age: 600,
            len: 0,
            crc32: 0,
        }
    }

    /// A temp file a killed writer left an hour ago goes at the next run's first write; one a
    /// concurrent run is writing (even one stamped after the sweep read the clock) stays.
    #[test]
    fn temp_files_killed_writers_left_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let pages = dir.path().join(SCHEMA).join(Bucket::Pages.dir());
        std::fs::create_dir_all(&pages).unwrap();
        let (orphan, fresh) = (pages.join(".tmpKILLED"), pages.join(".tmpWRITING"));
        // Written an hour before, and (as a concurrent run's file can be) a moment after the
        // sweep reads the clock.
        let two_hours_ago = std::time::SystemTime::now() - 2 * ORPHAN_AGE;
        let in_a_minute = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        for (path, time) in [(&orphan, two_hours_ago), (&fresh, in_a_minute)] {
            std::fs::write(path, b"half an entry").unwrap();
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(time).unwrap();
        }
        let cache = Cache::new(Some(dir.path().to_path_buf()), Printer::new(true));
        cache.write(Bucket::Pages, meta("https://x/simple/a/"), b"body");
        assert!(!orphan.exists() && fresh.exists());
        assert!(cache.read(Bucket::Pages, "https://x/simple/a/").is_some());
        // Nothing but entries and writers' temp files lives in the cache.
        assert_eq!(std::fs::read_dir(&pages).unwrap().count(), 2);
    }

    #[test]
    fn round_trips_and_rejects_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(Some(dir.path().to_path_buf()), Printer::new(true));
        cache.write(Bucket::Pages, meta("https://x/simple/a/"), b"body");
        let (m, body) = cache.read(Bucket::Pages, "https://x/simple/a/").unwrap();
        assert_eq!(&*body, b"body");
        assert!(m.is_fresh(200) && !m.is_fresh(800));
        assert!(
            cache
                .read(Bucket::Metadata, "https://x/simple/a/")
                .is_none()
        );
        // Flip one body byte: the checksum no longer matches.
        let path = cache.path(Bucket::Pages, "https://x/simple/a/").unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert!(cache.read(Bucket::Pages, "https://x/simple/a/").is_none());
        // A foreign file in place of an entry.
        std::fs::write(&path, b"something else").unwrap();
        assert!(cache.read(Bucket::Pages, "https://x/simple/a/").is_none());
    }

    /// A folder (or a FIFO) where an entry belongs is a miss, never a hang, and the
    /// next write replaces it; before, a folder there was never repaired and every later
    /// `--offline` run failed.
    #[test]
    #[allow(unsafe_code)] // libc::mkfifo makes the FIFO the test reads
    fn a_folder_or_fifo_where_an_entry_belongs_is_a_miss_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(Some(dir.path().to_path_buf()), Printer::new(true));
        let key = "https://x/simple/a/";
        cache.write(Bucket::Pages, meta(key), b"body");
        let path = cache.path(Bucket::Pages, key).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir_all(path.join("inner")).unwrap();
        assert!(cache.read(Bucket::Pages, key).is_none());
        cache.write(Bucket::Pages, meta(key), b"body");
        assert_eq!(&*cache.read(Bucket::Pages, key).unwrap().1, b"body");
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(cache.read(Bucket::Pages, key).is_none());
        cache.write(Bucket::Pages, meta(key), b"again");
        assert_eq!(&*cache.read(Bucket::Pages, key).unwrap().1, b"again");
    }

    #[test]
    fn large_entries_are_mapped_and_checked_alike() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(Some(dir.path().to_path_buf()), Printer::new(true));
        let body: Vec<u8> = (0..MAP_AT as usize * 2).map(|i| (i % 251) as u8).collect();
        cache.write(Bucket::Pages, meta("k"), &body);
        let (_, read) = cache.read(Bucket::Pages, "k").unwrap();
        assert!(matches!(read.bytes, Stored::Mapped(_)));
        assert_eq!(&*read, &body[..]);
        drop(read);
        let path = cache.path(Bucket::Pages, "k").unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(cache.read(Bucket::Pages, "k").is_none());
        std::fs::write(&path, &bytes[..middle]).unwrap();
        assert!(cache.read(Bucket::Pages, "k").is_none());
    }

    #[test]
    fn paths_are_hashes() {
        let cache = Cache::new(Some(PathBuf::from("/c")), Printer::new(true));
        let p = cache
            .path(Bucket::Metadata, "https://h/../../etc/passwd")
            .unwrap();
        let name = p.file_name().unwrap().to_str().unwrap();
        assert_eq!(name.len(), 64);
        assert_eq!(p.parent(), Some(Path::new("/c/v3/metadata")));
    }

    #[test]
    fn unwritable_cache_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        let cache = Cache::new(Some(file), Printer::new(true));
        cache.write(Bucket::Pages, meta("k"), b"body");
        assert!(!cache.writable.load(Ordering::Relaxed));
        assert!(cache.read(Bucket::Pages, "k").is_none());
    }
}
