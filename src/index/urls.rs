//! Text out of URLs: percent-decoding, and the file name a release URL ends in.
//!
//! In: a percent-encoded string or a [`Url`]. Out: the decoded text (invalid escapes are kept as
//! written, invalid UTF-8 is replaced). The one place the index stage (and everything after it)
//! turns a URL into a file name, so that `+` of local versions (`%2B`) reads the same everywhere.

use url::Url;

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
