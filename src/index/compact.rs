//! The compact form of a parsed project page: what the page cache stores.
//!
//! In: a [`ProjectPage`] parsed once from PEP 691 JSON or PEP 503 HTML, when the page changes.
//! Out: the same page read back with no JSON or HTML parsing, no URL joining and no entity
//! decoding, each file's values already resolved (absolute URL without its fragment, hashes,
//! trimmed requires-python, yanked reason, upload time, size, core-metadata hashes), its files
//! built when first read ([`LazyPage`], a [`LazyFiles`] behind [`Files`]).
//!
//! Laid out for a reader that keeps a few files of many (a target filter keeps about two of
//! pydantic-core's 15,000): the distinct wheel tag sets and requires-python values in tables,
//! then one fixed-size row per file holding what the filter decides on (a version id, a tag-set
//! id, yanked, upload time), then the rest of each file in a record of length-prefixed fields
//! that is read only when the file is kept. So a warm read parses each distinct tag set once,
//! decides on integers, and checks only the records of the files kept; the version tables read
//! the rows and tables ([`FileHead`]), and a file is built only when something asks for it (the
//! few a resolve names).
//!
//! Checksums: one CRC-32 over everything before the records, and one per record, kept in its
//! row; a reader checks the first and the records of the files it keeps, when it decodes the
//! page (so a corrupt entry is a cache miss, and building a file later cannot fail). The cache
//! does not check the whole body of a compact page on reading (`Cache::read_framed`): every
//! byte used is still checked, and a page cut short still fails its length check, but a warm
//! run no longer reads all of a multi-megabyte page to use a few of its files.
//!
//! Why hand-laid rather than `rkyv` (uv's choice): the solver works on owned [`DistFile`]s, so
//! an archived view would still be copied out field by field; this format adds no dependency
//! (CI builds on 2 cores), and the cache already frames every entry with a length and a CRC-32
//! and renames it into place (`super::cache`). A body that does not decode (another format
//! version, an id out of its table, a bug) is a cache miss: the page is fetched again.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::PackageName;
use rustc_hash::FxHashMap as HashMap;

use super::filename::{FilenameMemo, build_tag};
use super::files::{FileHead, Files, LazyFiles};
use super::parse::{FileFilter, FileView, ProjectPage};
use super::{DistFile, DistFilename, FileUrl, Hashes, SdistFilename, WheelFilename};
use crate::metadata::parse_requires_python;
use crate::tags::{Tag, compress_set};

/// Bumped whenever the layout changes; an entry of another version reads as missing.
const FORMAT: u8 = 5;

/// The bytes of one file's row: version id, tag-set id, requires-python id, file-name stem id
/// (u32 each), flags (u8), upload time (i64 seconds, u32 nanoseconds), the offset of its record
/// and the record's CRC-32 (u32 each).
const ROW: usize = 37;

/// An id that points nowhere: an sdist's tag set, a file without requires-python.
const NONE: u32 = u32::MAX;

/// Row flags.
const YANKED: u8 = 1;
const UPLOADED: u8 = 2;

/// Write a parsed page in the compact form: the page's name, API version and skipped files; a
/// table of its distinct wheel tag sets, one of its distinct requires-python values and one of
/// its file-name stems; one fixed-size row per file (ids into the tables, one id per distinct
/// version, yanked, upload time: all the target filter reads); then per file a record of the
/// rest (URL, hashes as their stored text, yanked reason, size, core-metadata hashes), which a
/// reader visits only for the files it keeps.
pub(super) fn encode(page: &ProjectPage) -> Vec<u8> {
    let mut versions: HashMap<&Version, u32> = HashMap::default();
    let mut tag_sets = Table::default();
    let mut pythons = Table::default();
    let mut stems = Table::default();
    let mut rows = Vec::with_capacity(page.files.len() * ROW);
    let mut records = Writer(Vec::with_capacity(page.files.len() * 160));
    for f in &page.files {
        let next = versions.len() as u32;
        let version = *versions.entry(f.filename.version()).or_insert(next);
        let tags = match &f.filename {
            DistFilename::Wheel(w) => tag_sets.id(compress_set(&w.tags)),
            DistFilename::Sdist(_) => NONE,
        };
        let python = match &f.requires_python {
            Some(spec) => pythons.id(spec.to_string()),
            None => NONE,
        };
        let stem = stems.id(stem_text(&f.filename));
        let mut flags = 0;
        if f.yanked.is_some() {
            flags |= YANKED;
        }
        let (secs, nanos) = match f.upload_time {
            Some(t) => {
                flags |= UPLOADED;
                (t.as_second(), t.subsec_nanosecond())
            }
            None => (0, 0),
        };
        rows.extend_from_slice(&version.to_le_bytes());
        rows.extend_from_slice(&tags.to_le_bytes());
        rows.extend_from_slice(&python.to_le_bytes());
        rows.extend_from_slice(&stem.to_le_bytes());
        rows.push(flags);
        rows.extend_from_slice(&secs.to_le_bytes());
        rows.extend_from_slice(&nanos.to_le_bytes());
        let record_at = records.0.len();
        rows.extend_from_slice(&(record_at as u32).to_le_bytes());
        records.str(f.url.as_str());
        records.str(f.hashes.as_stored());
        records.opt_str(f.yanked.as_deref());
        match f.size {
            Some(s) => {
                records.0.push(1);
                records.0.extend_from_slice(&s.to_le_bytes());
            }
            None => records.0.push(0),
        }
        records.opt_str(f.core_metadata.as_ref().map(Hashes::as_stored));
        rows.extend_from_slice(&crc32fast::hash(&records.0[record_at..]).to_le_bytes());
    }
    let mut w = Writer(Vec::with_capacity(64 + rows.len() + records.0.len()));
    w.0.push(FORMAT);
    w.opt_str(page.name.as_ref().map(AsRef::as_ref));
    w.opt_str(page.api_version.as_deref());
    w.strs(&page.skipped);
    w.strs(&tag_sets.texts);
    w.strs(&pythons.texts);
    w.strs(&stems.texts);
    w.u32(page.files.len() as u32);
    w.0.extend_from_slice(&rows);
    let head = crc32fast::hash(&w.0);
    w.u32(head);
    w.u32(records.0.len() as u32);
    w.0.extend_from_slice(&records.0);
    w.0
}

/// Distinct strings, each with its id (its place).
#[derive(Default)]
struct Table {
    ids: HashMap<String, u32>,
    texts: Vec<String>,
}

impl Table {
    fn id(&mut self, text: String) -> u32 {
        if let Some(id) = self.ids.get(&text) {
            return *id;
        }
        let id = self.texts.len() as u32;
        self.texts.push(text.clone());
        self.ids.insert(text, id);
        id
    }
}

/// The parts of an entry (see [`encode`]), the rows and records still bytes.
struct Sections<'a> {
    name: Option<PackageName>,
    api_version: Option<String>,
    skipped: Vec<String>,
    tag_texts: Vec<&'a str>,
    python_texts: Vec<&'a str>,
    stem_texts: Vec<&'a str>,
    rows: &'a [u8],
    records: &'a [u8],
    /// Where `records` starts in the bytes.
    records_at: usize,
}

impl<'a> Sections<'a> {
    /// `None` when the bytes are not this format.
    fn read(bytes: &'a [u8]) -> Option<Sections<'a>> {
        let mut r = Reader { bytes, pos: 0 };
        if r.u8()? != FORMAT {
            return None;
        }
        let name = match r.opt_str()? {
            Some(n) => Some(n.parse::<PackageName>().ok()?),
            None => None,
        };
        let api_version = r.opt_str()?.map(str::to_string);
        let skipped = r.strs()?.into_iter().map(str::to_string).collect();
        let tag_texts = r.strs()?;
        let python_texts = r.strs()?;
        let stem_texts = r.strs()?;
        let count = r.u32()? as usize;
        let rows = r.take(count.checked_mul(ROW)?)?;
        let head = crc32fast::hash(&bytes[..r.pos]);
        if r.u32()? != head {
            return None;
        }
        let records_len = r.u32()? as usize;
        let records_at = r.pos;
        let records = r.take(records_len)?;
        (r.pos == bytes.len()).then_some(Sections {
            name,
            api_version,
            skipped,
            tag_texts,
            python_texts,
            stem_texts,
            rows,
            records,
            records_at,
        })
    }
}

/// One file's row (see [`encode`]), its ids checked against the tables.
struct Row {
    view: FileView,
    python: u32,
    stem: u32,
    record: usize,
    crc32: u32,
}

/// How many entries each table of a page holds, to check a row's ids against.
#[derive(Clone, Copy)]
struct Lens {
    files: usize,
    tag_sets: usize,
    pythons: usize,
    stems: usize,
}

impl Row {
    fn read(bytes: &[u8], lens: Lens) -> Option<Row> {
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let (version, tags, python, stem) = (u32_at(0), u32_at(4), u32_at(8), u32_at(12));
        let flags = bytes[16];
        let secs = i64::from_le_bytes(bytes[17..25].try_into().ok()?);
        let nanos = u32_at(25) as i32;
        let in_table = |id: u32, len: usize| id == NONE || (id as usize) < len;
        if version as usize >= lens.files
            || (stem as usize) >= lens.stems
            || !in_table(tags, lens.tag_sets)
            || !in_table(python, lens.pythons)
        {
            return None;
        }
        let upload = match flags & UPLOADED {
            0 => None,
            _ => Some(jiff::Timestamp::new(secs, nanos).ok()?),
        };
        Some(Row {
            view: FileView {
                version,
                tags: (tags != NONE).then_some(tags),
                upload,
                yanked: flags & YANKED != 0,
            },
            python,
            stem,
            record: u32_at(29) as usize,
            crc32: u32_at(33),
        })
    }
}

/// A page's tables as the kept rows use them: each entry a kept row names parsed once, when
/// the page is decoded, and given a dense id (file names are built from their parts, not
/// parsed from text).
struct Tables<'a> {
    sections: &'a Sections<'a>,
    memo: FilenameMemo,
    /// Per table entry: its dense id, or [`NONE`] while no kept row has used it.
    stem_ids: Vec<u32>,
    tag_ids: Vec<u32>,
    python_ids: Vec<u32>,
    stems: Vec<Stem>,
    tags: Vec<Arc<[Tag]>>,
    pythons: Vec<VersionSpecifiers>,
}

/// A file name's parts other than its wheel tags: name, version, build tag.
type Stem = (PackageName, Version, Option<(u64, String)>);

/// The dense id of table entry `id` (`NONE` stays `NONE`), made with `make` on first use;
/// `None` when `make` fails.
fn dense<T>(
    ids: &mut [u32],
    values: &mut Vec<T>,
    id: u32,
    make: impl FnOnce() -> Option<T>,
) -> Option<u32> {
    if id == NONE {
        return Some(NONE);
    }
    let slot = &mut ids[id as usize];
    if *slot == NONE {
        values.push(make()?);
        *slot = values.len() as u32 - 1;
    }
    Some(*slot)
}

impl<'a> Tables<'a> {
    fn new(sections: &'a Sections<'a>) -> Tables<'a> {
        Tables {
            sections,
            memo: FilenameMemo::default(),
            stem_ids: vec![NONE; sections.stem_texts.len()],
            tag_ids: vec![NONE; sections.tag_texts.len()],
            python_ids: vec![NONE; sections.python_texts.len()],
            stems: Vec::new(),
            tags: Vec::new(),
            pythons: Vec::new(),
        }
    }

    /// A kept row with dense ids: `None` when its stem or requires-python does not parse.
    fn kept(&mut self, row: &Row) -> Option<KeptRow> {
        let s = self.sections;
        let stem = dense(&mut self.stem_ids, &mut self.stems, row.stem, || {
            parse_stem(s.stem_texts[row.stem as usize])
        })?;
        let memo = &mut self.memo;
        let tags = dense(
            &mut self.tag_ids,
            &mut self.tags,
            row.view.tags.unwrap_or(NONE),
            || Some(memo.tags(s.tag_texts[row.view.tags? as usize])),
        )?;
        let python = dense(&mut self.python_ids, &mut self.pythons, row.python, || {
            parse_requires_python(s.python_texts[row.python as usize]).ok()
        })?;
        Some(KeptRow {
            stem,
            tags,
            python,
            yanked: row.view.yanked,
            upload: row.view.upload,
            record: row.record as u32,
        })
    }
}

/// A kept file's row, its ids dense ids into the [`LazyPage`]'s tables.
struct KeptRow {
    stem: u32,
    tags: u32,
    python: u32,
    yanked: bool,
    upload: Option<jiff::Timestamp>,
    record: u32,
}

/// The bytes a page was read from (a mapped or read cache entry, a fresh page's compact form).
type Bytes = Arc<dyn Deref<Target = [u8]> + Send + Sync>;

/// The kept files of a decoded page: their rows and the table entries they use, parsed, and
/// the bytes their records are in. Every kept record was checked when the page was decoded
/// (its CRC-32, its fields, its yanked flag against its row's), so a file is built on first
/// access and building it cannot fail.
pub(super) struct LazyPage {
    bytes: Bytes,
    records_at: usize,
    rows: Vec<KeptRow>,
    stems: Vec<Stem>,
    tags: Vec<Arc<[Tag]>>,
    pythons: Vec<VersionSpecifiers>,
    /// The files built so far, each boxed: a slot is 16 bytes, so a page of thousands of kept
    /// files, of which a few are built, does not set aside (and touch) room for every file.
    files: Box<[OnceLock<Box<DistFile>>]>,
    strip_userinfo: bool,
}

impl LazyFiles for LazyPage {
    fn len(&self) -> usize {
        self.rows.len()
    }

    /// What the version tables read of the `i`-th kept file: from its row and the tables.
    fn head(&self, i: usize) -> FileHead<'_> {
        let row = &self.rows[i];
        let (_, version, build) = &self.stems[row.stem as usize];
        let tags = (row.tags != NONE).then(|| &self.tags[row.tags as usize][..]);
        FileHead {
            version,
            tags,
            build: build.as_ref().filter(|_| tags.is_some()),
            requires_python: (row.python != NONE).then(|| &self.pythons[row.python as usize]),
            yanked: row.yanked,
            upload_time: row.upload,
        }
    }

    /// See [`Files::version_keys`]: the kept rows' stems.
    fn version_keys(&self) -> (Vec<u32>, Vec<&Version>) {
        (
            self.rows.iter().map(|r| r.stem).collect(),
            self.stems.iter().map(|(_, version, _)| version).collect(),
        )
    }

    fn file(&self, i: usize) -> &DistFile {
        self.files[i].get_or_init(|| Box::new(self.build(i)))
    }

    fn take_files(&mut self) -> Vec<DistFile> {
        let built = std::mem::take(&mut self.files);
        (built.into_vec().into_iter().enumerate())
            .map(|(i, file)| match file.into_inner() {
                Some(file) => *file,
                None => self.build(i),
            })
            .collect()
    }

    fn strip_userinfo(&mut self) {
        self.strip_userinfo = true;
        for file in self.files.iter_mut().filter_map(OnceLock::get_mut) {
            super::files::strip_userinfo(file);
        }
    }
}

impl LazyPage {
    fn build(&self, i: usize) -> DistFile {
        let row = &self.rows[i];
        let (rec, _) = Record::read(&self.bytes[self.records_at..], row.record as usize)
            .expect("every kept record was checked when the page was decoded");
        let (name, version, build) = self.stems[row.stem as usize].clone();
        let filename = match row.tags {
            NONE => DistFilename::Sdist(SdistFilename { name, version }),
            tags => DistFilename::Wheel(WheelFilename {
                name,
                version,
                build,
                tags: self.tags[tags as usize].clone(),
            }),
        };
        let mut file = DistFile {
            filename,
            url: FileUrl::from_serialized(rec.url),
            hashes: Hashes::from_stored(rec.hashes),
            requires_python: (row.python != NONE)
                .then(|| self.pythons[row.python as usize].clone()),
            yanked: rec.yanked.map(str::to_string),
            upload_time: row.upload,
            size: rec.size,
            core_metadata: rec.core_metadata.map(Hashes::from_stored),
        };
        if self.strip_userinfo {
            super::files::strip_userinfo(&mut file);
        }
        file
    }
}

/// The fields of one file's record (see [`encode`]), borrowed.
struct Record<'a> {
    url: &'a str,
    hashes: &'a str,
    yanked: Option<&'a str>,
    size: Option<u64>,
    core_metadata: Option<&'a str>,
}

impl<'a> Record<'a> {
    /// The record at `at` of `records` and where it ends; `None` when it does not read.
    fn read(records: &'a [u8], at: usize) -> Option<(Record<'a>, usize)> {
        let mut rec = Reader {
            bytes: records,
            pos: at,
        };
        let record = Record {
            url: rec.str()?,
            hashes: rec.str()?,
            yanked: rec.opt_str()?,
            size: rec.opt_u64()?,
            core_metadata: rec.opt_str()?,
        };
        Some((record, rec.pos))
    }

    /// The record of a row, checked: it reads, its CRC-32 is the row's, and it is yanked when
    /// the row says so.
    fn check(records: &[u8], row: &Row) -> Option<()> {
        let (record, end) = Record::read(records, row.record)?;
        (crc32fast::hash(&records[row.record..end]) == row.crc32
            && record.yanked.is_some() == row.view.yanked)
            .then_some(())
    }
}

/// Read a page back, keeping only the files `filter` keeps: the filter decides on the rows
/// alone (integers: no file name is read), and only the records of the files kept are read
/// and checked. The files are built when first read ([`LazyPage`]). `None` when the bytes are
/// not this format, or a kept file's row, record or table entries do not read.
pub(super) fn decode<B>(bytes: Arc<B>, filter: Option<FileFilter<'_>>) -> Option<ProjectPage>
where
    B: Deref<Target = [u8]> + Send + Sync + 'static,
{
    let bytes: Bytes = bytes;
    let sections = Sections::read(&bytes)?;
    let lens = Lens {
        files: sections.rows.len() / ROW,
        tag_sets: sections.tag_texts.len(),
        pythons: sections.python_texts.len(),
        stems: sections.stem_texts.len(),
    };
    let count = lens.files;
    let row = |i: usize| Row::read(&sections.rows[i * ROW..(i + 1) * ROW], lens);
    let keep = match filter {
        None => (0..count)
            .map(|i| row(i).map(|_| true))
            .collect::<Option<_>>()?,
        Some(filter) => filter.mask(&sections.tag_texts, count, |i| row(i).map(|r| r.view))?,
    };
    let mut tables = Tables::new(&sections);
    let mut rows = Vec::with_capacity(keep.iter().filter(|k| **k).count());
    for i in (0..count).filter(|i| keep[*i]) {
        let row = row(i)?;
        Record::check(sections.records, &row)?;
        rows.push(tables.kept(&row)?);
    }
    let Tables {
        stems,
        tags,
        pythons,
        ..
    } = tables;
    let page = LazyPage {
        bytes: bytes.clone(),
        records_at: sections.records_at,
        files: rows.iter().map(|_| OnceLock::new()).collect(),
        rows,
        stems,
        tags,
        pythons,
        strip_userinfo: false,
    };
    Some(ProjectPage {
        name: sections.name,
        files: Files::lazy(page),
        skipped: sections.skipped,
        api_version: sections.api_version,
    })
}

/// A file name's stem as the stem table keeps it: name, version and (for a wheel with one)
/// build tag, one per line; read back by [`parse_stem`].
fn stem_text(name: &DistFilename) -> String {
    match name {
        DistFilename::Sdist(s) => format!("{}\n{}", s.name, s.version),
        DistFilename::Wheel(w) => match &w.build {
            None => format!("{}\n{}", w.name, w.version),
            Some((n, rest)) => format!("{}\n{}\n{n}{rest}", w.name, w.version),
        },
    }
}

/// The parts [`stem_text`] wrote; `None` when they do not parse.
fn parse_stem(text: &str) -> Option<Stem> {
    let mut parts = text.split('\n');
    let name = parts.next()?.parse::<PackageName>().ok()?;
    let version = parts.next()?.parse::<Version>().ok()?;
    let build = parts.next().map(build_tag).transpose().ok()?;
    parts.next().is_none().then_some((name, version, build))
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.0.push(1);
                self.str(s);
            }
            None => self.0.push(0),
        }
    }
    fn strs(&mut self, list: &[String]) {
        self.u32(list.len() as u32);
        for s in list {
            self.str(s);
        }
    }
}

#[derive(Clone)]
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(slice)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<&'a str> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?).ok()
    }
    fn opt_str(&mut self) -> Option<Option<&'a str>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.str()?)),
            _ => None,
        }
    }
    fn opt_u64(&mut self) -> Option<Option<u64>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.u64()?)),
            _ => None,
        }
    }
    fn strs(&mut self) -> Option<Vec<&'a str>> {
        let count = self.u32()? as usize;
        let mut list = Vec::with_capacity(count.min(self.bytes.len() / 4));
        for _ in 0..count {
            list.push(self.str()?);
        }
        Some(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::parse;
    use url::Url;

    /// On every recorded page and a few targets, the filtered page and its compact form read back
    /// answer as the whole page: the same candidates (file, reason) per version, release dates and
    /// newest release. (Here, not in `parse`, because it reads the compact form.)
    #[test]
    fn filtered_pages_answer_as_whole_pages_on_the_recorded_index() {
        use crate::index::candidates::{BinaryPolicy, candidates_for};
        use crate::inventory::{Platform, cpython_tags};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/index/simple");
        let targets: Vec<(crate::tags::Tags, pep440_rs::Version)> = [
            (3, 12, "x86_64-manylinux_2_28"),
            (3, 9, "aarch64-apple-darwin"),
            (3, 13, "x86_64-pc-windows-msvc"),
        ]
        .iter()
        .map(|(major, minor, platform)| {
            let tags = cpython_tags(*major, *minor, &Platform::parse(platform).unwrap());
            (tags, format!("{major}.{minor}.0").parse().unwrap())
        })
        .collect();
        let policies = [
            BinaryPolicy::default(),
            BinaryPolicy::new(&[":all:".to_string()], &[]),
            BinaryPolicy::new(&[], &[":all:".to_string()]),
        ];
        let mut pages = 0;
        for entry in std::fs::read_dir(&root).unwrap() {
            let dir = entry.unwrap().path();
            let Ok(bytes) = std::fs::read(dir.join("index.json")) else {
                continue;
            };
            let url = Url::from_directory_path(&dir).unwrap();
            let whole = parse::simple_json(&bytes, &url).unwrap();
            let name = whole.name.clone().unwrap();
            let project = |files: Files| crate::index::Project {
                name: name.clone(),
                index: String::new(),
                files,
            };
            let compact = std::sync::Arc::new(encode(&whole));
            for (tags, python) in &targets {
                let filter = Some(FileFilter { tags });
                let kept = parse::simple_json_filtered(&bytes, &url, filter).unwrap();
                let (w, k) = (project(whole.files.clone()), project(kept.files));
                // The same page read back from its compact form, its files built on demand.
                let read = decode(compact.clone(), filter).unwrap();
                let r = project(read.files);
                for policy in &policies {
                    let a = candidates_for(&w, tags, python, policy);
                    let b = candidates_for(&k, tags, python, policy);
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{}", dir.display());
                    let c = candidates_for(&r, tags, python, policy);
                    assert_eq!(format!("{b:?}"), format!("{c:?}"), "{}", dir.display());
                }
                let summary = |p: &crate::index::Project| {
                    let mut by_version = std::collections::BTreeMap::new();
                    for f in &p.files {
                        let e = by_version
                            .entry(f.filename.version().clone())
                            .or_insert((None, false));
                        e.0 = e.0.into_iter().chain(f.upload_time).min();
                        e.1 |= f.yanked.is_none();
                    }
                    by_version
                };
                assert_eq!(summary(&w), summary(&k), "{}", dir.display());
            }
            pages += 1;
        }
        assert!(pages > 100, "only {pages} recorded pages");
    }

    const PAGE: &[u8] = br#"{
      "meta": {"api-version": "1.1"}, "name": "demo",
      "files": [
        {"filename": "demo-1.0+cpu-py3-none-any.whl",
         "url": "../../files/demo-1.0%2Bcpu-py3-none-any.whl#sha256=AA",
         "hashes": {"sha256": "aa"}, "requires-python": " >=3.8 ",
         "yanked": "broken build", "upload-time": "2024-01-02T03:04:05.123456Z",
         "size": 10, "core-metadata": {"sha256": "bb"}},
        {"filename": "demo-2.0-cp312-cp312-win_amd64.whl", "url": "w.whl", "hashes": {}},
        {"filename": "demo-2.0-cp312-cp312-macosx_11_0_arm64.whl", "url": "m.whl", "hashes": {}},
        {"filename": "demo-2.0-cp39-cp39-win32.whl", "url": "w39.whl", "hashes": {}},
        {"filename": "demo-2.0-cp310-cp310-win32.whl", "url": "w310.whl", "hashes": {}},
        {"filename": "demo-2.0.tar.gz", "url": "https://files.example/demo-2.0.tar.gz",
         "hashes": {}, "yanked": true, "core-metadata": true},
        {"filename": "Demo-3.0-1b-py2.py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.whl",
         "url": "t.whl", "hashes": {}},
        {"filename": "demo-bad.whl", "url": "y.whl", "hashes": {}}
      ]
    }"#;

    fn base() -> Url {
        Url::parse("https://index.example/simple/demo/").unwrap()
    }

    #[test]
    fn a_page_reads_back_as_the_same_page() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let again = decode(Arc::new(encode(&page)), None).unwrap();
        assert_eq!(format!("{again:?}"), format!("{page:?}"));
        assert_eq!(again.files.len(), 7);
        assert_eq!(again.skipped.len(), 1);
    }

    #[test]
    fn a_filter_applies_on_reading() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let tags =
            crate::tags::Tags::new(vec!["cp312-cp312-manylinux_2_28_x86_64".parse().unwrap()]);
        let filter = Some(FileFilter { tags: &tags });
        let direct = parse::simple_json_filtered(PAGE, &base(), filter).unwrap();
        let read = decode(Arc::new(encode(&page)), filter).unwrap();
        assert_eq!(format!("{:?}", read.files), format!("{:?}", direct.files));
        // Of 2.0's four foreign wheels, cp39's tag is not among the three a reason names.
        assert_eq!(read.files.len(), 6);
    }

    /// `bytes` with one byte of the `file`-th file's record flipped (its URL's first byte).
    fn flip_record(bytes: &[u8], file: usize) -> Vec<u8> {
        let sections = Sections::read(bytes).unwrap();
        let row = &sections.rows[file * ROW..(file + 1) * ROW];
        let offset = u32::from_le_bytes(row[29..33].try_into().unwrap()) as usize;
        let at = sections.records_at + offset + 4;
        let mut flipped = bytes.to_vec();
        assert_eq!(
            &flipped[at..at + 4],
            b"http",
            "the record starts with the URL"
        );
        flipped[at] ^= 1;
        flipped
    }

    #[test]
    fn a_record_is_checked_when_its_file_is_kept() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let bytes = encode(&page);
        let tags =
            crate::tags::Tags::new(vec!["cp312-cp312-manylinux_2_28_x86_64".parse().unwrap()]);
        let filter = Some(FileFilter { tags: &tags });
        let kept = decode(Arc::new(bytes.clone()), filter).unwrap().files.len();
        // The cp39 wheel (the fourth file) is not kept (see above): its record is not read.
        let flipped = flip_record(&bytes, 3);
        assert_eq!(
            decode(Arc::new(flipped.clone()), filter)
                .unwrap()
                .files
                .len(),
            kept
        );
        assert!(decode(Arc::new(flipped), None).is_none());
        // The win_amd64 wheel (the second file) is kept, though nothing reads it: its record
        // is checked when the page is decoded (a cache miss then), not when it is first read.
        let flipped = flip_record(&bytes, 1);
        assert!(decode(Arc::new(flipped), filter).is_none());
    }

    #[test]
    fn files_are_built_when_read_and_answer_as_built_files() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let read = decode(Arc::new(encode(&page)), None).unwrap();
        for (i, file) in page.files.iter().enumerate() {
            let (lazy, built) = (read.files.head(i), FileHead::of(file));
            assert_eq!(format!("{lazy:?}"), format!("{built:?}"));
            assert_eq!(format!("{:?}", read.files[i]), format!("{file:?}"));
        }
        // Credentials are dropped from a file's URL whether it was built before or after.
        let mut page = page;
        page.files = (0..page.files.len())
            .map(|i| {
                let mut f = page.files[i].clone();
                f.url = url::Url::parse("https://u:p@files.example/f.whl")
                    .unwrap()
                    .into();
                f
            })
            .collect();
        let mut read = decode(Arc::new(encode(&page)), None).unwrap();
        assert!(read.files[0].url.has_userinfo());
        read.files.strip_userinfo();
        assert!(read.files.iter().all(|f| !f.url.has_userinfo()));
    }

    #[test]
    fn anything_else_is_not_a_page() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let bytes = encode(&page);
        assert!(decode(Arc::new(bytes[..bytes.len() - 1].to_vec()), None).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(Arc::new(longer.clone()), None).is_none());
        let mut other = bytes.clone();
        other[0] = FORMAT + 1;
        assert!(decode(Arc::new(other.clone()), None).is_none());
        // A row changed (its tag-set id pointing past the table): the head checksum fails.
        let rows = Sections::read(&bytes).unwrap().rows;
        let rows_at = rows.as_ptr() as usize - bytes.as_ptr() as usize;
        let mut wild = bytes.clone();
        wild[rows_at + 4..rows_at + 8].copy_from_slice(&1000u32.to_le_bytes());
        assert!(decode(Arc::new(wild.clone()), None).is_none());
        assert!(decode(Arc::new(b"{\"name\": \"demo\"}".to_vec()), None).is_none());
    }
}
