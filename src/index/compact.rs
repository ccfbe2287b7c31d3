//! The compact form of a parsed project page: what the page cache stores.
//!
//! In: a [`ProjectPage`] parsed once from PEP 691 JSON or PEP 503 HTML, when the page changes.
//! Out: the same page read back with no JSON or HTML parsing, no URL joining and no entity
//! decoding, each file's values already resolved (absolute URL without its fragment, hashes,
//! trimmed requires-python, yanked reason, upload time, size, core-metadata hashes).
//!
//! Laid out for a reader that keeps a few files of many (a target filter keeps about two of
//! pydantic-core's 15,000): the distinct wheel tag sets and requires-python values in tables,
//! then one fixed-size row per file holding what the filter decides on (a version id, a tag-set
//! id, yanked, upload time), then the rest of each file in a record of length-prefixed fields
//! that is read only when the file is kept. So a warm read parses each distinct tag set once,
//! decides on integers, and reads, checks as UTF-8 and builds only the files kept.
//!
//! Checksums: one CRC-32 over everything before the records, and one per record, kept in its
//! row; a reader checks the first and the records it reads. The cache does not check the whole
//! body of a compact page on reading (`Cache::read_framed`): every byte used is still checked,
//! and a page cut short still fails its length check, but a warm run no longer reads all of a
//! multi-megabyte page to use a few of its files.
//!
//! Why hand-laid rather than `rkyv` (uv's choice): the solver works on owned [`DistFile`]s, so
//! an archived view would still be copied out field by field; this format adds no dependency
//! (CI builds on 2 cores), and the cache already frames every entry with a length and a CRC-32
//! and renames it into place (`super::cache`). A body that does not decode (another format
//! version, an id out of its table, a bug) is a cache miss: the page is fetched again.

use std::sync::Arc;

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::PackageName;
use rustc_hash::FxHashMap as HashMap;

use super::filename::{FilenameMemo, build_tag};
use super::parse::{FileFilter, FileView, ProjectPage};
use super::{DistFile, DistFilename, FileUrl, Hashes, SdistFilename, WheelFilename};
use crate::metadata::parse_requires_python;
use crate::tags::{Tag, compress_set};

/// Bumped whenever the layout changes; an entry of another version reads as missing.
const FORMAT: u8 = 4;

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
/// table of its distinct wheel tag sets and one of its distinct requires-python values; one
/// fixed-size row per file (ids into the tables, one id per distinct version, yanked, upload
/// time: all the target filter reads); then per file a record of the rest (name, URL, hashes,
/// yanked reason, size, core-metadata hashes), which a reader visits only for the files it keeps.
pub fn encode(page: &ProjectPage) -> Vec<u8> {
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
        records.map(&f.hashes);
        records.opt_str(f.yanked.as_deref());
        match f.size {
            Some(s) => {
                records.0.push(1);
                records.0.extend_from_slice(&s.to_le_bytes());
            }
            None => records.0.push(0),
        }
        match &f.core_metadata {
            Some(h) => {
                records.0.push(1);
                records.map(h);
            }
            None => records.0.push(0),
        }
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

/// A page's tables, each entry parsed when a kept file first uses it (tag sets all at once
/// when a filter reads them): file names are built from their parts, not parsed from text.
struct Parsed<'a> {
    tag_texts: &'a [&'a str],
    python_texts: &'a [&'a str],
    stem_texts: &'a [&'a str],
    memo: FilenameMemo,
    pythons: Vec<Option<VersionSpecifiers>>,
    stems: Vec<Option<Stem>>,
}

/// A file name's parts other than its wheel tags: name, version, build tag.
type Stem = (PackageName, Version, Option<(u64, String)>);

impl<'a> Parsed<'a> {
    fn new(sections: &'a Sections<'a>) -> Parsed<'a> {
        Parsed {
            tag_texts: &sections.tag_texts,
            python_texts: &sections.python_texts,
            stem_texts: &sections.stem_texts,
            memo: FilenameMemo::default(),
            pythons: vec![None; sections.python_texts.len()],
            stems: vec![None; sections.stem_texts.len()],
        }
    }

    fn tags(&mut self, id: u32) -> Arc<[Tag]> {
        self.memo.tags(self.tag_texts[id as usize])
    }

    fn requires_python(&mut self, id: u32) -> Option<Option<VersionSpecifiers>> {
        let Some(text) = self.python_texts.get(id as usize) else {
            return Some(None);
        };
        let slot = &mut self.pythons[id as usize];
        if slot.is_none() {
            *slot = Some(parse_requires_python(text).ok()?);
        }
        Some(slot.clone())
    }

    fn filename(&mut self, row: &Row) -> Option<DistFilename> {
        let slot = &mut self.stems[row.stem as usize];
        if slot.is_none() {
            *slot = Some(parse_stem(self.stem_texts[row.stem as usize])?);
        }
        let (name, version, build) = slot.clone()?;
        Some(match row.view.tags {
            Some(tags) => DistFilename::Wheel(WheelFilename {
                name,
                version,
                build,
                tags: self.tags(tags),
            }),
            None => DistFilename::Sdist(SdistFilename { name, version }),
        })
    }
}

/// Read a page back, keeping only the files `filter` keeps: the filter decides on the rows
/// alone (integers: no file name is read), and only the records of the files kept are read and
/// built. `None` when the bytes are not this format.
pub fn decode(bytes: &[u8], filter: Option<FileFilter<'_>>) -> Option<ProjectPage> {
    let sections = Sections::read(bytes)?;
    let lens = Lens {
        files: sections.rows.len() / ROW,
        tag_sets: sections.tag_texts.len(),
        pythons: sections.python_texts.len(),
        stems: sections.stem_texts.len(),
    };
    let count = lens.files;
    let row = |i: usize| Row::read(&sections.rows[i * ROW..(i + 1) * ROW], lens);
    let mut parsed = Parsed::new(&sections);
    let keep = match filter {
        None => (0..count)
            .map(|i| row(i).map(|_| true))
            .collect::<Option<_>>()?,
        Some(filter) => filter.mask(&sections.tag_texts, count, |i| row(i).map(|r| r.view))?,
    };
    let mut files = Vec::with_capacity(keep.iter().filter(|k| **k).count());
    for i in (0..count).filter(|i| keep[*i]) {
        let row = row(i)?;
        files.push(read_file(&row, sections.records, &mut parsed)?);
    }
    Some(ProjectPage {
        name: sections.name,
        files,
        skipped: sections.skipped,
        api_version: sections.api_version,
    })
}

/// One kept file: its name and requires-python from the tables, the rest from its record
/// (checked against the row's CRC-32).
fn read_file(row: &Row, records: &[u8], parsed: &mut Parsed<'_>) -> Option<DistFile> {
    let mut rec = Reader {
        bytes: records,
        pos: row.record,
    };
    let file = DistFile {
        filename: parsed.filename(row)?,
        url: FileUrl::from_serialized(rec.str()?),
        hashes: rec.map()?,
        yanked: rec.opt_str()?.map(str::to_string),
        size: rec.opt_u64()?,
        core_metadata: match rec.u8()? {
            0 => None,
            1 => Some(rec.map()?),
            _ => return None,
        },
        requires_python: parsed.requires_python(row.python)?,
        upload_time: row.view.upload,
    };
    (crc32fast::hash(&records[row.record..rec.pos]) == row.crc32).then_some(file)
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
    fn map(&mut self, m: &Hashes) {
        self.u32(m.iter().count() as u32);
        for (k, v) in m.iter() {
            self.str(k);
            self.str(v);
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
    fn map(&mut self) -> Option<Hashes> {
        let pairs = (0..self.u32()?)
            .map(|_| Some((self.str()?, self.str()?)))
            .collect::<Option<Vec<_>>>()?;
        Some(pairs.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::parse;
    use url::Url;

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
        let again = decode(&encode(&page), None).unwrap();
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
        let read = decode(&encode(&page), filter).unwrap();
        assert_eq!(format!("{:?}", read.files), format!("{:?}", direct.files));
        // Of 2.0's four foreign wheels, cp39's tag is not among the three a reason names.
        assert_eq!(read.files.len(), 6);
    }

    #[test]
    fn a_record_is_checked_when_it_is_read() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let bytes = encode(&page);
        let tags =
            crate::tags::Tags::new(vec!["cp312-cp312-manylinux_2_28_x86_64".parse().unwrap()]);
        let filter = Some(FileFilter { tags: &tags });
        let kept = decode(&bytes, filter).unwrap().files.len();
        // Flip a byte of the cp39 wheel's record (the fourth file), which the filter does not
        // keep (see above).
        let sections = Sections::read(&bytes).unwrap();
        let row = &sections.rows[3 * ROW..4 * ROW];
        let offset = u32::from_le_bytes(row[29..33].try_into().unwrap()) as usize;
        let at = sections.records.as_ptr() as usize - bytes.as_ptr() as usize + offset + 4;
        let mut flipped = bytes.clone();
        assert_eq!(
            &flipped[at..at + 4],
            b"http",
            "the record starts with the URL"
        );
        flipped[at] ^= 1;
        assert_eq!(decode(&flipped, filter).unwrap().files.len(), kept);
        assert!(decode(&flipped, None).is_none());
    }

    #[test]
    fn anything_else_is_not_a_page() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let bytes = encode(&page);
        assert!(decode(&bytes[..bytes.len() - 1], None).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, None).is_none());
        let mut other = bytes.clone();
        other[0] = FORMAT + 1;
        assert!(decode(&other, None).is_none());
        // A row changed (its tag-set id pointing past the table): the head checksum fails.
        let rows = Sections::read(&bytes).unwrap().rows;
        let rows_at = rows.as_ptr() as usize - bytes.as_ptr() as usize;
        let mut wild = bytes.clone();
        wild[rows_at + 4..rows_at + 8].copy_from_slice(&1000u32.to_le_bytes());
        assert!(decode(&wild, None).is_none());
        assert!(decode(b"{\"name\": \"demo\"}", None).is_none());
    }
}
