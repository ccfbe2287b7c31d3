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
//!    Metadata-Version >= 2.2 and `Requires-Dist` is not `Dynamic` (PEP 643, [`trusted`], which
//!    the caller applies, so that an untrusted PKG-INFO is cached and the sdist not fetched
//!    again); nothing is built here (`propose --allow-build` builds such an sdist for its
//!    requirements: `super::build`).
//!
//! Every whole file downloaded (a wheel whose server ignores `Range`, an sdist) is checked against
//! the index's hash before anything is read from it ([`verify_download`]); a mismatch is an error
//! and nothing is cached. Range reads cannot be hashed (only part of the file is read); the
//! METADATA they yield is still checked against the file's name and version.

use std::collections::HashMap;

use pep508_rs::PackageName;
use url::Url;

use super::auth::redact;
use super::client::{BodyKind, Client, RequestOptions};
use super::{DistFile, DistFilename, IndexError};
use crate::metadata::CoreMetadata;
use wheel::{probe_wheel_metadata, wheel_metadata};
pub(crate) use wheel::{wheel_member, wheel_members, wheel_members_under};

mod wheel;

/// How many bytes the first range read takes from a wheel's end (the EOCD, and for most wheels
/// the whole central directory and the METADATA entry too).
const TAIL: u64 = 64 * 1024;

/// A wheel the index lists at this size or more is read as a large one from the start
/// ([`TailHints::is_large`]): its `.metadata` file is raced with the range reads, and its head
/// is read beside its tail. torch's first wheel read by a solve (530 MB) then costs one round
/// trip where its central directory (1.2 MB) and METADATA took three.
const LARGE_WHEEL: u64 = 64 * 1024 * 1024;

/// How many bytes [`wheel::head`] reads from a large wheel's start.
const HEAD: u64 = 128 * 1024;

/// How many bytes of a large wheel's central directory are read first when its `.dist-info`
/// comes first ([`wheel::large_wheel_metadata`]); torch 2.5's METADATA entry lies in the first 1 KB.
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
            if let Some(advertised) = &file.core_metadata
                && let Err(m) = super::hashes::check(advertised, &reply.body)
            {
                return Err(IndexError::HashMismatch {
                    file: format!("{name}.metadata"),
                    url: redact(&metadata_url),
                    algorithm: m.algorithm.to_string(),
                    expected: m.expected,
                    actual: m.actual,
                });
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
            Ok((bytes, metadata, MetadataSource::SdistPkgInfo))
        }
    }
}

/// An sdist's PKG-INFO whose requirements cannot be trusted without a build (PEP 643: older
/// than Metadata-Version 2.2, or `Requires-Dist` declared dynamic): the error that says so.
/// Applied to what [`fetch`] returns and to the cached copy alike, so that the conclusion is
/// read from the cache on the next run instead of fetching the sdist again.
pub(crate) fn trusted(file: &DistFile, metadata: &CoreMetadata) -> Result<(), IndexError> {
    if !matches!(file.filename, DistFilename::Sdist(_)) || metadata.static_dependencies() {
        return Ok(());
    }
    Err(IndexError::MetadataUnavailable {
        file: file.filename_str(),
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
    })
}

/// Check a whole downloaded `file` against every hash the index published for it by an
/// algorithm planner computes ([`super::hashes::CHECKED`]). A file the index gives no such hash
/// for is logged and accepted (pip does the same without `--require-hashes`).
pub(crate) fn verify_download(file: &DistFile, bytes: &[u8]) -> Result<(), IndexError> {
    match super::hashes::check(&file.hashes, bytes) {
        Ok(matched) if matched.is_empty() => log::debug!(
            "{}: the index gives no sha256/384/512 or blake2b hash; the download is not checked",
            file.filename_str()
        ),
        Ok(matched) => log::debug!(
            "{}: {} match the index",
            file.filename_str(),
            matched.join(", ")
        ),
        Err(m) => {
            return Err(IndexError::HashMismatch {
                file: file.filename_str(),
                url: redact(&file.url),
                algorithm: m.algorithm.to_string(),
                expected: m.expected,
                actual: m.actual,
            });
        }
    }
    Ok(())
}

fn status_error(url: &Url, status: u16, name: &str) -> IndexError {
    IndexError::Status {
        url: redact(url),
        status,
        context: format!(" while fetching the metadata of {name}"),
    }
}

/// Parse metadata bytes and check they describe `file`. Metadata over the size limit is the
/// [`IndexError::TooLarge`] that a `.metadata` reply over it is (the limit is a setting, so it
/// is not the release's own fault: [`IndexError::to_cached`]).
pub(crate) fn check(file: &DistFile, url: &Url, bytes: &[u8]) -> Result<CoreMetadata, IndexError> {
    let metadata = CoreMetadata::parse(bytes).map_err(|e| match e {
        crate::metadata::MetadataError::TooManyRequirements { .. } => IndexError::Refused {
            file: file.filename_str(),
            url: redact(url),
            message: e.to_string(),
        },
        crate::metadata::MetadataError::TooLarge { size, limit } => IndexError::TooLarge {
            url: redact(url),
            what: format!("the metadata of {}", file.filename_str()),
            limit: limit as u64,
            seen: format!("{size} bytes"),
            hint: "PLANNER_MAX_METADATA_BYTES raises the limit".to_string(),
        },
        e => IndexError::Metadata {
            file: file.filename_str(),
            url: redact(url),
            message: e.to_string(),
        },
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

/// A zip reader's error as the index error it is: a refused shape (a directory no real wheel
/// has) or a broken wheel.
fn zip_error(file: &DistFile, error: super::zip::ZipError) -> IndexError {
    match error {
        super::zip::ZipError::DirectoryTooLarge { .. } => IndexError::Refused {
            file: file.filename_str(),
            url: redact(&file.url),
            message: error.to_string(),
        },
        error => wheel_error(file, error),
    }
}

fn wheel_error(file: &DistFile, message: impl std::fmt::Display) -> IndexError {
    IndexError::Wheel {
        file: file.filename_str(),
        url: redact(&file.url),
        message: message.to_string(),
    }
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
    match super::sdist::pkg_info(&name, &reply.body, Some(client.run_deadline())) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(IndexError::MetadataUnavailable {
            file: name,
            reason: "no PKG-INFO in the sdist".to_string(),
        }),
        Err(message) => Err(wheel_error(file, message)),
    }
}
