//! Metadata and members of a wheel out of its zip: range reads of its end, its central directory
//! and the entry (the whole wheel when the server ignores `Range`), the large-wheel reads, and
//! what they learn into [`TailHints`].
//!
//! In: a wheel's [`DistFile`] and the [`Client`]. Out: METADATA's bytes with their
//! [`MetadataSource`] (checked by the caller), a member's bytes, or the member list.

use super::{
    CD_PREFIX, HEAD, MetadataSource, TAIL, TailHints, status_error, verify_download, wheel_error,
    zip_error,
};
use crate::index::client::{ByteRange, Client, Reply, RequestOptions};
use crate::index::zip::{
    Bytes, Eocd, Window, ZipEntry, ZipError, extract, find_eocd, lookup, parse_central_directory,
    parse_central_directory_prefix,
};
use crate::index::{DistFile, IndexError};

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
        // A server that ignores `Range` sends the whole wheel: to a temp file, not memory.
        spool: !partial_only,
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
                bytes: tail.body.into(),
            },
            MetadataSource::RangeRead,
        ),
        // No range support: the server sent (or would send) the whole wheel, checked against
        // the index's hash when it said so (200). A 206 without its total is read the same way.
        _ if tail.status == 200 && partial_only => return Ok(None),
        _ => {
            if tail.status == 200 {
                verify_whole(file, &tail)?;
            }
            let window = window_of(tail, 0);
            (
                window.bytes.len() as u64,
                window,
                MetadataSource::WholeWheel,
            )
        }
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
    let zip_err = |e: ZipError| zip_error(file, e);
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
        .ok_or_else(|| wheel_error(file, "central directory short"))?;
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
pub(super) async fn wheel_metadata(
    client: &Client,
    file: &DistFile,
    hints: &TailHints,
) -> Result<(Vec<u8>, MetadataSource), IndexError> {
    let directory = central_directory(client, file, hints.tail(file)).await?;
    metadata_entry(client, file, directory, hints).await
}

/// METADATA out of a wheel by range reads only; `None` when the server ignores `Range` (the
/// whole wheel is not downloaded).
pub(super) async fn probe_wheel_metadata(
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
    let eocd = find_eocd(&tail, total).map_err(|m| zip_error(file, m))?;
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
    let mut bytes = window.bytes.to_vec();
    bytes.extend_from_slice(&tail.bytes);
    window.bytes = bytes.into();
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
    let zip_err = |e: ZipError| zip_error(file, e);
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
    let entry = pick_metadata(&entries, file)
        .ok_or_else(|| wheel_error(file, "no *.dist-info/METADATA"))?;
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

/// Every `.py` member of a wheel under the folder `prefix`, with its uncompressed bytes: the
/// central directory as for [`wheel_member`], then one range read spanning those members (at
/// most `cap` bytes; more is an error).
pub(crate) async fn wheel_members_under(
    client: &Client,
    file: &DistFile,
    prefix: &str,
    cap: u64,
) -> Result<Vec<(String, Vec<u8>)>, IndexError> {
    let Directory { total, entries, .. } = central_directory(client, file, TAIL).await?;
    let wanted: Vec<&ZipEntry> = entries
        .iter()
        .filter(|e| e.name.starts_with(prefix) && e.name.ends_with(".py"))
        .collect();
    // The local header has its own extra field length; read generously.
    let want = |e: &ZipEntry| {
        (30 + e.name.len() as u64 + 1024 + e.compressed_size)
            .min(total.saturating_sub(e.local_offset))
    };
    let (Some(start), Some(end)) = (
        wanted.iter().map(|e| e.local_offset).min(),
        wanted.iter().map(|e| e.local_offset + want(e)).max(),
    ) else {
        return Ok(Vec::new());
    };
    if end - start > cap {
        return Err(wheel_error(
            file,
            format!(
                "{prefix} spans {} bytes, over the {cap}-byte limit",
                end - start
            ),
        ));
    }
    let reply = range(client, file, ByteRange::Span(start, end)).await?;
    if reply.status == 200 {
        verify_whole(file, &reply)?;
    }
    let windows = [window_of(reply, start)];
    wanted
        .into_iter()
        .map(|entry| {
            let local = lookup(&windows, entry.local_offset, want(entry))
                .ok_or_else(|| wheel_error(file, "local header short"))?;
            let bytes = extract(local, entry).map_err(|e| zip_error(file, e))?;
            Ok((entry.name.clone(), bytes))
        })
        .collect()
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
    let zip_err = |e: ZipError| zip_error(file, e);
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
                verify_whole(file, &reply)?;
                *source = MetadataSource::WholeWheel;
            }
            let w = window_of(reply, entry.local_offset);
            w.get(entry.local_offset, want)
                .ok_or_else(|| wheel_error(file, "local header short"))?
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
    let bytes = match reply.spooled {
        Some(spooled) => Bytes::Mapped(spooled.map),
        None => reply.body.into(),
    };
    let offset = match (reply.status, reply.range) {
        (206, Some((offset, _))) => offset,
        (206, None) => asked,
        _ => 0,
    };
    Window { offset, bytes }
}

/// A whole wheel (a 200) checked against the index's hashes: read back from its temp file when
/// spooled, never mapped whole into the process.
fn verify_whole(file: &DistFile, reply: &Reply) -> Result<(), IndexError> {
    let Some(spooled) = &reply.spooled else {
        return verify_download(file, &reply.body);
    };
    match crate::index::hashes::check_file(&file.hashes, &spooled.file) {
        Ok(_) => Ok(()),
        Err(m) => Err(IndexError::HashMismatch {
            file: file.filename_str(),
            url: crate::index::auth::redact(&file.url),
            algorithm: m.algorithm.to_string(),
            expected: m.expected,
            actual: m.actual,
        }),
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
