//! Text out of URLs: percent-decoding, the file name a release URL ends in, and release URLs
//! kept as text until used.
//!
//! In: a percent-encoded string or a [`Url`]. Out: the decoded text (invalid escapes are kept as
//! written, invalid UTF-8 is replaced). The one place the index stage (and everything after it)
//! turns a URL into a file name, so that `+` of local versions (`%2B`) reads the same everywhere.

use std::sync::OnceLock;

use url::Url;

/// A release file's URL, kept as its text until first used as a [`Url`] (it derefs to one). A
/// cached page lists thousands of files and a run uses the URLs of a few: parsing every one was
/// a tenth of a warm resolve. The text is always a [`Url`]'s own serialization (a parsed URL, or
/// one read back from the checksummed page cache, which wrote it from a parsed URL). The parsed
/// form is boxed: inline it made every file of a page (thousands) 88 bytes bigger.
#[derive(Clone)]
pub struct FileUrl {
    text: Box<str>,
    parsed: OnceLock<Box<Url>>,
}

impl FileUrl {
    /// A URL serialized by [`Url`] and stored since, not parsed until used.
    pub fn from_serialized(text: &str) -> FileUrl {
        FileUrl {
            text: text.into(),
            parsed: OnceLock::new(),
        }
    }

    /// The URL as text (no parsing).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the URL holds a user name or password, read off the text: in a serialized URL
    /// the authority runs from `://` to the next `/`, `?` or `#`, and userinfo ends at its `@`.
    pub fn has_userinfo(&self) -> bool {
        let text = self.text.as_bytes();
        let Some(at) = memchr::memmem::find(text, b"://") else {
            return false;
        };
        for &b in &text[at + 3..] {
            match b {
                b'@' => return true,
                b'/' | b'?' | b'#' => return false,
                _ => {}
            }
        }
        false
    }
}

impl From<Url> for FileUrl {
    fn from(url: Url) -> FileUrl {
        FileUrl {
            text: url.as_str().into(),
            parsed: OnceLock::from(Box::new(url)),
        }
    }
}

impl std::ops::Deref for FileUrl {
    type Target = Url;
    fn deref(&self) -> &Url {
        self.parsed.get_or_init(|| {
            Box::new(
                Url::parse(&self.text).unwrap_or_else(|e| {
                    panic!("a stored file URL `{}` reads back: {e}", self.text)
                }),
            )
        })
    }
}

/// Equal when the URLs are (a [`Url`] compares by its serialization).
impl PartialEq for FileUrl {
    fn eq(&self, other: &FileUrl) -> bool {
        self.text == other.text
    }
}

impl Eq for FileUrl {}

impl std::fmt::Debug for FileUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.text, f)
    }
}

/// The URL's serialization, as [`Url`] displays it (credentials included: redact before showing
/// it to a user).
impl std::fmt::Display for FileUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Decode `%XX` escapes; invalid ones (`%zz`, a trailing `%`) are kept as written, and `+`
/// stays `+` (URL paths and userinfo are not form data).
pub fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// The file name a URL points at: its last path segment, percent-decoded
/// (`torch-2.5.1%2Bcu124-….whl` -> `torch-2.5.1+cu124-….whl`). Empty when the URL has no path
/// segments (`mailto:`-like URLs) or ends in `/`.
pub fn url_filename(url: &Url) -> String {
    url.path_segments()
        .and_then(|mut segments| segments.next_back().map(percent_decode))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_and_keeps_invalid_ones() {
        assert_eq!(percent_decode("a%2Bb%zz"), "a+b%zz");
        assert_eq!(percent_decode("a+b%"), "a+b%");
        assert_eq!(percent_decode("us%26er%3Ax"), "us&er:x");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
    }

    #[test]
    fn a_file_url_reads_as_the_url_it_was() {
        for text in [
            "https://files.example/p/demo-1.0%2Bcpu-py3-none-any.whl",
            "https://user:pw@files.example/p/demo-1.0.tar.gz",
            "https://files.example/p/a@b/demo-1.0.tar.gz",
            "file:///srv/files/demo-1.0.tar.gz",
        ] {
            let url = Url::parse(text).unwrap();
            let lazy = FileUrl::from_serialized(url.as_str());
            assert_eq!(lazy.as_str(), url.as_str());
            assert_eq!(
                lazy.has_userinfo(),
                !url.username().is_empty() || url.password().is_some(),
                "{text}"
            );
            assert_eq!(*lazy, url);
            assert_eq!(FileUrl::from(url.clone()).as_str(), url.as_str());
            assert_eq!(lazy.to_string(), url.to_string());
        }
    }

    #[test]
    fn file_name_is_the_last_segment_decoded() {
        let url = Url::parse(
            "https://files.example/p/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=00",
        )
        .unwrap();
        assert_eq!(
            url_filename(&url),
            "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl"
        );
        let local = Url::parse("file:///srv/files/demo-1.0.tar.gz").unwrap();
        assert_eq!(url_filename(&local), "demo-1.0.tar.gz");
        let dir = Url::parse("https://files.example/p/").unwrap();
        assert_eq!(url_filename(&dir), "");
    }
}
