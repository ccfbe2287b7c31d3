//! [`Policy`]: the weights, level thresholds and coupled groups the risk model uses.
//!
//! The built-in policy is `policies/default.toml`, compiled in. A user's policy file is read over
//! it: a weight or threshold it leaves out keeps the default, and its `[[coupled]]` list (when it
//! has one) replaces the default's, and so does its `[[smoke]]` list (the smoke tests
//! `verify.py` runs, see [`super::smoke`]). Unknown keys are errors, so a typo never silently
//! weighs nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use pep508_rs::PackageName;
use serde::Deserialize;

use crate::solve::{Correspondence, TemplateError, VersionTemplate};

use super::glob::glob_matches;
use super::risk_score::{FactorKind, RiskLevel};
use super::smoke::{self, SmokeFile, SmokeTest};

/// The built-in default policy (`policies/default.toml`).
pub(super) const DEFAULT_POLICY: &str = include_str!("../../policies/default.toml");
/// The built-in ML/CUDA policy (`policies/ml-cuda.toml`), selectable as `--policy ml-cuda`.
pub(super) const ML_CUDA_POLICY: &str = include_str!("../../policies/ml-cuda.toml");
/// The names [`Policy::load`] takes for its built-in policies.
pub(crate) const BUILTIN_POLICIES: &[&str] = &["default", "ml-cuda"];

/// A risk policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Its name (shown with every score).
    pub name: String,
    /// Minimum scores for medium, high and critical.
    pub thresholds: Thresholds,
    /// Points per factor.
    pub weights: BTreeMap<FactorKind, i32>,
    /// At most this many dependents points per changed dist.
    pub dependents_cap: i32,
    /// At most this many major-upgrade points per plan.
    pub major_upgrade_cap: i32,
    /// A release younger than this many days is "young".
    pub young_release_days: i64,
    /// Groups of packages built against each other's binary interfaces.
    pub coupled: Vec<CoupledGroup>,
    /// What the risk corpus measured for plans of each shape (cited in factor details).
    pub evidence: BTreeMap<Shape, Evidence>,
    /// Smoke tests for the verification script.
    pub smoke: Vec<SmokeTest>,
}

/// How often plans of one shape broke in the risk corpus (`testdata/risk-corpus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// Plans of the shape that broke.
    pub broke: u32,
    /// Plans of the shape.
    pub of: u32,
}

/// The shape of a plan an `[evidence]` key names: factors raised on one package together
/// (`pin-upper-bound+defensive-upper-bound`), or one of them without another
/// (`pin-upper-bound+!defensive-upper-bound`); a single factor key is the plain shape.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shape {
    /// Factors all raised on the package (at least one).
    pub with: Vec<FactorKind>,
    /// Factors none of which is raised on it.
    pub without: Vec<FactorKind>,
}

impl Shape {
    /// Whether the factors raised on one package have this shape.
    pub fn matches(&self, kinds: &BTreeSet<FactorKind>) -> bool {
        self.with.iter().all(|k| kinds.contains(k))
            && !self.without.iter().any(|k| kinds.contains(k))
    }

    /// How specific it is (more conditions cite before fewer).
    pub(crate) fn specificity(&self) -> usize {
        self.with.len() + self.without.len()
    }

    /// The policy key (`pin-upper-bound+!defensive-upper-bound`).
    pub fn key(&self) -> String {
        let with = self.with.iter().map(|k| k.key().to_string());
        let without = self.without.iter().map(|k| format!("!{}", k.key()));
        with.chain(without).collect::<Vec<_>>().join("+")
    }

    /// Words for a factor detail (`pin-upper-bound and defensive-upper-bound`).
    pub(crate) fn words(&self) -> String {
        let mut text = self
            .with
            .iter()
            .map(|k| k.key())
            .collect::<Vec<_>>()
            .join(" and ");
        for kind in &self.without {
            text.push_str(&format!(" without {}", kind.key()));
        }
        text
    }
}

/// Level thresholds (inclusive minimum scores).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Minimum score for medium.
    pub medium: u8,
    /// Minimum score for high.
    pub high: u8,
    /// Minimum score for critical.
    pub critical: u8,
}

/// A group of coupled packages.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CoupledGroup {
    /// Normalized names; one `*` matches any run of characters (`nvidia-*`, `jax-cuda*-plugin`).
    pub members: Vec<String>,
    /// Also couple the members with every dependent that ships platform-specific wheels.
    #[serde(default)]
    pub compiled_dependents: bool,
    /// Why they are coupled (shown in factor details).
    #[serde(default)]
    pub reason: Option<String>,
    /// The member whose version decides the others' (`torch`); needed with `versions`.
    #[serde(default)]
    pub anchor: Option<String>,
    /// Member pattern -> how its version follows the anchor's (`torchvision = "0.{minor+15}"`).
    #[serde(default)]
    pub versions: BTreeMap<String, String>,
}

impl CoupledGroup {
    /// Whether `name` is a member.
    pub(crate) fn contains(&self, name: &PackageName) -> bool {
        self.members
            .iter()
            .any(|pattern| glob_matches(pattern, name.as_ref()))
    }

    /// The correspondences among `installed` names: for each installed member a `versions`
    /// pattern matches, "it follows the anchor" (nothing when the anchor is not installed).
    pub(crate) fn correspondences<'n>(
        &self,
        policy: &str,
        installed: impl IntoIterator<Item = &'n PackageName> + Clone,
    ) -> Vec<Correspondence> {
        let Some(anchor) = self.anchor.as_deref() else {
            return Vec::new();
        };
        let Some(anchor) = installed.clone().into_iter().find(|n| n.as_ref() == anchor) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for name in installed {
            if name == anchor {
                continue;
            }
            let template = self
                .versions
                .iter()
                .find(|(pattern, _)| glob_matches(pattern, name.as_ref()))
                .and_then(|(_, template)| VersionTemplate::from_str(template).ok());
            if let Some(template) = template {
                out.push(Correspondence {
                    anchor: anchor.clone(),
                    member: name.clone(),
                    template,
                    policy: policy.to_string(),
                });
            }
        }
        out
    }

    /// Why this group's `anchor`/`versions` cannot be used, if they cannot.
    fn check_versions(&self) -> Result<(), VersionsError> {
        if self.versions.is_empty() {
            return Ok(());
        }
        let Some(anchor) = &self.anchor else {
            return Err(VersionsError::NoAnchor);
        };
        if !self.members.iter().any(|m| m == anchor) {
            return Err(VersionsError::AnchorNotMember(anchor.clone()));
        }
        for (pattern, template) in &self.versions {
            VersionTemplate::from_str(template).map_err(|problem| VersionsError::Template {
                pattern: pattern.clone(),
                problem,
            })?;
        }
        Ok(())
    }
}

/// Why a coupled group's `anchor`/`versions` cannot be used (the policy's parse error says
/// which group).
#[derive(Debug, thiserror::Error)]
enum VersionsError {
    /// `versions` without an `anchor`.
    #[error("`versions` needs an `anchor`")]
    NoAnchor,
    /// The anchor is not a member.
    #[error("the anchor `{0}` is not one of the members")]
    AnchorNotMember(String),
    /// A template that does not parse.
    #[error("`{pattern}`: {problem}")]
    Template {
        /// The member pattern the template is for.
        pattern: String,
        /// Why the template does not parse.
        problem: TemplateError,
    },
}

/// Why a policy could not be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum PolicyError {
    /// The file could not be read.
    #[error("cannot read the policy file `{path}`")]
    #[diagnostic(help(
        "pass an existing TOML file, or `default` / `ml-cuda` for a built-in policy"
    ))]
    Read {
        /// The file.
        path: PathBuf,
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown keys.
    #[error("the policy file `{path}` is not a valid policy: {message}")]
    #[diagnostic(help(
        "a policy's tables are [levels], [weights], [settings], [evidence], \
         [[coupled]] and [[smoke]], beside `name` (docs/risk-model.md describes each key)"
    ))]
    Parse {
        /// The file.
        path: String,
        /// What the parser said.
        message: String,
    },
    /// A weight key the model does not know.
    #[error("the policy file `{path}` weighs an unknown factor `{key}`")]
    #[diagnostic(help("known factors: {known}"))]
    UnknownFactor {
        /// The file.
        path: String,
        /// The key.
        key: String,
        /// The known keys.
        known: String,
    },
    /// A `[[smoke]]` table that cannot be used.
    #[error("the policy file `{path}` has an unusable smoke test `{name}`")]
    #[diagnostic(help("{message}"))]
    Smoke {
        /// The file.
        path: String,
        /// The smoke test's name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// Thresholds out of order or above 100.
    #[error("the policy file `{path}` has thresholds out of order")]
    #[diagnostic(help("need 0 < medium < high < critical <= 100"))]
    Thresholds {
        /// The file.
        path: String,
    },
}

/// The factor a policy key names (`[weights]` keys, and the parts of `[evidence]` keys).
fn factor_kind(path: &str, key: &str) -> Result<FactorKind, PolicyError> {
    FactorKind::from_key(key).ok_or_else(|| PolicyError::UnknownFactor {
        path: path.to_string(),
        key: key.to_string(),
        known: FactorKind::ALL
            .iter()
            .map(|k| k.key())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The shape an `[evidence]` key names: factor keys joined by `+`, those that must be absent
/// prefixed with `!`.
fn shape(path: &str, key: &str) -> Result<Shape, PolicyError> {
    let mut shape = Shape {
        with: Vec::new(),
        without: Vec::new(),
    };
    for part in key.split('+').map(str::trim) {
        match part.strip_prefix('!') {
            Some(absent) => shape.without.push(factor_kind(path, absent)?),
            None => shape.with.push(factor_kind(path, part)?),
        }
    }
    if shape.with.is_empty() {
        return Err(PolicyError::Parse {
            path: path.to_string(),
            message: format!("[evidence] `{key}` names no factor that is present"),
        });
    }
    Ok(shape)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PolicyFile {
    name: Option<String>,
    levels: Option<Thresholds>,
    #[serde(default)]
    weights: BTreeMap<String, i32>,
    settings: Option<SettingsFile>,
    coupled: Option<Vec<CoupledGroup>>,
    #[serde(default)]
    evidence: BTreeMap<String, Evidence>,
    smoke: Option<Vec<SmokeFile>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SettingsFile {
    dependents_cap: Option<i32>,
    major_upgrade_cap: Option<i32>,
    young_release_days: Option<i64>,
}

impl Policy {
    /// The built-in default policy.
    pub fn builtin() -> Policy {
        Self::from_toml_over(DEFAULT_POLICY, "policies/default.toml", None)
            .expect("the built-in policy is valid (tested)")
    }

    /// Load `--policy`: `default`, `ml-cuda`, or a TOML file read over the default.
    pub fn load(spec: Option<&Path>) -> Result<Policy, PolicyError> {
        let base = Policy::builtin();
        let Some(path) = spec else {
            return Ok(base);
        };
        match path.to_str() {
            Some("default") => return Ok(base),
            Some("ml-cuda") => {
                return Self::from_toml_over(ML_CUDA_POLICY, "policies/ml-cuda.toml", Some(base));
            }
            _ => {}
        }
        let text = crate::bounded::read_to_string(path, crate::bounded::USER_FILE_LIMIT).map_err(
            |source| PolicyError::Read {
                path: path.to_path_buf(),
                source,
            },
        )?;
        Self::from_toml_in(
            &text,
            &path.display().to_string(),
            path.parent(),
            Some(base),
        )
    }

    /// Parse a policy's TOML over `base` (the built-in default when `None` is not given).
    pub(crate) fn from_toml_over(
        text: &str,
        path: &str,
        base: Option<Policy>,
    ) -> Result<Policy, PolicyError> {
        Self::from_toml_in(text, path, None, base)
    }

    /// [`Policy::from_toml_over`], with smoke checks read relative to `dir` first.
    fn from_toml_in(
        text: &str,
        path: &str,
        dir: Option<&Path>,
        base: Option<Policy>,
    ) -> Result<Policy, PolicyError> {
        let file: PolicyFile = toml::from_str(text).map_err(|err| PolicyError::Parse {
            path: path.to_string(),
            message: crate::toml_error::describe(text, &err),
        })?;
        let mut policy = base.unwrap_or(Policy {
            name: String::new(),
            thresholds: Thresholds {
                medium: 25,
                high: 50,
                critical: 75,
            },
            weights: BTreeMap::new(),
            dependents_cap: 15,
            major_upgrade_cap: 30,
            young_release_days: 14,
            coupled: Vec::new(),
            evidence: BTreeMap::new(),
            smoke: Vec::new(),
        });
        policy.name = file.name.unwrap_or_else(|| path.to_string());
        if let Some(levels) = file.levels {
            if !(0 < levels.medium && levels.medium < levels.high && levels.high < levels.critical)
                || levels.critical > 100
            {
                return Err(PolicyError::Thresholds {
                    path: path.to_string(),
                });
            }
            policy.thresholds = levels;
        }
        for (key, points) in file.weights {
            policy.weights.insert(factor_kind(path, &key)?, points);
        }
        if let Some(settings) = file.settings {
            if let Some(cap) = settings.dependents_cap {
                policy.dependents_cap = cap;
            }
            if let Some(cap) = settings.major_upgrade_cap {
                policy.major_upgrade_cap = cap;
            }
            if let Some(days) = settings.young_release_days {
                policy.young_release_days = days;
            }
        }
        for (key, evidence) in file.evidence {
            policy.evidence.insert(shape(path, &key)?, evidence);
        }
        if let Some(coupled) = file.coupled {
            for group in &coupled {
                group
                    .check_versions()
                    .map_err(|message| PolicyError::Parse {
                        path: path.to_string(),
                        message: format!("coupled group [{}]: {message}", group.members.join(", ")),
                    })?;
            }
            policy.coupled = coupled;
        }
        if let Some(tables) = file.smoke {
            policy.smoke = load_smoke(tables, path, dir)?;
        }
        check_patterns(&policy, text, path)?;
        Ok(policy)
    }

    /// The points for one factor (0 when the policy does not weigh it).
    pub(crate) fn weight(&self, kind: FactorKind) -> i32 {
        self.weights.get(&kind).copied().unwrap_or(0)
    }

    /// The level a score reaches.
    pub(crate) fn level(&self, score: u8) -> RiskLevel {
        if score >= self.thresholds.critical {
            RiskLevel::Critical
        } else if score >= self.thresholds.high {
            RiskLevel::High
        } else if score >= self.thresholds.medium {
            RiskLevel::Medium
        } else {
            RiskLevel::Low
        }
    }

    /// The first group that declares `a` and `b` coupled (both members, distinct names).
    pub(crate) fn coupled_pair(&self, a: &PackageName, b: &PackageName) -> Option<&CoupledGroup> {
        if a == b {
            return None;
        }
        self.coupled
            .iter()
            .find(|group| group.contains(a) && group.contains(b))
    }
}

/// Refuse a name pattern that is not a valid glob (coupled members and `versions` keys, smoke
/// tests' packages), at its line and column in `text` when it is written there.
fn check_patterns(policy: &Policy, text: &str, path: &str) -> Result<(), PolicyError> {
    let patterns = policy
        .coupled
        .iter()
        .flat_map(|group| group.members.iter().chain(group.versions.keys()))
        .chain(policy.smoke.iter().map(|test| &test.package));
    for pattern in patterns {
        if let Some(why) = super::glob::invalid(pattern) {
            let at = crate::toml_error::find_quoted(text, pattern)
                .map(|at| format!("{at}: "))
                .unwrap_or_default();
            return Err(PolicyError::Parse {
                path: path.to_string(),
                message: format!(
                    "{at}`{pattern}` is not a valid name pattern ({why}); `*` matches any run \
                     of characters, `?` one, `[...]` one of a set"
                ),
            });
        }
    }
    Ok(())
}

/// Load the checks of a policy's `[[smoke]]` tables, naming the policy file in an error.
fn load_smoke(
    tables: Vec<SmokeFile>,
    policy_path: &str,
    dir: Option<&Path>,
) -> Result<Vec<SmokeTest>, PolicyError> {
    smoke::load(tables, dir).map_err(|(name, message)| PolicyError::Smoke {
        path: policy_path.to_string(),
        name,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn name(s: &str) -> PackageName {
        PackageName::from_str(s).unwrap()
    }

    /// docs/risk-model.md's factor tables give each factor's points as the default policy
    /// weighs it, and every `ml-cuda: N` they mention as that policy does; every factor has a
    /// row.
    #[test]
    fn risk_model_docs_match_the_policies() {
        let docs = include_str!("../../docs/risk-model.md");
        let default = Policy::builtin();
        let ml = Policy::load(Some(Path::new("ml-cuda"))).unwrap();
        let mut documented = BTreeSet::new();
        for row in docs.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let Some(kind) = FactorKind::from_key(cells[1].trim_matches('`')) else {
                continue;
            };
            let points = cells[2].trim_end_matches(" each");
            assert_eq!(
                points.parse::<i32>().ok(),
                Some(default.weight(kind)),
                "docs/risk-model.md gives {kind} `{points}`; policies/default.toml weighs it {}",
                default.weight(kind)
            );
            let when = cells[3..].join("|").replace('`', "");
            if let Some(at) = when.find("ml-cuda: ") {
                let digits: String = when[at + 9..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '-')
                    .collect();
                assert_eq!(
                    digits.parse::<i32>().ok(),
                    Some(ml.weight(kind)),
                    "docs/risk-model.md gives {kind} `ml-cuda: {digits}`; policies/ml-cuda.toml \
                     weighs it {}",
                    ml.weight(kind)
                );
            }
            documented.insert(kind);
        }
        for kind in FactorKind::ALL {
            assert!(
                documented.contains(kind),
                "docs/risk-model.md has no row for {kind}"
            );
        }
    }

    #[test]
    fn builtin_policies_weigh_every_factor() {
        let default = Policy::builtin();
        assert_eq!(default.name, "default");
        let ml = Policy::load(Some(Path::new("ml-cuda"))).unwrap();
        assert_eq!(ml.name, "ml-cuda");
        for policy in [&default, &ml] {
            for kind in FactorKind::ALL {
                assert!(
                    policy.weights.contains_key(kind),
                    "{} does not weigh {kind}",
                    policy.name
                );
            }
            assert!(policy.weight(FactorKind::UpstreamAccepts) <= 0);
        }
        assert!(ml.weight(FactorKind::UpstreamAccepts) < 0);
        assert!(ml.weight(FactorKind::PinExact) > default.weight(FactorKind::PinExact));
    }

    #[test]
    fn builtin_groups_declare_version_correspondences() {
        let installed: Vec<PackageName> = ["torch", "torchvision", "torchaudio", "jax", "jaxlib"]
            .into_iter()
            .chain(["jax-cuda13-plugin", "numpy"])
            .map(name)
            .collect();
        for policy in [
            Policy::builtin(),
            Policy::load(Some(Path::new("ml-cuda"))).unwrap(),
        ] {
            let pairs: Vec<String> = policy
                .coupled
                .iter()
                .flat_map(|g| g.correspondences("default", &installed))
                .map(|c| format!("{} {} {}", c.anchor, c.member, c.template))
                .collect();
            assert_eq!(
                pairs,
                [
                    "torch torchvision 0.{minor+15}",
                    "torch torchaudio {major}.{minor}",
                    "jax jaxlib {major}.{minor}.{micro}",
                    "jax jax-cuda13-plugin {major}.{minor}.{micro}",
                ],
                "{}",
                policy.name
            );
        }
    }

    #[test]
    fn bad_correspondences_are_policy_errors() {
        for (toml, says) in [
            (
                "[[coupled]]\nmembers = [\"a\", \"b\"]\nversions = { b = \"{major}\" }",
                "needs an `anchor`",
            ),
            (
                "[[coupled]]\nmembers = [\"a\", \"b\"]\nanchor = \"a\"\nversions = { b = \"{mjr}\" }",
                "`b`",
            ),
            (
                "[[coupled]]\nmembers = [\"a\", \"b\"]\nanchor = \"c\"\nversions = { b = \"{major}\" }",
                "not one of the members",
            ),
        ] {
            match Policy::from_toml_over(toml, "p.toml", None) {
                Err(PolicyError::Parse { message, .. }) => {
                    assert!(message.contains(says), "{message}")
                }
                other => panic!("{toml}: {other:?}"),
            }
        }
    }

    #[test]
    fn coupled_groups_match_globs() {
        let policy = Policy::builtin();
        assert!(
            policy
                .coupled_pair(&name("torch"), &name("triton"))
                .is_some()
        );
        assert!(
            policy
                .coupled_pair(&name("Triton"), &name("torch"))
                .is_some()
        );
        assert!(
            policy
                .coupled_pair(&name("jaxlib"), &name("jax-cuda13-plugin"))
                .is_some()
        );
        assert!(
            policy
                .coupled_pair(&name("torch"), &name("numpy"))
                .is_none()
        );
        assert!(
            policy
                .coupled_pair(&name("torch"), &name("torch"))
                .is_none()
        );
    }

    #[test]
    fn user_policy_overrides_some_keys_and_rejects_typos() {
        let policy = Policy::from_toml_over(
            "name = \"mine\"\n[weights]\npin-exact = 50\n[levels]\nmedium = 10\nhigh = 20\ncritical = 30\n",
            "mine.toml",
            Some(Policy::builtin()),
        )
        .unwrap();
        assert_eq!(policy.weight(FactorKind::PinExact), 50);
        assert_eq!(policy.weight(FactorKind::Yanked), 40);
        assert_eq!(policy.level(25), RiskLevel::High);
        assert_eq!(policy.coupled, Policy::builtin().coupled);

        let err =
            Policy::from_toml_over("[weights]\npin-exakt = 1\n", "typo.toml", None).unwrap_err();
        assert!(matches!(err, PolicyError::UnknownFactor { ref key, .. } if key == "pin-exakt"));
        let err = Policy::from_toml_over(
            "[levels]\nmedium = 50\nhigh = 20\ncritical = 30\n",
            "bad.toml",
            None,
        )
        .unwrap_err();
        assert!(matches!(err, PolicyError::Thresholds { .. }));
        let err = Policy::from_toml_over("[wieghts]\n", "bad.toml", None).unwrap_err();
        assert!(matches!(err, PolicyError::Parse { .. }));
    }

    #[test]
    fn missing_policy_file_names_the_path() {
        let err = Policy::load(Some(Path::new("/nonexistent/policy.toml"))).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/policy.toml"));
    }
}
