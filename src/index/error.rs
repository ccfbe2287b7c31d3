//! Errors of the index client.

/// Why the index could not answer.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum IndexError {
    /// A file name on the index could not be parsed.
    #[error(transparent)]
    Filename(#[from] super::FilenameError),
}
