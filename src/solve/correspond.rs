//! Version correspondences inside a coupled group: "torchvision 0.(N+15) goes with torch 2.N".
//!
//! In: a [`VersionTemplate`] parsed from a policy (`"0.{minor+15}"`, `"{major}.{minor}"`,
//! `"{release}"`), a member release and what its own metadata declares on the anchor. Out: the
//! anchor versions the policy pairs with that member release (`torch ==2.11.*` next to
//! torchvision 0.26.0), or nothing where the member's metadata speaks for itself.
//!
//! Policy refines the index's metadata, never contradicts it ([`policy_range`]): the rule is an
//! edge of the *member* release on its anchor, added only where the release's metadata is silent
//! about the anchor, or declares a range looser than its binary coupling (a build against one
//! CPython's ABI that accepts anchor releases the rule does not pair with it). A
//! CPython-independent build (`py3-none-manylinux_2_28_x86_64`, `py3-none-any`) that declares its own range on the anchor (torchaudio 2.11.1:
//! `torch>=2.11`) speaks for itself. The anchor's own releases never gain an edge, so a member
//! with no release on the anchor's line cannot freeze the stack or walk it backwards. The
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

/// Why a version template cannot be used; the text names the part at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// `{release}` next to other segments.
    #[error("`{template}`: `{{release}}` stands alone")]
    ReleaseNotAlone {
        /// The whole template.
        template: String,
    },
    /// A segment that is neither a number nor a `{...}` field.
    #[error("`{part}` is neither a number nor `{{major|minor|micro[+-N]}}`")]
    NotASegment {
        /// The segment.
        part: String,
    },
    /// A field's `+N`/`-N` that is not a number.
    #[error("`{part}`: the offset is not a number")]
    Offset {
        /// The segment.
        part: String,
    },
    /// A `{...}` field the template does not know.
    #[error("`{field}` is not major, minor, micro or release")]
    UnknownField {
        /// The field's name.
        field: String,
    },
}

impl FromStr for VersionTemplate {
    type Err = TemplateError;

    fn from_str(text: &str) -> Result<Self, TemplateError> {
        let segments = text
            .split('.')
            .map(segment)
            .collect::<Result<Vec<_>, _>>()?;
        if segments.contains(&Segment::Release) && segments.len() != 1 {
            return Err(TemplateError::ReleaseNotAlone {
                template: text.to_string(),
            });
        }
        Ok(VersionTemplate {
            text: text.to_string(),
            segments,
        })
    }
}

fn segment(part: &str) -> Result<Segment, TemplateError> {
    if let Ok(n) = part.parse::<u64>() {
        return Ok(Segment::Literal(n));
    }
    let inner = part
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .ok_or_else(|| TemplateError::NotASegment {
            part: part.to_string(),
        })?;
    if inner == "release" {
        return Ok(Segment::Release);
    }
    let (field, offset) =
        match inner.find(['+', '-']) {
            Some(at) => {
                let offset: i64 = inner[at..].trim_start_matches('+').parse().map_err(|_| {
                    TemplateError::Offset {
                        part: part.to_string(),
                    }
                })?;
                (&inner[..at], offset)
            }
            None => (inner, 0),
        };
    let index = match field {
        "major" => 0,
        "minor" => 1,
        "micro" => 2,
        other => {
            return Err(TemplateError::UnknownField {
                field: other.to_string(),
            });
        }
    };
    Ok(Segment::Anchor { index, offset })
}

impl fmt::Display for VersionTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl VersionTemplate {
    /// The deepest anchor segment the template reads (`None`: only literals; `Some(usize::MAX)`
    /// for `{release}`).
    fn depth(&self) -> Option<usize> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Literal(_) => None,
                Segment::Anchor { index, .. } => Some(*index),
                Segment::Release => Some(usize::MAX),
            })
            .max()
    }

    /// The anchor versions among `anchors` that `member` goes with, each widened to the line the
    /// template reads (`==2.11.*` for `{major}.{minor}`; the exact release for `{release}`).
    /// Empty when no listed anchor release pairs with `member`.
    pub(crate) fn anchors_for<'v>(
        &self,
        member: &Version,
        anchors: impl IntoIterator<Item = &'v Version>,
    ) -> Ranges<Version> {
        let Some(depth) = self.depth() else {
            return Ranges::full();
        };
        let mut out = Ranges::empty();
        for anchor in anchors {
            if !self.range(anchor).contains(member) {
                continue;
            }
            let release = anchor.release();
            let line: Vec<String> = release
                .iter()
                .take(depth.saturating_add(1))
                .map(u64::to_string)
                .collect();
            let spec = if depth == usize::MAX || line.len() < depth + 1 {
                format!("=={}", line.join("."))
            } else {
                format!("=={}.*", line.join("."))
            };
            if let Ok(specs) = VersionSpecifiers::from_str(&spec) {
                out = out.union(&specifiers_to_ranges(&specs));
            }
        }
        out
    }

    /// The specifier a member must meet next to `anchor` (`==0.26.*`), or `None` when the
    /// template gives a negative number for this anchor.
    pub(crate) fn specifier(&self, anchor: &Version) -> Option<String> {
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
    pub(crate) fn range(&self, anchor: &Version) -> Ranges<Version> {
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
    /// The policy that declares it (its name, as shown with every score), for explanations.
    pub policy: String,
}

impl Correspondence {
    /// How the rule reads in an explanation: "the coupled-group rule `torchaudio =
    /// "{major}.{minor}"` of policy `default`".
    pub(crate) fn rule_text(&self) -> String {
        format!(
            "the coupled-group rule `{} = \"{}\"` of policy `{}`",
            self.member, self.template, self.policy
        )
    }
}

/// The anchor versions the policy adds as a requirement of one member release, or `None` where
/// the release's own metadata speaks for itself (see the module docs).
///
/// `declared` is the release's own requirement on the anchor under the target's markers (`None`
/// or a bare name without a version: silent), `cpython_bound` whether the release ships wheels built against one CPython's ABI
/// (`cp312-cp312-manylinux...`; a `py3-none-<platform>` or pure build is not), `anchors` the
/// anchor's known releases.
pub(super) fn policy_range(
    correspondence: &Correspondence,
    member: &Version,
    declared: Option<&Ranges<Version>>,
    cpython_bound: bool,
    anchors: &[Version],
) -> Option<Ranges<Version>> {
    let policy = correspondence.template.anchors_for(member, anchors);
    // A release the rule pairs with no known anchor release predates the rule's line
    // (torchvision 0.9.1 is built against torch 1.8.1; `0.{minor+15}` describes torch 2.x): the
    // rule does not describe it, and its metadata speaks.
    if !anchors.iter().any(|a| policy.contains(a)) {
        return None;
    }
    // A bare name (`torch`, no version) says nothing about which anchor release: silent.
    match declared.filter(|d| **d != Ranges::full()) {
        None => Some(policy),
        Some(_) if !cpython_bound => None,
        // Refined where the rule narrows what the release declares, never where the two share
        // no anchor release (that would make the release uninstallable against its metadata).
        Some(declared) => (anchors
            .iter()
            .any(|a| declared.contains(a) && !policy.contains(a))
            && anchors
                .iter()
                .any(|a| declared.contains(a) && policy.contains(a)))
        .then_some(policy),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(template: &str, anchor: &str) -> Option<String> {
        VersionTemplate::from_str(template)
            .unwrap()
            .specifier(&Version::from_str(anchor).unwrap())
    }

    /// A member release the rule pairs with no anchor release (torchvision 0.9.1, built against
    /// torch 1.8.1, before the `0.{minor+15}` line began) is left to its metadata.
    #[test]
    fn a_release_before_the_rules_line_is_left_to_its_metadata() {
        let torch = versions(&["1.8.0", "1.8.1", "2.0.0", "2.11.0"]);
        let vision = follows("torchvision", "0.{minor+15}");
        let member = Version::from_str("0.9.1").unwrap();
        let declared = specifiers_to_ranges(&VersionSpecifiers::from_str("==1.8.1").unwrap());
        assert_eq!(
            policy_range(&vision, &member, Some(&declared), true, &torch),
            None
        );
        assert_eq!(policy_range(&vision, &member, None, true, &torch), None);
        // On the rule's line it still refines a looser declaration.
        let member = Version::from_str("0.26.0").unwrap();
        let loose = specifiers_to_ranges(&VersionSpecifiers::from_str(">=2.0").unwrap());
        let refined = policy_range(&vision, &member, Some(&loose), true, &torch).unwrap();
        assert!(refined.contains(&Version::from_str("2.11.0").unwrap()));
        assert!(!refined.contains(&Version::from_str("2.0.0").unwrap()));
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

    fn versions(list: &[&str]) -> Vec<Version> {
        list.iter().map(|v| Version::from_str(v).unwrap()).collect()
    }

    fn follows(member: &str, template: &str) -> Correspondence {
        Correspondence {
            anchor: PackageName::from_str("torch").unwrap(),
            member: PackageName::from_str(member).unwrap(),
            template: VersionTemplate::from_str(template).unwrap(),
            policy: "default".into(),
        }
    }

    #[test]
    fn the_anchor_lines_a_member_release_goes_with() {
        let torch = versions(&["2.10.0", "2.11.0", "2.11.0+cu130", "2.12.0"]);
        let vision = VersionTemplate::from_str("0.{minor+15}").unwrap();
        let range = vision.anchors_for(&Version::from_str("0.26.0").unwrap(), &torch);
        assert!(range.contains(&Version::from_str("2.11.0+cu130").unwrap()));
        assert!(range.contains(&Version::from_str("2.11.3").unwrap()));
        assert!(!range.contains(&Version::from_str("2.12.0").unwrap()));
        let exact = VersionTemplate::from_str("{release}").unwrap();
        let range = exact.anchors_for(
            &Version::from_str("0.11.2").unwrap(),
            &versions(&["0.11.2"]),
        );
        assert!(range.contains(&Version::from_str("0.11.2").unwrap()));
        assert!(!range.contains(&Version::from_str("0.11.3").unwrap()));
    }

    /// Policy refines metadata, never contradicts it: a pure build that declares its own range
    /// speaks for itself; a silent or looser compiled one gets the rule.
    #[test]
    fn metadata_speaks_where_it_can() {
        let torch = versions(&["2.11.0", "2.12.0"]);
        let audio = follows("torchaudio", "{major}.{minor}");
        let v2111 = Version::from_str("2.11.1").unwrap();
        let at_least_211 = Ranges::higher_than(Version::from_str("2.11").unwrap());
        assert_eq!(
            policy_range(&audio, &v2111, Some(&at_least_211), false, &torch),
            None,
            "a py3-none build declaring torch>=2.11"
        );
        let compiled = policy_range(&audio, &v2111, Some(&at_least_211), true, &torch).unwrap();
        assert!(!compiled.contains(&Version::from_str("2.12.0").unwrap()));
        let exact = Ranges::singleton(Version::from_str("2.11.0").unwrap());
        assert_eq!(
            policy_range(&audio, &v2111, Some(&exact), true, &torch),
            None,
            "a declared pin inside the rule needs no rule"
        );
        assert!(policy_range(&audio, &v2111, None, false, &torch).is_some());
        assert!(
            policy_range(&audio, &v2111, Some(&Ranges::full()), false, &torch).is_some(),
            "a bare `torch` says nothing about which release"
        );
    }

    #[test]
    fn bad_templates_say_why() {
        for (bad, why) in [
            ("0.{minr}", "`minr` is not major, minor, micro or release"),
            (
                "x.1",
                "`x` is neither a number nor `{major|minor|micro[+-N]}`",
            ),
            ("{release}.1", "`{release}.1`: `{release}` stands alone"),
            ("{minor+x}", "`{minor+x}`: the offset is not a number"),
        ] {
            let err = VersionTemplate::from_str(bad).unwrap_err();
            assert_eq!(err.to_string(), why, "{bad}");
        }
    }
}
