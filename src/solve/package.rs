//! The packages the solver decides on.
//!
//! Besides one [`Pkg::Dist`] per distribution there is a [`Pkg::Root`] (the user's
//! requirements), [`Pkg::Python`] (the target interpreter, so a `Requires-Python` conflict is
//! named as such) and one virtual [`Pkg::Extra`] per requested extra, which depends on its base
//! distribution pinned to the same version (so `black[d]` and `black` never disagree) and on the
//! requirements the extra adds.

use std::fmt;

use pep508_rs::{ExtraName, PackageName};

/// A package as pubgrub sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Pkg {
    /// The user's requirements (version `0`).
    Root,
    /// The target Python interpreter (one version: the target's).
    Python,
    /// A distribution.
    Dist(PackageName),
    /// `name[extra]`: pinned to the base distribution's version.
    Extra(PackageName, ExtraName),
}

impl Pkg {
    /// The distribution name, for `Dist` and `Extra`.
    pub(crate) fn name(&self) -> Option<&PackageName> {
        match self {
            Pkg::Dist(name) | Pkg::Extra(name, _) => Some(name),
            Pkg::Root | Pkg::Python => None,
        }
    }
}

impl fmt::Display for Pkg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pkg::Root => f.write_str("your requirements"),
            Pkg::Python => f.write_str("Python"),
            Pkg::Dist(name) => write!(f, "{name}"),
            Pkg::Extra(name, extra) => write!(f, "{name}[{extra}]"),
        }
    }
}
