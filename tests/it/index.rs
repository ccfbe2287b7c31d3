//! The index client against a loopback server serving recorded real index data
//! (`testdata/index`), in JSON and HTML, with and without `.metadata` files, with range reads,
//! and with every fault the index client handles.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use pep440_rs::Version;
use pep508_rs::PackageName;
use planner::index::client::ClientSettings;
use planner::index::{
    BinaryPolicy, Index, IndexError, IndexLocation, IndexSettings, IndexSource, Project, Unusable,
    candidates,
};
use planner::printer::Printer;

use crate::common::index_server::{Fault, IndexServer, PageMode, testdata_index};
use crate::common::{TestContext, files_under, regex_escape};
use crate::planner_snapshot;

fn name(n: &str) -> PackageName {
    PackageName::from_str(n).unwrap()
}

/// An index error as the user reads it: its message, then its help, with the loopback index's
/// address written `http://[INDEX]/` (its port changes every run).
fn shown(err: &IndexError, server: &IndexServer) -> String {
    let mut text = err.to_string();
    if let Some(help) = miette::Diagnostic::help(err) {
        text.push_str(&format!("\nhelp: {help}"));
    }
    let base = server.url().trim_end_matches("simple/").to_string();
    text.replace(&base, "http://[INDEX]/")
}

/// Insta settings for index errors: the loopback ports, durations, and the byte counts of a
/// reply cut off (how much arrived before the cap or the deadline depends on the machine).
fn error_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"(127\.0\.0\.1|localhost):\d+", "$1:[PORT]");
    settings.add_filter(
        r"\b\d+ (bytes received|bytes of the body|bytes of this reply)",
        "[N] $1",
    );
    settings.add_filter(r"\b\d+(\.\d+)?(ms|s)\b", "[TIME]");
    settings
}

fn fast_client() -> ClientSettings {
    ClientSettings {
        read_timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(5),
        retries: 3,
        backoff: Duration::from_millis(10),
        ..ClientSettings::default()
    }
}

fn index_with(
    urls: &[String],
    cache: Option<&Path>,
    tweak: impl FnOnce(&mut IndexSettings),
) -> Index {
    let mut settings = IndexSettings {
        indexes: urls
            .iter()
            .map(|u| IndexLocation::parse(u).unwrap())
            .collect(),
        cache_dir: cache.map(Path::to_path_buf),
        client: fast_client(),
        ..IndexSettings::default()
    };
    tweak(&mut settings);
    Index::new(settings, &Printer::new(true)).unwrap()
}

fn index(url: &str) -> Index {
    index_with(&[url.to_string()], None, |_| {})
}

fn project(index: &Index, n: &str) -> Arc<Project> {
    index.project(&name(n)).unwrap().unwrap()
}

fn versions(p: &Project) -> Vec<String> {
    let mut v: Vec<Version> = p
        .files
        .iter()
        .map(|f| f.filename.version().clone())
        .collect();
    v.sort();
    v.dedup();
    v.iter().map(ToString::to_string).collect()
}

fn h200_tags() -> planner::tags::Tags {
    planner::inventory::cpython_tags(
        3,
        12,
        &planner::inventory::Platform::parse("x86_64-manylinux_2_28").unwrap(),
    )
}

#[test]
fn json_and_html_pages_agree() {
    let server = IndexServer::recorded();
    let json = project(&index(&server.url()), "torch");
    server.set_mode(PageMode::HtmlOnly);
    let html = project(&index(&server.url()), "Torch");
    assert_eq!(versions(&json), versions(&html));
    insta::assert_snapshot!("torch_versions", versions(&json).join("\n"));
    for (a, b) in json.files.iter().zip(&html.files) {
        assert_eq!(a.url, b.url);
        assert_eq!(a.hashes, b.hashes);
        assert_eq!(a.requires_python, b.requires_python);
        assert_eq!(a.yanked, b.yanked);
        assert!(a.url.fragment().is_none());
    }
    // The JSON request asked for PEP 691; the HTML-only server answered HTML anyway.
    let asks = server.requests("/simple/torch/");
    assert!(
        asks.iter()
            .all(|l| l.headers["accept"].starts_with("application/vnd.pypi.simple.v1+json"))
    );
}

#[test]
fn local_folder_and_file_url_serve_the_same_index() {
    let root = testdata_index().join("simple");
    let folder = index(root.to_str().unwrap());
    let file_url = url::Url::from_directory_path(&root).unwrap().to_string();
    let by_url = index(&file_url);
    let a = project(&folder, "triton");
    let b = project(&by_url, "triton");
    assert_eq!(versions(&a), versions(&b));
    insta::assert_snapshot!("triton_versions", versions(&a).join("\n"));
    // Metadata comes from the recorded .metadata files next to the pages.
    let torch = project(&folder, "torch");
    let file = torch
        .files
        .iter()
        .find(|f| f.filename.version().to_string() == "2.11.0")
        .unwrap();
    let metadata = folder.metadata(&torch, file).unwrap();
    assert!(
        metadata
            .requires_dist
            .iter()
            .any(|r| r.to_string().starts_with("triton==3.6.0")),
        "{:?}",
        metadata.requires_dist
    );
    assert!(folder.project(&name("no-such-project")).unwrap().is_none());
}

#[test]
fn torch_2_12_pins_triton_3_7_in_the_recorded_index() {
    let server = IndexServer::recorded();
    let index = index(&server.url());
    let torch = project(&index, "torch");
    let c = candidates(
        &torch,
        &planner::inventory::Environment {
            python_version: Version::from_str("3.12.3").unwrap(),
            ..fake_env()
        },
        &BinaryPolicy::default(),
    );
    let v212 = c
        .iter()
        .find(|c| c.version.to_string() == "2.12.0")
        .unwrap();
    let file = v212.file.as_ref().expect("a cp312 manylinux wheel");
    let metadata = index.metadata(&torch, file).unwrap();
    assert!(
        metadata
            .requires_dist
            .iter()
            .any(|r| r.to_string().starts_with("triton==3.7.0"))
    );
}

fn fake_env() -> planner::inventory::Environment {
    let inventory =
        planner::inventory::load_venv(&crate::common::h200_fixtures().join("h200-venv"))
            .expect("the shared h200 fixture");
    let mut env = inventory.environment;
    env.tags = h200_tags();
    env
}

#[test]
fn candidates_follow_tags_and_requires_python() {
    let server = IndexServer::recorded();
    let index = index(&server.url());
    let numpy = project(&index, "numpy");
    let mut env = fake_env();
    let c = candidates(&numpy, &env, &BinaryPolicy::default());
    assert!(
        c.windows(2).all(|w| w[0].version > w[1].version),
        "newest first"
    );
    let best = c.iter().find(|c| c.is_usable()).unwrap();
    let file = best.file.as_ref().unwrap().filename_str();
    insta::assert_snapshot!("numpy_best_file_h200", file);
    // An old Python: requires-python excludes the newest numpy, and says so.
    env.python_version = Version::from_str("3.8.10").unwrap();
    let c = candidates(&numpy, &env, &BinaryPolicy::default());
    assert!(
        matches!(c[0].unusable, Some(Unusable::RequiresPython(_))),
        "{:?}",
        c[0].unusable
    );
    // --only-binary :all: against an sdist-only view.
    let only = BinaryPolicy::new(&[":all:".to_string()], &["numpy".to_string()]);
    let c = candidates(&numpy, &fake_env(), &only);
    assert!(c.iter().all(|c| c.unusable != Some(Unusable::OnlySdist)));
}

#[test]
fn range_reads_take_three_requests_for_torch() {
    let server = IndexServer::recorded();
    server.set_metadata_files(false);
    let index = index(&server.url());
    let torch = project(&index, "torch");
    let file = torch
        .files
        .iter()
        .find(|f| f.filename_str() == "torch-2.11.0-cp312-cp312-manylinux_2_28_x86_64.whl")
        .unwrap();
    let metadata = index.metadata(&torch, file).unwrap();
    assert_eq!(metadata.version.to_string(), "2.11.0");
    assert_is_recorded(&metadata, &testdata_index(), &file.filename_str());
    let (ranges, _) = reads_of(&server, &file.filename_str());
    assert!(ranges.iter().all(|r| r.starts_with("bytes=")), "{ranges:?}");
    assert!(
        (2..=3).contains(&ranges.len()),
        "{} range requests: {ranges:?}",
        ranges.len()
    );
}

#[test]
fn whole_wheel_when_the_server_ignores_ranges() {
    let server = IndexServer::recorded();
    server.set_metadata_files(false);
    server.set_ranges(false);
    let index = index(&server.url());
    let (packaging, file) = packaging_wheel(&index);
    let metadata = index.metadata(&packaging, &file).unwrap();
    assert_eq!(metadata.name.as_ref(), "packaging");
    assert_eq!(&metadata.version, file.filename.version());
}

/// The `.metadata` file recorded for the file `name` under `root/files`.
fn recorded_metadata(root: &Path, name: &str) -> Vec<u8> {
    std::fs::read(root.join("files").join(format!("{name}.metadata"))).unwrap()
}

/// `metadata` is what the `.metadata` file recorded for `name` under `root/files` says.
fn assert_is_recorded(metadata: &planner::metadata::CoreMetadata, root: &Path, name: &str) {
    let recorded = recorded_metadata(root, name);
    assert_eq!(
        *metadata,
        planner::metadata::CoreMetadata::parse(&recorded).unwrap(),
        "{name}"
    );
}

/// The recorded packaging wheel and its project.
fn packaging_wheel(index: &Index) -> (Arc<Project>, planner::index::DistFile) {
    let packaging = project(index, "packaging");
    let wheel_name = std::fs::read_dir(testdata_index().join("wheels"))
        .unwrap()
        .flatten()
        .find_map(|e| e.file_name().to_str().map(str::to_string))
        .unwrap();
    let file = packaging
        .files
        .iter()
        .find(|f| f.filename_str() == wheel_name)
        .unwrap()
        .clone();
    (packaging, file)
}

#[test]
fn unadvertised_metadata_of_a_wheel_is_read_by_ranges_without_asking_for_it() {
    let server = IndexServer::recorded();
    let index = index(&server.url());
    let (packaging, mut file) = packaging_wheel(&index);
    // The server has the `.metadata` file but the page does not say so.
    file.core_metadata = None;
    let metadata = index.metadata(&packaging, &file).unwrap();
    assert_eq!(&metadata.version, file.filename.version());
    let asked = server.requests(&format!("/files/{}", file.filename_str()));
    assert!(!asked.is_empty());
    assert!(
        asked
            .iter()
            .all(|l| !l.path.ends_with(".metadata") && l.headers.contains_key("range")),
        "{:?}",
        asked.iter().map(|l| &l.path).collect::<Vec<_>>()
    );
    assert_is_recorded(&metadata, &testdata_index(), &file.filename_str());
}

#[test]
fn unadvertised_metadata_is_asked_for_when_the_server_ignores_ranges() {
    let server = IndexServer::recorded();
    server.set_ranges(false);
    let index = index(&server.url());
    let (packaging, mut file) = packaging_wheel(&index);
    file.core_metadata = None;
    let metadata = index.metadata(&packaging, &file).unwrap();
    assert_eq!(&metadata.version, file.filename.version());
    // One range read (answered with the whole file, left unread), then the `.metadata` file:
    // the wheel is not downloaded a second time.
    let mut asked: Vec<String> = server
        .requests(&format!("/files/{}", file.filename_str()))
        .iter()
        .map(|l| l.path.clone())
        .collect();
    asked.dedup(); // a range read sent again by the hedge (see `reads_of`)
    assert_eq!(
        asked,
        [
            format!("/files/{}", file.filename_str()),
            format!("/files/{}.metadata", file.filename_str())
        ]
    );
}

/// How [`bigwheel_index`] lays out its wheels and lists them.
#[derive(Clone, Copy)]
struct Bigwheel {
    /// `.dist-info` first, as torch's wheels before 2.7; else last, as `wheel` writes them.
    dist_info_first: bool,
    /// The size the listing gives each wheel (a PEP 691 JSON page); `None`: an HTML page,
    /// which gives none.
    listed_size: Option<u64>,
}

/// An index of one project, `bigwheel`, whose wheels hold 3,000 members besides `.dist-info`,
/// so that the central directory (~200 KB) is larger than the first range read. Written by
/// Python's `zipfile`; the `.metadata` files beside them hold the same METADATA.
fn bigwheel_index(root: &Path, versions: &[&str], layout: Bigwheel) {
    let script = r#"
import json, os, sys, zipfile
root, first, size, versions = sys.argv[1], sys.argv[2] == "first", sys.argv[3], sys.argv[4:]
for d in ("simple/bigwheel", "wheels", "files"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
files = []
for v in versions:
    name = f"bigwheel-{v}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.1\nName: bigwheel\nVersion: {v}\nRequires-Dist: packaging>=2{v[0]}\n\n".encode()
    with zipfile.ZipFile(os.path.join(root, "wheels", name), "w", zipfile.ZIP_DEFLATED) as zf:
        dist_info = [(f"bigwheel-{v}.dist-info/METADATA", meta),
                     (f"bigwheel-{v}.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n")]
        members = [(f"bigwheel/m{i:04}.py", f"x = {i}\n") for i in range(3000)]
        for path, data in (dist_info + members if first else members + dist_info):
            zf.writestr(path, data)
        zf.writestr(f"bigwheel-{v}.dist-info/RECORD", "")
    with open(os.path.join(root, "files", name + ".metadata"), "wb") as f:
        f.write(meta)
    files.append(name)
if size == "none":
    links = "".join(f'<a href="../../files/{n}">{n}</a><br />' for n in files)
    with open(os.path.join(root, "simple/bigwheel/index.html"), "w") as f:
        f.write("<!DOCTYPE html><html><body>" + links + "</body></html>")
else:
    page = {"meta": {"api-version": "1.1"}, "name": "bigwheel", "versions": versions,
            "files": [{"filename": n, "url": f"../../files/{n}", "hashes": {}, "size": int(size)}
                      for n in files]}
    with open(os.path.join(root, "simple/bigwheel/index.json"), "w") as f:
        json.dump(page, f)
"#;
    let status = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(root)
        .arg(if layout.dist_info_first {
            "first"
        } else {
            "last"
        })
        .arg(
            layout
                .listed_size
                .map_or("none".to_string(), |s| s.to_string()),
        )
        .args(versions)
        .status()
        .expect("python3 runs");
    assert!(status.success());
}

/// [`bigwheel_index`] as torch's wheels before 2.7, listed by an HTML page.
fn dist_info_first_index(root: &Path, versions: &[&str]) {
    bigwheel_index(
        root,
        versions,
        Bigwheel {
            dist_info_first: true,
            listed_size: None,
        },
    );
}

/// The distinct range requests (their `Range` headers, in order) and the `.metadata` requests
/// made for one file. Distinct: a small range read not answered within the hedge delay is sent
/// again (`Client::get_hedged`), which on a loaded machine can happen on loopback too.
fn reads_of(server: &IndexServer, file: &str) -> (Vec<String>, usize) {
    let asked = server.requests(&format!("/files/{file}"));
    let mut ranges: Vec<String> = Vec::new();
    for l in asked.iter().filter(|l| !l.path.ends_with(".metadata")) {
        let range = l.headers.get("range").cloned().unwrap_or_default();
        if !ranges.contains(&range) {
            ranges.push(range);
        }
    }
    let metadata_files = asked
        .iter()
        .filter(|l| l.path.ends_with(".metadata"))
        .count();
    (ranges, metadata_files)
}

#[test]
fn a_second_large_wheel_reads_its_head_with_the_tail_and_asks_for_its_metadata_file() {
    let dir = tempfile::tempdir().unwrap();
    dist_info_first_index(dir.path(), &["2.0", "1.0"]);
    let server = IndexServer::start(dir.path());
    // No `.metadata` files: the range reads must give the answer, in a known number of reads.
    server.set_metadata_files(false);
    let index = index(&server.url());
    let big = project(&index, "bigwheel");
    let wheel = |v: &str| {
        big.files
            .iter()
            .find(|f| f.filename.version().to_string() == v)
            .unwrap()
            .clone()
    };
    for v in ["2.0", "1.0"] {
        let metadata = index.metadata(&big, &wheel(v)).unwrap();
        assert_eq!(metadata.version.to_string(), v);
        assert_is_recorded(
            &metadata,
            dir.path(),
            &format!("bigwheel-{v}-py3-none-any.whl"),
        );
    }
    // The first wheel: the tail, the central directory, METADATA at the start; no `.metadata`.
    let (first, asked) = reads_of(&server, "bigwheel-2.0-py3-none-any.whl");
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(asked, 0);
    // The second: its `.metadata` file (404 here; on loopback the range reads may win before
    // that request is sent) beside the tail and the head that holds METADATA, then the first
    // 64 KiB of the central directory, where its entry is; the rest of the directory (~200 KB)
    // is never read.
    let (second, asked) = reads_of(&server, "bigwheel-1.0-py3-none-any.whl");
    assert!(asked <= 1);
    let reads = Reads::of(
        &second,
        &dir.path().join("wheels/bigwheel-1.0-py3-none-any.whl"),
    );
    assert_eq!((reads.prefix, reads.other.len()), (1, 0), "{second:?}");
}

#[test]
fn a_large_wheel_with_its_dist_info_last_reads_directory_and_metadata_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let layout = Bigwheel {
        dist_info_first: false,
        listed_size: None,
    };
    bigwheel_index(dir.path(), &["2.0", "1.0"], layout);
    let server = IndexServer::start(dir.path());
    server.set_metadata_files(false);
    let index = index(&server.url());
    let big = project(&index, "bigwheel");
    for file in big.files.iter() {
        let metadata = index.metadata(&big, file).unwrap();
        assert_is_recorded(&metadata, dir.path(), &file.filename_str());
    }
    // The second wheel: tail and head, then one read of the directory with METADATA before
    // it (a prefix read may have started before the head said the `.dist-info` comes last).
    let (second, _) = reads_of(&server, "bigwheel-1.0-py3-none-any.whl");
    let reads = Reads::of(
        &second,
        &dir.path().join("wheels/bigwheel-1.0-py3-none-any.whl"),
    );
    assert_eq!(reads.other.len(), 1, "{second:?}");
    assert!(reads.prefix <= 1, "{second:?}");
}

#[test]
fn a_wheel_the_index_lists_as_large_is_read_as_one_from_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let layout = Bigwheel {
        dist_info_first: true,
        listed_size: Some(500 << 20),
    };
    bigwheel_index(dir.path(), &["1.0"], layout);
    let server = IndexServer::start(dir.path());
    server.set_metadata_files(false);
    let index = index(&server.url());
    let big = project(&index, "bigwheel");
    let metadata = index.metadata(&big, &big.files[0]).unwrap();
    assert_is_recorded(&metadata, dir.path(), "bigwheel-1.0-py3-none-any.whl");
    // Read as the second wheel above, though nothing was learned of the project: tail, head,
    // the directory's first 64 KiB (and its `.metadata` file, unless the reads won first).
    let (first, asked) = reads_of(&server, "bigwheel-1.0-py3-none-any.whl");
    assert!(asked <= 1);
    let reads = Reads::of(
        &first,
        &dir.path().join("wheels/bigwheel-1.0-py3-none-any.whl"),
    );
    assert_eq!((reads.prefix, reads.other.len()), (1, 0), "{first:?}");
}

/// A range read the server does not answer is sent again after the hedge delay, and the second
/// answer is used: the read waits neither for the first (stalled here for 20 s) nor for the
/// client's read timeout (5 s here), after which a retry would send it again too.
#[test]
fn a_stalled_range_read_is_sent_again_and_the_first_answer_used() {
    let dir = tempfile::tempdir().unwrap();
    dist_info_first_index(dir.path(), &["1.0"]);
    let server = IndexServer::start(dir.path());
    server.set_metadata_files(false);
    let index = index(&server.url());
    let big = project(&index, "bigwheel");
    let wheel = "bigwheel-1.0-py3-none-any.whl";
    let stall = Duration::from_secs(20);
    server.fault(
        &format!("/files/{wheel}"),
        Fault::StallFirst { stall, times: 1 },
    );
    let started = std::time::Instant::now();
    let metadata = index.metadata(&big, &big.files[0]).unwrap();
    let timeout = fast_client().read_timeout;
    assert!(started.elapsed() < timeout / 2, "{:?}", started.elapsed());
    assert_is_recorded(&metadata, dir.path(), wheel);
    let tails: Vec<_> = server
        .requests(&format!("/files/{wheel}"))
        .into_iter()
        .filter(|l| l.headers.get("range").is_some_and(|r| r == "bytes=-65536"))
        .collect();
    assert_eq!(
        tails.len(),
        2,
        "the stalled tail read and the one sent again"
    );
    // Sent again after the hedge delay (20 ms from sending; arrivals on a loaded machine can
    // be closer), long before a timeout's retry.
    let gap = tails[1].at - tails[0].at;
    assert!(gap < timeout / 2, "sent again after {gap:?}");
}

/// A read that downloads the wheel whole when the server ignores `Range` (its file list) is
/// never sent twice, however long the answer takes: two whole downloads would race.
#[test]
fn a_read_that_may_download_a_whole_wheel_is_not_sent_twice() {
    let server = IndexServer::recorded();
    server.set_ranges(false);
    let index = index(&server.url());
    let (_, file) = packaging_wheel(&index);
    let path = format!("/files/{}", file.filename_str());
    let stall = Duration::from_millis(500);
    server.fault(&path, Fault::StallFirst { stall, times: 1 });
    let members = index.wheel_members(&file).expect("the wheel's file list");
    assert!(members.iter().any(|m| m.ends_with(".dist-info/METADATA")));
    let asked: Vec<_> = server
        .requests(&path)
        .into_iter()
        .filter(|l| !l.path.ends_with(".metadata"))
        .collect();
    assert_eq!(asked.len(), 1, "one whole download, waited for");
}

/// A large wheel's range reads, sorted by what they read.
struct Reads {
    /// Reads of the first 64 KiB of the central directory.
    prefix: usize,
    /// Any other read, besides the tail (`bytes=-65536`) and the head (`bytes=0-131071`),
    /// which must both be there.
    other: Vec<String>,
}

impl Reads {
    /// `ranges` (`Range` headers) made of the wheel at `path`.
    fn of(ranges: &[String], path: &Path) -> Reads {
        let zip = std::fs::read(path).unwrap();
        let eocd = zip.len() - 22;
        let cd_offset = u32::from_le_bytes(zip[eocd + 16..eocd + 20].try_into().unwrap());
        let prefix = format!("bytes={cd_offset}-{}", u64::from(cd_offset) + 65535);
        assert!(ranges.iter().any(|r| r == "bytes=-65536"), "{ranges:?}");
        assert!(ranges.iter().any(|r| r == "bytes=0-131071"), "{ranges:?}");
        let rest = ranges
            .iter()
            .filter(|r| !["bytes=-65536", "bytes=0-131071"].contains(&r.as_str()));
        let (prefixes, other): (Vec<&String>, Vec<&String>) = rest.partition(|r| **r == prefix);
        Reads {
            prefix: prefixes.len(),
            other: other.into_iter().cloned().collect(),
        }
    }
}

#[test]
fn a_second_large_wheel_takes_its_metadata_file_or_its_ranges_with_one_answer() {
    let dir = tempfile::tempdir().unwrap();
    dist_info_first_index(dir.path(), &["2.0", "1.0"]);
    let server = IndexServer::start(dir.path());
    let index = index(&server.url());
    let big = project(&index, "bigwheel");
    for (i, file) in big.files.iter().enumerate() {
        if i == 1 {
            // On loopback the second wheel's range reads could win before its `.metadata`
            // request is even sent; slowed, they lose to it, so the race is seen every time.
            server.fault("/files/", Fault::StallRanges(Duration::from_millis(500)));
        }
        let metadata = index.metadata(&big, file).unwrap();
        assert_eq!(&metadata.version, file.filename.version());
        let requires: Vec<String> = metadata
            .requires_dist
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(
            requires,
            [format!(
                "packaging>=2{}",
                &metadata.version.to_string()[..1]
            )]
        );
    }
    // The first wheel is not raced (nothing is known of the project yet); the second is.
    assert_eq!(reads_of(&server, "bigwheel-2.0-py3-none-any.whl").1, 0);
    assert_eq!(reads_of(&server, "bigwheel-1.0-py3-none-any.whl").1, 1);
}

#[test]
fn fault_500_is_retried() {
    let server = IndexServer::recorded();
    server.fault(
        "/simple/requests/",
        Fault::Status {
            status: 500,
            times: 2,
        },
    );
    let p = project(&index(&server.url()), "requests");
    assert!(!p.files.is_empty());
    assert_eq!(server.requests("/simple/requests/").len(), 3);
    // Persistent 5xx: the error names the URL and the status.
    server.fault(
        "/simple/numpy/",
        Fault::Status {
            status: 503,
            times: 100,
        },
    );
    let err = index(&server.url()).project(&name("numpy")).unwrap_err();
    assert!(
        matches!(err, IndexError::Status { status: 503, .. }),
        "{err}"
    );
    assert_eq!(
        server.requests("/simple/numpy/").len(),
        4,
        "1 try + 3 retries"
    );
}

#[test]
fn fault_429_honours_retry_after() {
    let server = IndexServer::recorded();
    server.fault(
        "/simple/tqdm/",
        Fault::TooMany {
            retry_after: 1,
            times: 1,
        },
    );
    let p = project(&index(&server.url()), "tqdm");
    assert!(!p.files.is_empty());
    let log = server.requests("/simple/tqdm/");
    assert_eq!(log.len(), 2);
    let waited = log[1].at.duration_since(log[0].at);
    assert!(waited >= Duration::from_millis(950), "waited {waited:?}");
}

#[test]
fn fault_stall_times_out_as_a_network_error() {
    let server = IndexServer::recorded();
    server.fault("/simple/regex/", Fault::Stall(Duration::from_secs(3)));
    let index = index_with(&[server.url()], None, |s| {
        s.client.read_timeout = Duration::from_millis(300);
        s.client.retries = 1;
    });
    let err = index.project(&name("regex")).unwrap_err();
    assert!(matches!(err, IndexError::Network { .. }), "{err:?}");
    error_settings().bind(|| insta::assert_snapshot!("stall_times_out", shown(&err, &server)));
    assert_eq!(server.requests("/simple/regex/").len(), 2);
}

/// The advertised `.metadata` file of jinja2's first wheel, and its project.
fn jinja_wheel(server: &IndexServer) -> (Arc<Project>, planner::index::DistFile) {
    let jinja = project(&index(&server.url()), "jinja2");
    let file = jinja
        .files
        .iter()
        .find(|f| f.filename_str().ends_with(".whl") && f.core_metadata.is_some())
        .unwrap()
        .clone();
    (jinja, file)
}

/// A `.metadata` reply with no Content-Length and a body that never ends took
/// `propose` to 23.7 GB in 90 s; it now stops at the METADATA cap (8 MiB), naming the URL and
/// the bytes seen, and is not retried.
#[test]
fn an_endless_metadata_body_stops_at_the_cap() {
    let server = IndexServer::recorded();
    let (jinja, file) = jinja_wheel(&server);
    let path = format!("/files/{}.metadata", file.filename_str());
    server.fault(&path, Fault::EndlessBody);
    let started = std::time::Instant::now();
    let err = index(&server.url()).metadata(&jinja, &file).unwrap_err();
    assert!(matches!(err, IndexError::TooLarge { .. }), "{err:?}");
    error_settings().bind(|| insta::assert_snapshot!("endless_metadata", shown(&err, &server)));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests(&path).len(), 1, "a cap is not retried");
}

/// A 4 GiB Content-Length is refused before a byte of the body is read; a page over its cap
/// (here 1 MiB, `PLANNER_MAX_PAGE_BYTES`) too, and one with no length is cut off at it.
#[test]
fn oversized_replies_are_refused_on_their_length_or_cut_off() {
    let server = IndexServer::recorded();
    let (jinja, file) = jinja_wheel(&server);
    let path = format!("/files/{}.metadata", file.filename_str());
    server.fault(&path, Fault::HugeBody(4 << 30));
    let err = index(&server.url()).metadata(&jinja, &file).unwrap_err();
    insta::assert_snapshot!("huge_metadata", shown(&err, &server));
    server.fault("/simple/sympy/", Fault::HugeBody(3 << 30));
    server.fault("/simple/mpmath/", Fault::EndlessBody);
    let small = index_with(&[server.url()], None, |s| {
        s.client.max_page_bytes = 1 << 20;
    });
    for page in ["sympy", "mpmath"] {
        let err = small.project(&name(page)).unwrap_err();
        assert!(matches!(err, IndexError::TooLarge { .. }), "{err:?}");
        error_settings().bind(|| {
            insta::assert_snapshot!(format!("oversized_page_{page}"), shown(&err, &server));
        });
    }
}

/// A page sent one byte at a time (each byte well inside the read timeout) fails at its
/// deadline, naming the bytes received, and is not retried; without the deadline it would take
/// its full length in seconds.
#[test]
fn a_trickling_page_fails_at_its_deadline() {
    let server = IndexServer::recorded();
    server.fault("/simple/regex/", Fault::Drip(Duration::from_millis(20)));
    let index = index_with(&[server.url()], None, |s| {
        // Long beside the 20 ms between bytes, so that a loaded machine never makes one gap a
        // read timeout (a retried network error): the deadline is what ends it.
        s.client.read_timeout = Duration::from_secs(2);
    });
    let started = std::time::Instant::now();
    let err = index.project(&name("regex")).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, IndexError::TimedOut { .. }), "{err:?}");
    error_settings().bind(|| insta::assert_snapshot!("trickling_page", shown(&err, &server)));
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(server.requests("/simple/regex/").len(), 1);
}

/// The run's network budget ends every request, however its server stalls and however many
/// retries are left.
#[test]
fn the_run_budget_ends_stalled_requests() {
    let server = IndexServer::recorded();
    server.fault("/simple/", Fault::Stall(Duration::from_secs(4)));
    let index = index_with(&[server.url()], None, |s| {
        s.client.read_timeout = Duration::from_secs(10);
        s.client.run_timeout = Duration::from_millis(700);
    });
    let started = std::time::Instant::now();
    let err = index.project(&name("regex")).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let mut settings = error_settings();
    // The budget itself is the point here: its figure stays, only other times are filtered.
    settings.add_filter(r"budget of \[TIME\]", "budget of 0.7s");
    settings.bind(|| insta::assert_snapshot!("run_budget_spent", shown(&err, &server)));
    // Later requests are not sent at all.
    let err = index.project(&name("sympy")).unwrap_err();
    assert!(matches!(err, IndexError::TimedOut { .. }), "{err:?}");
    assert!(server.requests("/simple/sympy/").is_empty());
}

/// `file://` links on a remote http index were followed (`file:///etc/shadow` opened,
/// and the error told whether it existed; a FIFO behind one hung planner), and a `javascript:`
/// href failed the whole page. Now only the http(s) files are listed; the others are skipped,
/// with one `-v` note, and never opened.
#[test]
#[allow(unsafe_code)] // libc::mkfifo makes the FIFO the test reads
fn an_http_index_links_only_to_http_files() {
    let server = IndexServer::recorded();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo-1.0.tar.gz");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let page = serde_json::json!({
        "meta": {"api-version": "1.1"},
        "name": "mpmath",
        "files": [
            {"filename": "mpmath-1.0.0.tar.gz", "url": "file:///etc/shadow", "hashes": {}},
            {"filename": "mpmath-1.1.0.tar.gz", "url": format!("file://{}", fifo.display()), "hashes": {}},
            {"filename": "mpmath-1.2.0.tar.gz", "url": "javascript:alert(1)", "hashes": {}},
            {"filename": "mpmath-1.3.0-py3-none-any.whl",
             "url": "../../files/mpmath-1.3.0-py3-none-any.whl", "hashes": {}},
        ]
    });
    server.fault(
        "/simple/mpmath/",
        Fault::Body(serde_json::to_vec(&page).unwrap()),
    );
    let index = index(&server.url());
    let mpmath = project(&index, "mpmath");
    let urls: Vec<&str> = mpmath.files.iter().map(|f| f.url.as_str()).collect();
    assert_eq!(urls.len(), 1, "{urls:?}");
    assert!(urls[0].starts_with("http://127.0.0.1:"), "{urls:?}");
    // The one file left reads as usual.
    let metadata = index.metadata(&mpmath, &mpmath.files[0]).unwrap();
    assert_eq!(metadata.name.as_ref(), "mpmath");
}

#[test]
fn fault_truncated_body_is_a_network_error_and_never_cached() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    server.fault("/simple/sympy/", Fault::Truncate { times: 10 });
    let index1 = index_with(&[server.url()], Some(&ctx.cache()), |s| {
        s.client.retries = 1
    });
    let err = index1.project(&name("sympy")).unwrap_err();
    assert!(matches!(err, IndexError::Network { .. }), "{err:?}");
    insta::assert_snapshot!(shown(&err, &server), @r#"
        network error fetching http://[INDEX]/simple/sympy/: error decoding response body: request or response body error: error reading a body from connection: end of file before message length reached (2738 bytes of the body received)
        help: check the connection and the index URL; `--offline` answers from the cache. PLANNER_HTTP_TIMEOUT (seconds) and PLANNER_HTTP_RETRIES tune the client
        "#);
    assert!(files_under(&ctx.cache()).is_empty(), "nothing cached");
    // Once the server behaves, the page comes whole (retries cure a single cut too).
    server.clear_faults();
    server.fault("/simple/sympy/", Fault::Truncate { times: 1 });
    let index2 = index_with(&[server.url()], Some(&ctx.cache()), |_| {});
    assert!(!project(&index2, "sympy").files.is_empty());
}

#[test]
fn fault_invalid_json_is_an_invalid_page() {
    let server = IndexServer::recorded();
    server.fault("/simple/mpmath/", Fault::InvalidJson);
    let err = index(&server.url()).project(&name("mpmath")).unwrap_err();
    assert!(matches!(err, IndexError::InvalidPage { .. }), "{err:?}");
    insta::assert_snapshot!(shown(&err, &server), @r#"
        invalid project page http://[INDEX]/simple/mpmath/: invalid JSON: EOF while parsing a value at line 1 column 41
        help: the index served a page that is not a valid simple-repository page (PEP 503/691)
        "#);
}

#[test]
fn fault_html_answered_to_a_json_request_falls_back_to_pep_503() {
    let server = IndexServer::recorded();
    server.set_mode(PageMode::HtmlOnly);
    let p = project(&index(&server.url()), "filelock");
    assert!(!p.files.is_empty());
    assert!(p.files.iter().any(|f| f.requires_python.is_some()));
}

#[test]
fn fault_wrong_name_in_metadata_is_rejected() {
    let server = IndexServer::recorded();
    let jinja = project(&index(&server.url()), "jinja2");
    let file = jinja
        .files
        .iter()
        .find(|f| f.filename_str().ends_with(".whl"))
        .unwrap();
    let other = b"Metadata-Version: 2.1\nName: evil-package\nVersion: 1.0\n".to_vec();
    server.fault(
        &format!("/files/{}.metadata", file.filename_str()),
        Fault::Body(other),
    );
    // Without the advertised hash, so the name check (not the hash check) catches it.
    let mut unadvertised = file.clone();
    unadvertised.core_metadata = None;
    let err = index(&server.url())
        .metadata(&jinja, &unadvertised)
        .unwrap_err();
    assert!(
        matches!(err, IndexError::MetadataMismatch { .. }),
        "{err:?}"
    );
    insta::assert_snapshot!(shown(&err, &server), @r#"
        metadata of jinja2-3.1.6-py3-none-any.whl says evil-package 1.0, not jinja2 3.1.6
        help: the index serves inconsistent metadata for this file; the version is not used
        "#);
    // With the advertised hash, the hash check catches it first.
    let err = index(&server.url()).metadata(&jinja, file).unwrap_err();
    insta::assert_snapshot!(shown(&err, &server), @r#"
        jinja2-3.1.6-py3-none-any.whl.metadata (http://[INDEX]/files/jinja2-3.1.6-py3-none-any.whl.metadata): sha256 98f12c810c3a48b1de3539f24995324df4796a1c187034fea3254e2d6a6d8117 differs from the index's 68c5548fb67c4132a13898d9b31ec50c6bea2abdd915d921f214355c3a6499c8
        help: the file is not the one the index lists (a tampering proxy, a mirror out of step, or a corrupted download); nothing was cached. Try again; if it persists, report it to the index's operators
        "#);
}

/// A `.metadata` advertised by sha384, sha512 or blake2b alone was accepted unchecked (an
/// injected dependency was planned): every algorithm planner computes is checked, a mismatch
/// refused naming it, and the right digest accepted.
#[test]
fn metadata_hashes_of_every_algorithm_are_checked() {
    use sha2::Digest;
    let server = IndexServer::recorded();
    let jinja = project(&index(&server.url()), "jinja2");
    let file = jinja
        .files
        .iter()
        .find(|f| f.filename_str().ends_with(".whl"))
        .unwrap();
    let injected = format!(
        "Metadata-Version: 2.1\nName: jinja2\nVersion: {}\nRequires-Dist: evilpkg\n",
        file.filename.version()
    );
    let path = format!("/files/{}.metadata", file.filename_str());
    server.fault(&path, Fault::Body(injected.clone().into_bytes()));
    let hex = |raw: &[u8]| raw.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let bytes = injected.as_bytes();
    for (algorithm, right) in [
        ("sha384", hex(&sha2::Sha384::digest(bytes))),
        ("sha512", hex(&sha2::Sha512::digest(bytes))),
        ("blake2b", hex(&blake2::Blake2b512::digest(bytes))),
    ] {
        let mut advertised = file.clone();
        advertised.core_metadata = Some(
            [(algorithm, "ab".repeat(right.len() / 2))]
                .into_iter()
                .collect(),
        );
        let err = index(&server.url())
            .metadata(&jinja, &advertised)
            .unwrap_err();
        let shown = shown(&err, &server);
        insta::assert_snapshot!(format!("injected_metadata_{algorithm}"), shown);
        advertised.core_metadata = Some([(algorithm, right.as_str())].into_iter().collect());
        let read = index(&server.url()).metadata(&jinja, &advertised).unwrap();
        assert!(
            format!("{read:?}").contains("evilpkg"),
            "{algorithm}: the right digest is read"
        );
    }
}

#[test]
fn fault_redirect_to_another_host_drops_credentials() {
    let first = IndexServer::recorded();
    let second = IndexServer::recorded();
    // `localhost` is another host than `127.0.0.1` to the client, so another realm.
    first.fault(
        "/simple/",
        Fault::RedirectTo(second.url_as_localhost().replace("/simple/", "")),
    );
    let url = first.url_with_credentials("alice", "canary-pw-5f3e");
    let p = project(&index(&url), "packaging");
    assert!(!p.files.is_empty());
    let sent = &first.requests("/simple/packaging/")[0];
    assert!(
        sent.headers.contains_key("authorization"),
        "credentials go to their own realm"
    );
    let redirected = second.requests("/simple/packaging/");
    assert_eq!(redirected.len(), 1);
    assert!(
        !redirected[0].headers.contains_key("authorization"),
        "dropped on the other host"
    );
    assert!(!p.index.contains("canary"), "{}", p.index);
}

#[test]
fn unauthorized_names_the_redacted_index_and_the_package() {
    let server = IndexServer::recorded();
    server.fault("/simple/", Fault::RequireAuth("Basic nope".to_string()));
    let url = server.url_with_credentials("bob", "canary-pw-0a1b");
    let err = index(&url).project(&name("requests")).unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(
        matches!(err, IndexError::Unauthorized { status: 401, .. }),
        "{text}"
    );
    assert!(!text.contains("canary-pw-0a1b"), "{text}");
    error_settings().bind(|| insta::assert_snapshot!("unauthorized", shown(&err, &server)));
    assert_eq!(
        server.requests("/simple/").len(),
        1,
        "no retry storm on 401"
    );
}

#[test]
fn first_index_wins() {
    let private = IndexServer::start(&private_index());
    let public = IndexServer::recorded();
    let index = index_with(&[private.url(), public.url()], None, |_| {});
    // `packaging` exists on both: the first index answers; the second is asked only to warn
    // about the name being on both (dependency confusion), its files are not used.
    let p = project(&index, "packaging");
    assert_eq!(versions(&p), ["99.0"]);
    assert!(p.index.contains(&private.url()));
    assert_eq!(public.requests("/simple/packaging/").len(), 1);
    // `tqdm` only on the second.
    let p = project(&index, "tqdm");
    assert!(p.index.contains(&public.url()));
}

/// A one-project index (`packaging 99.0`) in a temp folder, kept for the test run.
fn private_index() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planner-private-index-{}", std::process::id()));
    let page = dir.join("simple/packaging");
    std::fs::create_dir_all(&page).unwrap();
    std::fs::write(
        page.join("index.html"),
        r#"<a href="../../files/packaging-99.0-py3-none-any.whl">packaging-99.0-py3-none-any.whl</a>"#,
    )
    .unwrap();
    dir
}

#[test]
fn cache_revalidates_with_etag_and_serves_offline() {
    let server = IndexServer::recorded();
    server.set_max_age(Some(0));
    let ctx = TestContext::new();
    let cache = ctx.cache();
    assert!(
        !project(
            &index_with(&[server.url()], Some(&cache), |_| {}),
            "networkx"
        )
        .files
        .is_empty()
    );
    // Not fresh (max-age=0): the second run revalidates and gets 304.
    server.clear_log();
    let again = project(
        &index_with(&[server.url()], Some(&cache), |_| {}),
        "networkx",
    );
    let log = server.requests("/simple/networkx/");
    assert_eq!(log.len(), 1);
    assert!(log[0].headers.contains_key("if-none-match"));
    assert!(!again.files.is_empty());
    // Offline: from the cache, no request at all; a missing page is a clear error.
    server.clear_log();
    let offline = index_with(&[server.url()], Some(&cache), |s| s.offline = true);
    assert_eq!(versions(&project(&offline, "networkx")), versions(&again));
    let err = offline.project(&name("fsspec")).unwrap_err();
    assert!(matches!(err, IndexError::Offline { .. }), "{err:?}");
    insta::assert_snapshot!(shown(&err, &server), @r#"
        offline: the project page of fsspec is not in the cache (http://[INDEX]/simple/fsspec/)
        help: run once without `--offline` to fill the cache (same --cache-dir)
        "#);
    assert!(server.log().is_empty());
    // --refresh: no validators sent.
    let refreshed = index_with(&[server.url()], Some(&cache), |s| s.refresh = true);
    project(&refreshed, "networkx");
    assert!(
        !server.requests("/simple/networkx/")[0]
            .headers
            .contains_key("if-none-match")
    );
}

#[test]
fn fresh_pages_are_not_refetched_and_metadata_is_immutable() {
    let server = IndexServer::recorded();
    // No Cache-Control at all (like many mirrors): fresh for the default 10 minutes.
    let ctx = TestContext::new();
    let first = index_with(&[server.url()], Some(&ctx.cache()), |_| {});
    let p = project(&first, "safetensors");
    let file = p
        .files
        .iter()
        .find(|f| f.filename_str().ends_with(".whl"))
        .unwrap();
    first.metadata(&p, file).unwrap();
    read_again_without_a_request(&server, &ctx.cache(), file);
}

/// `file`'s metadata read by a second index on the same `cache`, which must make no request.
fn read_again_without_a_request(
    server: &IndexServer,
    cache: &Path,
    file: &planner::index::DistFile,
) -> Arc<planner::metadata::CoreMetadata> {
    server.clear_log();
    let second = index_with(&[server.url()], Some(cache), |_| {});
    let p = project(&second, file.filename.name().as_ref());
    let metadata = second.metadata(&p, file).unwrap();
    assert!(server.log().is_empty(), "{:?}", server.log());
    metadata
}

/// The metadata cache keeps a file's header block, not its description, and a second run reads
/// the same metadata from it without a request.
#[test]
fn cached_metadata_keeps_the_headers_and_reads_back_the_same() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let first = index_with(&[server.url()], Some(&ctx.cache()), |_| {});
    let p = project(&first, "safetensors");
    let file = p
        .files
        .iter()
        .find(|f| {
            f.filename_str()
                == "safetensors-0.5.2-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
        })
        .unwrap()
        .clone();
    let fetched = first.metadata(&p, &file).unwrap();
    let recorded =
        String::from_utf8(recorded_metadata(&testdata_index(), &file.filename_str())).unwrap();
    let (headers, description) = recorded.split_once("\n\n").unwrap();
    assert!(
        description.len() > 500,
        "the recorded file has a description"
    );
    let stored: Vec<String> = files_under(&ctx.cache())
        .iter()
        .map(|f| String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned())
        .filter(|body| body.contains("Name: safetensors"))
        .collect();
    assert_eq!(stored.len(), 1);
    assert!(
        stored[0].ends_with(&format!("{headers}\n\n")),
        "{}",
        stored[0]
    );
    assert_eq!(
        read_again_without_a_request(&server, &ctx.cache(), &file),
        fetched
    );
}

/// Requests for one page made by a second online run on a warm cache, under the given page
/// headers (the first run fills the cache; `refresh` sets `--refresh` on the second).
fn second_run_requests(headers: &[(&str, &str)], refresh: bool) -> Vec<bool> {
    let server = IndexServer::recorded();
    server.set_page_headers(headers);
    let ctx = TestContext::new();
    project(
        &index_with(&[server.url()], Some(&ctx.cache()), |_| {}),
        "networkx",
    );
    server.clear_log();
    let again = index_with(&[server.url()], Some(&ctx.cache()), |s| s.refresh = refresh);
    assert!(!project(&again, "networkx").files.is_empty());
    // One entry per request: whether it carried a validator (a revalidation).
    server
        .requests("/simple/networkx/")
        .iter()
        .map(|r| r.headers.contains_key("if-none-match"))
        .collect()
}

#[test]
fn http_freshness_follows_cache_control_and_age() {
    // Inside max-age: no request at all; --refresh still asks, unconditionally.
    assert_eq!(
        second_run_requests(&[("Cache-Control", "max-age=600")], false),
        [false; 0]
    );
    assert_eq!(
        second_run_requests(&[("Cache-Control", "max-age=600")], true),
        [false]
    );
    // A shared cache already held it past max-age (`Age`): stale on arrival, revalidated.
    let aged = [("Cache-Control", "public, max-age=600"), ("Age", "600")];
    assert_eq!(second_run_requests(&aged, false), [true]);
    let young = [("Cache-Control", "public, max-age=600"), ("Age", "30")];
    assert_eq!(second_run_requests(&young, false), [false; 0]);
    // no-cache: stored, but revalidated on every use.
    let no_cache = [("Cache-Control", "no-cache, max-age=600")];
    assert_eq!(second_run_requests(&no_cache, false), [true]);
}

#[test]
fn corrupt_cache_entries_are_refetched() {
    let server = IndexServer::recorded();
    server.set_max_age(Some(600));
    let ctx = TestContext::new();
    project(
        &index_with(&[server.url()], Some(&ctx.cache()), |_| {}),
        "tokenizers",
    );
    for file in files_under(&ctx.cache()) {
        let mut bytes = std::fs::read(&file).unwrap();
        let n = bytes.len();
        bytes[n - 2] ^= 0x20;
        std::fs::write(&file, bytes).unwrap();
    }
    server.clear_log();
    let p = project(
        &index_with(&[server.url()], Some(&ctx.cache()), |_| {}),
        "tokenizers",
    );
    assert!(!p.files.is_empty());
    assert_eq!(server.requests("/simple/tokenizers/").len(), 1);
}

#[test]
fn unwritable_cache_runs_uncached() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let not_a_dir = ctx.dir.path().join("cache-file");
    std::fs::write(&not_a_dir, b"x").unwrap();
    let index = index_with(&[server.url()], Some(&not_a_dir), |_| {});
    assert!(!project(&index, "pyyaml").files.is_empty());
    assert_eq!(std::fs::read(&not_a_dir).unwrap(), b"x");
}

#[test]
fn two_planners_share_one_cache() {
    let server = IndexServer::recorded();
    server.set_max_age(Some(600));
    let ctx = TestContext::new();
    let names = [
        "torch",
        "numpy",
        "requests",
        "jinja2",
        "markupsafe",
        "setuptools",
    ];
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let url = server.url();
            let cache = ctx.cache();
            std::thread::spawn(move || {
                let index = index_with(&[url], Some(&cache), |_| {});
                let names: Vec<PackageName> = names.iter().map(|n| name(n)).collect();
                index
                    .projects(&names)
                    .into_iter()
                    .map(|r| r.unwrap().unwrap().files.len())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results[0], results[1]);
    // Every entry is intact: an offline run reads them all.
    let offline = index_with(&[server.url()], Some(&ctx.cache()), |s| s.offline = true);
    for n in names {
        project(&offline, n);
    }
    assert!(
        files_under(&ctx.cache())
            .iter()
            .all(|f| { !f.file_name().unwrap().to_string_lossy().starts_with(".tmp") })
    );
}

#[test]
fn sdist_pkg_info_is_trusted_only_when_static() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("simple/demo");
    std::fs::create_dir_all(&page).unwrap();
    std::fs::create_dir_all(dir.path().join("wheels")).unwrap();
    let mut links = String::new();
    for (version, meta_version, dynamic) in [
        ("1.0", "2.2", ""),
        ("2.0", "2.1", ""),
        ("3.0", "2.4", "Dynamic: Requires-Dist\n"),
    ] {
        let pkg_info = format!(
            "Metadata-Version: {meta_version}\nName: demo\nVersion: {version}\n{dynamic}Requires-Dist: packaging>=20\n"
        );
        let file = format!("demo-{version}.tar.gz");
        std::fs::write(
            dir.path().join("wheels").join(&file),
            targz(&format!("demo-{version}/PKG-INFO"), pkg_info.as_bytes()),
        )
        .unwrap();
        links.push_str(&format!("<a href=\"../../files/{file}\">{file}</a>\n"));
    }
    std::fs::write(page.join("index.html"), links).unwrap();
    let server = IndexServer::start(dir.path());
    let index = index(&server.url());
    let demo = project(&index, "demo");
    let by_version = |v: &str| {
        demo.files
            .iter()
            .find(|f| f.filename.version().to_string() == v)
            .unwrap()
    };
    let ok = index.metadata(&demo, by_version("1.0")).unwrap();
    assert_eq!(ok.requires_dist[0].to_string(), "packaging>=20");
    let unavailable: Vec<String> = ["2.0", "3.0"]
        .iter()
        .map(|v| {
            let err = index.metadata(&demo, by_version(v)).unwrap_err();
            assert!(
                matches!(err, IndexError::MetadataUnavailable { .. }),
                "{err:?}"
            );
            shown(&err, &server)
        })
        .collect();
    // Each says why: metadata 2.1 predates reliable sdist metadata; 3.0's is dynamic.
    insta::assert_snapshot!(unavailable.join("\n"), @r#"
        metadata of demo-2.0.tar.gz is unavailable without a build: PKG-INFO is Metadata-Version 2.1, older than 2.2 (PEP 643)
        help: the planner never builds packages; this version cannot be planned for
        metadata of demo-3.0.tar.gz is unavailable without a build: PKG-INFO declares Requires-Dist dynamic
        help: the planner never builds packages; this version cannot be planned for
        "#);
}

/// An sdist whose PKG-INFO cannot be trusted (Metadata-Version 2.1) is read once: the next run
/// with the same cache gives the same answer without asking the index for the sdist (or its
/// `.metadata` file) again. Without the cache entry a solve that reaches 77 such releases
/// (flash-attn) fetched every one of them on every run.
#[test]
fn an_untrusted_sdist_pkg_info_is_read_from_the_cache_the_next_time() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("simple/demo");
    std::fs::create_dir_all(&page).unwrap();
    std::fs::create_dir_all(dir.path().join("wheels")).unwrap();
    let pkg_info =
        "Metadata-Version: 2.1\nName: demo\nVersion: 2.0\nRequires-Dist: packaging>=20\n";
    std::fs::write(
        dir.path().join("wheels/demo-2.0.tar.gz"),
        targz("demo-2.0/PKG-INFO", pkg_info.as_bytes()),
    )
    .unwrap();
    std::fs::write(
        page.join("index.html"),
        "<a href=\"../../files/demo-2.0.tar.gz\">demo-2.0.tar.gz</a>\n",
    )
    .unwrap();
    let server = IndexServer::start(dir.path());
    let cache = tempfile::tempdir().unwrap();
    let read = || {
        let index = index_with(&[server.url()], Some(cache.path()), |_| {});
        let demo = project(&index, "demo");
        let file = demo.files.iter().next().unwrap();
        let err = index.metadata(&demo, file).unwrap_err();
        assert!(
            matches!(err, IndexError::MetadataUnavailable { .. }),
            "{err:?}"
        );
        shown(&err, &server)
    };
    let first = read();
    assert_eq!(
        server.requests("/files/demo-2.0.tar.gz").len(),
        2,
        "{:?}",
        server.log()
    );
    server.clear_log();
    let second = read();
    assert_eq!(second, first);
    assert!(
        server.requests("/files/").is_empty(),
        "the sdist was fetched again: {:?}",
        server.log()
    );
}

/// A .tar.gz with one member (a ustar header, checksum included, as every tar writer sets it).
fn targz(path: &str, data: &[u8]) -> Vec<u8> {
    let mut header = tar::Header::new_ustar();
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    builder.append_data(&mut header, path, data).unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

#[cfg(feature = "live-index")]
mod live {
    //! Against the live public index (opt-in: `cargo test --features live-index`).
    use super::*;

    #[test]
    fn live_torch_metadata_by_range_read() {
        let index = index_with(
            &[planner::index::config::DEFAULT_INDEX.to_string()],
            None,
            |_| {},
        );
        let torch = project(&index, "torch");
        let file = torch
            .files
            .iter()
            .find(|f| f.filename_str() == "torch-2.11.0-cp312-cp312-manylinux_2_28_x86_64.whl")
            .unwrap();
        let metadata = index.metadata(&torch, file).unwrap();
        assert!(
            metadata
                .requires_dist
                .iter()
                .any(|r| r.to_string().starts_with("triton==3.6.0"))
        );
        let requests = project(&index, "requests");
        assert!(
            requests.files.iter().any(|f| f.yanked.is_some()),
            "requests 2.32.0 is yanked"
        );
    }
}

#[test]
fn one_compact_entry_per_page_serves_every_target() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    // A pure-Python target: charset-normalizer's compiled wheels are foreign to it.
    let tags = || planner::tags::Tags::new(vec!["py3-none-any".parse().unwrap()]);
    let target = |s: &mut IndexSettings| s.target_tags = Some(tags());
    let first = index_with(&[server.url()], Some(&ctx.cache()), target);
    let whole = project(&index(&server.url()), "charset-normalizer");
    let filtered = project(&first, "charset-normalizer");
    assert!(filtered.files.len() < whole.files.len());
    assert_eq!(
        versions(&filtered),
        versions(&whole),
        "every version stays listed"
    );
    assert_eq!(
        files_under(&ctx.cache()).len(),
        1,
        "one entry: the whole page's compact form, filtered on reading"
    );
    // A warm offline run reads it and gets the same files; without a target, every file.
    server.clear_log();
    let warm = index_with(&[server.url()], Some(&ctx.cache()), |s| {
        target(s);
        s.offline = true;
    });
    let again = project(&warm, "charset-normalizer");
    let names = |p: &Project| {
        p.files
            .iter()
            .map(|f| {
                (
                    f.filename_str(),
                    f.url.clone(),
                    f.hashes.clone(),
                    f.requires_python.clone(),
                    f.yanked.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&again), names(&filtered));
    let offline = index_with(&[server.url()], Some(&ctx.cache()), |s| s.offline = true);
    assert_eq!(
        names(&project(&offline, "charset-normalizer")),
        names(&whole)
    );
    assert!(server.log().is_empty());
}

/// A temp index serving `file` (bytes) under `name`'s page, linked with `hash` as its sha256.
fn index_serving(project: &str, file: &str, bytes: &[u8], hash: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("simple").join(project);
    std::fs::create_dir_all(&page).unwrap();
    std::fs::create_dir_all(dir.path().join("wheels")).unwrap();
    std::fs::write(dir.path().join("wheels").join(file), bytes).unwrap();
    std::fs::write(
        page.join("index.html"),
        format!("<a href=\"../../files/{file}#sha256={hash}\">{file}</a>\n"),
    )
    .unwrap();
    dir
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reliability: every whole download is checked against the index's hash. A wheel whose server
/// ignores `Range` (so the whole file is read) and an sdist (always whole) with a hash that does
/// not match are refused with an error naming the file and URL, and nothing is cached; with the
/// right hash the same bytes are accepted (so the check is what refuses them).
#[test]
fn whole_downloads_are_checked_against_the_index_hash() {
    let wheel_name = "packaging-26.4-py3-none-any.whl";
    let wheel = std::fs::read(testdata_index().join("wheels").join(wheel_name)).unwrap();
    let sdist = targz(
        "demo-1.0/PKG-INFO",
        b"Metadata-Version: 2.2\nName: demo\nVersion: 1.0\nRequires-Dist: packaging>=20\n",
    );
    let cases = [
        ("packaging", wheel_name, &wheel),
        ("demo", "demo-1.0.tar.gz", &sdist),
    ];
    for (project_name, file_name, bytes) in cases {
        let wrong = "0".repeat(64);
        let dir = index_serving(project_name, file_name, bytes, &wrong);
        let server = IndexServer::start(dir.path());
        server.set_metadata_files(false);
        server.set_ranges(false);
        let cache = tempfile::tempdir().unwrap();
        let index = index_with(&[server.url()], Some(cache.path()), |_| {});
        let p = project(&index, project_name);
        let err = index.metadata(&p, &p.files[0]).unwrap_err();
        assert!(matches!(err, IndexError::HashMismatch { .. }), "{err:?}");
        error_settings().bind(|| {
            insta::assert_snapshot!(format!("hash_mismatch_{file_name}"), shown(&err, &server));
        });
        let cached: Vec<_> = files_under(cache.path())
            .into_iter()
            .filter(|f| f.to_string_lossy().contains("metadata"))
            .collect();
        assert!(
            cached.is_empty(),
            "a refused download was cached: {cached:?}"
        );

        let dir = index_serving(project_name, file_name, bytes, &sha256(bytes));
        let server = IndexServer::start(dir.path());
        server.set_metadata_files(false);
        server.set_ranges(false);
        let index = index_with(&[server.url()], None, |_| {});
        let p = project(&index, project_name);
        let metadata = index.metadata(&p, &p.files[0]).unwrap();
        assert_eq!(metadata.name.as_ref(), project_name);
    }
}

/// Dependency confusion: a name on two configured indexes is warned about, naming both; a name
/// on one index only is not.
#[test]
fn a_name_on_two_indexes_is_warned_about() {
    let private = IndexServer::start(&private_index());
    let public = IndexServer::recorded();
    let mut ctx = TestContext::new();
    ctx.filter(&regex_escape(&private.url()), "[PRIVATE]/simple/");
    ctx.filter(&regex_escape(&public.url()), "[PUBLIC]/simple/");
    // Extra indexes are searched first (uv's order): the private one answers for `packaging`.
    let run = |req: &str| {
        ctx.run(&[
            "resolve",
            req,
            "--python-version",
            "3.12",
            "--python-platform",
            "x86_64-manylinux_2_28",
            "--index-url",
            &public.url(),
            "--extra-index-url",
            &private.url(),
        ])
    };
    // The private index has no file for its `packaging 99.0` (the run then stops at the
    // metadata): the warnings are what this shows.
    let out = run("packaging");
    let warnings = |out: &crate::common::Output| {
        let lines: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.starts_with("warning:"))
            .collect();
        lines.join("\n")
    };
    let shown = warnings(&out);
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("name_on_two_indexes", shown));
    // A name on the public index alone: no warning at all.
    let shown = warnings(&run("tqdm"));
    insta::assert_snapshot!(shown, @"");
}

/// The METADATA cap is tunable like the others (`PLANNER_MAX_METADATA_BYTES`): below
/// jinja2's 2.6 KB `.metadata` file the run fails naming the limit and the variable; a value
/// that is not a byte count is an error before anything is read; the default reads it.
#[test]
fn the_metadata_cap_is_set_by_its_variable() {
    let server = IndexServer::recorded();
    let ctx = crate::common::TestContext::new();
    let resolve = |cap: Option<&str>| {
        let mut cmd = ctx.command();
        cmd.args(["resolve", "jinja2==3.1.6", "--index-url", &server.url()])
            .args(["--python-version", "3.12"]);
        if let Some(cap) = cap {
            cmd.env("PLANNER_MAX_METADATA_BYTES", cap);
        }
        crate::common::run(&mut cmd)
    };
    // Below the file's size: the run fails naming the limit and the variable.
    planner_snapshot!(ctx, resolve(Some("1000")), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::solve::index

          × could not read `jinja2` from the index
          ╰─▶ http://127.0.0.1:[PORT]/files/jinja2-3.1.6-py3-none-any.whl.metadata: a
              .metadata file over the 1000-byte limit (Content-Length: 2871)
          help: the reply was cut off there, unread and uncached; real METADATA is far
                smaller (an embedded README included), and the same limit holds
                wherever planner reads METADATA: the index serves a broken file
                (PLANNER_MAX_METADATA_BYTES raises the limit)
        "#);
    planner_snapshot!(ctx, resolve(Some("8 MiB")), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × PLANNER_MAX_METADATA_BYTES=`8 MiB` is not a positive number of bytes
          help: use a byte count such as 16777216 (16 MiB), or unset it for the 8 MiB
                default
        "#);

    let default = resolve(None);
    assert_eq!(default.code, Some(0), "{}", default.stderr);
}

/// The one recording is whole: every wheel a recorded page lists has its `.metadata` file, with
/// the sha256 the page advertises (the layered plans read the metadata of every project, and a
/// page without it would send the client to a wheel that is not recorded).
#[test]
fn every_recorded_wheel_has_the_metadata_its_page_advertises() {
    use sha2::{Digest, Sha256};
    let root = testdata_index();
    let mut wheels = 0;
    for page in std::fs::read_dir(root.join("simple")).unwrap() {
        let page = page.unwrap().path().join("index.json");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&page).unwrap()).unwrap();
        for file in doc["files"].as_array().unwrap() {
            let filename = file["filename"].as_str().unwrap();
            if !filename.ends_with(".whl") {
                continue;
            }
            let metadata = root.join("files").join(format!("{filename}.metadata"));
            let bytes = std::fs::read(&metadata)
                .unwrap_or_else(|e| panic!("{}: {filename} has no metadata ({e})", page.display()));
            let digest: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(
                file["core-metadata"]["sha256"].as_str(),
                Some(digest.as_str()),
                "{}: {filename}",
                page.display()
            );
            wheels += 1;
        }
    }
    assert!(wheels > 1000, "{wheels} wheels recorded");
}

/// A zip of stored members, written by hand (no zip writer in the tree).
fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let offset = out.len() as u32;
        let crc = crc32fast::hash(data);
        let fixed = |sig: &[u8], out: &mut Vec<u8>| {
            out.extend(sig);
            out.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method 0, time, date
            out.extend(crc.to_le_bytes());
            out.extend((data.len() as u32).to_le_bytes());
            out.extend((data.len() as u32).to_le_bytes());
            out.extend((name.len() as u16).to_le_bytes());
            out.extend([0, 0]); // extra length
        };
        fixed(&[0x50, 0x4b, 0x03, 0x04], &mut out);
        out.extend(name.as_bytes());
        out.extend(*data);
        central.extend([0x50, 0x4b, 0x01, 0x02, 20, 0]);
        fixed(&[], &mut central);
        central.extend([0; 10]); // comment length, disk, attributes
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend((members.len() as u16).to_le_bytes());
    out.extend((members.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend([0, 0]);
    out
}

/// The exit code and peak resident memory (KiB) of `planner ARGS`, as a small Python parent
/// measures it (`RUSAGE_CHILDREN`): a child spawned from the test process itself would count
/// the test's own memory at the spawn (Linux keeps the high-water mark across `exec`).
fn peak_rss_kib(ctx: &TestContext, args: &[&str]) -> (i32, i64) {
    const MEASURE: &str = "import resource, subprocess, sys\n\
        code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n\
        print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n";
    let planner = ctx.command();
    let mut python = std::process::Command::new(crate::common::venv::python3());
    python.env_clear();
    for (key, value) in planner.get_envs() {
        if let Some(value) = value {
            python.env(key, value);
        }
    }
    if let Some(dir) = planner.get_current_dir() {
        python.current_dir(dir);
    }
    let out = python
        .args(["-c", MEASURE, env!("CARGO_BIN_EXE_planner")])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace().map(|p| p.parse::<i64>().unwrap());
    (parts.next().unwrap() as i32, parts.next().unwrap())
}

/// A whole-wheel download (the server ignores `Range`) went into memory whole: 4 x 1.5 GiB
/// gave a 9 GB peak. It is streamed to an unnamed temp file through the same capped reader,
/// hashed from there and mapped, so only the pages read (its end, its directory, METADATA)
/// are resident: a 160 MiB wheel is read at well under its size.
#[test]
fn a_whole_wheel_is_streamed_to_a_temp_file_not_held_in_memory() {
    let metadata = b"Metadata-Version: 2.1\nName: big\nVersion: 1.0\nRequires-Dist: packaging\n";
    let ballast = vec![0u8; 160 << 20];
    let wheel = stored_zip(&[
        ("big/data.bin", &ballast),
        ("big-1.0.dist-info/METADATA", metadata),
    ]);
    let name = "big-1.0-py3-none-any.whl";
    let dir = index_serving("big", name, &wheel, &sha256(&wheel));
    drop((ballast, wheel));
    let server = IndexServer::start(dir.path());
    server.set_metadata_files(false);
    server.set_ranges(false);
    let ctx = TestContext::new();
    let url = server.url();
    let (code, kib) = peak_rss_kib(
        &ctx,
        &[
            "resolve",
            "--python-version",
            "3.12",
            "--index-url",
            &url,
            "--",
            "big==1.0",
        ],
    );
    // `packaging` is not on this index: the metadata was read, and the requirement named.
    assert_eq!(code, 1, "the wheel's METADATA was not read");
    assert!(kib < 100 * 1024, "peak RSS {kib} KiB for a 160 MiB wheel");
}

/// A transient 404 was remembered for the page's whole lifetime (10 minutes), and `propose`
/// then said "no changes" with exit 0: it is remembered for a minute, then asked again.
#[test]
fn a_404_is_remembered_for_a_minute_only() {
    let server = IndexServer::recorded();
    server.fault(
        "/simple/packaging/",
        Fault::Status {
            status: 404,
            times: 1,
        },
    );
    let ctx = TestContext::new();
    let url = server.url();
    let resolve = |now: &str| {
        let mut cmd = ctx.command();
        cmd.env("PLANNER_NOW", now).args([
            "resolve",
            "--python-version",
            "3.12",
            "--index-url",
            &url,
            "packaging",
        ]);
        crate::common::run(&mut cmd)
    };
    assert_eq!(resolve("2026-12-01T00:00:00Z").code, Some(1));
    // Within the minute: the 404 stands, no request.
    assert_eq!(resolve("2026-12-01T00:00:30Z").code, Some(1));
    assert_eq!(server.requests("/simple/packaging/").len(), 1);
    // Two minutes on: asked again, and found.
    let out = resolve("2026-12-01T00:02:00Z");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(server.requests("/simple/packaging/").len(), 2);
}
