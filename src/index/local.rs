//! A local folder (or `file://` URL) laid out as a simple index.
//!
//! In: the folder and a project name. Out: the project page's bytes, its format and the URL
//! relative links resolve against. Layout: `<root>/<name>/index.json` (PEP 691) or
//! `<root>/<name>/index.html` (PEP 503), the layout `python -m http.server` serves and
//! `testdata/index/simple` uses; release files and their `.metadata` files wherever the pages
//! point (usually `<root>/../files/`).

use std::path::Path;

use pep508_rs::PackageName;
use url::Url;

use super::IndexError;

/// The format of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageFormat {
    /// PEP 691 JSON.
    Json,
    /// PEP 503 HTML.
    Html,
}

/// A page read from disk.
#[derive(Debug, Clone)]
pub struct LocalPage {
    /// The bytes.
    pub body: Vec<u8>,
    /// The format.
    pub format: PageFormat,
    /// The page's URL (`file:///root/name/`), for relative links.
    pub base: Url,
}

/// Read the page of `name` under `root`, if the folder has one: a regular file of at most
/// `limit` bytes (`PLANNER_MAX_PAGE_BYTES`), so a FIFO or `/dev/zero` there cannot hang the run
/// or take its memory.
pub fn read_page(
    root: &Path,
    name: &PackageName,
    limit: u64,
) -> Result<Option<LocalPage>, IndexError> {
    let dir = root.join(name.as_ref());
    for (file, format) in [
        ("index.json", PageFormat::Json),
        ("index.html", PageFormat::Html),
    ] {
        let path = dir.join(file);
        match crate::bounded::read(&path, limit) {
            Ok(body) => {
                let base = Url::from_directory_path(&dir).map_err(|()| IndexError::Io {
                    path: dir.display().to_string(),
                    message: "not an absolute path".to_string(),
                })?;
                return Ok(Some(LocalPage { body, format, base }));
            }
            Err(crate::bounded::ReadError::NotFound) => {}
            Err(crate::bounded::ReadError::Io(e))
                if e.kind() == std::io::ErrorKind::NotADirectory => {}
            Err(crate::bounded::ReadError::TooLarge { seen, limit }) => {
                return Err(IndexError::TooLarge {
                    url: path.display().to_string(),
                    what: "the project page".to_string(),
                    limit,
                    seen: format!("{seen} bytes"),
                    hint: "if the page really is this large, raise PLANNER_MAX_PAGE_BYTES (bytes)"
                        .to_string(),
                });
            }
            Err(e) => {
                return Err(IndexError::Io {
                    path: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        }
    }
    if !root.is_dir() {
        return Err(IndexError::Io {
            path: root.display().to_string(),
            message: "the local index folder does not exist".to_string(),
        });
    }
    Ok(None)
}

/// Add the projects a local index folder holds (its sub-folders with a valid name) to `out`;
/// `false` when the folder cannot be read.
pub(crate) fn list_projects(root: &Path, out: &mut Vec<PackageName>) -> bool {
    let Ok(entries) = std::fs::read_dir(root) else {
        return false;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir())
            && let Some(name) = entry.file_name().to_str()
            && let Ok(name) = name.parse::<PackageName>()
        {
            out.push(name);
        }
    }
    true
}
