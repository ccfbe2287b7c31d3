//! The PKG-INFO of an sdist: `.tar.gz`, `.tgz`, `.tar` or `.zip`, read in memory.
//!
//! In: the archive's file name (for its format) and bytes. Out: the bytes of `<top>/PKG-INFO`, or
//! `None` when there is none; errors are [`SdistError`]s that the caller wraps with the file and
//! URL. No IO: `metadata_fetch` fetches the archive and decides whether PKG-INFO can be trusted.

use std::io::Read;

use super::zip::{ZipError, zip_member};

/// Why an sdist's PKG-INFO could not be read. The caller names the file and URL.
#[derive(Debug, thiserror::Error)]
pub enum SdistError {
    /// A `.zip` sdist the zip reader refused.
    #[error(transparent)]
    Zip(#[from] ZipError),
    /// A tar stream the `tar` crate (or the gzip decoder) refused.
    #[error("tar stream: {0}")]
    Tar(std::io::Error),
    /// A tar member shorter than its header says.
    #[error("tar stream: member cut short ({found} of {size} bytes)")]
    TarMemberShort {
        /// The bytes read.
        found: usize,
        /// The size its header declares.
        size: u64,
    },
    /// The archive inflates to more than its limit ([`inflated_limit`]) before its PKG-INFO.
    #[error(
        "the sdist inflates to more than {limit} bytes before its PKG-INFO, more than 32 times \
         its size (a compression bomb)"
    )]
    Inflated {
        /// The limit.
        limit: u64,
    },
    /// The run's deadline passed while the archive was read.
    #[error("the run's deadline (PLANNER_RUN_TIMEOUT) passed while the sdist was read")]
    Deadline,
    /// Neither `.tar.gz`, `.tgz`, `.tar` nor `.zip`.
    #[error("unsupported sdist archive format")]
    Format,
}

/// The most bytes a tar sdist of `compressed` bytes is read through (inflated) to reach its
/// PKG-INFO: 32 times its size (source text compresses 3 to 10 times), at least 64 MiB and at
/// most 4 GiB; a compression bomb inflates a thousand times.
pub fn inflated_limit(compressed: u64) -> u64 {
    compressed
        .saturating_mul(32)
        .clamp(64 * 1024 * 1024, 4 * 1024 * 1024 * 1024)
}

/// Why [`Inflating`] stopped a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Inflated,
    Deadline,
}

/// A reader that stops with an error past `limit` bytes or `deadline`, and says which
/// in `stopped` (the `tar` crate passes the IO error on, wrapped or not).
struct Inflating<'a, R> {
    inner: R,
    read: u64,
    limit: u64,
    deadline: Option<std::time::Instant>,
    stopped: &'a std::cell::Cell<Option<Stop>>,
}

impl<R: Read> Read for Inflating<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let stop = |why: Stop| {
            self.stopped.set(Some(why));
            Err(std::io::Error::other("sdist read stopped"))
        };
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return stop(Stop::Deadline);
        }
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return stop(Stop::Inflated);
        }
        Ok(n)
    }
}

/// `<top>/PKG-INFO` out of an sdist named `name`, read through at most [`inflated_limit`] bytes
/// (a tar) and stopped at `deadline`.
pub fn pkg_info(
    name: &str,
    bytes: &[u8],
    deadline: Option<std::time::Instant>,
) -> Result<Option<Vec<u8>>, SdistError> {
    top_member(name, bytes, deadline, "PKG-INFO")
}

/// `<top>/<member>` (`PKG-INFO`, `pyproject.toml`) out of an sdist named `name`, read as
/// [`pkg_info`] reads.
pub fn top_member(
    name: &str,
    bytes: &[u8],
    deadline: Option<std::time::Instant>,
    member: &str,
) -> Result<Option<Vec<u8>>, SdistError> {
    let stopped = std::cell::Cell::new(None);
    let limit = inflated_limit(bytes.len() as u64);
    let bounded = |inner| Inflating {
        inner,
        read: 0,
        limit,
        deadline,
        stopped: &stopped,
    };
    let is_member = |path: &str| {
        let mut parts = path.trim_start_matches("./").split('/');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(_), Some(found), None) if found == member
        )
    };
    let read = if name.ends_with(".zip") {
        return Ok(zip_member(bytes, is_member)?);
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        let inflated = flate2::read::GzDecoder::new(bytes);
        tar_member(bounded(Box::new(inflated) as Box<dyn Read>), is_member)
    } else if name.ends_with(".tar") {
        tar_member(bounded(Box::new(bytes) as Box<dyn Read>), is_member)
    } else {
        return Err(SdistError::Format);
    };
    match stopped.get() {
        Some(Stop::Inflated) => Err(SdistError::Inflated { limit }),
        Some(Stop::Deadline) => Err(SdistError::Deadline),
        None => read,
    }
}

/// The largest tar member read (a PKG-INFO is a few kB; the metadata cap applies after).
const MAX_MEMBER_BYTES: u64 = 64 << 20;

/// The first regular file of a tar stream whose path `want`s, through the `tar` crate (ustar,
/// GNU long names, pax paths and sizes, base-256 sizes). A wanted member over
/// [`MAX_MEMBER_BYTES`] is skipped; a stream cut short or a bad header is an error.
pub fn tar_member(
    reader: impl Read,
    want: impl Fn(&str) -> bool,
) -> Result<Option<Vec<u8>>, SdistError> {
    let tar_error = SdistError::Tar;
    let mut archive = tar::Archive::new(reader);
    for entry in archive.entries().map_err(tar_error)? {
        let entry = entry.map_err(tar_error)?;
        if !entry.header().entry_type().is_file() || entry.size() > MAX_MEMBER_BYTES {
            continue;
        }
        if !want(&String::from_utf8_lossy(&entry.path_bytes())) {
            continue;
        }
        let size = entry.size();
        let mut data = Vec::with_capacity(size.min(1 << 20) as usize);
        entry.take(size).read_to_end(&mut data).map_err(tar_error)?;
        if data.len() as u64 != size {
            return Err(SdistError::TarMemberShort {
                found: data.len(),
                size,
            });
        }
        return Ok(Some(data));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &[u8] = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n";

    #[test]
    fn reads_pkg_info_from_a_tarball() {
        let mut tar = Vec::new();
        for (name, data) in [
            ("demo-1.0/setup.py", &b"pass\n"[..]),
            ("demo-1.0/PKG-INFO", META),
        ] {
            let mut h = [0u8; 512];
            h[..name.len()].copy_from_slice(name.as_bytes());
            let size = format!("{:011o}\0", data.len());
            h[124..136].copy_from_slice(size.as_bytes());
            h[156] = b'0';
            h[257..263].copy_from_slice(b"ustar\0");
            h[148..156].fill(b' ');
            let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
            h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
            tar.extend(h);
            tar.extend(data);
            tar.extend(vec![0; (512 - data.len() % 512) % 512]);
        }
        tar.extend([0; 1024]);
        let got = tar_member(&tar[..], |p| p == "demo-1.0/PKG-INFO").unwrap();
        assert_eq!(got.as_deref(), Some(META));
        assert_eq!(tar_member(&tar[..], |p| p == "nope").unwrap(), None);
    }

    /// The sdists `testdata/sdist/make.py` wrote with Python's `tarfile`.
    fn recorded(name: &str) -> Vec<u8> {
        // The repository's testdata/, found from this crate's folder up.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let path = root
            .ancestors()
            .map(|d| d.join("testdata/sdist"))
            .find(|d| d.is_dir());
        let path = path.unwrap();
        std::fs::read(path.join(name)).unwrap()
    }

    const RECORDED_META: &[u8] =
        b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nSummary: a pax sdist\n";

    #[test]
    fn a_pax_sdist_is_read_by_its_pax_path_and_size() {
        let got = pkg_info("demo-1.0.tar.gz", &recorded("pax.tar.gz"), None).unwrap();
        assert_eq!(got.as_deref(), Some(RECORDED_META));
    }

    #[test]
    fn base_256_sizes_are_read() {
        let got = pkg_info("demo-1.0.tar.gz", &recorded("base256.tar.gz"), None).unwrap();
        assert_eq!(got.as_deref(), Some(RECORDED_META));
    }

    #[test]
    fn a_gnu_long_name_names_the_member_after_it() {
        let got = pkg_info("demo-1.0.tar.gz", &recorded("gnu-longname.tar.gz"), None).unwrap();
        assert_eq!(got.as_deref(), Some(RECORDED_META));
    }

    #[test]
    fn a_stream_cut_inside_a_member_is_an_error() {
        let raw = {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&recorded("base256.tar.gz")[..])
                .read_to_end(&mut out)
                .unwrap();
            out
        };
        // setup.py's header and data, then PKG-INFO's header and 20 of its 67 bytes.
        let cut = &raw[..512 + 512 + 512 + 20];
        let err = tar_member(cut, |p| p.ends_with("/PKG-INFO")).unwrap_err();
        assert!(err.to_string().starts_with("tar stream:"), "{err}");
    }

    /// A gzip bomb (gigabytes of zeros before PKG-INFO) took 83 s of CPU past the run's
    /// deadline: the read stops at the inflated cap, and at the deadline.
    #[test]
    fn a_gzip_bomb_stops_at_the_cap_and_at_the_deadline() {
        use std::io::Write as _;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut header = tar::Header::new_gnu();
        header.set_size(inflated_limit(0) + (1 << 20));
        header.set_entry_type(tar::EntryType::Regular);
        header.set_path("demo-1.0/zeros").unwrap();
        header.set_cksum();
        gz.write_all(header.as_bytes()).unwrap();
        let block = vec![0u8; 1 << 20];
        for _ in 0..(inflated_limit(0) >> 20) + 2 {
            gz.write_all(&block).unwrap();
        }
        let bomb = gz.finish().unwrap();
        let started = std::time::Instant::now();
        let err = pkg_info("demo-1.0.tar.gz", &bomb, None).unwrap_err();
        assert!(matches!(err, SdistError::Inflated { .. }), "{err}");
        let past = std::time::Instant::now();
        let err = pkg_info("demo-1.0.tar.gz", &bomb, Some(past)).unwrap_err();
        assert!(matches!(err, SdistError::Deadline), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }
}
