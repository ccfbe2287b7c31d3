//! [`Policy`]: the weights, level thresholds and coupled groups the risk model uses.
//!
//! The built-in policy is `policies/default.toml`, compiled in. A user's policy file is read over
//! it: a weight or threshold it leaves out keeps the default, and its `[[coupled]]` list (when it
//! has one) replaces the default's, and so does its `[[smoke]]` list (the smoke tests
//! `verify.py` runs, see [`super::smoke`]). Unknown keys are errors, so a typo never silently
//! weighs nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pep508_rs::PackageName;
use serde::Deserialize;

use super::risk_score::{FactorKind, RiskLevel};
use super::smoke::{self, SmokeFile, SmokeTest};

/// The built-in default policy (`policies/default.toml`).
pub const DEFAULT_POLICY: &str = include_str!("../../policies/default.toml");
/// The built-in ML/CUDA policy (`policies/ml-cuda.toml`), selectable as `--policy ml-cuda`.
pub const ML_CUDA_POLICY: &str = include_str!("../../policies/ml-cuda.toml");

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
    /// Smoke tests for the verification script.
    pub smoke: Vec<SmokeTest>,
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
}

impl CoupledGroup {
    /// Whether `name` is a member.
    pub fn contains(&self, name: &PackageName) -> bool {
        self.members
            .iter()
            .any(|pattern| glob_matches(pattern, name.as_ref()))
    }
}

/// Whether a normalized name matches a pattern in which one `*` matches any run of characters.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => {
            name.len() >= prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(suffix)
        }
        None => pattern == name,
    }
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
    #[error("the policy file `{path}` is not a valid policy")]
    #[diagnostic(help("{message}\ncompare with policies/default.toml, which lists every key"))]
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PolicyFile {
    name: Option<String>,
    levels: Option<Thresholds>,
    #[serde(default)]
    weights: BTreeMap<String, i32>,
    settings: Option<SettingsFile>,
    coupled: Option<Vec<CoupledGroup>>,
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
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml_in(
            &text,
            &path.display().to_string(),
            path.parent(),
            Some(base),
        )
    }

    /// Parse a policy's TOML over `base` (the built-in default when `None` is not given).
    pub fn from_toml_over(
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
            message: err.message().to_string(),
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
            let kind = FactorKind::from_key(&key).ok_or_else(|| PolicyError::UnknownFactor {
                path: path.to_string(),
                key: key.clone(),
                known: FactorKind::ALL
                    .iter()
                    .map(|k| k.key())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
            policy.weights.insert(kind, points);
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
        if let Some(coupled) = file.coupled {
            policy.coupled = coupled;
        }
        if let Some(tables) = file.smoke {
            policy.smoke = smoke::load(tables, path, dir)?;
        }
        Ok(policy)
    }

    /// The points for one factor (0 when the policy does not weigh it).
    pub fn weight(&self, kind: FactorKind) -> i32 {
        self.weights.get(&kind).copied().unwrap_or(0)
    }

    /// The level a score reaches.
    pub fn level(&self, score: u8) -> RiskLevel {
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
    pub fn coupled_pair(&self, a: &PackageName, b: &PackageName) -> Option<&CoupledGroup> {
        if a == b {
            return None;
        }
        self.coupled
            .iter()
            .find(|group| group.contains(a) && group.contains(b))
    }

    /// Groups `name` belongs to.
    pub fn groups_of<'a>(
        &'a self,
        name: &'a PackageName,
    ) -> impl Iterator<Item = &'a CoupledGroup> + 'a {
        self.coupled
            .iter()
            .filter(move |group| group.contains(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn name(s: &str) -> PackageName {
        PackageName::from_str(s).unwrap()
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
            assert!(policy.weight(FactorKind::UpstreamAccepts) < 0);
        }
        assert!(ml.weight(FactorKind::PinExact) > default.weight(FactorKind::PinExact));
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
