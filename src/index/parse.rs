//! Project pages parsed into [`DistFile`]s: PEP 691 JSON and PEP 503 HTML.
//!
//! In: the bytes of one project page and the URL it was fetched from (relative file URLs resolve
//! against it). Out: a [`ProjectPage`] (which `super::compact` stores). These are pure
//! functions: no IO, no clock.
//!
//! Quirks handled (docs/reliability.md items 15-18, 22): `yanked` is `false` or a reason
//! string; `core-metadata` is `true` or hashes, under three historic key names; `requires-python`
//! is often null and sometimes malformed (`>=3.6,`); `#sha256=` fragments become hashes and are
//! dropped from the URL; HTML attribute values are entity-escaped; `.egg` and unparseable file
//! names are skipped with a note; files of another project are skipped.
//!
//! The trust boundary: a page fetched over http(s) links only to http(s) files; a
//! page of a local index only to `file:` files inside the index's tree (the folder holding the
//! simple folder, where `../files/` lies). Any other link (`file:///etc/shadow` on a remote
//! page, `javascript:`, `data:`, a path that climbs out) skips that one file with a note (shown
//! with `-v`), never the page. The rule is set by the URL the page came from, not by a `<base>`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;
use std::str::FromStr;

use pep440_rs::{VersionSpecifiers, VersionSpecifiersParseError};
use pep508_rs::PackageName;
use serde::Deserialize;
use url::Url;

use super::auth::redact;
use super::filename::FilenameMemo;
use super::urls::url_filename;
use super::{DistFile, DistFilename, FilenameError, Files};
use crate::metadata::parse_requires_python;
use crate::tags::{compress_set, first_of_set};

/// A parsed project page.
#[derive(Debug, Clone)]
pub struct ProjectPage {
    /// The name the page states (JSON `name`), when it states one.
    pub name: Option<PackageName>,
    /// The files, in page order, each parsed (built on first access when read from the page
    /// cache).
    pub files: Files,
    /// Files skipped and why (to be shown as warnings).
    pub skipped: Vec<String>,
    /// `meta.api-version` / `pypi:repository-version`, when given.
    pub api_version: Option<String>,
}

/// Why one file of a page is skipped (shown as a warning, in [`ProjectPage::skipped`]).
#[derive(Debug, thiserror::Error)]
enum SkippedFile {
    /// Its name is no wheel or sdist name.
    #[error("{0}")]
    Filename(FilenameError),
    /// Its link does not parse.
    #[error("{filename}: invalid URL: {error}; file skipped")]
    Url {
        filename: String,
        error: url::ParseError,
    },
    /// Its link goes where the index's links may not ([`LinkPolicy`]).
    #[error("{filename}: {url} is {why}; file skipped")]
    Link {
        filename: String,
        /// The link, redacted.
        url: String,
        why: String,
    },
    /// Its `requires-python` does not parse.
    #[error("{filename}: invalid requires-python `{text}` ({error}); file skipped")]
    RequiresPython {
        filename: String,
        text: String,
        error: VersionSpecifiersParseError,
    },
}

/// Why a page does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

#[derive(Deserialize)]
struct JsonPage<'a> {
    #[serde(default)]
    meta: Option<JsonMeta>,
    name: String,
    #[serde(borrow)]
    files: Vec<JsonFile<'a>>,
}

#[derive(Deserialize)]
struct JsonMeta {
    #[serde(rename = "api-version")]
    api_version: Option<String>,
}

/// `false` or a reason (`yanked`). Hand-written rather than `#[serde(untagged)]`, which buffers
/// every value and showed up in profiles of pages with thousands of files.
enum BoolOrString {
    Bool(bool),
    String(String),
}

/// `true`/`false` or `{algo: hex}` (`core-metadata`).
enum BoolOrHashes {
    Bool(bool),
    Hashes(BTreeMap<String, String>),
}

impl<'de> Deserialize<'de> for BoolOrString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = BoolOrString;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean or a string")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(BoolOrString::Bool(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(BoolOrString::String(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for BoolOrHashes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = BoolOrHashes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean or a map of hashes")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(BoolOrHashes::Bool(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut hashes = BTreeMap::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    hashes.insert(k, v);
                }
                Ok(BoolOrHashes::Hashes(hashes))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct JsonFile<'a> {
    #[serde(borrow)]
    filename: Cow<'a, str>,
    #[serde(borrow)]
    url: Cow<'a, str>,
    #[serde(default)]
    hashes: BTreeMap<String, String>,
    #[serde(rename = "requires-python", default, borrow)]
    requires_python: Option<Cow<'a, str>>,
    #[serde(default)]
    yanked: Option<BoolOrString>,
    #[serde(rename = "upload-time", default, borrow)]
    upload_time: Option<Cow<'a, str>>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(rename = "core-metadata", default)]
    core_metadata: Option<BoolOrHashes>,
    #[serde(rename = "dist-info-metadata", default)]
    dist_info_metadata: Option<BoolOrHashes>,
    #[serde(rename = "data-dist-info-metadata", default)]
    data_dist_info_metadata: Option<BoolOrHashes>,
}

fn core_metadata(value: Option<BoolOrHashes>) -> Option<BTreeMap<String, String>> {
    match value? {
        BoolOrHashes::Bool(false) => None,
        BoolOrHashes::Bool(true) => Some(BTreeMap::new()),
        BoolOrHashes::Hashes(h) => Some(h),
    }
}

/// Check the API version: major 1 only (PEP 629).
fn check_api_version(version: Option<&str>) -> Result<(), ParseError> {
    let Some(version) = version else {
        return Ok(());
    };
    let major = version.split('.').next().unwrap_or("");
    if major != "1" {
        return Err(ParseError(format!(
            "repository API version {} is not supported (only 1.x)",
            crate::terminal::field(version)
        )));
    }
    Ok(())
}

/// Keep only the files that can change an answer for one target environment. Pages of big
/// projects list thousands of wheels for other platforms (pydantic-core: 15,000 files, about two
/// of each release for one target); dropping them before anything else of them is read makes a
/// warm run read a few percent of the files.
///
/// Kept, per version: every wheel the target supports and every sdist (what
/// `super::candidates` chooses from); the foreign wheels whose first tag is among the version's
/// three smallest (the tags a "no wheel for this environment" reason names, so reasons read the
/// same); the earliest-uploaded file (release dates) and the first file not yanked (the newest
/// release on the index). So every version stays listed, and whatever is computed from the
/// files for this target comes out as it would from the whole page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileFilter<'t> {
    /// The target's supported tags.
    pub tags: &'t crate::tags::Tags,
}

/// What [`FileFilter::mask`] reads of one file: its version and wheel tag set as ids into the
/// page's tables (equal ids: equal versions, equal tag sets; `tags: None`: an sdist), its upload
/// time and whether it is yanked. Ids let the compact reader filter a page of thousands of files
/// without parsing or hashing any of their names.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileView {
    pub version: u32,
    pub tags: Option<u32>,
    pub upload: Option<jiff::Timestamp>,
    pub yanked: bool,
}

/// What [`FileFilter::mask`] gathers of one version: the three smallest first tags of its
/// foreign wheels (as ranks among the page's first tags), its earliest upload and its first
/// file not yanked.
#[derive(Debug, Clone, Copy, Default)]
struct PerVersion {
    foreign: [u32; 3],
    foreign_len: usize,
    earliest: Option<(jiff::Timestamp, usize)>,
    not_yanked: Option<usize>,
}

impl PerVersion {
    /// Add a foreign first tag, keeping the three smallest distinct ones.
    fn add_foreign(&mut self, rank: u32) {
        let held = &self.foreign[..self.foreign_len];
        if held.contains(&rank) {
            return;
        }
        let at = held.partition_point(|r| *r < rank);
        if at >= 3 {
            return;
        }
        self.foreign.copy_within(at..2, at + 1);
        self.foreign[at] = rank;
        self.foreign_len = (self.foreign_len + 1).min(3);
    }

    fn names_foreign(&self, rank: u32) -> bool {
        self.foreign[..self.foreign_len].contains(&rank)
    }
}

impl FileFilter<'_> {
    /// Which of a page's `count` files to keep (see the type's docs); `file(i)` views the i-th
    /// (it is called twice per file, so that no vector of every file's view is built: a page of
    /// 15,000 files would allocate it afresh), and `tag_sets` are the wheel tag sets the views'
    /// `tags` ids point to. `None` when a file cannot be viewed.
    pub(super) fn mask(
        &self,
        tag_sets: &[&str],
        count: usize,
        file: impl Fn(usize) -> Option<FileView>,
    ) -> Option<Vec<bool>> {
        // Per tag set (compressed text, read without building tags): whether the target
        // supports it, and its first tag's rank among the page's distinct first tags (so "the
        // three smallest" compares integers).
        let mut firsts: Vec<_> = tag_sets.iter().map(|t| first_of_set(t)).collect();
        firsts.sort_unstable();
        firsts.dedup();
        let sets: Vec<(bool, Option<u32>)> = tag_sets
            .iter()
            .map(|t| {
                let rank = firsts.binary_search(&first_of_set(t)).ok();
                (
                    self.tags.best_rank_of_set(t).is_some(),
                    rank.map(|r| r as u32),
                )
            })
            .collect();
        let set = |id: Option<u32>| id.and_then(|i| sets.get(i as usize)).copied();
        let mut versions: Vec<PerVersion> = Vec::new();
        let mut keep = vec![false; count];
        for (i, kept) in keep.iter_mut().enumerate() {
            let file = file(i)?;
            let at = file.version as usize;
            if at >= versions.len() {
                versions.resize(at + 1, PerVersion::default());
            }
            let acc = &mut versions[at];
            match (file.tags, set(file.tags)) {
                (None, _) => *kept = true,
                (Some(_), Some((true, _))) => *kept = true,
                (Some(_), Some((false, Some(rank)))) => acc.add_foreign(rank),
                (Some(_), _) => {}
            }
            if let Some(t) = file.upload
                && acc.earliest.is_none_or(|(e, _)| t < e)
            {
                acc.earliest = Some((t, i));
            }
            if !file.yanked && acc.not_yanked.is_none() {
                acc.not_yanked = Some(i);
            }
        }
        for (i, kept) in keep.iter_mut().enumerate() {
            let file = file(i)?;
            let acc = &versions[file.version as usize];
            *kept |= acc.earliest.is_some_and(|(_, e)| e == i)
                || acc.not_yanked == Some(i)
                || set(file.tags)
                    .and_then(|(_, rank)| rank)
                    .is_some_and(|rank| acc.names_foreign(rank));
        }
        Some(keep)
    }

    /// Drop the files [`FileFilter::mask`] does not keep.
    pub(crate) fn retain(&self, files: &mut Vec<DistFile>) {
        let mut versions: HashMap<&pep440_rs::Version, u32> = HashMap::default();
        let mut tag_ids: HashMap<&[crate::tags::Tag], u32> = HashMap::default();
        let mut tag_sets: Vec<String> = Vec::new();
        let views: Vec<FileView> = files
            .iter()
            .map(|f| {
                let next = versions.len() as u32;
                let version = *versions.entry(f.filename.version()).or_insert(next);
                let tags = match &f.filename {
                    DistFilename::Wheel(w) => {
                        Some(*tag_ids.entry(&w.tags[..]).or_insert_with(|| {
                            tag_sets.push(compress_set(&w.tags));
                            tag_sets.len() as u32 - 1
                        }))
                    }
                    DistFilename::Sdist(_) => None,
                };
                FileView {
                    version,
                    tags,
                    upload: f.upload_time,
                    yanked: f.yanked.is_some(),
                }
            })
            .collect();
        let tag_sets: Vec<&str> = tag_sets.iter().map(String::as_str).collect();
        let Some(keep) = self.mask(&tag_sets, views.len(), |i| views.get(i).copied()) else {
            return; // every index has a view: not reached
        };
        let mut kept = keep.iter();
        files.retain(|_| kept.next().copied().unwrap_or(true));
    }
}

/// Parse a PEP 691 JSON project page.
pub fn simple_json(bytes: &[u8], base: &Url) -> Result<ProjectPage, ParseError> {
    simple_json_filtered(bytes, base, None)
}

/// [`simple_json`], keeping only the files a [`FileFilter`] keeps.
pub(crate) fn simple_json_filtered(
    bytes: &[u8],
    base: &Url,
    filter: Option<FileFilter<'_>>,
) -> Result<ProjectPage, ParseError> {
    let page: JsonPage =
        serde_json::from_slice(bytes).map_err(|e| ParseError(format!("invalid JSON: {e}")))?;
    let api_version = page.meta.and_then(|m| m.api_version);
    check_api_version(api_version.as_deref())?;
    let name = PackageName::from_str(&page.name).map_err(|e| {
        ParseError(format!(
            "invalid project name `{}`: {}",
            crate::terminal::field(&page.name),
            crate::terminal::field(&e.to_string())
        ))
    })?;
    let mut files = Vec::with_capacity(page.files.len());
    let mut skipped = Vec::new();
    let mut memo = PageMemo::new(base);
    for file in page.files {
        let raw = RawFile {
            filename: file.filename,
            href: file.url,
            hashes: file.hashes,
            requires_python: file.requires_python,
            yanked: match file.yanked {
                None | Some(BoolOrString::Bool(false)) => None,
                Some(BoolOrString::Bool(true)) => Some(String::new()),
                Some(BoolOrString::String(s)) => Some(s),
            },
            upload_time: file.upload_time,
            size: file.size,
            core_metadata: core_metadata(file.core_metadata)
                .or_else(|| core_metadata(file.dist_info_metadata))
                .or_else(|| core_metadata(file.data_dist_info_metadata)),
        };
        match raw.into_dist_file(base, Some(&name), &mut memo) {
            Ok(Some(f)) => files.push(f),
            Ok(None) => {}
            Err(why) => skipped.push(why.to_string()),
        }
    }
    if let Some(filter) = filter {
        filter.retain(&mut files);
    }
    Ok(ProjectPage {
        name: Some(name),
        files: files.into(),
        skipped,
        api_version,
    })
}

/// Parse a PEP 503 HTML project page. `expected` (the project asked for) filters out files of
/// other projects, since HTML pages do not state their name reliably.
pub fn simple_html(
    bytes: &[u8],
    base: &Url,
    expected: Option<&PackageName>,
) -> Result<ProjectPage, ParseError> {
    simple_html_filtered(bytes, base, expected, None)
}

/// [`simple_html`], keeping only the files a [`FileFilter`] keeps.
pub(crate) fn simple_html_filtered(
    bytes: &[u8],
    base: &Url,
    expected: Option<&PackageName>,
    filter: Option<FileFilter<'_>>,
) -> Result<ProjectPage, ParseError> {
    let text = String::from_utf8_lossy(bytes);
    let dom = tl::parse(&text, tl::ParserOptions::default())
        .map_err(|e| ParseError(format!("invalid HTML: {e}")))?;
    let parser = dom.parser();
    let attr = |tag: &tl::HTMLTag, key: &str| -> Option<String> {
        tag.attributes()
            .get(key)
            .flatten()
            .map(|b| unescape_html(&b.as_utf8_str()))
    };
    let mut memo = PageMemo::new(base);
    let mut base = base.clone();
    let mut api_version = None;
    let mut anchors = Vec::new();
    for node in dom.nodes() {
        let Some(tag) = node.as_tag() else { continue };
        let tag_name = tag.name().as_utf8_str().to_ascii_lowercase();
        match tag_name.as_str() {
            "base" => {
                if let Some(href) = attr(tag, "href")
                    && let Ok(u) = base.join(&href)
                {
                    base = u;
                }
            }
            "meta" if attr(tag, "name").as_deref() == Some("pypi:repository-version") => {
                api_version = attr(tag, "content");
            }
            "a" => anchors.push(tag),
            _ => {}
        }
    }
    check_api_version(api_version.as_deref())?;
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for tag in anchors {
        let Some(href) = attr(tag, "href") else {
            continue;
        };
        let text = unescape_html(tag.inner_text(parser).trim());
        // The file name is the last path segment of the URL; the link text is a fallback.
        let from_url = Url::options()
            .base_url(Some(&base))
            .parse(&href)
            .ok()
            .map(|u| url_filename(&u))
            .filter(|s| !s.is_empty());
        let filename = from_url.unwrap_or(text);
        let yanked = attr(tag, "data-yanked");
        let yanked = if tag.attributes().contains("data-yanked") {
            Some(yanked.unwrap_or_default())
        } else {
            None
        };
        let core = ["data-core-metadata", "data-dist-info-metadata"]
            .iter()
            .find(|k| tag.attributes().contains(**k))
            .and_then(|k| match attr(tag, k).as_deref() {
                None | Some("true") | Some("") => Some(BTreeMap::new()),
                Some("false") => None,
                Some(v) => match v.split_once('=') {
                    Some((algo, hex)) => {
                        Some(BTreeMap::from([(algo.to_string(), hex.to_string())]))
                    }
                    None => Some(BTreeMap::new()),
                },
            });
        let raw = RawFile {
            filename: Cow::Owned(filename),
            href: Cow::Owned(href),
            hashes: BTreeMap::new(),
            requires_python: attr(tag, "data-requires-python").map(Cow::Owned),
            yanked,
            upload_time: None,
            size: None,
            core_metadata: core,
        };
        match raw.into_dist_file(&base, expected, &mut memo) {
            Ok(Some(f)) => files.push(f),
            Ok(None) => {}
            Err(why) => skipped.push(why.to_string()),
        }
    }
    if let Some(filter) = filter {
        filter.retain(&mut files);
    }
    Ok(ProjectPage {
        name: None,
        files: files.into(),
        skipped,
        api_version,
    })
}

/// What one page parses once however many files repeat it: requires-python values and file
/// name parts; and which links it may follow.
struct PageMemo {
    python: HashMap<String, Result<VersionSpecifiers, VersionSpecifiersParseError>>,
    names: FilenameMemo,
    links: LinkPolicy,
}

impl PageMemo {
    fn new(page: &Url) -> PageMemo {
        PageMemo {
            python: HashMap::default(),
            names: FilenameMemo::default(),
            links: LinkPolicy::of(page),
        }
    }
}

/// Which file links a page may give, set by where the page came from.
#[derive(Debug, Clone)]
enum LinkPolicy {
    /// A page over http(s): http(s) links only.
    Http,
    /// A page of a local index at `<tree>/<simple>/<name>/`: `file:` links inside `<tree>`.
    Local(std::path::PathBuf),
    /// A page from anywhere else: no links.
    None,
}

impl LinkPolicy {
    fn of(page: &Url) -> LinkPolicy {
        match page.scheme() {
            "http" | "https" => LinkPolicy::Http,
            "file" => match page.join("../../").ok().and_then(|u| u.to_file_path().ok()) {
                Some(tree) => LinkPolicy::Local(tree),
                None => LinkPolicy::None,
            },
            _ => LinkPolicy::None,
        }
    }

    /// Why `link` may not be followed (`None`: it may).
    fn refuses(&self, link: &Url) -> Option<String> {
        match (self, link.scheme()) {
            (LinkPolicy::Http, "http" | "https") => None,
            (LinkPolicy::Http, scheme) => Some(format!(
                "a {scheme}: link on an http(s) index (only http(s) links are followed)"
            )),
            (LinkPolicy::Local(tree), "file") => {
                let inside = link.to_file_path().is_ok_and(|path| {
                    path.starts_with(tree)
                        && !path
                            .components()
                            .any(|c| matches!(c, std::path::Component::ParentDir))
                });
                (!inside).then(|| {
                    format!(
                        "a file: link outside the local index's folder {}",
                        tree.display()
                    )
                })
            }
            (LinkPolicy::Local(_), scheme) => Some(format!(
                "a {scheme}: link on a local index (only file: links inside it are followed)"
            )),
            (LinkPolicy::None, scheme) => Some(format!("a {scheme}: link")),
        }
    }
}

struct RawFile<'a> {
    filename: Cow<'a, str>,
    href: Cow<'a, str>,
    hashes: BTreeMap<String, String>,
    requires_python: Option<Cow<'a, str>>,
    yanked: Option<String>,
    upload_time: Option<Cow<'a, str>>,
    size: Option<u64>,
    core_metadata: Option<BTreeMap<String, String>>,
}

impl RawFile<'_> {
    /// `Ok(None)` for files skipped silently (`.egg`, `.exe`, other projects); `Err(why)` for
    /// files skipped with a warning.
    fn into_dist_file(
        self,
        base: &Url,
        expected: Option<&PackageName>,
        memo: &mut PageMemo,
    ) -> Result<Option<DistFile>, SkippedFile> {
        let filename = self.filename.trim();
        if [".egg", ".exe", ".msi", ".rpm", ".deb", ".dmg"]
            .iter()
            .any(|ext| filename.ends_with(ext))
        {
            return Ok(None);
        }
        let parsed: DistFilename = match memo.names.parse(filename) {
            Ok(p) => p,
            Err(e) => return Err(SkippedFile::Filename(e)),
        };
        if let Some(expected) = expected
            && parsed.name() != expected
        {
            return Ok(None);
        }
        let mut url = Url::options()
            .base_url(Some(base))
            .parse(self.href.trim())
            .map_err(|error| SkippedFile::Url {
                filename: filename.to_string(),
                error,
            })?;
        if let Some(why) = memo.links.refuses(&url) {
            return Err(SkippedFile::Link {
                filename: filename.to_string(),
                url: redact(&url),
                why,
            });
        }
        let mut hashes = self.hashes;
        if let Some(fragment) = url.fragment().map(str::to_string) {
            if let Some((algo, hex)) = fragment.split_once('=')
                && !algo.is_empty()
                && hex.chars().all(|c| c.is_ascii_hexdigit())
            {
                hashes
                    .entry(algo.to_ascii_lowercase())
                    .or_insert_with(|| hex.to_ascii_lowercase());
            }
            url.set_fragment(None);
        }
        let requires_python = match self.requires_python.as_deref().map(str::trim) {
            None | Some("") => None,
            // Most files of a project share one value: parse each distinct one once.
            Some(text) => Some(
                memo.python
                    .entry(text.to_string())
                    .or_insert_with(|| parse_requires_python(text))
                    .clone()
                    .map_err(|error| SkippedFile::RequiresPython {
                        filename: filename.to_string(),
                        text: text.to_string(),
                        error,
                    })?,
            ),
        };
        let upload_time = self
            .upload_time
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok());
        Ok(Some(DistFile {
            filename: parsed,
            url: url.into(),
            hashes: hashes.into(),
            requires_python,
            yanked: self.yanked,
            upload_time,
            size: self.size,
            core_metadata: self.core_metadata.map(Into::into),
        }))
    }
}

/// Decode HTML character references (`&gt;`, `&#62;`, `&#x3e;` and the usual named ones).
pub(crate) fn unescape_html(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let entity = &rest[1..e];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let num = entity.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
