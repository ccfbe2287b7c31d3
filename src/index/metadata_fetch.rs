//! Core metadata of one release file, without downloading wheels where the index allows.
//!
//! In: a [`DistFile`] and a [`Client`]. Out: the metadata bytes, checked against the file
//! (name and version must agree, reliability item 21).
//!
//! Order (issue 3 §3, tech-brief §3): the PEP 658 `<file>.metadata` (checked against the
//! advertised hash; asked for even when not advertised, since the public index serves many
//! unadvertised ones); then, for wheels, a range read of the zip's central directory and its
//! `*.dist-info/METADATA` (2-3 requests, even for a 500 MB wheel); then the whole wheel. For
//! sdists: `PKG-INFO` is trusted only when Metadata-Version >= 2.2 and `Requires-Dist` is not
//! `Dynamic` (PEP 643); nothing is ever built.

use std::io::Read;

use url::Url;

use super::auth::redact;
use super::cache::sha256_hex;
use super::client::{ByteRange, Client, Reply, RequestOptions};
use super::{DistFile, DistFilename, IndexError};
use crate::metadata::{CoreMetadata, MAX_METADATA_BYTES};

/// How many bytes the first range read takes from a wheel's end (the EOCD, and for most wheels
/// the whole central directory and the METADATA entry too).
const TAIL: u64 = 64 * 1024;

/// Sdists larger than this are not downloaded for their PKG-INFO.
const MAX_SDIST_BYTES: usize = 256 * 1024 * 1024;

/// Where metadata came from (for tests and `-v` style notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataSource {
    /// A PEP 658 `.metadata` file.
    MetadataFile,
    /// Range reads of the wheel.
    RangeRead,
    /// The whole wheel.
    WholeWheel,
    /// An sdist's PKG-INFO.
    SdistPkgInfo,
}

/// Fetch, parse and check the metadata of `file`. Returns the raw bytes (for caching) with the
/// parsed form.
pub async fn fetch(
    client: &Client,
    file: &DistFile,
) -> Result<(Vec<u8>, CoreMetadata, MetadataSource), IndexError> {
    let name = file_name(file);
    // 1 + 2: the `.metadata` file, advertised or not.
    let mut metadata_url = file.url.clone();
    metadata_url.set_path(&format!("{}.metadata", file.url.path()));
    let reply = client
        .get(&metadata_url, &RequestOptions::default())
        .await?;
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
            let (bytes, source) = wheel_metadata(client, file).await?;
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

fn file_name(file: &DistFile) -> String {
    file.url
        .path_segments()
        .and_then(|mut s| s.next_back().map(str::to_string))
        .unwrap_or_else(|| file.url.path().to_string())
}

fn status_error(url: &Url, status: u16, name: &str) -> IndexError {
    IndexError::Status {
        url: redact(url),
        status,
        context: format!(" while fetching the metadata of {name}"),
    }
}

/// Parse metadata bytes and check they describe `file`.
pub fn check(file: &DistFile, url: &Url, bytes: &[u8]) -> Result<CoreMetadata, IndexError> {
    let metadata = CoreMetadata::parse(bytes).map_err(|e| IndexError::Metadata {
        file: file_name(file),
        url: redact(url),
        message: e.to_string(),
    })?;
    let (name, version) = (file.filename.name(), file.filename.version());
    if &metadata.name != name || &metadata.version != version {
        return Err(IndexError::MetadataMismatch {
            file: file_name(file),
            expected: format!("{name} {version}"),
            found: format!("{} {}", metadata.name, metadata.version),
        });
    }
    Ok(metadata)
}

/// A window of a remote file: `bytes` start at `offset`.
struct Window {
    offset: u64,
    bytes: Vec<u8>,
}

impl Window {
    fn get(&self, start: u64, len: u64) -> Option<&[u8]> {
        let from = start.checked_sub(self.offset)? as usize;
        let to = from.checked_add(len as usize)?;
        self.bytes.get(from..to)
    }
}

fn wheel_error(file: &DistFile, message: impl Into<String>) -> IndexError {
    IndexError::Wheel {
        file: file_name(file),
        url: redact(&file.url),
        message: message.into(),
    }
}

async fn range(client: &Client, file: &DistFile, r: ByteRange) -> Result<Reply, IndexError> {
    let reply = client
        .get(
            &file.url,
            &RequestOptions {
                range: Some(r),
                ..RequestOptions::default()
            },
        )
        .await?;
    match reply.status {
        200 | 206 => Ok(reply),
        status => Err(status_error(&file.url, status, &file_name(file))),
    }
}

/// METADATA out of a wheel: range reads when the server honours them, else the whole file.
async fn wheel_metadata(
    client: &Client,
    file: &DistFile,
) -> Result<(Vec<u8>, MetadataSource), IndexError> {
    let tail = range(client, file, ByteRange::Suffix(TAIL)).await?;
    let (total, window, mut source) = match (tail.status, tail.range) {
        (206, Some((offset, Some(total)))) => (
            total,
            Window {
                offset,
                bytes: tail.body,
            },
            MetadataSource::RangeRead,
        ),
        // No range support: the server sent the whole wheel.
        _ => (
            tail.body.len() as u64,
            Window {
                offset: 0,
                bytes: tail.body,
            },
            MetadataSource::WholeWheel,
        ),
    };
    let zip_err = |m: String| wheel_error(file, m);
    let eocd = find_eocd(&window, total).map_err(zip_err)?;
    let mut windows = vec![window];
    let cd = match lookup(&windows, eocd.cd_offset, eocd.cd_size) {
        Some(cd) => cd.to_vec(),
        None => {
            let reply = range(
                client,
                file,
                ByteRange::Span(eocd.cd_offset, eocd.cd_offset + eocd.cd_size),
            )
            .await?;
            let w = window_of(reply, eocd.cd_offset);
            let cd = w
                .get(eocd.cd_offset, eocd.cd_size)
                .ok_or_else(|| zip_err("central directory short".to_string()))?
                .to_vec();
            windows.push(w);
            cd
        }
    };
    let entries = parse_central_directory(&cd, eocd.entries).map_err(zip_err)?;
    let entry = pick_metadata(&entries, file)
        .ok_or_else(|| zip_err("no *.dist-info/METADATA".to_string()))?;
    if entry.uncompressed_size > MAX_METADATA_BYTES as u64 {
        return Err(zip_err(format!(
            "METADATA is {} bytes",
            entry.uncompressed_size
        )));
    }
    // The local header has its own extra field length; read generously.
    let want = 30 + entry.name.len() as u64 + 1024 + entry.compressed_size;
    let want = want.min(total.saturating_sub(entry.local_offset));
    let local = match lookup(&windows, entry.local_offset, want) {
        Some(bytes) => bytes.to_vec(),
        None => {
            let reply = range(
                client,
                file,
                ByteRange::Span(entry.local_offset, entry.local_offset + want),
            )
            .await?;
            if reply.status == 200 {
                source = MetadataSource::WholeWheel;
            }
            let w = window_of(reply, entry.local_offset);
            w.get(entry.local_offset, want)
                .ok_or_else(|| zip_err("local header short".to_string()))?
                .to_vec()
        }
    };
    let data = extract(&local, entry).map_err(zip_err)?;
    Ok((data, source))
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

fn lookup(windows: &[Window], start: u64, len: u64) -> Option<&[u8]> {
    windows.iter().find_map(|w| w.get(start, len))
}

fn u16_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?) as u64)
}
fn u32_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?) as u64)
}
fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

/// The end-of-central-directory facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eocd {
    /// Offset of the central directory.
    pub cd_offset: u64,
    /// Its size.
    pub cd_size: u64,
    /// Number of entries.
    pub entries: u64,
}

fn find_eocd(window: &Window, total: u64) -> Result<Eocd, String> {
    let b = &window.bytes;
    let pos = (0..b.len().saturating_sub(21))
        .rev()
        .find(|&i| b[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
        .ok_or("no end-of-central-directory record (not a zip, or truncated)")?;
    let short = || "end-of-central-directory record cut short".to_string();
    let mut eocd = Eocd {
        entries: u16_at(b, pos + 10).ok_or_else(short)?,
        cd_size: u32_at(b, pos + 12).ok_or_else(short)?,
        cd_offset: u32_at(b, pos + 16).ok_or_else(short)?,
    };
    let is_zip64 = eocd.entries == 0xffff
        || eocd.cd_size == 0xffff_ffff
        || eocd.cd_offset == 0xffff_ffff
        || (pos >= 20 && b[pos - 20..pos - 16] == [0x50, 0x4b, 0x06, 0x07]);
    if is_zip64 {
        let loc = pos.checked_sub(20).ok_or("zip64 locator missing")?;
        if b[loc..loc + 4] != [0x50, 0x4b, 0x06, 0x07] {
            return Err("zip64 locator missing".to_string());
        }
        let record = u64_at(b, loc + 8).ok_or_else(short)?;
        let rec = window
            .get(record, 56)
            .ok_or("zip64 end record outside the bytes read")?;
        if rec[..4] != [0x50, 0x4b, 0x06, 0x06] {
            return Err("bad zip64 end record".to_string());
        }
        eocd = Eocd {
            entries: u64_at(rec, 32).ok_or_else(short)?,
            cd_size: u64_at(rec, 40).ok_or_else(short)?,
            cd_offset: u64_at(rec, 48).ok_or_else(short)?,
        };
    }
    if eocd
        .cd_offset
        .checked_add(eocd.cd_size)
        .is_none_or(|end| end > total)
    {
        return Err("central directory outside the file".to_string());
    }
    Ok(eocd)
}

/// One central directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipEntry {
    /// The path in the archive.
    pub name: String,
    /// 0 stored, 8 deflated.
    pub method: u16,
    /// Compressed size.
    pub compressed_size: u64,
    /// Uncompressed size.
    pub uncompressed_size: u64,
    /// Offset of the local header.
    pub local_offset: u64,
}

fn parse_central_directory(cd: &[u8], count: u64) -> Result<Vec<ZipEntry>, String> {
    let short = || "central directory cut short".to_string();
    let mut entries = Vec::new();
    let mut i = 0;
    while i + 46 <= cd.len() && (entries.len() as u64) < count {
        if cd[i..i + 4] != [0x50, 0x4b, 0x01, 0x02] {
            return Err("bad central directory entry".to_string());
        }
        let method = u16_at(cd, i + 10).ok_or_else(short)? as u16;
        let mut compressed_size = u32_at(cd, i + 20).ok_or_else(short)?;
        let mut uncompressed_size = u32_at(cd, i + 24).ok_or_else(short)?;
        let name_len = u16_at(cd, i + 28).ok_or_else(short)? as usize;
        let extra_len = u16_at(cd, i + 30).ok_or_else(short)? as usize;
        let comment_len = u16_at(cd, i + 32).ok_or_else(short)? as usize;
        let mut local_offset = u32_at(cd, i + 42).ok_or_else(short)?;
        let name = cd.get(i + 46..i + 46 + name_len).ok_or_else(short)?;
        let extra = cd
            .get(i + 46 + name_len..i + 46 + name_len + extra_len)
            .ok_or_else(short)?;
        // The zip64 extra field holds the 0xffffffff fields, in this order.
        let mut j = 0;
        while j + 4 <= extra.len() {
            let id = u16_at(extra, j).unwrap_or(0);
            let size = u16_at(extra, j + 2).unwrap_or(0) as usize;
            if id == 1 {
                let mut k = j + 4;
                for field in [
                    &mut uncompressed_size,
                    &mut compressed_size,
                    &mut local_offset,
                ] {
                    if *field == 0xffff_ffff {
                        *field = u64_at(extra, k).ok_or_else(short)?;
                        k += 8;
                    }
                }
            }
            j += 4 + size;
        }
        entries.push(ZipEntry {
            name: String::from_utf8_lossy(name).into_owned(),
            method,
            compressed_size,
            uncompressed_size,
            local_offset,
        });
        i += 46 + name_len + extra_len + comment_len;
    }
    Ok(entries)
}

/// The `{name}-{version}.dist-info/METADATA` entry (top level), preferring the one whose folder
/// matches the file's name and version.
fn pick_metadata<'a>(entries: &'a [ZipEntry], file: &DistFile) -> Option<&'a ZipEntry> {
    let candidates: Vec<&ZipEntry> = entries
        .iter()
        .filter(|e| {
            e.name
                .strip_suffix(".dist-info/METADATA")
                .is_some_and(|dir| !dir.contains('/'))
        })
        .collect();
    let normalize = |s: &str| s.to_ascii_lowercase().replace(['-', '.'], "_");
    let wanted = normalize(&format!(
        "{}-{}",
        file.filename.name().as_ref().replace('-', "_"),
        file.filename.version()
    ));
    candidates
        .iter()
        .find(|e| normalize(e.name.trim_end_matches(".dist-info/METADATA")) == wanted)
        .or_else(|| {
            let prefix = normalize(file.filename.name().as_ref());
            candidates
                .iter()
                .find(|e| normalize(&e.name).starts_with(&format!("{prefix}_")))
        })
        .or(candidates.first())
        .copied()
}

/// The data of `entry`, given bytes starting at its local header.
fn extract(local: &[u8], entry: &ZipEntry) -> Result<Vec<u8>, String> {
    if local.get(..4) != Some(&[0x50, 0x4b, 0x03, 0x04][..]) {
        return Err("bad local file header".to_string());
    }
    let name_len = u16_at(local, 26).ok_or("local header cut short")? as usize;
    let extra_len = u16_at(local, 28).ok_or("local header cut short")? as usize;
    let start = 30 + name_len + extra_len;
    let data = local
        .get(start..start + entry.compressed_size as usize)
        .ok_or("entry data cut short")?;
    match entry.method {
        0 => Ok(data.to_vec()),
        8 => {
            let mut out = Vec::with_capacity(entry.uncompressed_size as usize);
            flate2::read::DeflateDecoder::new(data)
                .take(MAX_METADATA_BYTES as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("cannot inflate METADATA: {e}"))?;
            Ok(out)
        }
        m => Err(format!("unsupported compression method {m}")),
    }
}

/// Read one member of an in-memory zip by a predicate on its name.
pub fn zip_member(bytes: &[u8], want: impl Fn(&str) -> bool) -> Result<Option<Vec<u8>>, String> {
    let window = Window {
        offset: 0,
        bytes: bytes.to_vec(),
    };
    let eocd = find_eocd(&window, bytes.len() as u64)?;
    let cd = window
        .get(eocd.cd_offset, eocd.cd_size)
        .ok_or("central directory outside the file")?;
    let entries = parse_central_directory(cd, eocd.entries)?;
    let Some(entry) = entries.iter().find(|e| want(&e.name)) else {
        return Ok(None);
    };
    let local = bytes
        .get(entry.local_offset as usize..)
        .ok_or("entry outside the file")?;
    extract(local, entry).map(Some)
}

/// PKG-INFO of an sdist (`.tar.gz` or `.zip`): the whole archive is fetched (sdists are small),
/// and only `<top>/PKG-INFO` is read.
async fn sdist_pkg_info(client: &Client, file: &DistFile) -> Result<Vec<u8>, IndexError> {
    let name = file_name(file);
    let reply = client.get(&file.url, &RequestOptions::default()).await?;
    if reply.status != 200 {
        return Err(status_error(&file.url, reply.status, &name));
    }
    if reply.body.len() > MAX_SDIST_BYTES {
        return Err(IndexError::MetadataUnavailable {
            file: name,
            reason: "the sdist is too large to read its PKG-INFO".to_string(),
        });
    }
    let is_pkg_info = |path: &str| {
        let mut parts = path.trim_start_matches("./").split('/');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(_), Some("PKG-INFO"), None)
        )
    };
    let found = if name.ends_with(".zip") {
        zip_member(&reply.body, is_pkg_info)
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        tar_member(flate2::read::GzDecoder::new(&reply.body[..]), is_pkg_info)
    } else if name.ends_with(".tar") {
        tar_member(&reply.body[..], is_pkg_info)
    } else {
        Err("unsupported sdist archive format".to_string())
    };
    match found {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(IndexError::MetadataUnavailable {
            file: name,
            reason: "no PKG-INFO in the sdist".to_string(),
        }),
        Err(message) => Err(wheel_error(file, message)),
    }
}

/// Read one member of a tar stream (ustar, GNU long names and pax paths).
pub fn tar_member(
    mut reader: impl Read,
    want: impl Fn(&str) -> bool,
) -> Result<Option<Vec<u8>>, String> {
    let mut header = [0u8; 512];
    let mut long_name: Option<String> = None;
    loop {
        if reader.read_exact(&mut header).is_err() {
            return Ok(None);
        }
        if header.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        let field = |a: usize, b: usize| {
            let raw = &header[a..b];
            let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
            String::from_utf8_lossy(&raw[..end]).into_owned()
        };
        let size_text = field(124, 136);
        let size = u64::from_str_radix(size_text.trim(), 8)
            .map_err(|_| format!("bad tar header size `{size_text}`"))?;
        let kind = header[156];
        let padded = size.div_ceil(512) * 512;
        let mut data = Vec::new();
        let wanted_kinds = matches!(kind, b'0' | 0 | b'L' | b'x');
        let mut path = long_name.take().unwrap_or_else(|| {
            let prefix = field(345, 500);
            let name = field(0, 100);
            if &header[257..262] == b"ustar" && !prefix.is_empty() {
                format!("{prefix}/{name}")
            } else {
                name
            }
        });
        if wanted_kinds && size <= 64 * 1024 * 1024 {
            (&mut reader)
                .take(padded)
                .read_to_end(&mut data)
                .map_err(|e| format!("tar stream: {e}"))?;
            data.truncate(size as usize);
        } else {
            std::io::copy(&mut (&mut reader).take(padded), &mut std::io::sink())
                .map_err(|e| format!("tar stream: {e}"))?;
            continue;
        }
        match kind {
            b'L' => {
                long_name = Some(
                    String::from_utf8_lossy(&data)
                        .trim_end_matches('\0')
                        .to_string(),
                );
            }
            b'x' => {
                // pax records: "len key=value\n"
                let text = String::from_utf8_lossy(&data);
                for record in text.lines() {
                    if let Some((_, kv)) = record.split_once(' ')
                        && let Some(p) = kv.strip_prefix("path=")
                    {
                        long_name = Some(p.to_string());
                    }
                }
            }
            _ => {
                if want(&path) {
                    return Ok(Some(data));
                }
                path.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip built by hand: two members, the second deflated.
    pub(crate) fn make_zip(members: &[(&str, &[u8], bool)], zip64: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data, deflate) in members {
            let offset = out.len() as u32;
            let (method, stored): (u16, Vec<u8>) = if *deflate {
                let mut enc =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
                enc.write_all(data).unwrap();
                (8, enc.finish().unwrap())
            } else {
                (0, data.to_vec())
            };
            let mut local = vec![0x50, 0x4b, 0x03, 0x04];
            local.extend([20, 0, 0, 0]);
            local.extend(method.to_le_bytes());
            local.extend([0; 8]); // time, date, crc
            local.extend((stored.len() as u32).to_le_bytes());
            local.extend((data.len() as u32).to_le_bytes());
            local.extend((name.len() as u16).to_le_bytes());
            local.extend(3u16.to_le_bytes());
            local.extend(name.as_bytes());
            local.extend([0, 0, 0]); // a local extra field unlike the central one
            out.extend(local);
            out.extend(&stored);
            let mut c = vec![0x50, 0x4b, 0x01, 0x02, 20, 0, 20, 0, 0, 0];
            c.extend(method.to_le_bytes());
            c.extend([0; 8]);
            let extra: Vec<u8> = if zip64 {
                let mut e = vec![1, 0, 24, 0];
                e.extend((data.len() as u64).to_le_bytes());
                e.extend((stored.len() as u64).to_le_bytes());
                e.extend(u64::from(offset).to_le_bytes());
                e
            } else {
                Vec::new()
            };
            let (cs, us, off) = if zip64 {
                (0xffff_ffff, 0xffff_ffff, 0xffff_ffff)
            } else {
                (stored.len() as u32, data.len() as u32, offset)
            };
            c.extend(cs.to_le_bytes());
            c.extend(us.to_le_bytes());
            c.extend((name.len() as u16).to_le_bytes());
            c.extend((extra.len() as u16).to_le_bytes());
            c.extend([0; 10]); // comment len, disk, internal and external attributes
            c.extend(off.to_le_bytes());
            c.extend(name.as_bytes());
            c.extend(extra);
            central.extend(c);
        }
        let cd_offset = out.len() as u64;
        out.extend(&central);
        if zip64 {
            let rec_offset = out.len() as u64;
            out.extend([0x50, 0x4b, 0x06, 0x06]);
            out.extend(44u64.to_le_bytes());
            out.extend([45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend((members.len() as u64).to_le_bytes());
            out.extend((members.len() as u64).to_le_bytes());
            out.extend((central.len() as u64).to_le_bytes());
            out.extend(cd_offset.to_le_bytes());
            out.extend([0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
            out.extend(rec_offset.to_le_bytes());
            out.extend(1u32.to_le_bytes());
            out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
            out.extend([0xff; 8]);
            out.extend([0, 0]);
        } else {
            out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
            out.extend((members.len() as u16).to_le_bytes());
            out.extend((members.len() as u16).to_le_bytes());
            out.extend((central.len() as u32).to_le_bytes());
            out.extend((cd_offset as u32).to_le_bytes());
            out.extend([0, 0]);
        }
        out
    }

    const META: &[u8] = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n";

    #[test]
    fn reads_metadata_from_zip_and_zip64() {
        for zip64 in [false, true] {
            let zip = make_zip(
                &[
                    ("demo/__init__.py", b"x = 1\n", false),
                    ("demo-1.0.dist-info/METADATA", META, true),
                ],
                zip64,
            );
            let got = zip_member(&zip, |n| n.ends_with(".dist-info/METADATA")).unwrap();
            assert_eq!(got.as_deref(), Some(META), "zip64={zip64}");
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(zip_member(b"not a zip at all", |_| true).is_err());
        let mut zip = make_zip(&[("a-1.dist-info/METADATA", META, true)], false);
        let n = zip.len();
        zip[n - 6] = 0xff; // central directory offset beyond the file
        assert!(zip_member(&zip, |_| true).is_err());
    }

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
            tar.extend(h);
            tar.extend(data);
            tar.extend(vec![0; (512 - data.len() % 512) % 512]);
        }
        tar.extend([0; 1024]);
        let got = tar_member(&tar[..], |p| p == "demo-1.0/PKG-INFO").unwrap();
        assert_eq!(got.as_deref(), Some(META));
        assert_eq!(tar_member(&tar[..], |p| p == "nope").unwrap(), None);
    }
}
