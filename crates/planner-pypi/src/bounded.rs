//! The one reader of local files that someone else wrote (installed `METADATA`, `RECORD`,
//! `top_level.txt`, a local index's pages and release files, cache entries): only regular files,
//! and never more than a cap.
//!
//! In: a path and a byte limit. Out: the file's bytes, or a [`ReadError`] that says what the
//! path is instead (missing, a dangling symlink, a symlink loop, a FIFO or device, over the
//! limit). The file is opened non-blocking, so a FIFO never hangs the open, and checked on the
//! open handle (no window between the check and the read); the read stops one byte past the
//! limit, so `/dev/zero` or a growing file cannot take memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a local file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing at the path.
    NotFound,
    /// A symlink whose target does not exist (the target, as the link says it).
    Dangling(std::path::PathBuf),
    /// A symlink that leads back to itself (or through more than the OS allows).
    Loop,
    /// Not a regular file: a folder, FIFO, socket or device (which one).
    NotRegular(&'static str),
    /// Larger than the limit (`seen` bytes read or stated before stopping).
    TooLarge {
        /// Bytes read (or the size the file states), more than `limit`.
        seen: u64,
        /// The limit.
        limit: u64,
    },
    /// Any other IO error.
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("does not exist"),
            ReadError::Dangling(target) => write!(
                f,
                "is a symlink to {}, which does not exist",
                target.display()
            ),
            ReadError::Loop => f.write_str("is a symlink loop (it leads back to itself)"),
            ReadError::NotRegular(kind) => write!(f, "is a {kind}, not a regular file"),
            ReadError::TooLarge { seen, limit } => write!(
                f,
                "is over the {limit}-byte limit ({seen} bytes or more); a file this large is \
                 not what it should be"
            ),
            ReadError::Io(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

impl ReadError {
    /// This error as a [`std::io::Error`] for callers whose errors carry one: what is wrong
    /// with the path becomes the message, and a missing file keeps
    /// [`std::io::ErrorKind::NotFound`].
    pub fn into_io(self) -> std::io::Error {
        match self {
            ReadError::Io(io) => io,
            ReadError::NotFound => {
                std::io::Error::new(std::io::ErrorKind::NotFound, self.to_string())
            }
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        }
    }

    /// Whether the path holds nothing (missing, or a symlink to nothing).
    pub fn is_missing(&self) -> bool {
        matches!(self, ReadError::NotFound | ReadError::Dangling(_))
    }
}

/// The bytes of the regular file at `path` (symlinks followed), at most `limit` of them.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
    let stated = file.metadata().map(|m| m.len()).unwrap_or(0);
    if stated > limit {
        return Err(ReadError::TooLarge {
            seen: stated,
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(stated).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            seen: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// The first `limit` bytes at most of the regular file at `path` (the rest is not read: for
/// scans that look for a name in a file's head).
pub fn read_prefix(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read(path, limit)?).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        ))
    })
}

/// The cap for a file a person wrote and planner reads whole: a config file, a policy, a
/// requirements file, a netrc, a plan or a snapshot. Far above any real one, low enough that a
/// wrong path (a disk image, `/dev/zero`) fails at once instead of filling memory.
pub const USER_FILE_LIMIT: u64 = 256 << 20;

/// [`read_text`] for callers whose errors carry a [`std::io::Error`] (see
/// [`ReadError::into_io`]).
pub fn read_to_string(path: &Path, limit: u64) -> std::io::Result<String> {
    read_text(path, limit).map_err(ReadError::into_io)
}

/// What is at `path`, symlinks followed; the error says what is wrong with a path that leads
/// nowhere (missing, a dangling symlink, a loop).
pub fn stat(path: &Path) -> Result<std::fs::Metadata, ReadError> {
    std::fs::metadata(path).map_err(|e| classify(path, e))
}

/// The regular file at `path`, opened for reading (a FIFO is opened without waiting for a
/// writer, then refused).
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    let file = open_nonblocking(path).map_err(|e| classify(path, e))?;
    let file_type = file.metadata().map_err(ReadError::Io)?.file_type();
    if !file_type.is_file() {
        return Err(ReadError::NotRegular(kind_of(&file_type)));
    }
    Ok(file)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// An open error in words: a missing path, a dangling symlink or a loop.
fn classify(path: &Path, e: std::io::Error) -> ReadError {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return ReadError::Loop;
    }
    if e.kind() == std::io::ErrorKind::NotFound {
        return match std::fs::read_link(path) {
            Ok(target) => ReadError::Dangling(target),
            Err(_) => ReadError::NotFound,
        };
    }
    ReadError::Io(e)
}

/// What a non-regular file is, in words.
pub fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "device";
        }
    }
    if file_type.is_dir() {
        return "folder";
    }
    "special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_and_refuses_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read(&file, 5).unwrap(), b"12345");
        assert!(matches!(
            read(&file, 4),
            Err(ReadError::TooLarge { seen: 5, limit: 4 })
        ));
        assert!(matches!(
            read(&dir.path().join("none"), 9),
            Err(ReadError::NotFound)
        ));
        assert!(matches!(
            read(dir.path(), 9),
            Err(ReadError::NotRegular("folder"))
        ));
        #[cfg(unix)]
        {
            let link = |target: &str, name: &str| {
                let path = dir.path().join(name);
                std::os::unix::fs::symlink(target, &path).unwrap();
                path
            };
            // /dev/zero never ends: refused as a device, nothing read.
            let zero = link("/dev/zero", "zero");
            assert!(matches!(
                read(&zero, 9),
                Err(ReadError::NotRegular("device"))
            ));
            let dangling = link("missing-target", "dangling");
            let err = read(&dangling, 9).unwrap_err();
            assert!(err.is_missing());
            assert!(err.to_string().contains("missing-target"), "{err}");
            let looped = link("looped", "looped");
            assert!(matches!(read(&looped, 9), Err(ReadError::Loop)));
            // A FIFO with no writer: opening it for reading would block; it is refused at once.
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            let started = std::time::Instant::now();
            assert!(matches!(read(&fifo, 9), Err(ReadError::NotRegular(k)) if k.contains("FIFO")));
            assert!(started.elapsed() < std::time::Duration::from_secs(5));
        }
    }
}
