//! Wheel compatibility tags (PEP 425) of a target environment, in priority order.
//!
//! In: the ordered tag list an interpreter reports (`packaging.tags.sys_tags()`), or one
//! generated for `--python-version`/`--python-platform`. Out: [`Tags`], which ranks a wheel's
//! tag triples: lower rank is better, `None` means the wheel cannot be installed.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// One `python-abi-platform` triple, e.g. `cp312-cp312-manylinux_2_28_x86_64`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Tag {
    /// Interpreter tag (`cp312`, `py3`).
    pub interpreter: String,
    /// ABI tag (`cp312`, `abi3`, `none`).
    pub abi: String,
    /// Platform tag (`manylinux_2_28_x86_64`, `any`).
    pub platform: String,
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.interpreter, self.abi, self.platform)
    }
}

impl std::str::FromStr for Tag {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.splitn(3, '-');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(i), Some(a), Some(p)) if !i.is_empty() && !a.is_empty() && !p.is_empty() => {
                Ok(Tag {
                    interpreter: i.to_string(),
                    abi: a.to_string(),
                    platform: p.to_string(),
                })
            }
            _ => Err(format!("`{s}` is not a python-abi-platform tag")),
        }
    }
}

/// A compressed tag set's three parts (`py2.py3`, `none`, `any`); a missing part is empty.
pub fn split_set(set: &str) -> [&str; 3] {
    let mut parts = set.splitn(3, '-');
    [(); 3].map(|_| parts.next().unwrap_or(""))
}

/// Every `(python, abi, platform)` triple a compressed tag set expands to (the cartesian
/// product of its parts' dot-separated values), in order.
pub fn expand_set(set: &str) -> impl Iterator<Item = (&str, &str, &str)> {
    let [py, abi, plat] = split_set(set);
    py.split('.').flat_map(move |p| {
        abi.split('.')
            .flat_map(move |a| plat.split('.').map(move |pl| (p, a, pl)))
    })
}

/// The first triple a compressed tag set expands to: each part's first value.
pub fn first_of_set(set: &str) -> (&str, &str, &str) {
    fn first(part: &str) -> &str {
        part.split('.').next().unwrap_or("")
    }
    let [py, abi, plat] = split_set(set);
    (first(py), first(abi), first(plat))
}

/// A tag set compressed (`py3.py2-none-any`): each part's values in first-seen order, so a
/// cartesian product expands back to the same triples in the same order.
pub fn compress_set(tags: &[Tag]) -> String {
    let mut parts: [Vec<&str>; 3] = Default::default();
    for t in tags {
        for (seen, value) in parts.iter_mut().zip([&t.interpreter, &t.abi, &t.platform]) {
            if !seen.contains(&value.as_str()) {
                seen.push(value);
            }
        }
    }
    format!(
        "{}-{}-{}",
        parts[0].join("."),
        parts[1].join("."),
        parts[2].join(".")
    )
}

/// The tags an environment supports, best first. Cloned freely (the tables are shared): an
/// environment's set holds a few thousand tags, and the index settings and each solver catalog
/// keep one.
#[derive(Debug, Clone, Default)]
pub struct Tags(Arc<Tables>);

#[derive(Debug, Default)]
struct Tables {
    ordered: Vec<Tag>,
    rank: FxHashMap<Tag, usize>,
    /// The same ranks keyed by each tag's text (`cp312-cp312-manylinux_2_28_x86_64`), so a
    /// compressed tag set is ranked off its text ([`Tags::best_rank_of_set`]).
    rank_by_text: FxHashMap<String, usize>,
}

impl Tags {
    /// Tags in priority order (best first). Later duplicates are ignored.
    pub fn new(ordered: Vec<Tag>) -> Self {
        let mut rank = FxHashMap::with_capacity_and_hasher(ordered.len(), Default::default());
        let mut rank_by_text = FxHashMap::default();
        for (i, tag) in ordered.iter().enumerate() {
            rank.entry(tag.clone()).or_insert(i);
            rank_by_text.entry(tag.to_string()).or_insert(i);
        }
        Tags(Arc::new(Tables {
            ordered,
            rank,
            rank_by_text,
        }))
    }

    /// [`Tags::best_rank`] of the triples a wheel's compressed tag set (`py2.py3-none-any`)
    /// expands to, read off the text: a page's filter ranks every distinct tag set of the page
    /// (hundreds for some), most of which no kept file uses, so none is built as tags.
    pub fn best_rank_of_set(&self, set: &str) -> Option<usize> {
        let mut text = String::new();
        expand_set(set)
            .filter_map(|(p, a, pl)| {
                text.clear();
                text.extend([p, "-", a, "-", pl]);
                self.0.rank_by_text.get(text.as_str()).copied()
            })
            .min()
    }

    /// The rank of one triple (0 is best), or `None` when it is not supported.
    pub fn rank(&self, tag: &Tag) -> Option<usize> {
        self.0.rank.get(tag).copied()
    }

    /// The best rank among a wheel's (expanded) tag triples, or `None` when none is supported.
    pub fn best_rank<'a>(&self, tags: impl IntoIterator<Item = &'a Tag>) -> Option<usize> {
        tags.into_iter().filter_map(|tag| self.rank(tag)).min()
    }

    /// The tags, best first.
    pub fn as_slice(&self) -> &[Tag] {
        &self.0.ordered
    }

    /// Whether there are none.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.0.ordered.is_empty()
    }
}

impl Serialize for Tags {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.ordered.iter().map(ToString::to_string))
    }
}

impl<'de> Deserialize<'de> for Tags {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let strings = Vec::<String>::deserialize(deserializer)?;
        let tags = strings
            .iter()
            .map(|s| s.parse::<Tag>().map_err(serde::de::Error::custom))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Tags::new(tags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_best_first() {
        let tags = Tags::new(vec![
            "cp312-cp312-manylinux_2_28_x86_64".parse().unwrap(),
            "cp312-abi3-manylinux_2_28_x86_64".parse().unwrap(),
            "py3-none-any".parse().unwrap(),
        ]);
        let any: Tag = "py3-none-any".parse().unwrap();
        let mac: Tag = "cp312-cp312-macosx_11_0_arm64".parse().unwrap();
        assert_eq!(tags.rank(&any), Some(2));
        assert_eq!(tags.rank(&mac), None);
        assert_eq!(tags.best_rank([&mac, &any]), Some(2));
    }
}
