//! How far a version lands from a bound: two versions in, the first release segment where they
//! differ out ([`Distance`]); a violated specifier clause in, its pin factor and distance out
//! ([`pin_strictness`]).

use pep440_rs::{Operator, Version, VersionSpecifier};

use super::super::risk_score::FactorKind;

/// How far a version is from a bound: which release segment differs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Distance {
    /// Only the third (or a later) segment, or pre/post/dev/local parts.
    Patch,
    /// The second segment.
    Minor,
    /// The first segment or the epoch.
    Major,
}

impl Distance {
    pub(super) fn kind(self) -> FactorKind {
        match self {
            Distance::Patch => FactorKind::DistancePatch,
            Distance::Minor => FactorKind::DistanceMinor,
            Distance::Major => FactorKind::DistanceMajor,
        }
    }

    pub(super) fn word(self) -> &'static str {
        match self {
            Distance::Patch => "patch",
            Distance::Minor => "minor",
            Distance::Major => "major",
        }
    }
}

/// The first release segment at which two versions differ (epoch counts as major).
pub(crate) fn version_distance(a: &Version, b: &Version) -> Distance {
    if a.epoch() != b.epoch() {
        return Distance::Major;
    }
    let (ra, rb) = (a.release(), b.release());
    let len = ra.len().max(rb.len());
    for i in 0..len {
        let (x, y) = (
            ra.get(i).copied().unwrap_or(0),
            rb.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return level(i);
        }
    }
    Distance::Patch
}

fn level(index: usize) -> Distance {
    match index {
        0 => Distance::Major,
        1 => Distance::Minor,
        _ => Distance::Patch,
    }
}

/// The factor for a violated specifier clause, and how far outside it `version` is.
pub(crate) fn pin_strictness(
    clause: &VersionSpecifier,
    version: &Version,
) -> (FactorKind, Option<Distance>) {
    let bound = clause.version();
    match clause.operator() {
        Operator::Equal | Operator::ExactEqual => {
            (FactorKind::PinExact, Some(version_distance(bound, version)))
        }
        Operator::EqualStar => (
            FactorKind::PinWildcard,
            Some(version_distance(bound, version)),
        ),
        Operator::TildeEqual => (
            FactorKind::PinCompatible,
            Some(version_distance(bound, version)),
        ),
        Operator::LessThan | Operator::LessThanEqual => {
            // Crossing `<2` leaves the 2.x line: the bound's last non-zero segment says which
            // line was excluded, unless the version differs even earlier.
            let release = bound.release();
            let last_nonzero = release.iter().rposition(|&n| n != 0).unwrap_or(0);
            let crossing = level(last_nonzero);
            (
                FactorKind::PinUpperBound,
                Some(crossing.max(version_distance(bound, version))),
            )
        }
        Operator::GreaterThan | Operator::GreaterThanEqual => (
            FactorKind::PinLowerBound,
            Some(version_distance(bound, version)),
        ),
        Operator::NotEqual | Operator::NotEqualStar => (FactorKind::PinExclusion, None),
    }
}
