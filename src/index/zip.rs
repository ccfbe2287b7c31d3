//! A zip reader just large enough for wheels: the end-of-central-directory record (zip64
//! included), the central directory, and one member's data (stored or deflated).
//!
//! In: bytes of a zip, whole or as [`Window`]s of a remote file (range reads); out: the
//! [`Eocd`], the [`ZipEntry`]s, one member's bytes. Errors are plain strings that the caller
//! wraps with the file and URL. No IO: `metadata_fetch` decides which bytes to fetch.

use std::io::Read;

use crate::metadata::MAX_METADATA_BYTES;

/// A window of a remote file: `bytes` start at `offset`.
pub(super) struct Window {
    pub(super) offset: u64,
    pub(super) bytes: Vec<u8>,
}

impl Window {
    /// The `len` bytes at `start` of the file, when this window holds them all.
    pub(super) fn get(&self, start: u64, len: u64) -> Option<&[u8]> {
        let from = start.checked_sub(self.offset)? as usize;
        let to = from.checked_add(len as usize)?;
        self.bytes.get(from..to)
    }
}

/// The `len` bytes at `start`, from whichever window holds them.
pub(super) fn lookup(windows: &[Window], start: u64, len: u64) -> Option<&[u8]> {
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

/// Find the end-of-central-directory record in the last window of a file `total` bytes long
/// (following a zip64 locator to the zip64 record).
pub(super) fn find_eocd(window: &Window, total: u64) -> Result<Eocd, String> {
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

/// The first `count` entries of a central directory (zip64 sizes and offsets applied).
pub(super) fn parse_central_directory(cd: &[u8], count: u64) -> Result<Vec<ZipEntry>, String> {
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

/// The data of `entry`, given bytes starting at its local header.
pub(super) fn extract(local: &[u8], entry: &ZipEntry) -> Result<Vec<u8>, String> {
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
}
