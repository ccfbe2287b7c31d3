//! A release file's digests by algorithm (`sha256` -> hex), as the index lists them.
//!
//! In: pairs from a page (JSON `hashes`, a URL's `#sha256=` fragment, `core-metadata` hashes) or
//! the page cache. Out: [`Hashes`], looked up by algorithm. A file has one or two digests, so
//! they are kept in one short string: the pages a resolve reads hold thousands of files, and a
//! `BTreeMap` spent a node of over 500 bytes and three allocations on each.

use std::collections::BTreeMap;

use sha2::Digest;

/// The algorithms whose digests are checked, strongest first: those of PEP 691's hash names
/// (`hashlib`'s guaranteed ones) an index lists for files. A digest by any other algorithm is
/// not checked (and not trusted: it proves nothing).
pub const CHECKED: [&str; 4] = ["sha512", "blake2b", "sha384", "sha256"];

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hex digest of `bytes` by `algorithm` (one of [`CHECKED`]; `blake2b` is hashlib's
/// default, 64 bytes).
pub fn digest(algorithm: &str, bytes: &[u8]) -> Option<String> {
    let raw: Vec<u8> = match algorithm {
        "sha512" => sha2::Sha512::digest(bytes).to_vec(),
        "sha384" => sha2::Sha384::digest(bytes).to_vec(),
        "sha256" => sha2::Sha256::digest(bytes).to_vec(),
        "blake2b" => blake2::Blake2b512::digest(bytes).to_vec(),
        _ => return None,
    };
    Some(hex(&raw))
}

/// A hasher for `algorithm` (one of [`CHECKED`]).
fn hasher(algorithm: &str) -> Option<Box<dyn sha2::digest::DynDigest>> {
    Some(match algorithm {
        "sha512" => Box::new(sha2::Sha512::default()),
        "sha384" => Box::new(sha2::Sha384::default()),
        "sha256" => Box::new(sha2::Sha256::default()),
        "blake2b" => Box::new(blake2::Blake2b512::default()),
        _ => return None,
    })
}

/// [`check`] of a file's bytes, read in 1 MiB blocks (a download spooled to a temp file: it is
/// never held in memory whole, nor mapped page by page into the process).
pub fn check_file(hashes: &Hashes, file: &std::fs::File) -> Result<Vec<&'static str>, Mismatch> {
    use std::os::unix::fs::FileExt as _;
    let mut hashers: Vec<(&'static str, &str, Box<dyn sha2::digest::DynDigest>)> = CHECKED
        .into_iter()
        .filter_map(|a| Some((a, hashes.get(a)?, hasher(a)?)))
        .collect();
    let mut block = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = match file.read_at(&mut block, at) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                let algorithm = hashers.first().map_or("sha256", |h| h.0);
                return Err(Mismatch {
                    algorithm,
                    expected: String::new(),
                    actual: format!("(the download cannot be read back: {e})"),
                });
            }
        };
        for (_, _, h) in &mut hashers {
            h.update(&block[..n]);
        }
        at += n as u64;
    }
    let mut matched = Vec::new();
    for (algorithm, expected, h) in hashers {
        let actual = hex(&h.finalize());
        if !actual.eq_ignore_ascii_case(expected.trim()) {
            return Err(Mismatch {
                algorithm,
                expected: expected.to_string(),
                actual,
            });
        }
        matched.push(algorithm);
    }
    Ok(matched)
}

/// A listed digest that `bytes` do not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The algorithm (`sha512`).
    pub algorithm: &'static str,
    /// The digest listed.
    pub expected: String,
    /// The bytes' digest.
    pub actual: String,
}

/// Check `bytes` against every digest `hashes` lists by a [`CHECKED`] algorithm: the
/// algorithms that matched (none listed: empty), or the first that did not.
pub fn check(hashes: &Hashes, bytes: &[u8]) -> Result<Vec<&'static str>, Mismatch> {
    let mut matched = Vec::new();
    for algorithm in CHECKED {
        let Some(expected) = hashes.get(algorithm) else {
            continue;
        };
        let actual = digest(algorithm, bytes).unwrap_or_default();
        if !actual.eq_ignore_ascii_case(expected.trim()) {
            return Err(Mismatch {
                algorithm,
                expected: expected.to_string(),
                actual,
            });
        }
        matched.push(algorithm);
    }
    Ok(matched)
}

/// Digests by algorithm, sorted by algorithm, one per algorithm: kept as one string of
/// `algorithm=digest` lines (one allocation per file; neither part holds `=` or a newline, see
/// [`Hashes::from_iter`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hashes(Box<str>);

impl Hashes {
    /// The digest for `algorithm` (`sha256`), if listed.
    pub fn get(&self, algorithm: &str) -> Option<&str> {
        self.iter().find(|(a, _)| *a == algorithm).map(|(_, d)| d)
    }

    /// `(algorithm, digest)` pairs, by algorithm.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.split('\n').filter_map(|line| line.split_once('='))
    }

    /// Whether no digest is listed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The stored text: `algorithm=digest` lines, as [`Hashes::from_stored`] reads it back.
    pub fn as_stored(&self) -> &str {
        &self.0
    }

    /// Digests from the text [`Hashes::as_stored`] gave, read back from the page cache (whose
    /// per-record CRC-32 vouches that it is that text): one allocation, nothing sorted or
    /// re-escaped, as a warm read builds it for every file it names.
    pub fn from_stored(text: &str) -> Hashes {
        Hashes(text.into())
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for Hashes {
    /// Later pairs win over earlier ones of the same algorithm (as inserting into a map). A
    /// pair whose algorithm is empty or holds `=` or a newline names no algorithm a check looks
    /// for and is left out; a newline in a digest becomes a space, so the digest is kept and
    /// still matches no file (a check fails, as it did on the digest as given).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Hashes {
        let mut list: Vec<(K, V)> = pairs
            .into_iter()
            .filter(|(a, _)| {
                let a = a.as_ref();
                !a.is_empty() && !a.contains(['=', '\n'])
            })
            .collect();
        list.reverse();
        list.sort_by(|x, y| x.0.as_ref().cmp(y.0.as_ref())); // stable: the last given stays first
        list.dedup_by(|later, kept| later.0.as_ref() == kept.0.as_ref());
        let mut text = String::new();
        for (a, d) in &list {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(a.as_ref());
            text.push('=');
            text.extend(d.as_ref().chars().map(|c| if c == '\n' { ' ' } else { c }));
        }
        Hashes(text.into_boxed_str())
    }
}

impl From<BTreeMap<String, String>> for Hashes {
    fn from(map: BTreeMap<String, String>) -> Hashes {
        map.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_by_algorithm_and_the_last_pair_wins() {
        let h: Hashes = [("sha256", "aa"), ("md5", "bb"), ("sha256", "cc")]
            .into_iter()
            .collect();
        assert_eq!(h.get("sha256"), Some("cc"));
        assert_eq!(h.get("md5"), Some("bb"));
        assert_eq!(h.get("sha512"), None);
        assert_eq!(
            h.iter().collect::<Vec<_>>(),
            [("md5", "bb"), ("sha256", "cc")]
        );
        assert!(Hashes::default().is_empty());
        let odd: Hashes = [
            ("", "aa"),
            ("a=b", "cc"),
            ("x\ny", "dd"),
            ("md5", "e\nf"),
            ("sha1", "a=b"),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            odd.iter().collect::<Vec<_>>(),
            [("md5", "e f"), ("sha1", "a=b")]
        );
        let map = BTreeMap::from([
            ("sha256".to_string(), "cc".to_string()),
            ("md5".into(), "bb".into()),
        ]);
        assert_eq!(Hashes::from(map), h);
    }

    /// Each algorithm against a known digest of `abc`, and a mismatch named by its algorithm
    /// even beside a matching sha256 (a `.metadata` advertised by sha512 alone was accepted
    /// unchecked).
    #[test]
    fn every_listed_algorithm_is_checked() {
        let known = [
            (
                "sha256",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                "sha384",
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                "sha512",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
            (
                "blake2b",
                "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
            ),
        ];
        for (algorithm, hex) in known {
            assert_eq!(
                digest(algorithm, b"abc").as_deref(),
                Some(hex),
                "{algorithm}"
            );
            let good: Hashes = [(algorithm, hex)].into_iter().collect();
            assert_eq!(check(&good, b"abc").unwrap(), [algorithm]);
            let bad: Hashes = [("sha256", known[0].1), (algorithm, &"0".repeat(hex.len()))]
                .into_iter()
                .collect();
            if algorithm != "sha256" {
                assert_eq!(check(&bad, b"abc").unwrap_err().algorithm, algorithm);
            }
        }
        let unknown: Hashes = [("md5", "00")].into_iter().collect();
        assert!(check(&unknown, b"abc").unwrap().is_empty());
    }
}
