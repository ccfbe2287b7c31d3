//! The command line's value parsers: a flag's text in, its domain type out (a PEP 508
//! requirement, a `propose` target, `--python-version`, `--python-platform`, one of a fixed set
//! of values, the [`Format`]s a command writes), or a [`ValueError`] that clap prints after `invalid value 'X' for '--flag'`
//! (exit 2).

use std::str::FromStr;

use pep508_rs::{PackageName, Requirement, VersionOrUrl};

use crate::inventory::{InventoryError, PythonVersion, TargetPlatform};
use crate::metadata::RequirementError;

use super::Format;

/// Why a value parser refused a flag's value; clap prints it after `invalid value 'X' for
/// '--flag'` (exit 2).
#[derive(Debug, thiserror::Error)]
pub(super) enum ValueError {
    /// `resolve REQ` that is not a PEP 508 requirement.
    #[error(
        "`{text}` is not a valid requirement: {message}\n  hint: write a PEP 508 requirement \
         such as `numpy>=2,<3`"
    )]
    Requirement {
        text: String,
        message: RequirementError,
    },
    /// A `propose` target that is not a PEP 508 requirement.
    #[error(
        "invalid target `{text}`: {message}\n  hint: targets are PEP 508 requirements: \
         `triton==3.7.0`, `numpy>=2`, `transformers`"
    )]
    Target {
        text: String,
        message: RequirementError,
    },
    /// A `propose` target with a direct URL.
    #[error(
        "target `{0}` is a direct URL; propose plans from an index only\n  hint: name a \
         version instead and serve the file from an index"
    )]
    DirectUrl(PackageName),
    /// `--python-version` that is not X.Y[.Z].
    #[error("{0}\n  hint: write it as X.Y or X.Y.Z, e.g. --python-version 3.12")]
    PythonVersion(InventoryError),
    /// `--python-platform` that uv does not spell.
    #[error("{}{}", .0, hint_line(.0))]
    PythonPlatform(InventoryError),
}

/// The error's help as a `hint:` line, or nothing.
fn hint_line(err: &InventoryError) -> String {
    miette::Diagnostic::help(err)
        .map(|help| format!("\n  hint: {help}"))
        .unwrap_or_default()
}

/// The risk levels `--max-risk` and `--fail-on` take, offered by completion and `--help`.
pub(super) const RISK_LEVELS: &[&str] = &["low", "medium", "high", "critical"];
/// The layers `propose --all --layer` takes.
pub(super) const LAYERS: &[&str] = &["safe", "group", "major", "everything"];

/// The formats `inventory`, `check`, `outdated`, `resolve` and `verify` write.
pub(super) const DATA_FORMATS: &[Format] = &[Format::Text, Format::Json];
/// The formats `propose`, `diff`, `try` and `bisect` write.
pub(super) const PLAN_FORMATS: &[Format] = &[Format::Text, Format::Json, Format::Markdown];
/// The formats `review` writes: every one.
pub(super) const REVIEW_FORMATS: &[Format] = &[
    Format::Text,
    Format::Json,
    Format::Markdown,
    Format::Github,
    Format::Sarif,
];

/// `--format`, one of `offered` (in its order, each with its help; completion offers these,
/// and clap refuses any other format, naming these).
pub(super) fn format(
    offered: &'static [Format],
) -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::ValueEnum;
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(offered.iter().filter_map(Format::to_possible_value))
        .try_map(|text: String| Format::from_str(&text, false))
}

/// A value among `values` (which shell completion then offers, in place of file names),
/// parsed by `T`'s `FromStr`.
pub(super) fn one_of<T>(
    values: &'static [&'static str],
) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(values)
        .try_map(|text: String| T::from_str(&text).map_err(|err| err.to_string()))
}

/// A PEP 508 requirement (`resolve REQ`).
pub(super) fn requirement(text: &str) -> Result<Requirement, ValueError> {
    crate::metadata::parse_requirement(text).map_err(|message| ValueError::Requirement {
        text: text.to_string(),
        message,
    })
}

/// A `propose` target: a PEP 508 requirement on an index release (no direct URL).
pub(super) fn target(text: &str) -> Result<Requirement, ValueError> {
    let requirement =
        crate::metadata::parse_requirement(text).map_err(|message| ValueError::Target {
            text: text.to_string(),
            message,
        })?;
    if matches!(requirement.version_or_url, Some(VersionOrUrl::Url(_))) {
        return Err(ValueError::DirectUrl(requirement.name));
    }
    Ok(requirement)
}

/// `--python-version X.Y[.Z]`.
pub(super) fn python_version(text: &str) -> Result<PythonVersion, ValueError> {
    PythonVersion::from_str(text).map_err(ValueError::PythonVersion)
}

/// `--python-platform`, in uv's spelling.
pub(super) fn python_platform(text: &str) -> Result<TargetPlatform, ValueError> {
    TargetPlatform::from_str(text).map_err(ValueError::PythonPlatform)
}
