//! A release file's digests by algorithm (`sha256` -> hex), as the index lists them.
//!
//! In: pairs from a page (JSON `hashes`, a URL's `#sha256=` fragment, `core-metadata` hashes) or
//! the page cache. Out: [`Hashes`], looked up by algorithm. A file has one or two digests, so
//! they are kept in one short string: the pages a resolve reads hold thousands of files, and a
//! `BTreeMap` spent a node of over 500 bytes and three allocations on each.

use std::collections::BTreeMap;

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
    pub(super) fn as_stored(&self) -> &str {
        &self.0
    }

    /// Digests from the text [`Hashes::as_stored`] gave, read back from the page cache (whose
    /// per-record CRC-32 vouches that it is that text): one allocation, nothing sorted or
    /// re-escaped, as a warm read builds it for every file it names.
    pub(super) fn from_stored(text: &str) -> Hashes {
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
}
