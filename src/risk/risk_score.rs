//! [`RiskScore`]: the number, its level and the itemized factors behind it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A plan's risk: the sum of its factors' points, clamped to 0-100, and the level it reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskScore {
    /// 0 (nothing to worry about) to 100.
    pub score: u8,
    /// The level the score reaches under the policy's thresholds.
    pub level: RiskLevel,
    /// The policy that weighed the factors.
    pub policy: String,
    /// Every factor with its points, in the order they were found (deterministic).
    pub factors: Vec<RiskFactor>,
}

/// One reason for risk, with the points it added (negative points lower the score).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskFactor {
    /// Which factor.
    pub kind: FactorKind,
    /// Points added to the score.
    pub points: i32,
    /// The package the factor is about.
    pub package: String,
    /// A sentence a reviewer can check (`torch 2.11.0 requires triton==3.6.0`).
    pub detail: String,
    /// The import statements the sentence cites, as data (`import-target-missing`: every one,
    /// also those the sentence only counts as "and N more").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<Citation>,
}

/// An import statement of an installed file that a factor cites: `peft 0.17.1
/// (peft/peft_model.py, line 37) imports `HybridCache` from `transformers``.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Citation {
    /// The importing dist (`peft`) and its version.
    pub dist: String,
    /// Its installed version.
    pub version: String,
    /// The importing file, its path in `RECORD`.
    pub file: String,
    /// The statement's first line (1-based).
    pub line: usize,
    /// The module imported or imported from (`transformers`).
    pub module: String,
    /// The name taken from it that the planned release lacks (`HybridCache`; for an attribute
    /// use, `jax.core.Effect`: module `jax.core`, name `Effect`); absent where the module itself
    /// is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A module-level attribute use (a class base, a decorator), not an import statement.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub attribute: bool,
    /// The function (or `Class.method`) the statement sits in, for a use that runs when that
    /// code runs (`call-time-target-missing`: `_create_retry_decorator`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// Low, medium, high or critical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RiskLevel {
    /// Below the policy's `medium` threshold.
    Low,
    /// At least `medium`.
    Medium,
    /// At least `high`.
    High,
    /// At least `critical`.
    Critical,
}

impl RiskLevel {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
            RiskLevel::Critical => "critical",
        }
    }
}

impl fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RiskLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "low" => Ok(RiskLevel::Low),
            "medium" => Ok(RiskLevel::Medium),
            "high" => Ok(RiskLevel::High),
            "critical" => Ok(RiskLevel::Critical),
            _ => Err(format!(
                "`{s}` is not a risk level (low, medium, high, critical)"
            )),
        }
    }
}

macro_rules! factor_kinds {
    ($($(#[$doc:meta])* $variant:ident => $key:literal,)*) => {
        /// Every factor the model can raise; its name (the policy's weight key) is also its
        /// JSON name and the one the text and docs use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum FactorKind {
            $($(#[$doc])* #[serde(rename = $key)] $variant,)*
        }

        impl FactorKind {
            /// Every kind, in declaration order.
            pub(crate) const ALL: &'static [FactorKind] = &[$(FactorKind::$variant,)*];

            /// The policy key (and JSON name).
            pub fn key(self) -> &'static str {
                match self {
                    $(FactorKind::$variant => $key,)*
                }
            }

            /// The kind for a policy key.
            pub(crate) fn from_key(key: &str) -> Option<FactorKind> {
                match key {
                    $($key => Some(FactorKind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

factor_kinds! {
    /// A broken `==X` / `===X`.
    PinExact => "pin-exact",
    /// A broken `~=X.Y`.
    PinCompatible => "pin-compatible",
    /// A broken `<X` / `<=X`.
    PinUpperBound => "pin-upper-bound",
    /// A broken `==X.*`.
    PinWildcard => "pin-wildcard",
    /// A broken `!=X`.
    PinExclusion => "pin-exclusion",
    /// A broken `>=X` / `>X`.
    PinLowerBound => "pin-lower-bound",
    /// The forced version differs from the pinned one in the last release segment.
    DistancePatch => "distance-patch",
    /// ... in the minor segment.
    DistanceMinor => "distance-minor",
    /// ... in the major segment (or the epoch).
    DistanceMajor => "distance-major",
    /// The policy declares the two sides of a broken edge coupled.
    CoupledPolicy => "coupled-policy",
    /// Both sides of a broken edge ship platform-specific wheels.
    CoupledBinary => "coupled-binary",
    /// Some release of the dependent accepts the forced version.
    UpstreamAccepts => "upstream-accepts",
    /// No release of the dependent accepts the forced version.
    UpstreamNever => "upstream-never",
    /// The new release is younger than the policy's `young-release-days`.
    YoungRelease => "young-release",
    /// The new release is yanked.
    Yanked => "yanked",
    /// Installed dists that require a changed dist directly.
    DirectDependent => "direct-dependent",
    /// Installed dists that reach a changed dist only through others.
    TransitiveDependent => "transitive-dependent",
    /// A local build (`+cu130`) replaced by a plain index build.
    LocalVariantSwitch => "local-variant-switch",
    /// A direct-URL / VCS / editable install replaced by an index build.
    UnmanagedReplaced => "unmanaged-replaced",
    /// An ordinary upgrade crosses a major version.
    MajorUpgrade => "major-upgrade",
    /// A dist moves to an older version.
    Downgrade => "downgrade",
    /// A dist the request did not name goes back across a major (API) line or by a year or
    /// more, while nothing requested goes back.
    DowngradeDistance => "downgrade-distance",
    /// A dist is removed.
    Removal => "removal",
    /// A coupled group changes (without a broken edge).
    CoupledStackChange => "coupled-stack-change",
    /// A dist crosses a line that changed its C API, which a dependent's compiled extensions,
    /// built before that line existed, use (`src/inventory/extensions.rs` lists the known ones).
    AbiBreak => "abi-break",
    /// An unforced change crosses into a major line first released after a dependent was.
    PredatesMajor => "dependent-predates-major",
    /// The violated upper bound was declared before any release it excludes existed.
    DefensiveBound => "defensive-upper-bound",
    /// An installed dist's file imports a module or a name the new release no longer has.
    ImportTargetMissing => "import-target-missing",
    /// The plan leaves the installed accelerator line (CUDA 13) for another (CUDA 12).
    AcceleratorLineSwitch => "accelerator-line-switch",
    /// A coupled member's own metadata, not the policy's rule, paired it with the anchor.
    CoupledMemberDeclared => "coupled-member-declared",
    /// The plan leaves two dists shipping the same top-level module (one overwrites the other).
    ModuleClash => "module-clash",
    /// A release the plan moves back or adds imports, at module level, a module no dist of the
    /// planned environment installs.
    PlannedImportMissing => "planned-import-missing",
    /// An installed dist's function body imports or uses a module or a name of a changed dist
    /// that the planned release no longer has: it fails when that code runs, not on import.
    CallTimeTargetMissing => "call-time-target-missing",
    /// An installed requirement broken before the plan that the plan keeps as it is.
    KeptBrokenEdge => "kept-broken-edge",
}

/// A plan file written before the JSON names were the policy keys still reads.
impl<'de> Deserialize<'de> for FactorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        let key = match name.as_str() {
            "predates-major" => "dependent-predates-major",
            "defensive-bound" => "defensive-upper-bound",
            other => other,
        };
        FactorKind::from_key(key)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown risk factor `{name}`")))
    }
}

impl fmt::Display for FactorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::FactorKind;

    /// One name everywhere: the JSON `kind` of a factor is its policy key (`PredatesMajor` was
    /// `predates-major` in JSON and `dependent-predates-major` in the text, docs and policies).
    #[test]
    fn json_names_are_the_policy_keys() {
        for kind in FactorKind::ALL {
            let json = serde_json::to_string(kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.key()));
            assert_eq!(serde_json::from_str::<FactorKind>(&json).unwrap(), *kind);
        }
        assert_eq!(
            serde_json::to_string(&FactorKind::PredatesMajor).unwrap(),
            "\"dependent-predates-major\""
        );
        let old: FactorKind = serde_json::from_str("\"predates-major\"").unwrap();
        assert_eq!(old, FactorKind::PredatesMajor);
    }
}
