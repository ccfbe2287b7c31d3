//! `file:` URLs: a URL and an optional byte range in, a [`Reply`] read from disk out, as if a
//! server had sent it (404 when the file is absent, 206 for a range), its read capped as a
//! download's would be.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use url::Url;

use super::{ByteRange, Reply};
use crate::index::IndexError;
use crate::index::auth::redact;

/// A `file:` URL read from disk, as if served (404 when absent): a regular file only, its
/// whole read capped by `limit` (what, bytes, setting) as a download would be.
pub(super) fn read_file(
    url: &Url,
    range: Option<ByteRange>,
    (what, limit, hint): (&'static str, u64, &'static str),
) -> Result<Reply, IndexError> {
    let path = url.to_file_path().map_err(|()| IndexError::InvalidUrl {
        url: redact(url),
        message: "not a local path".to_string(),
    })?;
    let io_err = |e: std::io::Error| IndexError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let reply = |status, body, range| Reply {
        status,
        url: url.clone(),
        content_type: None,
        etag: None,
        last_modified: None,
        max_age: None,
        range,
        body,
        spooled: None,
    };
    let mut file = match crate::bounded::open_regular(&path) {
        Ok(f) => f,
        Err(e) if e.is_missing() => return Ok(reply(404, Vec::new(), None)),
        Err(e) => return Err(local_error(&path, e)),
    };
    let total = file.metadata().map_err(io_err)?.len();
    let (start, end) = match range {
        None => {
            let body = crate::bounded::read(&path, limit).map_err(|e| match e {
                crate::bounded::ReadError::TooLarge { seen, limit } => IndexError::TooLarge {
                    url: path.display().to_string(),
                    what: what.to_string(),
                    limit,
                    seen: format!("{seen} bytes"),
                    hint: hint.to_string(),
                },
                e => local_error(&path, e),
            })?;
            return Ok(reply(200, body, None));
        }
        Some(ByteRange::Suffix(n)) => (total.saturating_sub(n), total),
        Some(ByteRange::Span(s, e)) => (s.min(total), e.min(total)),
    };
    file.seek(SeekFrom::Start(start)).map_err(io_err)?;
    let mut body = Vec::new();
    file.take(end.saturating_sub(start))
        .read_to_end(&mut body)
        .map_err(io_err)?;
    Ok(reply(206, body, Some((start, Some(total)))))
}

/// A local file that cannot be read, in words (`is a FIFO (named pipe), not a regular file`).
fn local_error(path: &Path, e: crate::bounded::ReadError) -> IndexError {
    IndexError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}
