//! A project's files, each built when first read.
//!
//! In: the files of a page parsed from JSON or HTML (built already), or the kept rows of a page
//! read from the cache (a [`LazyFiles`]: the page cache's compact form, checked when it was
//! decoded). Out: [`Files`], read by index like a slice of [`DistFile`]s, and [`FileHead`]s:
//! what the version tables decide on (version, wheel tags and build tag, requires-python,
//! yanked, upload time), read off the rows without building the file.
//!
//! Why: a warm resolve reads pages that keep ~13,000 files for the target, of which the solver
//! asks about a few versions per project. Building every file (its URL and digests copied out,
//! its name and requires-python cloned) was most of reading a cached page. A cached page is
//! checked whole when it is decoded (each kept record's CRC-32 and fields), so building a file
//! later cannot fail.

use std::ops::Index;
use std::sync::Arc;

use pep440_rs::{Version, VersionSpecifiers};

use super::{DistFile, DistFilename};
use crate::tags::Tag;

/// A project's files, in page order (see the module docs).
#[derive(Clone)]
pub struct Files(Repr);

#[derive(Clone)]
enum Repr {
    /// Parsed from a page, or put together (a local folder, an in-memory index, tests).
    Built(Vec<DistFile>),
    /// Read from the page cache: built on first access.
    Lazy(Arc<dyn LazyFiles>),
}

/// A page whose files are built when first read: the page cache's compact form
/// (`super::compact`), which checked every kept record when it decoded the page, so building a
/// file cannot fail.
pub(super) trait LazyFiles: Send + Sync {
    /// How many files there are.
    fn len(&self) -> usize;
    /// What the version tables read of the `i`-th file, without building it.
    fn head(&self, i: usize) -> FileHead<'_>;
    /// See [`Files::version_keys`].
    fn version_keys(&self) -> (Vec<u32>, Vec<&Version>);
    /// The `i`-th file, built on first access.
    fn file(&self, i: usize) -> &DistFile;
    /// Every file, built, taken out.
    fn take_files(&mut self) -> Vec<DistFile>;
    /// Drop any user name or password from every file's URL, now or when the file is built.
    fn strip_userinfo(&mut self);
}

/// What the version tables read of a file without building it.
#[derive(Debug, Clone, Copy)]
pub struct FileHead<'a> {
    /// The version its name gives.
    pub version: &'a Version,
    /// A wheel's tags (`None`: an sdist).
    pub tags: Option<&'a [Tag]>,
    /// A wheel's build tag.
    pub build: Option<&'a (u64, String)>,
    /// `requires-python`.
    pub requires_python: Option<&'a VersionSpecifiers>,
    /// Whether it is yanked (the reason is on the [`DistFile`]).
    pub yanked: bool,
    /// Upload time, when the index says.
    pub upload_time: Option<jiff::Timestamp>,
}

impl<'a> FileHead<'a> {
    /// The head of a built file.
    pub fn of(file: &'a DistFile) -> FileHead<'a> {
        let (tags, build) = match &file.filename {
            DistFilename::Wheel(w) => (Some(&w.tags[..]), w.build.as_ref()),
            DistFilename::Sdist(_) => (None, None),
        };
        FileHead {
            version: file.filename.version(),
            tags,
            build,
            requires_python: file.requires_python.as_ref(),
            yanked: file.yanked.is_some(),
            upload_time: file.upload_time,
        }
    }
}

impl Files {
    /// Files read from the page cache, built when first read.
    pub(super) fn lazy(page: impl LazyFiles + 'static) -> Files {
        Files(Repr::Lazy(Arc::new(page)))
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Built(files) => files.len(),
            Repr::Lazy(page) => page.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th file, built on first access.
    pub fn get(&self, i: usize) -> Option<&DistFile> {
        match &self.0 {
            Repr::Built(files) => files.get(i),
            Repr::Lazy(page) => (i < page.len()).then(|| page.file(i)),
        }
    }

    /// What the version tables read of the `i`-th file, without building it.
    pub fn head(&self, i: usize) -> FileHead<'_> {
        match &self.0 {
            Repr::Built(files) => FileHead::of(&files[i]),
            Repr::Lazy(page) => page.head(i),
        }
    }

    /// Files with equal versions, cheaply: per file a key, and per key its version (files with
    /// equal keys have equal versions; keys with equal versions may differ). A cached page's
    /// keys are its file-name stems (a few per version), so its files are grouped by comparing
    /// a few hundred versions rather than sorting thousands of files by version.
    pub fn version_keys(&self) -> (Vec<u32>, Vec<&Version>) {
        match &self.0 {
            Repr::Built(files) => (
                (0..files.len() as u32).collect(),
                files.iter().map(|f| f.filename.version()).collect(),
            ),
            Repr::Lazy(page) => page.version_keys(),
        }
    }

    /// Every file's head, in order.
    pub fn heads(&self) -> impl DoubleEndedIterator<Item = FileHead<'_>> + ExactSizeIterator {
        (0..self.len()).map(|i| self.head(i))
    }

    /// Every file, in order (each built on first access).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            files: self,
            range: 0..self.len(),
        }
    }

    /// Every file built now, and the bytes they were read from let go (a page fetched just now,
    /// whose compact form is not kept mapped but held in memory whole).
    pub(super) fn into_built(self) -> Files {
        match self.0 {
            Repr::Lazy(mut page) => match Arc::get_mut(&mut page) {
                Some(page) => Files(Repr::Built(page.take_files())),
                None => Files(Repr::Built(built(&*page))),
            },
            built => Files(built),
        }
    }

    /// Credentials never ride along in file URLs (the index's realm supplies them): drop any
    /// user name or password from every file's URL, now or when the file is built.
    pub(super) fn strip_userinfo(&mut self) {
        match &mut self.0 {
            Repr::Built(files) => files.iter_mut().for_each(strip_userinfo),
            Repr::Lazy(page) => match Arc::get_mut(page) {
                Some(page) => page.strip_userinfo(),
                // Shared already (not the case where pages are read): build a copy.
                None => {
                    let mut files = built(&**page);
                    files.iter_mut().for_each(strip_userinfo);
                    self.0 = Repr::Built(files);
                }
            },
        }
    }
}

/// A copy of every file of a shared lazy page, each built.
fn built(page: &dyn LazyFiles) -> Vec<DistFile> {
    (0..page.len()).map(|i| page.file(i).clone()).collect()
}

/// Drop a file URL's user name and password, if it has any.
pub(super) fn strip_userinfo(file: &mut DistFile) {
    if file.url.has_userinfo() {
        file.url = super::auth::strip_userinfo(&file.url).into();
    }
}

impl From<Vec<DistFile>> for Files {
    fn from(files: Vec<DistFile>) -> Files {
        Files(Repr::Built(files))
    }
}

impl FromIterator<DistFile> for Files {
    fn from_iter<I: IntoIterator<Item = DistFile>>(files: I) -> Files {
        Files(Repr::Built(files.into_iter().collect()))
    }
}

impl Default for Files {
    fn default() -> Files {
        Files(Repr::Built(Vec::new()))
    }
}

impl Index<usize> for Files {
    type Output = DistFile;
    fn index(&self, i: usize) -> &DistFile {
        match &self.0 {
            Repr::Built(files) => &files[i],
            Repr::Lazy(page) => page.file(i),
        }
    }
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The files of a [`Files`], in order.
#[derive(Clone)]
pub struct Iter<'a> {
    files: &'a Files,
    range: std::ops::Range<usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a DistFile;
    fn next(&mut self) -> Option<&'a DistFile> {
        self.range.next().map(|i| &self.files[i])
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range.next_back().map(|i| &self.files[i])
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Files {
    type Item = &'a DistFile;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}
