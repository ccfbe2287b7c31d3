//! Core metadata of one release file, without downloading wheels where the index allows: the
//! order of metadata sources.
//!
//! In: a [`DistFile`] and a [`Client`]. Out: the metadata bytes (for the cache) and their parsed
//! form, checked against the file (name and version must agree) and tagged with its
//! [`MetadataSource`].
//!
//! The order (docs/index.md, "Metadata without downloads"):
//! 1. The PEP 658 `<file>.metadata`, checked against the advertised hash; asked for even when not
//!    advertised, since some indexes serve unadvertised ones. A remote wheel whose `.metadata`
//!    is not advertised is tried by range reads (2) first, as uv does, and goes through this
//!    order only when they give no metadata that checks (see [`fetch`]).
//! 2. Wheels: a range read of the zip's tail, its central directory and the
//!    `*.dist-info/METADATA` entry (1-3 requests, even for a 500 MB wheel); the zip itself is
//!    read by `super::zip`. A read of at most 128 KiB that takes only the range (not a whole
//!    wheel from a server that ignores `Range`) and has no answer after the hedge delay is sent
//!    once more ([`Client::get_hedged`]).
//! 3. Wheels, when the server ignores `Range`: the whole wheel, read the same way.
//! 4. Sdists: `PKG-INFO` out of the archive (read by `super::sdist`), trusted only when it is
//!    Metadata-Version >= 2.2 and `Requires-Dist` is not `Dynamic` (PEP 643); nothing is ever
//!    built.
//!
//! Every whole file downloaded (a wheel whose server ignores `Range`, an sdist) is checked against
//! the index's hash before anything is read from it ([`verify_download`]); a mismatch is an error
//! and nothing is cached. Range reads cannot be hashed (only part of the file is read); the
//! METADATA they yield is still checked against the file's name and version.

use std::collections::HashMap;

use pep508_rs::PackageName;
use sha2::{Digest, Sha256, Sha384, Sha512};
use url::Url;

use super::auth::redact;
use super::cache::{hex, sha256_hex};
use super::client::{BodyKind, ByteRange, Client, Reply, RequestOptions};
use super::zip::{
    Eocd, Window, ZipEntry, extract, find_eocd, lookup, parse_central_directory,
    parse_central_directory_prefix,
};
use super::{DistFile, DistFilename, IndexError};
use crate::metadata::CoreMetadata;

/// How many bytes the first range read takes from a wheel's end (the EOCD, and for most wheels
/// the whole central directory and the METADATA entry too).
const TAIL: u64 = 64 * 1024;

/// A wheel the index lists at this size or more is read as a large one from the start
/// ([`TailHints::is_large`]): its `.metadata` file is raced with the range reads, and its head
/// is read beside its tail. torch's first wheel read by a solve (530 MB) then costs one round
/// trip where its central directory (1.2 MB) and METADATA took three.
const LARGE_WHEEL: u64 = 64 * 1024 * 1024;

/// How many bytes [`head`] reads from a large wheel's start.
const HEAD: u64 = 128 * 1024;

/// How many bytes of a large wheel's central directory are read first when its `.dist-info`
/// comes first ([`large_wheel_metadata`]); torch 2.5's METADATA entry lies in the first 1 KB.
const CD_PREFIX: u64 = 64 * 1024;

/// The most a learned first range read takes ([`TailHints`]).
const MAX_TAIL: u64 = 4 * 1024 * 1024;

/// Where metadata came from (for tests and `-v` style notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MetadataSource {
    /// A PEP 658 `.metadata` file.
    MetadataFile,
    /// Range reads of the wheel.
    RangeRead,
    /// The whole wheel.
    WholeWheel,
    /// An sdist's PKG-INFO.
    SdistPkgInfo,
}

impl std::fmt::Display for MetadataSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MetadataSource::MetadataFile => "the PEP 658 .metadata file",
            MetadataSource::RangeRead => "range reads of the wheel",
            MetadataSource::WholeWheel => "the whole wheel (the server ignores Range)",
            MetadataSource::SdistPkgInfo => "the sdist's PKG-INFO",
        })
    }
}

/// How many bytes the first range read of a project's next wheel takes, learned from the
/// project's wheels read so far in this run: a wheel whose central directory (and METADATA)
/// lay in its last N bytes makes the next read take about N, so that one request instead of
/// three reads a torch wheel of another release (its central directory alone is 1.2 MB; an
/// unsatisfiable request's hint reads up to 30 of them). Only the number of requests depends
/// on it, never what is read from them.
#[derive(Debug, Default)]
pub(crate) struct TailHints(std::sync::Mutex<HashMap<PackageName, u64>>);

impl TailHints {
    fn tail(&self, file: &DistFile) -> u64 {
        let hints = self.0.lock().unwrap_or_else(|e| e.into_inner());
        hints.get(file.filename.name()).copied().unwrap_or(TAIL)
    }

    /// Whether `file` is a large wheel: the index lists it at [`LARGE_WHEEL`] bytes or more,
    /// or a wheel of its project read earlier in this run needed more than [`TAIL`] bytes from
    /// its end (a central directory of megabytes).
    fn is_large(&self, file: &DistFile) -> bool {
        file.size.is_some_and(|size| size >= LARGE_WHEEL) || self.tail(file) > TAIL
    }

    /// A wheel `total` bytes long was read by ranges and its reads needed the bytes from each
    /// of `offsets` to the end.
    fn learn(&self, file: &DistFile, total: u64, offsets: &[u64]) {
        let Some(needed) = offsets
            .iter()
            .map(|o| total.saturating_sub(*o))
            .filter(|n| *n <= MAX_TAIL)
            .max()
        else {
            return;
        };
        // A margin for the next release's growth.
        let tail = (needed + needed / 4 + 4096).clamp(TAIL, MAX_TAIL);
        let mut hints = self.0.lock().unwrap_or_else(|e| e.into_inner());
        hints.insert(file.filename.name().clone(), tail);
    }
}

/// Fetch, parse and check the metadata of `file`. Returns the raw bytes (for caching) with the
/// parsed form. The first range read of a wheel takes what `hints` say.
///
/// A wheel on a remote index that does not advertise its `.metadata` file is read by range
/// reads first, as uv does: asking for an unadvertised `.metadata` costs a request, and where
/// the index has none (half of the wheels on the index reachable here) a slow 404, before the
/// range reads it ends in anyway. When the range reads do not give metadata that checks (the
/// server ignores `Range`, the wheel is not served, the zip is bad), the files are read in the
/// order above, so the answer is the one that order gives. A wheel of a project whose wheels
/// are known to be large races its `.metadata` file with the range reads
/// ([`race_metadata_file`]): both are the same METADATA (PEP 658), whichever arrives first.
pub(crate) async fn fetch(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Result<(Vec<u8>, CoreMetadata, MetadataSource), IndexError> {
    let ranges_first = matches!(file.filename, DistFilename::Wheel(_))
        && file.core_metadata.is_none()
        && file.url.scheme() != "file";
    if ranges_first {
        let found = if hints.is_large(file) {
            race_metadata_file(client, file, hints).await
        } else {
            by_ranges(client, file, hints).await
        };
        if let Some(found) = found {
            return Ok(found);
        }
    }
    fetch_in_order(client, file, hints).await
}

/// Metadata by range reads only, checked against the file; `None` (logged) when they give none
/// that checks.
async fn by_ranges(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Option<(Vec<u8>, CoreMetadata, MetadataSource)> {
    let name = file.filename_str();
    match probe_wheel_metadata(client, file, hints).await {
        Ok(Some((bytes, source))) => match check(file, &file.url, &bytes) {
            Ok(metadata) => return Some((bytes, metadata, source)),
            Err(e) => log::debug!("{name}: range reads: {e}; trying the .metadata file"),
        },
        Ok(None) => log::debug!("{name}: the server ignores Range; trying the .metadata file"),
        Err(e) => log::debug!("{name}: range reads: {e}; trying the .metadata file"),
    }
    None
}

/// A wheel of a project whose wheels take more than one small range read (a central directory
/// of megabytes, as torch's): its unadvertised `.metadata` file is asked for beside the range
/// reads, and the first to give metadata that checks wins; the other's requests are dropped
/// (cancelled). On the index reachable here about half the `.metadata` files are served, in
/// one round trip of ~30 KB, where the range reads of a torch wheel move ~2 MB in one or two.
/// `None` when the range reads give nothing that checks (the `.metadata` file may not have
/// answered yet): the caller then reads in the documented order, as without the race.
async fn race_metadata_file(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Option<(Vec<u8>, CoreMetadata, MetadataSource)> {
    let served = async {
        let url = metadata_file_url(file);
        match client.get(&url, &metadata_file_options()).await {
            Ok(reply) if reply.status == 200 => match check(file, &url, &reply.body) {
                Ok(metadata) => return (reply.body, metadata, MetadataSource::MetadataFile),
                Err(e) => log::debug!("{}: {e}", file.filename_str()),
            },
            _ => {}
        }
        // Not served (or not usable): the range reads decide.
        std::future::pending().await
    };
    tokio::select! {
        found = served => Some(found),
        found = by_ranges(client, file, hints) => found,
    }
}

/// A request for a `.metadata` file (capped as METADATA is).
fn metadata_file_options() -> RequestOptions {
    RequestOptions {
        body: BodyKind::Metadata,
        ..RequestOptions::default()
    }
}

/// Where a file's PEP 658 `.metadata` file would be.
fn metadata_file_url(file: &DistFile) -> Url {
    let mut url = (*file.url).clone();
    url.set_path(&format!("{}.metadata", file.url.path()));
    url
}

/// Metadata in the documented order: the `.metadata` file, advertised or not, then the wheel
/// or the sdist.
async fn fetch_in_order(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Result<(Vec<u8>, CoreMetadata, MetadataSource), IndexError> {
    let name = file.filename_str();
    // 1 + 2: the `.metadata` file, advertised or not.
    let metadata_url = metadata_file_url(file);
    let reply = client.get(&metadata_url, &metadata_file_options()).await?;
    match reply.status {
        200 => {
            if let Some(expected) = file.core_metadata.as_ref().and_then(|h| h.get("sha256")) {
                let actual = sha256_hex(&reply.body);
                if !actual.eq_ignore_ascii_case(expected) {
                    return Err(IndexError::Metadata {
                        file: name,
                        url: redact(&metadata_url),
                        message: format!("sha256 {actual} differs from the advertised {expected}"),
                    });
                }
            }
            let metadata = check(file, &metadata_url, &reply.body)?;
            return Ok((reply.body, metadata, MetadataSource::MetadataFile));
        }
        404 | 403 | 410 => {}
        status => return Err(status_error(&metadata_url, status, &name)),
    }
    match &file.filename {
        DistFilename::Wheel(_) => {
            let (bytes, source) = wheel_metadata(client, file, hints).await?;
            let metadata = check(file, &file.url, &bytes)?;
            Ok((bytes, metadata, source))
        }
        DistFilename::Sdist(_) => {
            let bytes = sdist_pkg_info(client, file).await?;
            let metadata = check(file, &file.url, &bytes)?;
            if !metadata.static_dependencies() {
                return Err(IndexError::MetadataUnavailable {
                    file: name,
                    reason: if metadata
                        .dynamic
                        .iter()
                        .any(|d| d.eq_ignore_ascii_case("requires-dist"))
                    {
                        "PKG-INFO declares Requires-Dist dynamic".to_string()
                    } else {
                        format!(
                            "PKG-INFO is Metadata-Version {}, older than 2.2 (PEP 643)",
                            metadata.metadata_version
                        )
                    },
                });
            }
            Ok((bytes, metadata, MetadataSource::SdistPkgInfo))
        }
    }
}

/// Check a whole downloaded `file` against the strongest hash the index published for it
/// (sha512, sha384, sha256). A file the index gives no such hash for is logged and accepted (pip
/// does the same without `--require-hashes`).
pub(crate) fn verify_download(file: &DistFile, bytes: &[u8]) -> Result<(), IndexError> {
    let digest = |algorithm: &str| match algorithm {
        "sha512" => hex(&Sha512::digest(bytes)),
        "sha384" => hex(&Sha384::digest(bytes)),
        _ => hex(&Sha256::digest(bytes)),
    };
    let Some((algorithm, expected)) = ["sha512", "sha384", "sha256"]
        .into_iter()
        .find_map(|a| file.hashes.get(a).map(|h| (a, h)))
    else {
        log::debug!(
            "{}: the index gives no sha256/384/512 hash; the download is not checked",
            file.filename_str()
        );
        return Ok(());
    };
    let actual = digest(algorithm);
    if !actual.eq_ignore_ascii_case(expected) {
        return Err(IndexError::HashMismatch {
            file: file.filename_str(),
            url: redact(&file.url),
            algorithm: algorithm.to_string(),
            expected: expected.to_string(),
            actual,
        });
    }
    log::debug!("{}: {algorithm} matches the index", file.filename_str());
    Ok(())
}

fn status_error(url: &Url, status: u16, name: &str) -> IndexError {
    IndexError::Status {
        url: redact(url),
        status,
        context: format!(" while fetching the metadata of {name}"),
    }
}

/// Parse metadata bytes and check they describe `file`.
pub(crate) fn check(file: &DistFile, url: &Url, bytes: &[u8]) -> Result<CoreMetadata, IndexError> {
    let metadata = CoreMetadata::parse(bytes).map_err(|e| IndexError::Metadata {
        file: file.filename_str(),
        url: redact(url),
        message: e.to_string(),
    })?;
    let (name, version) = (file.filename.name(), file.filename.version());
    if &metadata.name != name || &metadata.version != version {
        return Err(IndexError::MetadataMismatch {
            file: file.filename_str(),
            expected: format!("{name} {version}"),
            found: format!("{} {}", metadata.name, metadata.version),
        });
    }
    Ok(metadata)
}

fn wheel_error(file: &DistFile, message: impl Into<String>) -> IndexError {
    IndexError::Wheel {
        file: file.filename_str(),
        url: redact(&file.url),
        message: message.into(),
    }
}

async fn range(client: &Client, file: &DistFile, r: ByteRange) -> Result<Reply, IndexError> {
    range_of(client, file, r, false).await
}

/// A range of `file`; with `partial_only`, a server that would send the whole file instead
/// answers a 200 with its body left unread.
async fn range_of(
    client: &Client,
    file: &DistFile,
    r: ByteRange,
    partial_only: bool,
) -> Result<Reply, IndexError> {
    let options = RequestOptions {
        range: Some(r),
        partial_only,
        ..RequestOptions::default()
    };
    // A small read takes the server's latency, not the transfer: a straggler is sent again.
    // Only when a server that ignores `Range` is not read whole: two whole-wheel downloads
    // would race otherwise.
    let small = match r {
        ByteRange::Suffix(n) => n <= HEAD,
        ByteRange::Span(start, end) => end.saturating_sub(start) <= HEAD,
    };
    let reply = if small && partial_only {
        client.get_hedged(&file.url, &options).await?
    } else {
        client.get(&file.url, &options).await?
    };
    match reply.status {
        200 | 206 => Ok(reply),
        status => Err(status_error(&file.url, status, &file.filename_str())),
    }
}

/// The paths a wheel holds (its zip central directory, by the same range reads as its
/// metadata): what installing it puts into site-packages.
pub(crate) async fn wheel_members(
    client: &Client,
    file: &DistFile,
) -> Result<Vec<String>, IndexError> {
    let directory = central_directory(client, file, TAIL).await?;
    Ok(directory.entries.into_iter().map(|e| e.name).collect())
}

/// The central directory of a wheel read whole or by range reads, as [`tail`] and
/// [`directory`] read it.
struct Directory {
    /// The wheel's size.
    total: u64,
    /// The bytes read so far.
    windows: Vec<Window>,
    /// Where the central directory starts.
    cd_offset: u64,
    entries: Vec<ZipEntry>,
    source: MetadataSource,
}

/// A wheel's central directory, its first range read taking the last `tail` bytes.
async fn central_directory(
    client: &Client,
    file: &DistFile,
    tail_len: u64,
) -> Result<Directory, IndexError> {
    let (total, window, source) = tail(client, file, tail_len, false)
        .await?
        .ok_or_else(|| wheel_error(file, "no reply to the range read"))?;
    directory(client, file, total, window, source).await
}

/// A wheel's size and last `len` bytes (all of it when the server ignores `Range`, checked
/// against the index's hash); `None` when `partial_only` and the server ignores `Range`.
async fn tail(
    client: &Client,
    file: &DistFile,
    len: u64,
    partial_only: bool,
) -> Result<Option<(u64, Window, MetadataSource)>, IndexError> {
    let tail = range_of(client, file, ByteRange::Suffix(len), partial_only).await?;
    Ok(Some(match (tail.status, tail.range) {
        (206, Some((offset, Some(total)))) => (
            total,
            Window {
                offset,
                bytes: tail.body,
            },
            MetadataSource::RangeRead,
        ),
        // No range support: the server sent (or would send) the whole wheel.
        _ if tail.status == 200 && partial_only => return Ok(None),
        _ if tail.status == 200 => {
            verify_download(file, &tail.body)?;
            (
                tail.body.len() as u64,
                Window {
                    offset: 0,
                    bytes: tail.body,
                },
                MetadataSource::WholeWheel,
            )
        }
        _ => (
            tail.body.len() as u64,
            Window {
                offset: 0,
                bytes: tail.body,
            },
            MetadataSource::WholeWheel,
        ),
    }))
}

/// The central directory entries of a wheel `total` bytes long whose last bytes are `window`:
/// from that window, else by one more range read.
async fn directory(
    client: &Client,
    file: &DistFile,
    total: u64,
    window: Window,
    source: MetadataSource,
) -> Result<Directory, IndexError> {
    let zip_err = |m: String| wheel_error(file, m);
    let eocd = find_eocd(&window, total).map_err(zip_err)?;
    let mut windows = vec![window];
    if lookup(&windows, eocd.cd_offset, eocd.cd_size).is_none() {
        let reply = range(
            client,
            file,
            ByteRange::Span(eocd.cd_offset, eocd.cd_offset + eocd.cd_size),
        )
        .await?;
        windows.push(window_of(reply, eocd.cd_offset));
    }
    // Parsed where it lies (a torch wheel's directory is 1.2 MB), not copied out first.
    let cd = lookup(&windows, eocd.cd_offset, eocd.cd_size)
        .ok_or_else(|| zip_err("central directory short".to_string()))?;
    let entries = parse_central_directory(cd, eocd.entries, eocd.cd_offset).map_err(zip_err)?;
    Ok(Directory {
        total,
        windows,
        cd_offset: eocd.cd_offset,
        entries,
        source,
    })
}

/// METADATA out of a wheel: range reads when the server honours them, else the whole file.
async fn wheel_metadata(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Result<(Vec<u8>, MetadataSource), IndexError> {
    let directory = central_directory(client, file, hints.tail(file)).await?;
    metadata_entry(client, file, directory, hints).await
}

/// METADATA out of a wheel by range reads only; `None` when the server ignores `Range` (the
/// whole wheel is not downloaded).
async fn probe_wheel_metadata(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Result<Option<(Vec<u8>, MetadataSource)>, IndexError> {
    if hints.is_large(file) {
        return large_wheel_metadata(client, file, hints).await;
    }
    let Some((total, window, source)) = tail(client, file, hints.tail(file), true).await? else {
        return Ok(None);
    };
    let directory = directory(client, file, total, window, source).await?;
    metadata_entry(client, file, directory, hints)
        .await
        .map(Some)
}

/// METADATA of a large wheel ([`TailHints::is_large`]) by range reads only (`None`: the
/// server ignores `Range`).
///
/// Its last [`TAIL`] bytes (the end record) and its first [`HEAD`] are read at once. A wheel
/// whose `.dist-info` comes first (torch before 2.7) has METADATA in the head and its entry at
/// the start of the central directory: when the tail does not hold the directory, its first
/// [`CD_PREFIX`] bytes are read ([`ends`]), and the first entry there that is the file's
/// METADATA is the directory's first such entry, the one [`pick_metadata`] takes (~250 KB moved
/// instead of ~2.3 MB). Any other wheel (or one whose entry is not in that prefix) reads its
/// whole directory ([`with_directory`]) and goes on as a small wheel does.
async fn large_wheel_metadata(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Result<Option<(Vec<u8>, MetadataSource)>, IndexError> {
    let (said, heard) = tokio::sync::watch::channel(Layout::Unknown);
    let head_read = async {
        let head = head(client, file).await;
        let _ = said.send(if head.as_ref().is_some_and(holds_dist_info_metadata) {
            Layout::DistInfoFirst
        } else {
            Layout::Other
        });
        head
    };
    let (ends, head) = tokio::join!(ends(client, file, heard), head_read);
    let Some(Ends {
        total,
        tail,
        source,
        eocd,
        prefix,
    }) = ends?
    else {
        return Ok(None);
    };
    let mut windows: Vec<Window> = head.into_iter().collect();
    if let Some(prefix) = prefix {
        windows.push(prefix);
        if let Some(found) = metadata_from_prefix(client, file, total, &windows, eocd).await? {
            return Ok(Some(found));
        }
    }
    let Some(window) = with_directory(client, file, hints, total, tail, eocd).await? else {
        return Ok(None);
    };
    let mut directory = directory(client, file, total, window, source).await?;
    directory.windows.extend(windows);
    metadata_entry(client, file, directory, hints)
        .await
        .map(Some)
}

/// Where a large wheel's head says its `.dist-info` lies ([`large_wheel_metadata`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The head is not read yet.
    Unknown,
    /// The head holds a `.dist-info/METADATA` entry's name.
    DistInfoFirst,
    /// Anything else (the head read failed, too).
    Other,
}

/// What [`ends`] read of a large wheel.
struct Ends {
    total: u64,
    tail: Window,
    source: MetadataSource,
    eocd: Eocd,
    /// The first [`CD_PREFIX`] bytes of the central directory, when read.
    prefix: Option<Window>,
}

/// A large wheel's last [`TAIL`] bytes, then, when they do not hold the central directory,
/// its first [`CD_PREFIX`] bytes: read at once, not after the head (often the slower read of
/// an old file), and given up as soon as `layout` says the `.dist-info` does not come first.
/// `None`: the server ignores `Range`.
async fn ends(
    client: &Client,
    file: &DistFile,
    mut layout: tokio::sync::watch::Receiver<Layout>,
) -> Result<Option<Ends>, IndexError> {
    let Some((total, tail, source)) = tail(client, file, TAIL, true).await? else {
        return Ok(None);
    };
    let eocd = find_eocd(&tail, total).map_err(|m| wheel_error(file, m))?;
    let prefix = if tail.get(eocd.cd_offset, eocd.cd_size).is_some() {
        None
    } else {
        let end = eocd.cd_offset + eocd.cd_size.min(CD_PREFIX);
        tokio::select! {
            biased;
            Ok(_) = layout.wait_for(|l| *l == Layout::Other) => None,
            prefix = partial(client, file, eocd.cd_offset, end) => prefix?,
        }
    };
    Ok(Some(Ends {
        total,
        tail,
        source,
        eocd,
        prefix,
    }))
}

/// `tail` (the last bytes of a wheel `total` bytes long) as it is when it holds the whole
/// central directory, else extended back by one range read over the directory and the bytes
/// before it where METADATA lies when the `.dist-info` comes last: behind RECORD, whose size is
/// about the directory's, or as far back as [`TailHints`] learned (`None`: the server ignores
/// `Range`).
async fn with_directory(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
    total: u64,
    tail: Window,
    eocd: Eocd,
) -> Result<Option<Window>, IndexError> {
    if tail.get(eocd.cd_offset, eocd.cd_size).is_some() {
        return Ok(Some(tail));
    }
    let start = total
        .saturating_sub(hints.tail(file))
        .min(eocd.cd_offset.saturating_sub(eocd.cd_size));
    let Some(mut window) = partial(client, file, start, tail.offset).await? else {
        return Ok(None);
    };
    window.bytes.extend_from_slice(&tail.bytes);
    Ok(Some(window))
}

/// The file's METADATA, and where it came from, when the first central directory entries in
/// `windows` (read from `eocd.cd_offset`) include it: read from the windows or by one more
/// range read.
async fn metadata_from_prefix(
    client: &Client,
    file: &DistFile,
    total: u64,
    windows: &[Window],
    eocd: Eocd,
) -> Result<Option<(Vec<u8>, MetadataSource)>, IndexError> {
    let zip_err = |m: String| wheel_error(file, m);
    let Some(prefix) = windows.iter().find_map(|w| w.rest(eocd.cd_offset)) else {
        return Ok(None);
    };
    let entries =
        parse_central_directory_prefix(prefix, eocd.entries, eocd.cd_offset).map_err(zip_err)?;
    let Some(entry) = exact_metadata(&entries, file) else {
        return Ok(None);
    };
    check_metadata_size(file, entry)?;
    let mut source = MetadataSource::RangeRead;
    let data = read_entry(client, file, total, windows, entry, &mut source).await?;
    Ok(Some((data, source)))
}

/// Whether a window holds the name of a top-level `.dist-info/METADATA` entry (only which bytes
/// to read next depends on it; the central directory still says which entry is METADATA).
fn holds_dist_info_metadata(window: &Window) -> bool {
    let needle = b".dist-info/METADATA";
    window.offset == 0 && window.bytes.windows(needle.len()).any(|w| w == needle)
}

/// The first [`HEAD`] bytes of a wheel (`None` when the server does not send just them, or the
/// read fails: the head only spares a request). Read beside the tail of a large wheel, it holds
/// the METADATA of a wheel whose `.dist-info` comes first (torch before 2.7: ~11 KB at
/// 33-64 KB into a 700 MB file), which would otherwise take one more round trip after the
/// central directory. Which entry is METADATA is still the central directory's word.
async fn head(client: &Client, file: &DistFile) -> Option<Window> {
    match range_of(client, file, ByteRange::Span(0, HEAD), true).await {
        Ok(reply) if reply.status == 206 => Some(window_of(reply, 0)),
        _ => None,
    }
}

/// The METADATA entry of a wheel whose central directory has been read (what range reads
/// needed is learned into `hints`).
async fn metadata_entry(
    client: &Client,
    file: &DistFile,
    directory: Directory,
    hints: &TailHints,
) -> Result<(Vec<u8>, MetadataSource), IndexError> {
    let Directory {
        total,
        windows,
        cd_offset,
        entries,
        mut source,
    } = directory;
    let zip_err = |m: String| wheel_error(file, m);
    let entry = pick_metadata(&entries, file)
        .ok_or_else(|| zip_err("no *.dist-info/METADATA".to_string()))?;
    check_metadata_size(file, entry)?;
    let data = read_entry(client, file, total, &windows, entry, &mut source).await?;
    if source == MetadataSource::RangeRead {
        hints.learn(file, total, &[cd_offset, entry.local_offset]);
    }
    Ok((data, source))
}

/// Checked before anything is fetched: the sizes are the file's word, and the range read of
/// the entry asks for `compressed_size` bytes. Deflate never grows data by more than a few bytes
/// per 16 KiB block, so a compressed size well over the cap is a lie.
fn check_metadata_size(file: &DistFile, entry: &ZipEntry) -> Result<(), IndexError> {
    let limit = crate::metadata::max_bytes() as u64;
    if entry.uncompressed_size > limit || entry.compressed_size > limit + 1024 {
        return Err(wheel_error(
            file,
            format!(
                "METADATA is {} bytes ({} compressed), over the {limit}-byte limit \
                 (PLANNER_MAX_METADATA_BYTES)",
                entry.uncompressed_size, entry.compressed_size
            ),
        ));
    }
    Ok(())
}

/// One member of a wheel (`jinja2/__init__.py`), by the same range reads as its metadata;
/// `None` when the wheel has no such member. At most `cap` bytes uncompressed.
pub(crate) async fn wheel_member(
    client: &Client,
    file: &DistFile,
    path: &str,
    cap: u64,
) -> Result<Option<Vec<u8>>, IndexError> {
    let Directory {
        total,
        windows,
        entries,
        mut source,
        ..
    } = central_directory(client, file, TAIL).await?;
    let Some(entry) = entries.iter().find(|e| e.name == path) else {
        return Ok(None);
    };
    if entry.uncompressed_size > cap || entry.compressed_size > cap + 1024 {
        return Err(wheel_error(
            file,
            format!(
                "{path} is {} bytes, over the {cap}-byte limit",
                entry.uncompressed_size
            ),
        ));
    }
    read_entry(client, file, total, &windows, entry, &mut source)
        .await
        .map(Some)
}

/// The uncompressed bytes of one central-directory entry: from the windows read so far, else
/// by one more range read (a server that sends the whole wheel instead has it checked against
/// its hash, and `source` says so).
async fn read_entry(
    client: &Client,
    file: &DistFile,
    total: u64,
    windows: &[Window],
    entry: &ZipEntry,
    source: &mut MetadataSource,
) -> Result<Vec<u8>, IndexError> {
    let zip_err = |m: String| wheel_error(file, m);
    // The local header has its own extra field length; read generously.
    let want = 30 + entry.name.len() as u64 + 1024 + entry.compressed_size;
    let want = want.min(total.saturating_sub(entry.local_offset));
    let local = match lookup(windows, entry.local_offset, want) {
        Some(bytes) => bytes.to_vec(),
        None => {
            let reply = range(
                client,
                file,
                ByteRange::Span(entry.local_offset, entry.local_offset + want),
            )
            .await?;
            if reply.status == 200 {
                verify_download(file, &reply.body)?;
                *source = MetadataSource::WholeWheel;
            }
            let w = window_of(reply, entry.local_offset);
            w.get(entry.local_offset, want)
                .ok_or_else(|| zip_err("local header short".to_string()))?
                .to_vec()
        }
    };
    extract(&local, entry).map_err(zip_err)
}

/// Bytes `start..end` of `file` as a window, when the server sends just them (`None` when it
/// would send the whole file instead).
async fn partial(
    client: &Client,
    file: &DistFile,
    start: u64,
    end: u64,
) -> Result<Option<Window>, IndexError> {
    let reply = range_of(client, file, ByteRange::Span(start, end), true).await?;
    Ok((reply.status == 206).then(|| window_of(reply, start)))
}

fn window_of(reply: Reply, asked: u64) -> Window {
    match (reply.status, reply.range) {
        (206, Some((offset, _))) => Window {
            offset,
            bytes: reply.body,
        },
        (206, None) => Window {
            offset: asked,
            bytes: reply.body,
        },
        _ => Window {
            offset: 0,
            bytes: reply.body,
        },
    }
}

/// The `{name}-{version}.dist-info/METADATA` entry (top level), preferring the one whose folder
/// matches the file's name and version.
fn pick_metadata<'a>(entries: &'a [ZipEntry], file: &DistFile) -> Option<&'a ZipEntry> {
    exact_metadata(entries, file)
        .or_else(|| {
            let prefix = normalize(file.filename.name().as_ref());
            metadata_entries(entries)
                .find(|e| normalize(&e.name).starts_with(&format!("{prefix}_")))
        })
        .or_else(|| metadata_entries(entries).next())
}

/// The first `{name}-{version}.dist-info/METADATA` entry whose folder matches the file's name
/// and version.
fn exact_metadata<'a>(entries: &'a [ZipEntry], file: &DistFile) -> Option<&'a ZipEntry> {
    let wanted = normalize(&format!(
        "{}-{}",
        file.filename.name().as_ref().replace('-', "_"),
        file.filename.version()
    ));
    metadata_entries(entries)
        .find(|e| normalize(e.name.trim_end_matches(".dist-info/METADATA")) == wanted)
}

/// The top-level `*.dist-info/METADATA` entries, in directory order.
fn metadata_entries(entries: &[ZipEntry]) -> impl Iterator<Item = &ZipEntry> {
    entries.iter().filter(|e| {
        e.name
            .strip_suffix(".dist-info/METADATA")
            .is_some_and(|dir| !dir.contains('/'))
    })
}

fn normalize(s: &str) -> String {
    s.to_ascii_lowercase().replace(['-', '.'], "_")
}

/// PKG-INFO of an sdist (`.tar.gz` or `.zip`): the whole archive is fetched (sdists are small),
/// and only `<top>/PKG-INFO` is read.
async fn sdist_pkg_info(client: &Client, file: &DistFile) -> Result<Vec<u8>, IndexError> {
    let name = file.filename_str();
    let options = RequestOptions {
        body: BodyKind::Sdist,
        ..RequestOptions::default()
    };
    let reply = client.get(&file.url, &options).await?;
    if reply.status != 200 {
        return Err(status_error(&file.url, reply.status, &name));
    }
    verify_download(file, &reply.body)?;
    match super::sdist::pkg_info(&name, &reply.body) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(IndexError::MetadataUnavailable {
            file: name,
            reason: "no PKG-INFO in the sdist".to_string(),
        }),
        Err(message) => Err(wheel_error(file, message)),
    }
}
