//! `direct_url.json` (PEP 610): where a dist came from when it was not an index.
//!
//! In: the file's JSON (from disk, a snapshot or `pip inspect`). Out: [`DirectUrl`], with
//! credentials in the URL replaced by `****`; or a [`DirectUrlError`]. A dist from such a
//! source that no written command can put back says why in a [`NotReinstallable`].

use serde::Deserialize;

use super::DirectUrl;

#[derive(Deserialize)]
struct Raw {
    url: String,
    #[serde(default)]
    archive_info: Option<RawArchive>,
    #[serde(default)]
    dir_info: Option<RawDir>,
    #[serde(default)]
    vcs_info: Option<RawVcs>,
}

#[derive(Deserialize)]
struct RawArchive {
    #[serde(default)]
    hash: Option<String>,
    #[serde(default)]
    hashes: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Deserialize)]
struct RawDir {
    #[serde(default)]
    editable: bool,
}

#[derive(Deserialize)]
struct RawVcs {
    vcs: String,
    commit_id: String,
    #[serde(default)]
    requested_revision: Option<String>,
}

/// Why a `direct_url.json` could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DirectUrlError {
    /// Not JSON, or not the shape PEP 610 gives.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// None of the three source kinds.
    #[error("none of `archive_info`, `dir_info`, `vcs_info` is present")]
    NoSource,
}

/// Why a dist installed from a direct URL cannot be put back by a command the planner writes.
/// `pin` is the dist's `name==version`, `url` its source (credentials already redacted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotReinstallable {
    /// An editable install: only its owner can reinstall it.
    #[error(
        "{pin}: an editable install of {url}; reinstall it yourself (`pip install --no-deps -e {}`)",
        url.strip_prefix("file://").unwrap_or(url)
    )]
    Editable {
        /// `name==version`.
        pin: String,
        /// The folder's URL.
        url: String,
    },
    /// Reinstalling it would run its build, and the plan installs wheels only.
    #[error(
        "{pin}: installed from {what} {url}; reinstalling it runs its build, which the plan's \
         wheel-only rule forbids: reinstall it yourself (`pip install --no-deps '{name} @ {url}'`)"
    )]
    Builds {
        /// `name==version`.
        pin: String,
        /// The dist's name.
        name: String,
        /// What the URL is (`the folder`, `the checkout of`, `the source archive`).
        what: &'static str,
        /// The source.
        url: String,
    },
    /// Installed from the index, which lists that release with only an sdist: reinstalling it
    /// runs its build, and the plan installs wheels only.
    #[error(
        "{pin}: the index has only an sdist of it (it was built when installed); reinstalling it \
         runs its build, which the plan's wheel-only rule forbids: reinstall it yourself \
         (`pip install --no-deps '{pin}'`)"
    )]
    SourceOnly {
        /// `name==version`.
        pin: String,
    },
    /// Its URL cannot be written into a command (it held credentials, or is not a safe URL).
    #[error(
        "{pin}: installed from {url}, which cannot be written into a command \
         (credentials are never written)"
    )]
    Unwritable {
        /// `name==version`.
        pin: String,
        /// The source.
        url: String,
    },
}

/// Parse a `direct_url.json` value.
pub(super) fn parse(value: &serde_json::Value) -> Result<DirectUrl, DirectUrlError> {
    let raw: Raw = serde_json::from_value(value.clone())?;
    let url = redact_url(&raw.url);
    if let Some(vcs) = raw.vcs_info {
        return Ok(DirectUrl::Vcs {
            url,
            vcs: vcs.vcs,
            commit_id: vcs.commit_id,
            requested_revision: vcs.requested_revision,
        });
    }
    if let Some(dir) = raw.dir_info {
        return Ok(DirectUrl::Directory {
            url,
            editable: dir.editable,
        });
    }
    if let Some(archive) = raw.archive_info {
        // PEP 610: `hashes` is the current field; `hash` (`algo=hex`) the deprecated one.
        let hash = archive
            .hashes
            .as_ref()
            .and_then(|hashes| {
                hashes
                    .get("sha256")
                    .map(|hex| format!("sha256={hex}"))
                    .or_else(|| hashes.iter().next().map(|(a, h)| format!("{a}={h}")))
            })
            .or(archive.hash);
        return Ok(DirectUrl::Archive { url, hash });
    }
    Err(DirectUrlError::NoSource)
}

/// Parse the bytes of a `direct_url.json` file.
pub(super) fn parse_bytes(bytes: &[u8]) -> Result<DirectUrl, DirectUrlError> {
    let value: serde_json::Value = serde_json::from_slice(bytes)?;
    parse(&value)
}

/// Replace the userinfo of a URL (`https://user:token@host/...`) with `****`.
pub(crate) fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("****");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

impl DirectUrl {
    /// A short label for tables: `git@1a2b3c4`, `editable`, `dir`, `file`.
    pub(crate) fn label(&self) -> String {
        match self {
            DirectUrl::Vcs { vcs, commit_id, .. } => {
                let short: String = commit_id.chars().take(12).collect();
                format!("{vcs}@{short}")
            }
            DirectUrl::Directory { editable: true, .. } => "editable".to_string(),
            DirectUrl::Directory { .. } => "dir".to_string(),
            DirectUrl::Archive { .. } => "file".to_string(),
        }
    }

    /// The URL (credentials already redacted).
    pub(crate) fn url(&self) -> &str {
        match self {
            DirectUrl::Vcs { url, .. }
            | DirectUrl::Directory { url, .. }
            | DirectUrl::Archive { url, .. } => url,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vcs_dir_and_archive() {
        let vcs = parse_bytes(
            br#"{"url": "https://github.com/fla-org/flash-linear-attention", "vcs_info": {"vcs": "git", "commit_id": "0123456789abcdef0123", "requested_revision": "main"}}"#,
        )
        .unwrap();
        assert_eq!(vcs.label(), "git@0123456789ab");
        let dir =
            parse_bytes(br#"{"url": "file:///src/x", "dir_info": {"editable": true}}"#).unwrap();
        assert_eq!(dir.label(), "editable");
        let plain = parse_bytes(br#"{"dir_info": {}, "url": "file:///src/x"}"#).unwrap();
        assert_eq!(plain.label(), "dir");
        let archive = parse_bytes(
            br#"{"url": "file:///w/x-1-py3-none-any.whl", "archive_info": {"hashes": {"sha256": "ab"}, "hash": "sha256=ab"}}"#,
        )
        .unwrap();
        assert_eq!(
            archive,
            DirectUrl::Archive {
                url: "file:///w/x-1-py3-none-any.whl".into(),
                hash: Some("sha256=ab".into())
            }
        );
        assert!(parse_bytes(br#"{"url": "x"}"#).is_err());
        assert!(parse_bytes(b"not json").is_err());
    }

    #[test]
    fn credentials_are_redacted() {
        let vcs = parse_bytes(
            br#"{"url": "https://user:s3cret@git.example/x.git", "vcs_info": {"vcs": "git", "commit_id": "ab"}}"#,
        )
        .unwrap();
        assert_eq!(vcs.url(), "https://****@git.example/x.git");
        assert!(!format!("{vcs:?}").contains("s3cret"));
    }
}
