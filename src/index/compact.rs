//! The compact form of a parsed project page: what the page cache stores.
//!
//! In: a [`ProjectPage`] parsed once from PEP 691 JSON or PEP 503 HTML, when the page changes.
//! Out: the same page read back with no JSON or HTML parsing, no URL joining and no entity
//! decoding: a flat run of length-prefixed fields, each file's values already resolved
//! (absolute URL without its fragment, hashes, trimmed requires-python, yanked reason, upload
//! time, size, core-metadata hashes). Values repeated across a page (versions, wheel tag sets,
//! requires-python) are parsed once per page on reading.
//!
//! Why hand-laid rather than `rkyv` (uv's choice): the solver works on owned [`DistFile`]s, so
//! an archived view would still be copied out field by field; a format of a version byte and
//! length-prefixed strings is ~150 lines, adds no dependency (CI builds on 2 cores), and the
//! cache already frames every entry with a length and a CRC-32 and renames it into place
//! (`super::cache`). A body that does not decode (another format version, a bug) is a cache
//! miss: the page is fetched again.

use std::collections::{BTreeMap, HashMap};

use pep440_rs::VersionSpecifiers;
use pep508_rs::PackageName;
use url::Url;

use super::filename::FilenameMemo;
use super::parse::{FileFilter, FileView, ProjectPage};
use super::{DistFile, DistFilename};
use crate::metadata::parse_requires_python;

/// Bumped whenever the layout changes; an entry of another version reads as missing.
const FORMAT: u8 = 1;

/// Write a parsed page in the compact form.
pub fn encode(page: &ProjectPage) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(64 + page.files.len() * 200));
    w.0.push(FORMAT);
    w.opt_str(page.name.as_ref().map(AsRef::as_ref));
    w.opt_str(page.api_version.as_deref());
    w.u32(page.skipped.len() as u32);
    for s in &page.skipped {
        w.str(s);
    }
    w.u32(page.files.len() as u32);
    for f in &page.files {
        w.str(&filename_text(&f.filename));
        w.str(f.url.as_str());
        w.map(&f.hashes);
        w.opt_str(
            f.requires_python
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
        );
        w.opt_str(f.yanked.as_deref());
        match f.upload_time {
            Some(t) => {
                w.0.push(1);
                w.0.extend_from_slice(&t.as_second().to_le_bytes());
                w.0.extend_from_slice(&t.subsec_nanosecond().to_le_bytes());
            }
            None => w.0.push(0),
        }
        match f.size {
            Some(s) => {
                w.0.push(1);
                w.0.extend_from_slice(&s.to_le_bytes());
            }
            None => w.0.push(0),
        }
        match &f.core_metadata {
            Some(h) => {
                w.0.push(1);
                w.map(h);
            }
            None => w.0.push(0),
        }
    }
    w.0
}

/// One file's record, its fields still in the entry's bytes.
struct Record<'a> {
    filename: &'a str,
    url: &'a str,
    hashes: Reader<'a>,
    requires_python: Option<&'a str>,
    yanked: Option<&'a str>,
    upload_time: Option<jiff::Timestamp>,
    size: Option<u64>,
    core_metadata: Option<Reader<'a>>,
}

/// Read a page back, keeping only the files `filter` keeps: the records are walked once
/// (borrowed, nothing built), the filter decides on their names, and only the files kept are
/// built. `None` when the bytes are not this format.
pub fn decode(bytes: &[u8], filter: Option<FileFilter<'_>>) -> Option<ProjectPage> {
    let mut r = Reader { bytes, pos: 0 };
    if r.u8()? != FORMAT {
        return None;
    }
    let name = match r.opt_str()? {
        Some(n) => Some(n.parse::<PackageName>().ok()?),
        None => None,
    };
    let api_version = r.opt_str()?.map(str::to_string);
    let skipped = (0..r.u32()?)
        .map(|_| r.str().map(str::to_string))
        .collect::<Option<Vec<_>>>()?;
    let count = r.u32()? as usize;
    let mut records = Vec::with_capacity(count.min(bytes.len() / 8));
    for _ in 0..count {
        records.push(r.record()?);
    }
    if r.pos != bytes.len() {
        return None;
    }
    let mut names = FilenameMemo::default();
    let keep = match filter {
        None => vec![true; records.len()],
        Some(filter) => {
            let peeked = records
                .iter()
                .map(|rec| names.peek(rec.filename))
                .collect::<Option<Vec<_>>>()?;
            let views: Vec<FileView<'_>> = peeked
                .iter()
                .zip(&records)
                .map(|((v, tags), rec)| (v, tags.as_deref(), rec.upload_time, rec.yanked.is_some()))
                .collect();
            filter.mask(&views)
        }
    };
    let mut pythons: HashMap<&str, VersionSpecifiers> = HashMap::new();
    let mut files = Vec::with_capacity(keep.iter().filter(|k| **k).count());
    for (rec, _) in records.into_iter().zip(keep).filter(|(_, k)| *k) {
        let requires_python = match rec.requires_python {
            None => None,
            Some(text) => Some(match pythons.get(text) {
                Some(spec) => spec.clone(),
                None => {
                    let spec = parse_requires_python(text).ok()?;
                    pythons.insert(text, spec.clone());
                    spec
                }
            }),
        };
        files.push(DistFile {
            filename: names.parse(rec.filename).ok()?,
            url: Url::parse(rec.url).ok()?,
            hashes: rec.hashes.clone().map()?,
            requires_python,
            yanked: rec.yanked.map(str::to_string),
            upload_time: rec.upload_time,
            size: rec.size,
            core_metadata: match rec.core_metadata {
                Some(mut h) => Some(h.map()?),
                None => None,
            },
        });
    }
    Some(ProjectPage {
        name,
        files,
        skipped,
        api_version,
    })
}

/// A file name that parses back to `name` (the page's own spelling is not kept: a JSON page may
/// name a file apart from its URL, and only the parsed parts matter). Wheel tag sets are
/// compressed back (`py3.py2-none-any`): the expansion is a cartesian product, so each part's
/// values in first-seen order give it back in the same order.
fn filename_text(name: &DistFilename) -> String {
    match name {
        DistFilename::Sdist(s) => format!("{}-{}.tar.gz", s.name, s.version),
        DistFilename::Wheel(w) => {
            let mut parts: [Vec<&str>; 3] = Default::default();
            for t in &w.tags {
                for (seen, value) in parts.iter_mut().zip([&t.interpreter, &t.abi, &t.platform]) {
                    if !seen.contains(&value.as_str()) {
                        seen.push(value);
                    }
                }
            }
            let build = w
                .build
                .as_ref()
                .map(|(n, rest)| format!("-{n}{rest}"))
                .unwrap_or_default();
            format!(
                "{}-{}{build}-{}-{}-{}.whl",
                w.name.as_ref().replace('-', "_"),
                w.version,
                parts[0].join("."),
                parts[1].join("."),
                parts[2].join(".")
            )
        }
    }
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
    fn map(&mut self, m: &BTreeMap<String, String>) {
        self.u32(m.len() as u32);
        for (k, v) in m {
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
    fn opt_timestamp(&mut self) -> Option<Option<jiff::Timestamp>> {
        match self.u8()? {
            0 => Some(None),
            1 => {
                let secs = self.u64()? as i64;
                let nanos = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as i32;
                Some(Some(jiff::Timestamp::new(secs, nanos).ok()?))
            }
            _ => None,
        }
    }
    /// One file's record (see [`encode`]); its maps are left unread, to be read if it is kept.
    fn record(&mut self) -> Option<Record<'a>> {
        let filename = self.str()?;
        let url = self.str()?;
        let hashes = self.clone();
        self.skip_map()?;
        let requires_python = self.opt_str()?;
        let yanked = self.opt_str()?;
        let upload_time = self.opt_timestamp()?;
        let size = self.opt_u64()?;
        let core_metadata = if self.u8()? == 1 {
            let at = self.clone();
            self.skip_map()?;
            Some(at)
        } else {
            None
        };
        Some(Record {
            filename,
            url,
            hashes,
            requires_python,
            yanked,
            upload_time,
            size,
            core_metadata,
        })
    }
    fn skip_map(&mut self) -> Option<()> {
        for _ in 0..self.u32()? {
            self.str()?;
            self.str()?;
        }
        Some(())
    }
    fn map(&mut self) -> Option<BTreeMap<String, String>> {
        (0..self.u32()?)
            .map(|_| Some((self.str()?.to_string(), self.str()?.to_string())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::parse;

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
    fn anything_else_is_not_a_page() {
        let page = parse::simple_json(PAGE, &base()).unwrap();
        let bytes = encode(&page);
        assert!(decode(&bytes[..bytes.len() - 1], None).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, None).is_none());
        let mut other = bytes;
        other[0] = FORMAT + 1;
        assert!(decode(&other, None).is_none());
        assert!(decode(b"{\"name\": \"demo\"}", None).is_none());
    }
}
