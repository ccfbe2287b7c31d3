//! The PKG-INFO of an sdist: `.tar.gz`, `.tgz`, `.tar` or `.zip`, read in memory.
//!
//! In: the archive's file name (for its format) and bytes. Out: the bytes of `<top>/PKG-INFO`, or
//! `None` when there is none; errors are plain strings that the caller wraps with the file and
//! URL. No IO: `metadata_fetch` fetches the archive and decides whether PKG-INFO can be trusted.

use std::io::Read;

use super::zip::zip_member;

/// `<top>/PKG-INFO` out of an sdist named `name`.
pub(super) fn pkg_info(name: &str, bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let is_pkg_info = |path: &str| {
        let mut parts = path.trim_start_matches("./").split('/');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(_), Some("PKG-INFO"), None)
        )
    };
    if name.ends_with(".zip") {
        zip_member(bytes, is_pkg_info)
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        tar_member(flate2::read::GzDecoder::new(bytes), is_pkg_info)
    } else if name.ends_with(".tar") {
        tar_member(bytes, is_pkg_info)
    } else {
        Err("unsupported sdist archive format".to_string())
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
