//! Version correspondences inside a coupled group: "torchvision 0.(N+15) goes with torch 2.N".
//!
//! In: a [`VersionTemplate`] parsed from a policy (`"0.{minor+15}"`, `"{major}.{minor}"`,
//! `"{release}"`) and the anchor's version. Out: the range of member versions that go with it
//! (`==0.26.*`), which the provider adds as an edge of every anchor release, so the solver keeps
//! the group consistent or backs the anchor off to a release whose members exist. The
//! correspondences themselves live in `policies/*.toml`, never in code.

use std::fmt;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::PackageName;
use pubgrub::Ranges;

use super::ranges::specifiers_to_ranges;

/// One segment of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// A fixed number (`0`).
    Literal(u64),
    /// The anchor's release segment `index` (0 = major) plus `offset`.
    Anchor { index: usize, offset: i64 },
    /// The anchor's whole release (`{release}`): an exact equality.
    Release,
}

/// How a member's version follows from the anchor's: dot-separated segments, each a number or
/// `{major}`, `{minor}`, `{micro}` with an optional `+N`/`-N`; or `{release}` alone (equal
/// release). The member must match the segments as a prefix (`==0.26.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionTemplate {
    text: String,
    segments: Vec<Segment>,
}

impl FromStr for VersionTemplate {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let segments = text
            .split('.')
            .map(segment)
            .collect::<Result<Vec<_>, _>>()?;
        if segments.contains(&Segment::Release) && segments.len() != 1 {
            return Err(format!("`{text}`: `{{release}}` stands alone"));
        }
        Ok(VersionTemplate {
            text: text.to_string(),
            segments,
        })
    }
}

fn segment(part: &str) -> Result<Segment, String> {
    if let Ok(n) = part.parse::<u64>() {
        return Ok(Segment::Literal(n));
    }
    let inner = part
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .ok_or_else(|| format!("`{part}` is neither a number nor `{{major|minor|micro[+-N]}}`"))?;
    if inner == "release" {
        return Ok(Segment::Release);
    }
    let (field, offset) = match inner.find(['+', '-']) {
        Some(at) => {
            let offset: i64 = inner[at..]
                .trim_start_matches('+')
                .parse()
                .map_err(|_| format!("`{part}`: the offset is not a number"))?;
            (&inner[..at], offset)
        }
        None => (inner, 0),
    };
    let index = match field {
        "major" => 0,
        "minor" => 1,
        "micro" => 2,
        other => return Err(format!("`{other}` is not major, minor, micro or release")),
    };
    Ok(Segment::Anchor { index, offset })
}

impl fmt::Display for VersionTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl VersionTemplate {
    /// The specifier a member must meet next to `anchor` (`==0.26.*`), or `None` when the
    /// template gives a negative number for this anchor.
    pub fn specifier(&self, anchor: &Version) -> Option<String> {
        let release = anchor.release();
        let mut parts = Vec::new();
        for segment in &self.segments {
            match segment {
                Segment::Literal(n) => parts.push(n.to_string()),
                Segment::Release => {
                    let exact: Vec<String> = release.iter().map(u64::to_string).collect();
                    return Some(format!("=={}", exact.join(".")));
                }
                Segment::Anchor { index, offset } => {
                    let base = release.get(*index).copied().unwrap_or(0);
                    let value = i64::try_from(base).ok()?.checked_add(*offset)?;
                    parts.push(u64::try_from(value).ok()?.to_string());
                }
            }
        }
        Some(format!("=={}.*", parts.join(".")))
    }

    /// The member versions that go with `anchor` (empty when none can).
    pub fn range(&self, anchor: &Version) -> Ranges<Version> {
        self.specifier(anchor)
            .and_then(|s| VersionSpecifiers::from_str(&s).ok())
            .map(|specs| specifiers_to_ranges(&specs))
            .unwrap_or_else(Ranges::empty)
    }
}

/// "`member` follows `anchor` by `template`", for installed members only (a correspondence never
/// pulls a member into an environment that lacks it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correspondence {
    /// The package whose version decides (torch, jax).
    pub anchor: PackageName,
    /// The package that follows it (torchvision, jaxlib).
    pub member: PackageName,
    /// How the member's version follows.
    pub template: VersionTemplate,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(template: &str, anchor: &str) -> Option<String> {
        VersionTemplate::from_str(template)
            .unwrap()
            .specifier(&Version::from_str(anchor).unwrap())
    }

    #[test]
    fn templates_give_the_member_prefix() {
        assert_eq!(spec("0.{minor+15}", "2.11.0").as_deref(), Some("==0.26.*"));
        assert_eq!(
            spec("{major}.{minor}", "2.11.0+cu130").as_deref(),
            Some("==2.11.*")
        );
        assert_eq!(spec("{release}", "0.11.2").as_deref(), Some("==0.11.2"));
        assert_eq!(spec("0.{minor-20}", "2.11.0"), None);
        let range = VersionTemplate::from_str("0.{minor+15}")
            .unwrap()
            .range(&Version::from_str("2.11.0").unwrap());
        assert!(range.contains(&Version::from_str("0.26.0").unwrap()));
        assert!(!range.contains(&Version::from_str("0.29.2").unwrap()));
    }

    #[test]
    fn bad_templates_say_why() {
        for bad in ["0.{minr}", "x.1", "{release}.1", "{minor+x}"] {
            assert!(VersionTemplate::from_str(bad).is_err(), "{bad}");
        }
    }
}
