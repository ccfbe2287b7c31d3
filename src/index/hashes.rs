//! A release file's digests by algorithm (`sha256` -> hex), as the index lists them.
//!
//! In: pairs from a page (JSON `hashes`, a URL's `#sha256=` fragment, `core-metadata` hashes) or
//! the page cache. Out: [`Hashes`], looked up by algorithm. A file has one or two digests, so
//! they are kept as a sorted slice: the pages a resolve reads hold thousands of files, and a
//! `BTreeMap` spent a node of over 500 bytes on each.

use std::collections::BTreeMap;

/// Digests by algorithm, sorted by algorithm, one per algorithm.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hashes(Box<[(Box<str>, Box<str>)]>);

impl Hashes {
    /// The digest for `algorithm` (`sha256`), if listed.
    pub fn get(&self, algorithm: &str) -> Option<&str> {
        self.0
            .binary_search_by(|(a, _)| (**a).cmp(algorithm))
            .ok()
            .map(|i| &*self.0[i].1)
    }

    /// `(algorithm, digest)` pairs, by algorithm.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(a, d)| (&**a, &**d))
    }

    /// Whether no digest is listed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Into<Box<str>>, V: Into<Box<str>>> FromIterator<(K, V)> for Hashes {
    /// Later pairs win over earlier ones of the same algorithm (as inserting into a map).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Hashes {
        let mut list: Vec<(Box<str>, Box<str>)> = pairs
            .into_iter()
            .map(|(a, d)| (a.into(), d.into()))
            .collect();
        list.reverse();
        list.sort_by(|a, b| a.0.cmp(&b.0)); // stable: the last given stays first
        list.dedup_by(|later, kept| later.0 == kept.0);
        Hashes(list.into_boxed_slice())
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
        let map = BTreeMap::from([
            ("sha256".to_string(), "cc".to_string()),
            ("md5".into(), "bb".into()),
        ]);
        assert_eq!(Hashes::from(map), h);
    }
}
