//! Core metadata (`METADATA`, `PKG-INFO`, PEP 658 `.metadata` files) parsed into typed fields.
//!
//! In: the raw bytes of a core metadata file. Out: [`CoreMetadata`]. Used by the inventory (what
//! is installed) and by the index client (what a release declares), so both read one format the
//! same way.
//!
//! The format is RFC 822-style: headers, a blank line, then the description body. Multi-use
//! fields repeat; continuation lines start with whitespace. Only the fields the planner needs
//! are kept; unknown fields are ignored.

pub mod requirement;
pub mod version_line;

use std::borrow::Cow;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers, VersionSpecifiersParseError};
use pep508_rs::{ExtraName, MarkerTree, PackageName, Requirement};
use rustc_hash::FxHashMap as HashMap;

/// Metadata files larger than this are refused unless `PLANNER_MAX_METADATA_BYTES` says otherwise
/// (a METADATA with an embedded README is rarely over 200 KiB; 8 MiB leaves room and still caps
/// a hostile file).
pub const DEFAULT_MAX_METADATA_BYTES: usize = 8 * 1024 * 1024;

static MAX_METADATA: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The largest metadata file read anywhere (a PEP 658 `.metadata` file, a wheel's or sdist's
/// member, an installed `METADATA`): [`DEFAULT_MAX_METADATA_BYTES`], or what [`set_max_bytes`]
/// set for this process.
pub fn max_bytes() -> usize {
    MAX_METADATA
        .get()
        .copied()
        .unwrap_or(DEFAULT_MAX_METADATA_BYTES)
}

/// `PLANNER_MAX_METADATA_BYTES` is set but is not a positive number of bytes.
#[derive(Debug, thiserror::Error)]
#[cfg_attr(feature = "miette", derive(miette::Diagnostic))]
#[error("PLANNER_MAX_METADATA_BYTES=`{value}` is not a positive number of bytes")]
#[cfg_attr(
    feature = "miette",
    diagnostic(help(
        "use a byte count such as 16777216 (16 MiB), or unset it for the 8 MiB default"
    ))
)]
pub struct LimitError {
    /// The value as set.
    pub value: String,
}

/// Set the metadata cap from `PLANNER_MAX_METADATA_BYTES`, when it is set (once per process,
/// by `run()` in src/lib.rs; later calls keep the first).
pub fn set_max_bytes(value: Option<&str>) -> Result<(), LimitError> {
    let Some(value) = value else {
        return Ok(());
    };
    let bytes = value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| LimitError {
            value: crate::terminal::field(value).into_owned(),
        })?;
    let _ = MAX_METADATA.set(bytes);
    Ok(())
}

/// The fields of a core metadata file that the planner reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreMetadata {
    /// `Metadata-Version`, as written (e.g. `2.4`).
    pub metadata_version: String,
    /// `Name`, normalized (PEP 503).
    pub name: PackageName,
    /// `Name` exactly as written.
    pub display_name: String,
    /// `Version`.
    pub version: Version,
    /// `Requires-Dist`, in file order.
    pub requires_dist: Vec<Requirement>,
    /// `Requires-Python`.
    pub requires_python: Option<VersionSpecifiers>,
    /// `Provides-Extra`, normalized (PEP 685).
    pub provides_extra: Vec<ExtraName>,
    /// `Dynamic` (PEP 643): fields whose values a build may change.
    pub dynamic: Vec<String>,
    /// `Summary`.
    pub summary: Option<String>,
    /// `Project-URL` (`label, URL`) in file order, then `Home-page` as the label `Home-page`:
    /// as written (untrusted: checked and escaped where they are shown).
    pub project_urls: Vec<(String, String)>,
}

/// Why a metadata file could not be read.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum MetadataError {
    /// The bytes are not UTF-8.
    #[error("metadata is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The file is larger than [`max_bytes`].
    #[error("metadata is {size} bytes, over the {limit}-byte limit (PLANNER_MAX_METADATA_BYTES)")]
    TooLarge {
        /// The file's size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// More `Requires-Dist` lines than any real release declares: each may cost a request.
    #[error(
        "metadata declares more than {limit} requirements (Requires-Dist); no real release \
         declares that many, and each would cost the index a request"
    )]
    TooManyRequirements {
        /// The limit.
        limit: usize,
    },
    /// A header holds control characters (other than tab).
    #[error("field `{field}` holds control characters")]
    ControlCharacters {
        /// The header.
        field: String,
    },
    /// A required field is absent.
    #[error("no `{field}` field")]
    MissingField {
        /// The header.
        field: &'static str,
    },
    /// A field's value does not parse.
    #[error("invalid `{field}` value `{value}`: {message}")]
    InvalidField {
        /// The header.
        field: &'static str,
        /// The value as written.
        value: String,
        /// The parser's complaint.
        message: String,
    },
}

/// Parse the headers of an RFC 822-style file into `(field, value)` pairs, in file order,
/// borrowed from `text` unless a value spans continuation lines (unfolded into one string, lines
/// joined by `\n`); the body after the first blank line is skipped.
pub fn parse_headers(text: &str) -> Vec<(&str, Cow<'_, str>)> {
    let mut headers: Vec<(&str, Cow<'_, str>)> = Vec::new();
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                let value = value.to_mut();
                value.push('\n');
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((field, value)) = line.split_once(':') {
            headers.push((field.trim(), Cow::Borrowed(value.trim())));
        }
    }
    headers
}

/// The header block of a metadata file: its bytes up to and including the first blank line
/// (all of them when there is none), the part [`parse_headers`] reads. A cache keeps only this:
/// the description after it is most of a METADATA file (pydantic's: 140 of 144 KB), and a warm
/// resolve reads and checks ~70 of them.
pub fn header_block(bytes: &[u8]) -> &[u8] {
    let mut at = 0;
    for newline in memchr::memchr_iter(b'\n', bytes) {
        let line = &bytes[at..newline];
        if line.is_empty() || line == b"\r" {
            return &bytes[..newline + 1];
        }
        at = newline + 1;
    }
    bytes
}

/// The fields [`CoreMetadata`] reads, in lower case (field names match in any case).
const READ_FIELDS: [&str; 10] = [
    "metadata-version",
    "name",
    "version",
    "requires-dist",
    "requires-python",
    "provides-extra",
    "dynamic",
    "summary",
    "project-url",
    "home-page",
];

impl CoreMetadata {
    /// Parse a metadata file from bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, MetadataError> {
        let limit = max_bytes();
        if bytes.len() > limit {
            return Err(MetadataError::TooLarge {
                size: bytes.len(),
                limit,
            });
        }
        let text = std::str::from_utf8(bytes).map_err(|err| MetadataError::NotUtf8 {
            offset: err.valid_up_to(),
        })?;
        Self::parse_str(text)
    }

    /// Parse a metadata file from text.
    pub fn parse_str(text: &str) -> Result<Self, MetadataError> {
        let headers = parse_headers(text);
        let mut fields = Fields::default();
        for (field, value) in &headers {
            if let Some(lower) = READ_FIELDS.iter().find(|f| f.eq_ignore_ascii_case(field)) {
                fields.read(field, lower, value)?;
            }
        }
        fields.finish()
    }

    /// Whether `Requires-Dist` may be trusted without a build (PEP 643): metadata 2.2 or newer
    /// and `Requires-Dist` not declared dynamic.
    pub fn static_dependencies(&self) -> bool {
        let at_least_2_2 =
            Version::from_str(&self.metadata_version).is_ok_and(|v| v >= Version::new([2, 2]));
        at_least_2_2
            && !self
                .dynamic
                .iter()
                .any(|field| field.eq_ignore_ascii_case("requires-dist"))
    }
}

/// Why [`parse_requirement`] refused a requirement.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum RequirementError {
    /// A name that ends in `.`, `-` or `_` before more text (pep508_rs would panic).
    #[error("package name `{0}` must end with an alphanumeric character")]
    NameEnd(String),
    /// An extra that ends in `.`, `-` or `_` (pep508_rs would panic).
    #[error("extra name `{0}` must end with an alphanumeric character")]
    ExtraEnd(String),
    /// A non-ASCII character outside a quoted value.
    #[error("`{}` outside a quoted value; requirements are ASCII there", .0.escape_unicode())]
    NonAscii(char),
    /// A marker value holding a single quote, which pep508_rs cannot write back.
    #[error(
        "a marker value holds a single quote (`'`), which planner cannot write back into a \
         command safely; no real environment marker has one"
    )]
    QuoteInMarker,
    /// pep508_rs's own complaint.
    #[error("{0}")]
    Pep508(String),
}

/// Parse a PEP 508 requirement. Every requirement planner reads goes through here: pep508_rs
/// 0.9.2 panics on a name that ends in `.`, `-` or `_` followed by more text (`file.*`,
/// `foo-==1`; found by `fuzz/run metadata`), so that case is refused first. A requirement whose
/// written form would not parse back is refused too ([`writes_back`]): planner writes
/// requirements into commands and plan files from their parsed form.
pub fn parse_requirement(text: &str) -> Result<Requirement, RequirementError> {
    let requirement = parse_requirement_unchecked(text)?;
    // Only a marker value holding a single quote breaks the writer (below), and such a value is
    // written in double quotes, so text without both quote kinds needs no second parse.
    if text.contains('\'') && text.contains('"') {
        writes_back(&requirement)?;
    }
    Ok(requirement)
}

/// The most `Requires-Dist` lines read from one metadata file (the largest real ones hold a
/// few hundred, extras included).
pub const MAX_REQUIRES_DIST: usize = 5_000;

/// The fields [`CoreMetadata::parse_str`] reads, as the headers give them, in file order.
#[derive(Default)]
struct Fields<'a> {
    metadata_version: Option<String>,
    name: Option<String>,
    version: Option<String>,
    requires_dist: Vec<Requirement>,
    requires_python: Option<VersionSpecifiers>,
    provides_extra: Vec<ExtraName>,
    dynamic: Vec<String>,
    summary: Option<String>,
    project_urls: Vec<(String, String)>,
    home_page: Option<String>,
    requirements: RequiresDist<'a>,
}

impl<'a> Fields<'a> {
    /// One header: `field` as written, `lower` its name among [`READ_FIELDS`]. The fields that
    /// are parsed may not hold control characters (other than tab).
    fn read(&mut self, field: &str, lower: &str, value: &'a str) -> Result<(), MetadataError> {
        let checked = matches!(
            lower,
            "name" | "version" | "requires-dist" | "requires-python" | "provides-extra"
        );
        if checked && value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(MetadataError::ControlCharacters {
                field: field.to_string(),
            });
        }
        match lower {
            "metadata-version" => self.metadata_version = Some(value.to_string()),
            "name" => self.name = Some(value.to_string()),
            "version" => self.version = Some(value.to_string()),
            "requires-dist" => {
                if self.requires_dist.len() >= MAX_REQUIRES_DIST {
                    return Err(MetadataError::TooManyRequirements {
                        limit: MAX_REQUIRES_DIST,
                    });
                }
                let requirement = self
                    .requirements
                    .parse(value)
                    .map_err(|err| invalid("Requires-Dist", value, err))?;
                self.requires_dist.push(requirement);
            }
            "requires-python" => {
                let specifiers = parse_requires_python(value)
                    .map_err(|err| invalid("Requires-Python", value, err))?;
                self.requires_python = Some(specifiers);
            }
            "provides-extra" => {
                let extra = ExtraName::from_str(value)
                    .map_err(|err| invalid("Provides-Extra", value, err))?;
                self.provides_extra.push(extra);
            }
            "dynamic" => self.dynamic.push(value.to_string()),
            "summary" => self.summary = Some(value.to_string()),
            "project-url" => {
                if let Some((label, url)) = value.split_once(',') {
                    self.project_urls
                        .push((label.trim().to_string(), url.trim().to_string()));
                }
            }
            "home-page" => self.home_page = Some(value.to_string()),
            _ => {}
        }
        Ok(())
    }

    /// The metadata, once every header is read; `Name` and `Version` are required.
    fn finish(self) -> Result<CoreMetadata, MetadataError> {
        let display_name = self
            .name
            .ok_or(MetadataError::MissingField { field: "Name" })?;
        let name = PackageName::from_str(&display_name)
            .map_err(|err| invalid("Name", &display_name, err))?;
        let version_text = self
            .version
            .ok_or(MetadataError::MissingField { field: "Version" })?;
        let version = Version::from_str(&version_text)
            .map_err(|err| invalid("Version", &version_text, err))?;
        Ok(CoreMetadata {
            metadata_version: self.metadata_version.unwrap_or_default(),
            name,
            display_name,
            version,
            requires_dist: self.requires_dist,
            requires_python: self.requires_python,
            provides_extra: self.provides_extra,
            dynamic: self.dynamic,
            summary: self.summary,
            project_urls: (self.project_urls.into_iter())
                .chain(self.home_page.map(|url| ("Home-page".to_string(), url)))
                .collect(),
        })
    }
}

/// `field`'s `value` does not parse, for `message`'s reason.
fn invalid(field: &'static str, value: &str, message: impl std::fmt::Display) -> MetadataError {
    MetadataError::InvalidField {
        field,
        value: value.to_string(),
        message: message.to_string(),
    }
}

/// Parses one metadata file's `Requires-Dist` values, each distinct marker once: a file's
/// requirements share few markers (transformers 5.8.0 declares 400 requirements under 60), and
/// parsing a marker is most of parsing a requirement.
#[derive(Default)]
struct RequiresDist<'a> {
    markers: HashMap<&'a str, MarkerTree>,
}

impl<'a> RequiresDist<'a> {
    /// The same answer as [`parse_requirement`] on the whole text.
    fn parse(&mut self, text: &'a str) -> Result<Requirement, RequirementError> {
        match self.parse_parts(text) {
            Some(requirement) => Ok(requirement),
            None => parse_requirement(text),
        }
    }

    /// The requirement read as its part before the first `;` and the marker after it, each
    /// through [`parse_requirement`] (the marker as that of `x;<marker>`, memoized). Without a
    /// URL (`@`) in the first part, a requirement's first `;` is where its marker starts, so the
    /// parts parse as the whole would. `None` when there is no marker, a URL, or either part does
    /// not parse: the whole text is then parsed, for its answer or its error message.
    fn parse_parts(&mut self, text: &'a str) -> Option<Requirement> {
        let (head, marker_text) = text.split_once(';')?;
        if head.contains('@') {
            return None;
        }
        let marker = match self.markers.get(marker_text) {
            Some(marker) => marker.clone(),
            None => {
                let marker = parse_requirement(&format!("x;{marker_text}")).ok()?.marker;
                self.markers.insert(marker_text, marker.clone());
                marker
            }
        };
        let mut requirement = parse_requirement(head).ok()?;
        requirement.marker = marker;
        Some(requirement)
    }
}

/// Serde: a requirement read from a file (plan files, `check --accept`) through
/// [`parse_requirement`], never pep508_rs's own `Deserialize` (which panics where it does).
pub fn de_requirement<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Requirement, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    parse_requirement(&text).map_err(serde::de::Error::custom)
}

/// Serde: a list of requirements, each through [`parse_requirement`].
pub fn de_requirements<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<Requirement>, D::Error> {
    let texts = <Vec<String> as serde::Deserialize>::deserialize(d)?;
    texts
        .iter()
        .map(|t| parse_requirement(t).map_err(serde::de::Error::custom))
        .collect()
}

/// Serde: a value written as its `Display` text (a requirement, a version, a marker).
pub fn ser_display<T: std::fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// pep508_rs 0.9.2 writes every marker value in single quotes, so a value holding one
/// (`platform_release == "5.15'x"`) is written as text that no longer parses, or parses to
/// something else (found by `fuzz/run requirement`). Such a requirement is refused rather than
/// written wrongly into a command.
fn writes_back(requirement: &Requirement) -> Result<(), RequirementError> {
    let written = requirement.to_string();
    match parse_requirement_unchecked(&written) {
        Ok(again) if again.to_string() == written => Ok(()),
        _ => Err(RequirementError::QuoteInMarker),
    }
}

fn parse_requirement_unchecked(text: &str) -> Result<Requirement, RequirementError> {
    let rest = text.trim_start();
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    if name_len < rest.len() && name.ends_with(['.', '-', '_']) {
        return Err(RequirementError::NameEnd(name.to_string()));
    }
    if let Some(extra) = bad_extra(&rest[name_len..]) {
        return Err(RequirementError::ExtraEnd(extra.to_string()));
    }
    if !text.is_ascii() {
        // pep508_rs 0.9.2 panics slicing its error message inside a non-ASCII character
        // (`a; extra == "x"é`; found by `fuzz/run requirement`). The same text with each such
        // character made ASCII parses or fails the same way without that risk; once it parses,
        // the structure (where the quotes are) is known, and only quoted values may hold
        // non-ASCII.
        let ascii: String = text
            .chars()
            .map(|c| if c.is_ascii() { c } else { 'x' })
            .collect();
        // The ASCII copy passes the same name and extra checks (`duxé_` becomes `duxx_`).
        parse_requirement_unchecked(&ascii)?;
        if let Some(c) = non_ascii_outside_quotes(text) {
            return Err(RequirementError::NonAscii(c));
        }
    }
    Requirement::from_str(text).map_err(|err| RequirementError::Pep508(err.message.to_string()))
}

/// A non-ASCII character outside a quoted value (text whose structure already parsed).
fn non_ascii_outside_quotes(text: &str) -> Option<char> {
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if !c.is_ascii() => return Some(c),
            _ => {}
        }
    }
    None
}

/// An extra in `[a, b_]` (right after the name) that ends in `.`, `-` or `_`: pep508_rs 0.9.2
/// panics on those too (`torch[cuda_]`; found by `fuzz/run metadata`).
fn bad_extra(after_name: &str) -> Option<&str> {
    let list = after_name.trim_start().strip_prefix('[')?;
    let list = list.split(']').next().unwrap_or(list);
    list.split(',').map(str::trim_start).find_map(|extra| {
        let len = extra
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
            .unwrap_or(extra.len());
        let name = &extra[..len];
        name.ends_with(['.', '-', '_']).then_some(name)
    })
}

/// Parse a `Requires-Python` value, tolerating the trailing comma and stray spaces real
/// metadata carries (`>=3.6,`).
pub fn parse_requires_python(
    value: &str,
) -> Result<VersionSpecifiers, VersionSpecifiersParseError> {
    let trimmed = value.trim().trim_end_matches(',').trim();
    VersionSpecifiers::from_str(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_after_a_marker_expression_is_an_error_not_a_panic() {
        for text in [
            "a; extra == \"x\"\u{e9}",
            "a; python_version >= \"3\" \u{162}",
            "fastai>=2.4; extra == \"fas\"\u{162}_/\u{162}@ https://u/'//p$:t\"",
        ] {
            let err = parse_requirement(text).unwrap_err();
            assert!(!err.to_string().is_empty(), "{text}");
        }
        // Inside a quoted value any character is fine.
        assert!(parse_requirement("a; platform_release == \"\u{e9}\"").is_ok());
        // The second input the fuzzer found: quotes that only pep508_rs's parse can place.
        assert!(parse_requirement("du\u{e9}_ x").is_err());
        let text = "ducdbk; extra == \"testdd(dxtra == \"fas.n.,0Xfa.s:/u/'//p$:\"\u{162}_/\u{162}@ https://u/'//p$d\"";
        assert!(parse_requirement(text).is_err());
    }

    #[test]
    fn requirements_in_files_go_through_parse_requirement() {
        #[derive(serde::Deserialize)]
        struct File {
            #[serde(deserialize_with = "de_requirement")]
            _one: Requirement,
            #[serde(deserialize_with = "de_requirements")]
            _many: Vec<Requirement>,
        }
        // pep508_rs's own Deserialize panics on `nvidia-` (found by `fuzz/run plan_accept`).
        let err = serde_json::from_str::<File>(r#"{"_one": "nvidia-==1", "_many": []}"#);
        assert!(err.is_err());
        let err = serde_json::from_str::<File>(r#"{"_one": "a", "_many": ["b", "c_[x]"]}"#);
        assert!(err.is_err());
        assert!(serde_json::from_str::<File>(r#"{"_one": "a>=1", "_many": ["b"]}"#).is_ok());
    }

    /// Every METADATA and `.metadata` file under `testdata/` that is UTF-8 (a few fixtures
    /// deliberately are not).
    fn recorded_metadata() -> Vec<String> {
        let mut files = Vec::new();
        // The repository's testdata/, found from this crate's folder up.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let testdata = root
            .ancestors()
            .map(|d| d.join("testdata"))
            .find(|d| d.is_dir());
        let mut dirs = vec![testdata.unwrap()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                if path.is_dir() {
                    dirs.push(path);
                } else if name == "METADATA" || name.ends_with(".metadata") {
                    files.extend(String::from_utf8(std::fs::read(&path).unwrap()).ok());
                }
            }
        }
        files
    }

    /// Parsed whole and parsed in parts (with a marker memo) must agree: value and written form
    /// when the whole parses, the same message when it does not.
    fn assert_parts_agree<'a>(parser: &mut RequiresDist<'a>, text: &'a str) {
        match (parse_requirement(text), parser.parse_parts(text)) {
            (Ok(whole), Some(parts)) => {
                assert_eq!(parts, whole, "{text}");
                assert_eq!(parts.to_string(), whole.to_string(), "{text}");
            }
            (Err(_), Some(parts)) => panic!("`{text}` does not parse, but its parts do: {parts}"),
            (_, None) => {}
        }
    }

    #[test]
    fn requirements_parsed_in_parts_agree_with_the_whole_on_recorded_metadata() {
        let files = recorded_metadata();
        let (mut parsed_in_parts, mut total) = (0, 0);
        for text in &files {
            let values: Vec<_> = parse_headers(text)
                .into_iter()
                .filter(|(field, _)| field.eq_ignore_ascii_case("requires-dist"))
                .map(|(_, value)| value)
                .collect();
            let mut parser = RequiresDist::default();
            for value in &values {
                total += 1;
                parsed_in_parts += usize::from(parser.parse_parts(value).is_some());
                assert_parts_agree(&mut parser, value);
                assert_eq!(parser.parse(value), parse_requirement(value));
            }
        }
        // The recorded index holds real metadata with thousands of requirements, most with markers.
        assert!(
            files.len() > 1000 && total > 5000,
            "{} files, {total}",
            files.len()
        );
        assert!(parsed_in_parts * 2 > total, "{parsed_in_parts} of {total}");
    }

    #[test]
    fn the_header_block_parses_as_the_whole_file() {
        for text in [
            "Name: a\nVersion: 1\n\nName: body\n",
            "Name: a\r\nVersion: 1\r\n\r\nbody\r\n",
            "Name: a\nVersion: 1\n  folded\n\n\n",
            "Name: a\nVersion: 1",
            "\nName: a\nVersion: 1\n",
        ] {
            let block = header_block(text.as_bytes());
            assert!(!block.ends_with(b"body\n") && !block.ends_with(b"body\r\n"));
            assert_eq!(
                CoreMetadata::parse(block),
                CoreMetadata::parse(text.as_bytes())
            );
        }
        let mut cut = 0;
        for bytes in recorded_metadata().iter().map(String::as_bytes) {
            let block = header_block(bytes);
            cut += bytes.len() - block.len();
            assert_eq!(CoreMetadata::parse(block), CoreMetadata::parse(bytes));
        }
        assert!(cut > 1_000_000, "{cut} bytes of descriptions");
    }

    #[test]
    fn requirements_parsed_in_parts_agree_with_the_whole_on_hard_cases() {
        let mut parser = RequiresDist::default();
        for text in [
            "a>=1; extra == \"x\"",
            "b[y,z] (>=2,<3) ; extra == \"x\"",
            "c; extra == \"x\"",
            "c ;python_version<'3.10' and extra=='x'",
            "d @ https://e.example/d.whl ; extra == \"x\"",
            "d @ https://e.example/d;v=1.whl",
            "e; platform_release == \"a@b\"",
            "f; platform_release == \"a;b\"",
            "g; extra == \"x\"; extra == \"y\"",
            "h>=1;",
            "i; extra ==",
            "j; nonsense",
            "k==1 2; extra == \"x\"",
            "l-; extra == \"x\"",
            "m[n_]; extra == \"x\"",
            "o; extra == \"x\"\u{e9}",
            "p; platform_release == \"\u{e9}\"",
            "q; platform_release == \"5.15'x\"",
            "r; extra == \"x\" or platform_release == \"5.15'x\"",
        ] {
            assert_parts_agree(&mut parser, text);
            assert_eq!(parser.parse(text), parse_requirement(text), "{text}");
        }
        // The memo served the second and third requirement's marker.
        assert!(parser.markers.len() < 17, "{}", parser.markers.len());
    }

    #[test]
    fn requirements_that_would_not_write_back_are_refused() {
        // pep508_rs writes `'5.15'x'` for this value: text that does not parse.
        let err = parse_requirement(r#"a; platform_release == "5.15'x""#).unwrap_err();
        assert!(err.to_string().contains("single quote"), "{err}");
        let err = parse_requirement(r#"a; "y'" in platform_release"#).unwrap_err();
        assert!(err.to_string().contains("single quote"), "{err}");
        // Double quotes inside single quotes write back (pep508_rs keeps single quotes).
        let ok = parse_requirement(r#"a; platform_release == 'x"y'"#).unwrap();
        assert_eq!(parse_requirement(&ok.to_string()).unwrap(), ok);
        // Ordinary markers in either quote style are untouched.
        let ok = parse_requirement(r#"torch>=2; sys_platform == "linux" and extra == 'cu'"#);
        assert!(ok.is_ok(), "{ok:?}");
    }

    const TORCH: &str = "Metadata-Version: 2.4\nName: torch\nVersion: 2.11.0+cu130\n\
Summary: Tensors and Dynamic neural networks\nRequires-Python: >=3.10\n\
Requires-Dist: filelock\nRequires-Dist: triton==3.6.0; platform_system == \"Linux\"\n\
Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\nProvides-Extra: opt-einsum\n\
\nLong: description\nName: not-a-header\n";

    #[test]
    fn parses_the_fields_the_planner_reads() {
        let metadata = CoreMetadata::parse(TORCH.as_bytes()).unwrap();
        assert_eq!(metadata.name.as_ref(), "torch");
        assert_eq!(metadata.version.to_string(), "2.11.0+cu130");
        assert_eq!(metadata.requires_dist.len(), 3);
        assert_eq!(metadata.requires_dist[1].name.as_ref(), "triton");
        assert_eq!(
            metadata.requires_python.as_ref().unwrap().to_string(),
            ">=3.10"
        );
        assert_eq!(metadata.provides_extra[0].as_ref(), "opt-einsum");
        assert!(metadata.static_dependencies());
    }

    #[test]
    fn unfolds_continuation_lines_and_stops_at_the_body() {
        let headers = parse_headers("A: one\n  two\nB: three\n\nC: body\n");
        assert_eq!(
            headers,
            vec![("A", "one\ntwo".into()), ("B", "three".into())]
        );
    }

    #[test]
    fn names_the_bad_field() {
        let err = CoreMetadata::parse(b"Name: x\nVersion: not a version\n").unwrap_err();
        assert!(matches!(
            err,
            MetadataError::InvalidField {
                field: "Version",
                ..
            }
        ));
        let err = CoreMetadata::parse(b"Name: x\nVersion: 1\nRequires-Dist: ???\n").unwrap_err();
        assert!(matches!(
            err,
            MetadataError::InvalidField {
                field: "Requires-Dist",
                ..
            }
        ));
        let err = CoreMetadata::parse(b"Version: 1\n").unwrap_err();
        assert_eq!(err, MetadataError::MissingField { field: "Name" });
        let err = CoreMetadata::parse(b"Name: x\xff\n").unwrap_err();
        assert_eq!(err, MetadataError::NotUtf8 { offset: 7 });
    }

    #[test]
    fn dynamic_dependencies_are_not_static() {
        let text = "Metadata-Version: 2.2\nName: x\nVersion: 1\nDynamic: Requires-Dist\n";
        assert!(!CoreMetadata::parse_str(text).unwrap().static_dependencies());
        let text = "Metadata-Version: 2.1\nName: x\nVersion: 1\n";
        assert!(!CoreMetadata::parse_str(text).unwrap().static_dependencies());
    }

    /// Found by `fuzz/run metadata` (fuzz/artifacts, now fuzz/corpus/metadata/regression-*):
    /// pep508_rs panicked on these instead of returning an error.
    #[test]
    fn extras_ending_in_punctuation_are_errors_not_panics() {
        for text in ["torch[cuda_]", "foo[a, b-] >=1", "foo [x.,y]"] {
            let err = parse_requirement(text).unwrap_err();
            assert!(err.to_string().contains("extra name"), "{text}: {err}");
        }
        assert!(parse_requirement("foo[a_b, c] >=1").is_ok());
    }

    #[test]
    fn names_ending_in_punctuation_are_errors_not_panics() {
        for text in [
            "file.*ck",
            "foo-==1",
            "foo_ ; python_version > '3'",
            "a.[x]",
        ] {
            assert!(parse_requirement(text).is_err(), "{text}");
            let metadata = format!("Name: x\nVersion: 1\nRequires-Dist: {text}\n");
            assert!(matches!(
                CoreMetadata::parse_str(&metadata),
                Err(MetadataError::InvalidField {
                    field: "Requires-Dist",
                    ..
                })
            ));
        }
        assert!(parse_requirement("a.b-c_d>=1").is_ok());
        assert!(parse_requirement("foo-").is_err());
    }

    #[test]
    fn tolerates_a_trailing_comma_in_requires_python() {
        assert_eq!(
            parse_requires_python(">=3.6,").unwrap().to_string(),
            ">=3.6"
        );
    }

    /// 100,000 `Requires-Dist` lines once cost 100,005 requests and 164 s: a file declaring
    /// more than the cap is refused, naming it.
    #[test]
    fn a_flood_of_requirements_is_refused() {
        let mut text = String::from("Metadata-Version: 2.1\nName: x\nVersion: 1\n");
        for i in 0..MAX_REQUIRES_DIST {
            text.push_str(&format!("Requires-Dist: dep{i}>=1\n"));
        }
        assert_eq!(
            CoreMetadata::parse(text.as_bytes())
                .unwrap()
                .requires_dist
                .len(),
            MAX_REQUIRES_DIST
        );
        text.push_str("Requires-Dist: one-more\n");
        let err = CoreMetadata::parse(text.as_bytes()).unwrap_err();
        assert!(
            matches!(err, MetadataError::TooManyRequirements { .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains("more than 5000 requirements"),
            "{err}"
        );
    }
}
