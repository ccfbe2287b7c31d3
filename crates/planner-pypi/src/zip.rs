//! A zip reader just large enough for wheels: the end-of-central-directory record (zip64
//! included), the central directory, and one member's data (stored or deflated).
//!
//! In: bytes of a zip, whole or as [`Window`]s of a remote file (range reads); out: the
//! [`Eocd`], the [`ZipEntry`]s, one member's bytes. Errors are [`ZipError`]s that the caller
//! wraps with the file and URL. No IO: `metadata_fetch` decides which bytes to fetch.
//!
//! Nothing the file declares is trusted: every offset and size is checked for overflow and
//! against the bytes that hold it (the central directory lies before the end record, a member's
//! data before the central directory, a zip64 field inside its extra block), the entry count
//! against the entries actually present, a member's size against [`crate::metadata::max_bytes`] before
//! anything is allocated or fetched, and the extracted bytes against the declared size and CRC-32.
//!
//! Why hand-written rather than the `zip` crate (or `async_zip` behind a range reader, uv's
//! choice): those read through one seekable source and decide themselves which bytes to read
//! next. Here the caller decides: `metadata_fetch` fetches the file's tail as one [`Window`],
//! parses the end record and as much of the central directory as that window holds
//! ([`parse_central_directory_prefix`]), and fetches one member's bytes in one more range,
//! every window cached on its own and reused by later runs; the ranges a wheel costs stay
//! visible in one place (docs/performance.md counts them). The format parts needed are small
//! (the end records, the central directory, stored or deflated members through `flate2`), and
//! each declared size and offset is checked against the bytes at hand (see above, and
//! `fuzz:zip`). A `.zip` sdist, read whole, goes through the same code ([`zip_member`]).

use std::io::Read;

/// Why bytes are not a zip this reader can read: each declared value it checks, and what it
/// found instead. The caller names the file and URL.
#[derive(Debug, thiserror::Error)]
pub enum ZipError {
    /// No end record signature in the bytes read.
    #[error("no end-of-central-directory record (not a zip, or truncated)")]
    NoEndRecord,
    /// A field of the end record (or of the zip64 one) lies past the bytes read.
    #[error("end-of-central-directory record cut short")]
    EndRecordShort,
    /// The end record says zip64 but the locator is not before it.
    #[error("zip64 locator missing")]
    Zip64LocatorMissing,
    /// The zip64 locator points at or after itself.
    #[error("zip64 end record does not lie before its locator")]
    Zip64RecordAfterLocator,
    /// The zip64 end record is not in the window read.
    #[error("zip64 end record outside the bytes read")]
    Zip64RecordOutside,
    /// The zip64 end record's signature is wrong.
    #[error("bad zip64 end record")]
    BadZip64Record,
    /// The central directory would not lie inside the file, before its end record.
    #[error("central directory outside the file")]
    DirectoryOutside,
    /// A central directory larger than any real wheel's, or with more entries: a hostile end
    /// record would otherwise make the reader fetch and hold gigabytes.
    #[error(
        "the end record claims a {cd_size}-byte central directory of {entries} entries, over \
         the limit of {MAX_DIRECTORY_BYTES} bytes and {MAX_DIRECTORY_ENTRIES} entries (the \
         largest real wheels' are a few MB): the file is not a wheel this reader trusts"
    )]
    DirectoryTooLarge {
        /// The directory's declared size.
        cd_size: u64,
        /// The entries declared.
        entries: u64,
    },
    /// More entries declared than the central directory's size can hold.
    #[error("{entries} entries declared in a {cd_size}-byte central directory")]
    TooManyEntries {
        /// The entries declared.
        entries: u64,
        /// The directory's size.
        cd_size: u64,
    },
    /// An entry's data would not lie before the central directory.
    #[error("entry `{}` claims data beyond the central directory", .0.escape_default())]
    DataBeyondDirectory(String),
    /// The central directory ends before its declared entries.
    #[error("central directory cut short (fewer entries than declared)")]
    DirectoryShort,
    /// A central directory entry's signature is wrong.
    #[error("bad central directory entry")]
    BadEntry,
    /// An extra field block declares more bytes than its entry holds.
    #[error("extra field runs past its entry")]
    ExtraPastEntry,
    /// The zip64 extra field lacks a value the entry says it holds.
    #[error("zip64 extra field cut short")]
    Zip64ExtraShort,
    /// A member larger than `PLANNER_MAX_METADATA_BYTES`.
    #[error(
        "`{}` is {size} bytes, over the {limit}-byte limit (PLANNER_MAX_METADATA_BYTES)",
        .name.escape_default()
    )]
    OverLimit {
        /// The member's path.
        name: String,
        /// Its declared size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A local file header's signature is wrong.
    #[error("bad local file header")]
    BadLocalHeader,
    /// A local file header lies past the bytes given.
    #[error("local header cut short")]
    LocalHeaderShort,
    /// A member's data lies past the bytes given.
    #[error("entry data cut short")]
    DataShort,
    /// Deflated data that does not inflate.
    #[error("cannot inflate METADATA: {0}")]
    Inflate(std::io::Error),
    /// Neither stored nor deflated.
    #[error("unsupported compression method {0}")]
    Method(u16),
    /// The inflated size differs from the declared one.
    #[error(
        "`{}` holds {found} bytes, not the {declared} its entry declares",
        .name.escape_default()
    )]
    SizeMismatch {
        /// The member's path.
        name: String,
        /// The bytes it inflated to.
        found: usize,
        /// The size its entry declares.
        declared: u64,
    },
    /// The member's CRC-32 differs from the declared one.
    #[error("`{}` fails its CRC-32 check", .0.escape_default())]
    Crc(String),
    /// A member's local header lies past the bytes given.
    #[error("entry outside the file")]
    EntryOutside,
}

/// The largest central directory read (a torch wheel's is 1.2 MB, the largest seen ~5 MB):
/// checked before its bytes are asked for, so a hostile end record costs one small read.
pub const MAX_DIRECTORY_BYTES: u64 = 32 * 1024 * 1024;
/// The most central directory entries read (the largest wheels hold a few ten thousand files).
pub const MAX_DIRECTORY_ENTRIES: u64 = 250_000;

/// A window's bytes: read into memory (a range read), or a whole download mapped from its temp
/// file, of which only the pages read are brought in.
pub enum Bytes {
    /// In memory.
    Owned(Vec<u8>),
    /// Mapped.
    Mapped(std::sync::Arc<memmap2::Mmap>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(bytes) => bytes,
            Bytes::Mapped(map) => map,
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes::Owned(bytes)
    }
}

/// A window of a remote file: `bytes` start at `offset`.
pub struct Window {
    /// Where in the file the window starts.
    pub offset: u64,
    /// The window's bytes.
    pub bytes: Bytes,
}

impl Window {
    /// The `len` bytes at `start` of the file, when this window holds them all.
    pub fn get(&self, start: u64, len: u64) -> Option<&[u8]> {
        let from = usize::try_from(start.checked_sub(self.offset)?).ok()?;
        let to = from.checked_add(usize::try_from(len).ok()?)?;
        self.bytes.get(from..to)
    }

    /// The bytes from `start` to the window's end, when the window holds the byte at `start`.
    pub fn rest(&self, start: u64) -> Option<&[u8]> {
        let from = usize::try_from(start.checked_sub(self.offset)?).ok()?;
        self.bytes.get(from..).filter(|rest| !rest.is_empty())
    }
}

/// The `len` bytes at `start`, from whichever window holds them.
pub fn lookup(windows: &[Window], start: u64, len: u64) -> Option<&[u8]> {
    windows.iter().find_map(|w| w.get(start, len))
}

fn u16_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(i..i.checked_add(2)?)?.try_into().ok()?) as u64)
}
fn u32_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(i..i.checked_add(4)?)?.try_into().ok()?) as u64)
}
fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(i..i.checked_add(8)?)?.try_into().ok()?,
    ))
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

/// Find the end-of-central-directory record in the last window of a file `total` bytes long
/// (following a zip64 locator to the zip64 record).
pub fn find_eocd(window: &Window, total: u64) -> Result<Eocd, ZipError> {
    let b = &window.bytes;
    // The end record is the last 22 bytes but for its comment (at most 65,535): looked for
    // there only, so a whole download mapped from its file is not read page by page.
    let first = b.len().saturating_sub(22 + 0xffff);
    let pos = (first..b.len().saturating_sub(21))
        .rev()
        .find(|&i| b[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
        .ok_or(ZipError::NoEndRecord)?;
    let short = || ZipError::EndRecordShort;
    let mut eocd = Eocd {
        entries: u16_at(b, pos + 10).ok_or_else(short)?,
        cd_size: u32_at(b, pos + 12).ok_or_else(short)?,
        cd_offset: u32_at(b, pos + 16).ok_or_else(short)?,
    };
    // The file offset the central directory must end by: the end record (or the zip64 record).
    let mut cd_limit = window.offset + pos as u64;
    let is_zip64 = eocd.entries == 0xffff
        || eocd.cd_size == 0xffff_ffff
        || eocd.cd_offset == 0xffff_ffff
        || (pos >= 20 && b[pos - 20..pos - 16] == [0x50, 0x4b, 0x06, 0x07]);
    if is_zip64 {
        let loc = pos.checked_sub(20).ok_or(ZipError::Zip64LocatorMissing)?;
        if b[loc..loc + 4] != [0x50, 0x4b, 0x06, 0x07] {
            return Err(ZipError::Zip64LocatorMissing);
        }
        let record = u64_at(b, loc + 8).ok_or_else(short)?;
        if record
            .checked_add(56)
            .is_none_or(|end| end > window.offset + loc as u64)
        {
            return Err(ZipError::Zip64RecordAfterLocator);
        }
        cd_limit = record;
        let rec = window.get(record, 56).ok_or(ZipError::Zip64RecordOutside)?;
        if rec[..4] != [0x50, 0x4b, 0x06, 0x06] {
            return Err(ZipError::BadZip64Record);
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
        .is_none_or(|end| end > total || end > cd_limit)
    {
        return Err(ZipError::DirectoryOutside);
    }
    if eocd.cd_size > MAX_DIRECTORY_BYTES || eocd.entries > MAX_DIRECTORY_ENTRIES {
        return Err(ZipError::DirectoryTooLarge {
            cd_size: eocd.cd_size,
            entries: eocd.entries,
        });
    }
    // Each entry takes at least 46 bytes: a count the directory cannot hold is a lie.
    if eocd.entries > eocd.cd_size / 46 {
        return Err(ZipError::TooManyEntries {
            entries: eocd.entries,
            cd_size: eocd.cd_size,
        });
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
    /// CRC-32 of the uncompressed data.
    pub crc32: u32,
}

/// The `count` entries of a central directory (zip64 sizes and offsets applied). Fewer entries
/// than declared is an error, and so is an entry whose data would not lie before `cd_offset`
/// (where the directory starts).
pub fn parse_central_directory(
    cd: &[u8],
    count: u64,
    cd_offset: u64,
) -> Result<Vec<ZipEntry>, ZipError> {
    entries_in(cd, count, cd_offset, false)
}

/// The entries wholly inside `prefix`, the first bytes of a central directory of `count`
/// entries that starts at `cd_offset`: checked as [`parse_central_directory`] checks them, and
/// in the same order, so the first entry of a kind found here is the directory's first.
pub fn parse_central_directory_prefix(
    prefix: &[u8],
    count: u64,
    cd_offset: u64,
) -> Result<Vec<ZipEntry>, ZipError> {
    entries_in(prefix, count, cd_offset, true)
}

/// Up to `count` entries from the start of `cd`; with `prefix`, stopping at the first entry
/// `cd` does not hold whole instead of failing on it.
fn entries_in(
    cd: &[u8],
    count: u64,
    cd_offset: u64,
    prefix: bool,
) -> Result<Vec<ZipEntry>, ZipError> {
    let mut entries = Vec::new();
    let mut i = 0;
    while (entries.len() as u64) < count {
        if prefix && !holds_entry(cd, i) {
            break;
        }
        let (entry, len) = central_entry(cd, i)?;
        let data_end = entry
            .local_offset
            .checked_add(30)
            .and_then(|e| e.checked_add(entry.compressed_size));
        if data_end.is_none_or(|end| end > cd_offset) {
            return Err(ZipError::DataBeyondDirectory(entry.name));
        }
        entries.push(entry);
        i += len;
    }
    Ok(entries)
}

/// Whether `cd` holds the whole central directory entry at `i` (its fixed part and the name,
/// extra field and comment it declares).
fn holds_entry(cd: &[u8], i: usize) -> bool {
    let len = |at: usize| u16_at(cd, i + at).map(|n| n as usize);
    match (len(28), len(30), len(32)) {
        (Some(name), Some(extra), Some(comment)) => i + 46 + name + extra + comment <= cd.len(),
        _ => false,
    }
}

/// The central directory entry at `i` and its length in bytes.
fn central_entry(cd: &[u8], i: usize) -> Result<(ZipEntry, usize), ZipError> {
    let short = || ZipError::DirectoryShort;
    if cd.get(i..i + 4).ok_or_else(short)? != [0x50, 0x4b, 0x01, 0x02] {
        return Err(ZipError::BadEntry);
    }
    let field = |at: usize, width: usize| match width {
        2 => u16_at(cd, i + at),
        _ => u32_at(cd, i + at),
    };
    let method = field(10, 2).ok_or_else(short)? as u16;
    let crc32 = field(16, 4).ok_or_else(short)? as u32;
    let mut compressed_size = field(20, 4).ok_or_else(short)?;
    let mut uncompressed_size = field(24, 4).ok_or_else(short)?;
    let name_len = field(28, 2).ok_or_else(short)? as usize;
    let extra_len = field(30, 2).ok_or_else(short)? as usize;
    let comment_len = field(32, 2).ok_or_else(short)? as usize;
    let mut local_offset = field(42, 4).ok_or_else(short)?;
    let name = cd.get(i + 46..i + 46 + name_len).ok_or_else(short)?;
    let extra_start = i + 46 + name_len;
    let extra = cd
        .get(extra_start..extra_start + extra_len)
        .ok_or_else(short)?;
    apply_zip64(
        extra,
        [
            &mut uncompressed_size,
            &mut compressed_size,
            &mut local_offset,
        ],
    )?;
    let entry = ZipEntry {
        name: String::from_utf8_lossy(name).into_owned(),
        method,
        compressed_size,
        uncompressed_size,
        local_offset,
        crc32,
    };
    Ok((entry, 46 + name_len + extra_len + comment_len))
}

/// The zip64 extra field (id 1) holds, in this order, the 64-bit value of each field that is
/// 0xffffffff; each must lie inside the field's own declared block.
fn apply_zip64(extra: &[u8], fields: [&mut u64; 3]) -> Result<(), ZipError> {
    let mut j = 0;
    while j + 4 <= extra.len() {
        let id = u16_at(extra, j).unwrap_or(0);
        let size = u16_at(extra, j + 2).unwrap_or(0) as usize;
        let block = extra
            .get(j + 4..j + 4 + size)
            .ok_or(ZipError::ExtraPastEntry)?;
        if id == 1 {
            let mut k = 0;
            for field in fields {
                if *field == 0xffff_ffff {
                    *field = u64_at(block, k).ok_or(ZipError::Zip64ExtraShort)?;
                    k += 8;
                }
            }
            return Ok(());
        }
        j += 4 + size;
    }
    Ok(())
}

/// The data of `entry`, given bytes starting at its local header: at most
/// [`crate::metadata::max_bytes`], and exactly the declared size with the declared CRC-32.
pub fn extract(local: &[u8], entry: &ZipEntry) -> Result<Vec<u8>, ZipError> {
    let limit = crate::metadata::max_bytes() as u64;
    if entry.uncompressed_size > limit {
        return Err(ZipError::OverLimit {
            name: entry.name.clone(),
            size: entry.uncompressed_size,
            limit,
        });
    }
    if local.get(..4) != Some(&[0x50, 0x4b, 0x03, 0x04][..]) {
        return Err(ZipError::BadLocalHeader);
    }
    let name_len = u16_at(local, 26).ok_or(ZipError::LocalHeaderShort)? as usize;
    let extra_len = u16_at(local, 28).ok_or(ZipError::LocalHeaderShort)? as usize;
    let start = 30 + name_len + extra_len;
    let data = usize::try_from(entry.compressed_size)
        .ok()
        .and_then(|len| local.get(start..start.checked_add(len)?))
        .ok_or(ZipError::DataShort)?;
    let out = match entry.method {
        0 => data.to_vec(),
        8 => {
            let mut out = Vec::with_capacity(entry.uncompressed_size as usize);
            flate2::read::DeflateDecoder::new(data)
                .take(entry.uncompressed_size + 1)
                .read_to_end(&mut out)
                .map_err(ZipError::Inflate)?;
            out
        }
        m => return Err(ZipError::Method(m)),
    };
    if out.len() as u64 != entry.uncompressed_size {
        return Err(ZipError::SizeMismatch {
            name: entry.name.clone(),
            found: out.len(),
            declared: entry.uncompressed_size,
        });
    }
    if crc32fast::hash(&out) != entry.crc32 {
        return Err(ZipError::Crc(entry.name.clone()));
    }
    Ok(out)
}

/// The central directory's size and entry count that the last bytes of a file `total` bytes
/// long declare, once checked (what a range read of a wheel would fetch next): the
/// `fuzz:zip` target's entry to the end-record reader.
pub fn declared_directory(tail: &[u8], total: u64) -> Result<(u64, u64), ZipError> {
    let window = Window {
        offset: total.saturating_sub(tail.len() as u64),
        bytes: tail.to_vec().into(),
    };
    find_eocd(&window, total).map(|eocd| (eocd.cd_size, eocd.entries))
}

/// Read one member of an in-memory zip by a predicate on its name.
pub fn zip_member(bytes: &[u8], want: impl Fn(&str) -> bool) -> Result<Option<Vec<u8>>, ZipError> {
    let window = Window {
        offset: 0,
        bytes: bytes.to_vec().into(),
    };
    let eocd = find_eocd(&window, bytes.len() as u64)?;
    let cd = window
        .get(eocd.cd_offset, eocd.cd_size)
        .ok_or(ZipError::DirectoryOutside)?;
    let entries = parse_central_directory(cd, eocd.entries, eocd.cd_offset)?;
    let Some(entry) = entries.iter().find(|e| want(&e.name)) else {
        return Ok(None);
    };
    let local = usize::try_from(entry.local_offset)
        .ok()
        .and_then(|offset| bytes.get(offset..))
        .ok_or(ZipError::EntryOutside)?;
    extract(local, entry).map(Some)
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
            let crc = crc32fast::hash(data);
            local.extend([0; 4]); // time, date
            local.extend(crc.to_le_bytes());
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
            c.extend([0; 4]); // time, date
            c.extend(crc.to_le_bytes());
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

    /// The end record of a whole in-memory zip.
    fn eocd_of(zip: &[u8]) -> Eocd {
        let window = Window {
            offset: 0,
            bytes: zip.to_vec().into(),
        };
        find_eocd(&window, zip.len() as u64).unwrap()
    }

    #[test]
    fn a_directory_prefix_gives_the_whole_entries_it_holds_in_order() {
        for zip64 in [false, true] {
            let names: Vec<String> = (0..40).map(|i| format!("demo/m{i:02}.py")).collect();
            let members: Vec<(&str, &[u8], bool)> =
                names.iter().map(|n| (n.as_str(), META, true)).collect();
            let zip = make_zip(&members, zip64);
            let eocd = eocd_of(&zip);
            let (start, len) = (eocd.cd_offset as usize, eocd.cd_size as usize);
            let whole =
                parse_central_directory(&zip[start..start + len], eocd.entries, eocd.cd_offset)
                    .unwrap();
            assert_eq!(whole.len(), 40);
            // Every cut, including one inside an entry's fixed part or name: the entries wholly
            // before it, the same as the whole directory's first ones; never an error.
            for cut in 0..=len {
                let prefix = &zip[start..start + cut];
                let got =
                    parse_central_directory_prefix(prefix, eocd.entries, eocd.cd_offset).unwrap();
                let mut end = 0;
                let fits = whole
                    .iter()
                    .take_while(|e| {
                        end += 46 + e.name.len() + if zip64 { 28 } else { 0 };
                        end <= cut
                    })
                    .count();
                assert_eq!(got, whole[..fits], "zip64={zip64} cut={cut}");
            }
        }
        // What the whole parse rejects inside the prefix, the prefix parse rejects too.
        let mut zip = make_zip(&[("a-1.dist-info/METADATA", META, true)], false);
        let eocd = eocd_of(&zip);
        zip[eocd.cd_offset as usize] = b'X';
        let cd = &zip[eocd.cd_offset as usize..];
        assert!(parse_central_directory_prefix(cd, eocd.entries, eocd.cd_offset).is_err());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(zip_member(b"not a zip at all", |_| true).is_err());
        let mut zip = make_zip(&[("a-1.dist-info/METADATA", META, true)], false);
        let n = zip.len();
        zip[n - 6] = 0xff; // central directory offset beyond the file
        assert!(zip_member(&zip, |_| true).is_err());
    }

    /// A one-member zip and the offset of its central directory entry.
    fn one_member(zip64: bool) -> (Vec<u8>, usize) {
        let zip = make_zip(&[("a-1.dist-info/METADATA", META, true)], zip64);
        let cd = (0..zip.len())
            .find(|&i| zip[i..].starts_with(&[0x50, 0x4b, 0x01, 0x02]))
            .unwrap();
        (zip, cd)
    }

    fn put_u32(zip: &mut [u8], at: usize, v: u32) {
        zip[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn refused(zip: &[u8], why: &str) {
        let err = zip_member(zip, |_| true).unwrap_err();
        assert!(
            err.to_string().contains(why),
            "`{err}` does not say `{why}`"
        );
    }

    /// Each declared value the reader checks, lied about once: an error naming the lie, never a
    /// panic, an abort on a huge allocation, or wrong bytes returned.
    #[test]
    fn declared_sizes_offsets_and_counts_are_not_trusted() {
        let (good, cd) = one_member(false);
        assert_eq!(zip_member(&good, |_| true).unwrap().as_deref(), Some(META));
        let n = good.len();
        // More entries declared than the directory holds.
        let err = parse_central_directory(&good[cd..n - 22], 2, cd as u64).unwrap_err();
        assert!(
            err.to_string().contains("fewer entries than declared"),
            "{err}"
        );
        // An absurd count for the directory's size.
        let mut zip = good.clone();
        zip[n - 12..n - 10].copy_from_slice(&0xfffeu16.to_le_bytes());
        refused(&zip, "entries declared");
        // A member whose data would run into the central directory.
        let mut zip = good.clone();
        put_u32(&mut zip, cd + 20, 0x7fff_0000);
        refused(&zip, "beyond the central directory");
        // A huge declared size: refused before any allocation.
        let mut zip = good.clone();
        put_u32(&mut zip, cd + 24, 0xffff_fffe);
        refused(&zip, "over the");
        // A declared size smaller than the data.
        let mut zip = good.clone();
        put_u32(&mut zip, cd + 24, META.len() as u32 - 1);
        refused(&zip, "not the");
        // A wrong CRC-32.
        let mut zip = good.clone();
        zip[cd + 16] ^= 0xff;
        refused(&zip, "CRC-32");
        // A central directory that would end after the end record.
        let mut zip = good.clone();
        put_u32(&mut zip, n - 10, (n - cd) as u32);
        refused(&zip, "outside the file");
    }

    #[test]
    fn zip64_fields_are_checked_too() {
        let (good, cd) = one_member(true);
        assert_eq!(zip_member(&good, |_| true).unwrap().as_deref(), Some(META));
        let extra = cd + 46 + "a-1.dist-info/METADATA".len();
        // A zip64 compressed size of u64::MAX (overflowed offsets once).
        let mut zip = good.clone();
        zip[extra + 12..extra + 20].copy_from_slice(&u64::MAX.to_le_bytes());
        refused(&zip, "beyond the central directory");
        // The zip64 block declares fewer bytes than the fields it must hold.
        let mut zip = good.clone();
        zip[extra + 2..extra + 4].copy_from_slice(&8u16.to_le_bytes());
        refused(&zip, "zip64 extra field cut short");
        // The block declares more bytes than the entry's extra field has.
        let mut zip = good.clone();
        zip[extra + 2..extra + 4].copy_from_slice(&200u16.to_le_bytes());
        refused(&zip, "runs past its entry");
    }

    /// The last 64 KiB of a file `total` bytes long whose end record (zip64 when `zip64`)
    /// claims a central directory of `cd_size` bytes ending where the end records start.
    fn bomb_tail(total: u64, cd_size: u64, zip64: bool) -> Vec<u8> {
        let mut tail = vec![0u8; 65536];
        let base = total - tail.len() as u64;
        let pos = tail.len() - 22;
        let mut eocd = vec![0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0];
        if zip64 {
            let (loc, rec) = (pos - 20, pos - 20 - 56);
            let rec_off = base + rec as u64;
            let mut record = vec![0x50, 0x4b, 0x06, 0x06];
            record.extend(44u64.to_le_bytes());
            record.extend([45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            record.extend(1u64.to_le_bytes());
            record.extend(1u64.to_le_bytes());
            record.extend(cd_size.to_le_bytes());
            record.extend((rec_off - cd_size).to_le_bytes());
            tail[rec..rec + 56].copy_from_slice(&record);
            let mut locator = vec![0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0];
            locator.extend(rec_off.to_le_bytes());
            locator.extend(1u32.to_le_bytes());
            tail[loc..loc + 20].copy_from_slice(&locator);
            eocd.extend([0xff; 12]);
        } else {
            let cd_off = base + pos as u64 - cd_size;
            eocd.extend([1, 0, 1, 0]);
            eocd.extend((cd_size as u32).to_le_bytes());
            eocd.extend((cd_off as u32).to_le_bytes());
        }
        eocd.extend([0, 0]);
        tail[pos..].copy_from_slice(&eocd);
        tail
    }

    /// An end record claiming a directory of gigabytes (inside the file the server says it
    /// has) is refused before the directory is asked for: it once made a range read of the
    /// whole claim, held in memory (3 GiB: 5.1 GB peak; zip64 64 GiB: an abort).
    #[test]
    fn a_huge_declared_directory_is_refused_before_it_is_read() {
        for (cd_size, zip64) in [
            (3 << 30, false),
            (64 << 30, true),
            (MAX_DIRECTORY_BYTES + 1, true),
        ] {
            let total = cd_size + 65536 + 4096;
            let tail = bomb_tail(total, cd_size, zip64);
            let err = declared_directory(&tail, total).unwrap_err();
            assert!(
                matches!(err, ZipError::DirectoryTooLarge { .. }),
                "{cd_size} zip64={zip64}: {err}"
            );
            assert!(err.to_string().contains("over the limit"), "{err}");
        }
        // A real wheel's directory is under the cap and reads as before.
        let total = 4 << 20;
        let tail = bomb_tail(total, 1 << 20, true);
        assert_eq!(declared_directory(&tail, total).unwrap(), (1 << 20, 1));
    }

    /// The end record is looked for in the last 65,557 bytes only (22 and the longest
    /// comment): a whole download mapped from its file is not scanned page by page (a 1.5 GiB
    /// wheel of zeros once made every page resident).
    #[test]
    fn the_end_record_is_looked_for_at_the_end_only() {
        let mut zip = make_zip(&[("a-1.dist-info/METADATA", META, true)], false);
        assert!(zip_member(&zip, |_| true).unwrap().is_some());
        zip.extend(vec![0u8; 22 + 0xffff]);
        assert!(matches!(
            zip_member(&zip, |_| true),
            Err(ZipError::NoEndRecord)
        ));
    }
}
