//! Checks and quoting for values that reach generated commands and scripts.

use pep440_rs::Version;
use pep508_rs::PackageName;

/// Why a value may not be written into a command.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq, miette::Diagnostic)]
pub(crate) enum UnsafeValue {
    /// A name outside `^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`.
    #[error("refusing to write the package name `{name}` into a command")]
    #[diagnostic(help(
        "names must be ASCII letters, digits, `.`, `_` and `-`, not starting with `-`"
    ))]
    Name {
        /// The name, escaped.
        name: String,
    },
    /// A version whose text holds anything but `[A-Za-z0-9.+!_-]`.
    #[error("refusing to write the version `{version}` into a command")]
    #[diagnostic(help("versions are written from their parsed PEP 440 form"))]
    Version {
        /// The version, escaped.
        version: String,
    },
    /// A URL that holds credentials (userinfo, a `?token=` query) or characters outside
    /// printable ASCII.
    #[error("refusing to write the index URL `{url}` into a command")]
    #[diagnostic(help(
        "credentials are never written into commands: put them in the installer's keyring, \
         netrc or environment (PIP_INDEX_URL / UV_INDEX_URL) and pass the URL without them"
    ))]
    Url {
        /// The URL, redacted.
        url: String,
    },
}

/// A name re-serialized from its parsed, normalized form, checked against the safe pattern.
pub(crate) fn name(name: &PackageName) -> Result<String, UnsafeValue> {
    let text = name.to_string();
    let bytes = text.as_bytes();
    let ok = !bytes.is_empty()
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(text)
    } else {
        Err(UnsafeValue::Name {
            name: text.escape_default().to_string(),
        })
    }
}

/// A version re-serialized from its parsed form (normalized PEP 440, local label included).
pub(crate) fn version(version: &Version) -> Result<String, UnsafeValue> {
    let text = version.to_string();
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'!' | b'_' | b'-'))
    {
        Ok(text)
    } else {
        Err(UnsafeValue::Version {
            version: text.escape_default().to_string(),
        })
    }
}

/// `name==version`, both re-serialized and checked.
pub(crate) fn pin(package: &PackageName, v: &Version) -> Result<String, UnsafeValue> {
    Ok(format!("{}=={}", name(package)?, version(v)?))
}

/// An index URL fit for a command: parsed, http(s) or file, no userinfo, printable ASCII.
pub(crate) fn index_url(text: &str) -> Result<String, UnsafeValue> {
    let redacted = || UnsafeValue::Url { url: redact(text) };
    let url = url::Url::parse(text).map_err(|_| redacted())?;
    if !matches!(url.scheme(), "http" | "https" | "file")
        || !url.username().is_empty()
        || url.password().is_some()
        || crate::index::auth::has_secret_query(&url)
    {
        return Err(redacted());
    }
    let serialized = url.to_string();
    if serialized.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(serialized)
    } else {
        Err(redacted())
    }
}

/// A URL with any userinfo and secret query value replaced by `****`, parsed or not.
pub(crate) fn redact(text: &str) -> String {
    crate::index::auth::redact_str(text)
        .escape_default()
        .to_string()
}

/// One POSIX shell token, single-quoted unless it is plainly safe.
pub fn quote(token: &str) -> String {
    if !token.is_empty()
        && token.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':' | b'@' | b',')
        })
    {
        return token.to_string();
    }
    // shlex quotes everything that needs it; it refuses only NUL bytes, which no checked value
    // holds. Fall back to plain single quotes, escaping embedded quotes.
    shlex::try_quote(token)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| format!("'{}'", token.replace('\0', "").replace('\'', "'\\''")))
}

/// Any text as one POSIX shell word, always single-quoted (`'` written as `'\''`): every byte
/// but NUL stands for itself there, newlines, `$`, `` ` ``, `"`, `\`, `}` included. For values
/// assigned to a variable, where [`quote`]'s mixed quoting would be harder to read back.
pub fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\0', "").replace('\'', "'\\''"))
}

/// A path (any bytes but NUL) as one bash word that stands for exactly those bytes: [`literal`]
/// when it is UTF-8, else an ANSI-C quoted `$'...'` word with every byte outside printable ASCII
/// (and `'` and `\`) written as `\xHH`, so the script stays UTF-8 text and the venv path is
/// carried byte for byte, not as its lossy display form. For bash scripts (`$'...'` is not POSIX
/// sh).
pub fn literal_os(text: &std::ffi::OsStr) -> String {
    if let Some(text) = text.to_str() {
        return literal(text);
    }
    let mut out = String::from("$'");
    for &byte in text.as_encoded_bytes() {
        match byte {
            0 => {}
            b' '..=b'~' if byte != b'\'' && byte != b'\\' => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn names_and_versions_are_reserialized() {
        let n = PackageName::from_str("Flash_Linear.Attention").unwrap();
        assert_eq!(name(&n).unwrap(), "flash-linear-attention");
        let v = Version::from_str("2.11.0+CU130").unwrap();
        assert_eq!(version(&v).unwrap(), "2.11.0+cu130");
        assert_eq!(
            pin(&n, &Version::from_str("1.0-RC1").unwrap()).unwrap(),
            "flash-linear-attention==1.0rc1"
        );
    }

    #[test]
    fn urls_with_credentials_are_refused_and_redacted() {
        let err = index_url("https://user:s3cret@example.invalid/simple/").unwrap_err();
        assert!(!err.to_string().contains("s3cret"));
        assert!(err.to_string().contains("****"));
        assert_eq!(
            index_url("http://127.0.0.1:8080/simple/").unwrap(),
            "http://127.0.0.1:8080/simple/"
        );
        assert!(index_url("ftp://example.invalid/").is_err());
    }

    #[test]
    fn quoting_survives_the_shell() {
        for token in [
            "triton==3.7.0",
            "numpy>=1,<2",
            "a b",
            "it's",
            "$(rm -rf /)",
            "`x`",
            "-e",
        ] {
            let quoted = quote(token);
            assert_eq!(
                shlex::split(&quoted).unwrap(),
                vec![token.to_string()],
                "{quoted}"
            );
        }
        assert_eq!(quote("numpy>=1,<2"), "'numpy>=1,<2'");
    }
}
