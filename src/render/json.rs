//! The one JSON writer: every `--format json` document, plan file and snapshot is written here,
//! pretty-printed with a trailing newline, keys in the order the types declare them.
//!
//! In: any [`Serialize`] value (the documented schemas: `docs/*-json.md`). Out: the text, or a
//! [`JsonError`] (a bug: every output type serializes; the command fails with exit 2).

use serde::Serialize;

/// A value that could not be written as JSON.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot write the output as JSON: {source}")]
#[diagnostic(code(planner::render::json))]
pub(crate) struct JsonError {
    #[source]
    source: serde_json::Error,
}

/// Pretty JSON with a trailing newline.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, JsonError> {
    // The one writer: clippy.toml sends every other caller here.
    #[allow(clippy::disallowed_methods)]
    let mut text = serde_json::to_string_pretty(value).map_err(|source| JsonError { source })?;
    text.push('\n');
    Ok(text)
}
