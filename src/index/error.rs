//! Errors of the index client.
//!
//! Every URL in here is already redacted (credentials shown as `****`): the error types hold
//! strings made by [`super::auth::SecretUrl`]'s `Display`, never a raw URL. The type is `Clone`
//! because one fetch can be awaited by several callers (the solver and a prefetch).

/// Why the index could not answer.
#[derive(Debug, Clone, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum IndexError {
    /// A file name on the index could not be parsed.
    #[error(transparent)]
    Filename(#[from] super::FilenameError),

    /// The index refused the request (401/403).
    #[error("{index} answered {status} for `{package}` ({url})")]
    #[diagnostic(
        code(planner::index::unauthorized),
        help(
            "the index needs credentials. Tried: {auth_sources}. Put them in the index URL \
             (`https://user:token@host/simple`) or in ~/.netrc (`machine HOST login USER password TOKEN`)"
        )
    )]
    Unauthorized {
        /// The index (redacted).
        index: String,
        /// The project asked for.
        package: String,
        /// The URL fetched (redacted).
        url: String,
        /// 401 or 403.
        status: u16,
        /// Where credentials were looked for.
        auth_sources: String,
    },

    /// The server answered an error status that retries did not cure.
    #[error("{url} answered {status}{context}")]
    #[diagnostic(
        code(planner::index::status),
        help("the index failed; try again later, or use `--offline` to answer from the cache")
    )]
    Status {
        /// The URL fetched (redacted).
        url: String,
        /// The HTTP status.
        status: u16,
        /// ` while fetching X`, or empty.
        context: String,
    },

    /// A connection error, timeout, or a body cut short: retries did not cure it.
    #[error("network error fetching {url}: {message}")]
    #[diagnostic(
        code(planner::index::network),
        help(
            "check the connection and the index URL; `--offline` answers from the cache. \
             PLANNER_HTTP_TIMEOUT (seconds) and PLANNER_HTTP_RETRIES tune the client"
        )
    )]
    Network {
        /// The URL fetched (redacted).
        url: String,
        /// What went wrong.
        message: String,
    },

    /// A reply larger than planner reads for its kind: refused when its `Content-Length` says
    /// so, else as soon as the bytes received pass the limit (never retried).
    #[error("{url}: {what} over the {limit}-byte limit ({seen})")]
    #[diagnostic(
        code(planner::index::too_large),
        help("the reply was cut off there, unread and uncached; {hint}")
    )]
    TooLarge {
        /// The URL fetched (redacted), or the local file.
        url: String,
        /// What was being read (`the project page`, `a .metadata file`, `a whole wheel`).
        what: String,
        /// The limit in bytes.
        limit: u64,
        /// What was seen: `Content-Length: N` or `N bytes received before stopping`.
        seen: String,
        /// What to do (the setting that raises the limit, where one does).
        hint: String,
    },

    /// A reply not complete by its deadline (a server sending a trickle), or the run's own
    /// network budget spent (never retried).
    #[error("{url}: {message}")]
    #[diagnostic(
        code(planner::index::deadline),
        help(
            "the index answers too slowly; try again later, use `--offline` to answer from the \
             cache, or allow more time with {knob} (seconds)"
        )
    )]
    TimedOut {
        /// The URL fetched (redacted).
        url: String,
        /// What ran out, with the bytes received.
        message: String,
        /// The setting that allows more time.
        knob: String,
    },

    /// A project page that is not valid PEP 691 JSON / PEP 503 HTML.
    #[error("invalid project page {url}: {message}")]
    #[diagnostic(
        code(planner::index::invalid_page),
        help("the index served a page that is not a valid simple-repository page (PEP 503/691)")
    )]
    InvalidPage {
        /// The page (redacted).
        url: String,
        /// What is wrong.
        message: String,
    },

    /// The reply's `Content-Type` is neither PEP 691 JSON nor HTML.
    #[error("{url} answered with content type `{content_type}`, not a simple-repository page")]
    #[diagnostic(
        code(planner::index::content_type),
        help("is the index URL right? It should end in `/simple` (or `/simple/`)")
    )]
    ContentType {
        /// The page (redacted).
        url: String,
        /// The content type received.
        content_type: String,
    },

    /// A release's metadata could not be read or does not parse.
    #[error("invalid metadata for {file} ({url}): {message}")]
    #[diagnostic(
        code(planner::index::metadata),
        help("the release's metadata is broken; the planner skips versions it cannot read")
    )]
    Metadata {
        /// The release file.
        file: String,
        /// Where the metadata came from (redacted).
        url: String,
        /// What is wrong.
        message: String,
    },

    /// Metadata that names another project or version than the file it came with.
    #[error("metadata of {file} says {found}, not {expected}")]
    #[diagnostic(
        code(planner::index::metadata_mismatch),
        help("the index serves inconsistent metadata for this file; the version is not used")
    )]
    MetadataMismatch {
        /// The release file.
        file: String,
        /// `name version` from the file name.
        expected: String,
        /// `name version` from the metadata.
        found: String,
    },

    /// An sdist-only release whose dependencies are only known after a build.
    #[error("metadata of {file} is unavailable without a build: {reason}")]
    #[diagnostic(
        code(planner::index::metadata_unavailable),
        help("the planner never builds packages; this version cannot be planned for")
    )]
    MetadataUnavailable {
        /// The release file.
        file: String,
        /// Why (e.g. `PKG-INFO is Metadata-Version 2.1`).
        reason: String,
    },

    /// `--offline` and the cache lacks what was needed.
    #[error("offline: {what} is not in the cache ({url})")]
    #[diagnostic(
        code(planner::index::offline),
        help("run once without `--offline` to fill the cache (same --cache-dir)")
    )]
    Offline {
        /// What was needed (`the page of torch`, `the metadata of x.whl`).
        what: String,
        /// The URL (redacted).
        url: String,
    },

    /// A URL that cannot be used.
    #[error("invalid index URL `{url}`: {message}")]
    #[diagnostic(
        code(planner::index::url),
        help("index URLs look like `https://host/simple`, `file:///path/simple` or a folder path")
    )]
    InvalidUrl {
        /// The URL (redacted).
        url: String,
        /// What is wrong.
        message: String,
    },

    /// A redirect the planner refuses to follow.
    #[error("refusing redirect from {from} to {to}: {reason}")]
    #[diagnostic(
        code(planner::index::redirect),
        help("the index redirected somewhere unsafe; use the final URL directly if it is trusted")
    )]
    Redirect {
        /// The URL fetched (redacted).
        from: String,
        /// Where it pointed (redacted).
        to: String,
        /// Why it is refused.
        reason: String,
    },

    /// Index configuration that cannot be read (pip.conf, environment variables).
    #[error("invalid index configuration in {source_name}: {message}")]
    #[diagnostic(code(planner::index::config), help("{hint}"))]
    Config {
        /// Where the setting came from (a flag, a file or an environment variable).
        source_name: String,
        /// What is wrong.
        message: String,
        /// What to do, for that kind of source.
        hint: String,
    },

    /// A local index file that cannot be read.
    #[error("cannot read {path}: {message}")]
    #[diagnostic(code(planner::index::io))]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },

    /// A downloaded wheel or sdist whose hash is not the one the index published.
    #[error("{file} ({url}): {algorithm} {actual} differs from the index's {expected}")]
    #[diagnostic(
        code(planner::index::hash_mismatch),
        help(
            "the file is not the one the index lists (a tampering proxy, a mirror out of step, or a \
             corrupted download); nothing was cached. Try again; if it persists, report it to the \
             index's operators"
        )
    )]
    HashMismatch {
        /// The file name.
        file: String,
        /// Its URL (redacted).
        url: String,
        /// `sha256`, `sha384` or `sha512`.
        algorithm: String,
        /// The index's hash.
        expected: String,
        /// The downloaded bytes' hash.
        actual: String,
    },

    /// A file shaped as no real release is (a zip directory of gigabytes, a flood of
    /// requirements): refused before it costs memory or requests.
    #[error("refusing {file} ({url}): {message}")]
    #[diagnostic(
        code(planner::index::refused),
        help(
            "no real release looks like this: the index may be hostile or broken; the release is \
             not used. Report it to the index's operators"
        )
    )]
    Refused {
        /// The release file.
        file: String,
        /// Where it came from (redacted).
        url: String,
        /// What was refused.
        message: String,
    },

    /// A wheel whose zip structure is broken.
    #[error("cannot read the wheel {file} ({url}): {message}")]
    #[diagnostic(
        code(planner::index::wheel),
        help("the wheel on the index is not a valid zip archive")
    )]
    Wheel {
        /// The wheel file name.
        file: String,
        /// Its URL (redacted).
        url: String,
        /// What is wrong.
        message: String,
    },
}

impl IndexError {
    /// Whether the index served something that failed an integrity check or a cap no real
    /// release reaches (a hash or name mismatch, a refused shape): a sign of a tampering proxy
    /// or a hostile index that the user must look at, not only a release to skip.
    pub(crate) fn is_suspect(&self) -> bool {
        matches!(
            self,
            IndexError::HashMismatch { .. }
                | IndexError::MetadataMismatch { .. }
                | IndexError::Refused { .. }
        )
    }

    /// Whether the error is the release's own (its metadata unreadable without a build, a hash
    /// or name mismatch, a refused shape, metadata that does not parse): that release is
    /// unusable, the rest of the index answers. Any other error (the network, a status, a cache
    /// that `--offline` lacks) is the read failing, and the question it was for is unanswered.
    pub(crate) fn is_release_level(&self) -> bool {
        matches!(
            self,
            IndexError::MetadataUnavailable { .. }
                | IndexError::MetadataMismatch { .. }
                | IndexError::HashMismatch { .. }
                | IndexError::Refused { .. }
                | IndexError::Metadata { .. }
        )
    }

    /// The cache body of an error that is the release file's own and the same on every read
    /// of it, by any planner with the same settings (`None` for any other): its metadata does
    /// not parse or names another release, no trusted metadata without a build, a shape
    /// refused by a fixed cap. Such an error is cached with the file's metadata (the file is
    /// immutable by its URL and hash), so that the next run, `--offline` too, gives the same
    /// answer. Not a hash mismatch (the bytes received were not the file: a retry or another
    /// mirror may serve the right ones, and nothing of a mismatch is cached), nor anything
    /// [`IndexError::is_transient`] or set by a knob (a status, the network, a reply over a
    /// size limit, a broken download).
    pub(crate) fn to_cached(&self) -> Option<Vec<u8>> {
        let cached = match self.clone() {
            IndexError::Metadata { file, url, message } => {
                Unusable::Metadata { file, url, message }
            }
            IndexError::MetadataMismatch {
                file,
                expected,
                found,
            } => Unusable::Mismatch {
                file,
                expected,
                found,
            },
            IndexError::MetadataUnavailable { file, reason } => {
                Unusable::Unavailable { file, reason }
            }
            IndexError::Refused { file, url, message } => Unusable::Refused { file, url, message },
            _ => return None,
        };
        serde_json::to_vec(&cached).ok()
    }

    /// The error an [`IndexError::to_cached`] body holds; `None` when it does not parse (then
    /// the file is read again).
    pub(crate) fn from_cached(body: &[u8]) -> Option<IndexError> {
        Some(match serde_json::from_slice(body).ok()? {
            Unusable::Metadata { file, url, message } => {
                IndexError::Metadata { file, url, message }
            }
            Unusable::Mismatch {
                file,
                expected,
                found,
            } => IndexError::MetadataMismatch {
                file,
                expected,
                found,
            },
            Unusable::Unavailable { file, reason } => {
                IndexError::MetadataUnavailable { file, reason }
            }
            Unusable::Refused { file, url, message } => IndexError::Refused { file, url, message },
        })
    }

    /// Whether retrying the same request might succeed (connection errors, timeouts, 429, 5xx).
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            IndexError::Network { .. } => true,
            IndexError::Status { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }
}

/// An error as the cache keeps it ([`IndexError::to_cached`]) (JSON, tagged by `kind`). Its
/// URLs are redacted already, as every URL in an [`IndexError`] is.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum Unusable {
    Metadata {
        file: String,
        url: String,
        message: String,
    },
    Mismatch {
        file: String,
        expected: String,
        found: String,
    },
    Unavailable {
        file: String,
        reason: String,
    },
    Refused {
        file: String,
        url: String,
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::IndexError;

    /// Each permanent error comes back from its cache body as it was; an error a retry may
    /// cure has no cache body.
    #[test]
    fn permanent_errors_round_trip_through_the_cache_and_others_are_not_kept() {
        let s = |text: &str| text.to_string();
        let permanent = [
            IndexError::Metadata {
                file: s("a-1.0-py3-none-any.whl"),
                url: s("https://host/files/a-1.0-py3-none-any.whl.metadata"),
                message: s("no `Version` field"),
            },
            IndexError::MetadataMismatch {
                file: s("a-1.0-py3-none-any.whl"),
                expected: s("a 1.0"),
                found: s("b 2.0"),
            },
            IndexError::MetadataUnavailable {
                file: s("a-1.0.tar.gz"),
                reason: s("no PKG-INFO in the sdist"),
            },
            IndexError::Refused {
                file: s("a-1.0-py3-none-any.whl"),
                url: s("https://host/files/a-1.0-py3-none-any.whl"),
                message: s("too many requirements"),
            },
        ];
        for err in permanent {
            let body = err.to_cached().unwrap();
            let back = IndexError::from_cached(&body).unwrap();
            assert_eq!(format!("{back:?}"), format!("{err:?}"));
        }
        let transient = [
            IndexError::Status {
                url: s("https://host/files/a.metadata"),
                status: 503,
                context: String::new(),
            },
            IndexError::Network {
                url: s("https://host/files/a.metadata"),
                message: s("connection reset"),
            },
            IndexError::TimedOut {
                url: s("https://host/files/a.metadata"),
                message: s("deadline"),
                knob: s("PLANNER_HTTP_TIMEOUT"),
            },
            IndexError::HashMismatch {
                file: s("a-1.0-py3-none-any.whl"),
                url: s("https://host/files/a-1.0-py3-none-any.whl"),
                algorithm: s("sha256"),
                expected: s("00"),
                actual: s("11"),
            },
        ];
        for err in transient {
            assert!(err.to_cached().is_none(), "{err}");
        }
        assert!(IndexError::from_cached(b"{\"kind\": \"other\"}").is_none());
    }
}
