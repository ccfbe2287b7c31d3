//! Unit tests of `crate::index::parse`.

use super::*;
use crate::index::Hashes;

fn base() -> Url {
    Url::parse("https://index.example/simple/demo/").unwrap()
}

/// An http(s) page links only to http(s) files, a local page only to files in
/// its index's folder; any other link skips that file with a note, never the page.
#[test]
fn links_outside_the_trust_boundary_skip_their_file_only() {
    let json = |urls: &[&str]| {
        let files: Vec<String> = urls
            .iter()
            .enumerate()
            .map(|(i, u)| {
                format!(r#"{{"filename": "demo-1.{i}.tar.gz", "url": "{u}", "hashes": {{}}}}"#)
            })
            .collect();
        format!(
            r#"{{"meta": {{"api-version": "1.0"}}, "name": "demo", "files": [{}]}}"#,
            files.join(",")
        )
    };
    let hostile = [
        "file:///etc/shadow",
        "javascript:alert(1)",
        "data:text/plain,x",
        "ftp://h/demo-1.3.tar.gz",
        "https://files.example/demo-1.4.tar.gz",
    ];
    let page = simple_json(json(&hostile).as_bytes(), &base()).unwrap();
    let kept: Vec<&str> = page.files.iter().map(|f| f.url.as_str()).collect();
    assert_eq!(kept, ["https://files.example/demo-1.4.tar.gz"]);
    assert_eq!(page.skipped.len(), 4, "{:?}", page.skipped);
    assert!(
        page.skipped[0].contains("a file: link on an http(s) index"),
        "{:?}",
        page.skipped
    );
    assert!(
        page.skipped[1].contains("a javascript: link"),
        "{:?}",
        page.skipped
    );
    // HTML: a <base> pointing at file:/// does not open the boundary.
    let html = br#"<html><base href="file:///"><a href="etc/demo-1.0.tar.gz">x</a>
            <a href="javascript:alert(1)">demo-1.1.tar.gz</a>
            <a href="https://files.example/demo-1.2.tar.gz">demo-1.2.tar.gz</a></html>"#;
    let page = simple_html(html, &base(), None).unwrap();
    let kept: Vec<&str> = page.files.iter().map(|f| f.url.as_str()).collect();
    assert_eq!(kept, ["https://files.example/demo-1.2.tar.gz"]);
    assert_eq!(page.skipped.len(), 2, "{:?}", page.skipped);
    // A local index at /idx/simple: files under /idx only.
    let local = Url::parse("file:///idx/simple/demo/").unwrap();
    let links = [
        "../../files/demo-1.0.tar.gz",
        "file:///idx/files/demo-1.1.tar.gz",
        "../../../etc/demo-1.2.tar.gz",
        "file:///idx/files/..%2F..%2Fetc/demo-1.3.tar.gz",
        "https://files.example/demo-1.4.tar.gz",
        "file:///etc/demo-1.5.tar.gz",
    ];
    let page = simple_json(json(&links).as_bytes(), &local).unwrap();
    let kept: Vec<&str> = page.files.iter().map(|f| f.url.as_str()).collect();
    assert_eq!(
        kept,
        [
            "file:///idx/files/demo-1.0.tar.gz",
            "file:///idx/files/demo-1.1.tar.gz"
        ]
    );
    assert_eq!(page.skipped.len(), 4, "{:?}", page.skipped);
}

#[test]
fn json_page_with_every_quirk() {
    let page = br#"{
          "meta": {"api-version": "1.1", "_last-serial": 3},
          "name": "Demo_Pkg",
          "versions": ["0.12.01", "1.0", "2.0"],
          "files": [
            {"filename": "demo_pkg-1.0-py3-none-any.whl",
             "url": "../../files/demo_pkg-1.0-py3-none-any.whl",
             "hashes": {"sha256": "aa"}, "requires-python": ">=3.8,",
             "yanked": "broken build", "upload-time": "2024-01-02T03:04:05.123456Z",
             "size": 10, "core-metadata": {"sha256": "bb"}, "unknown-key": 1},
            {"filename": "demo-pkg-2.0.tar.gz", "url": "https://files.example/demo-pkg-2.0.tar.gz",
             "hashes": {}, "requires-python": null, "yanked": false, "dist-info-metadata": true},
            {"filename": "demo_pkg-0.5-py2.7.egg", "url": "x.egg", "hashes": {}},
            {"filename": "demo_pkg-bad.whl", "url": "y.whl", "hashes": {}},
            {"filename": "demo_pkg-3.0.tar.gz", "url": "z.tar.gz", "hashes": {},
             "requires-python": ">=3.8>"}
          ]
        }"#;
    let parsed = simple_json(page, &base()).unwrap();
    assert_eq!(parsed.name.unwrap().as_ref(), "demo-pkg");
    assert_eq!(parsed.files.len(), 2);
    let wheel = &parsed.files[0];
    assert_eq!(
        wheel.url.as_str(),
        "https://index.example/files/demo_pkg-1.0-py3-none-any.whl"
    );
    assert_eq!(wheel.yanked.as_deref(), Some("broken build"));
    assert_eq!(wheel.requires_python.as_ref().unwrap().to_string(), ">=3.8");
    assert_eq!(
        wheel.core_metadata.as_ref().unwrap().get("sha256"),
        Some("bb")
    );
    assert!(wheel.upload_time.is_some());
    let sdist = &parsed.files[1];
    assert_eq!(sdist.yanked, None);
    assert_eq!(sdist.core_metadata, Some(Hashes::default()));
    assert_eq!(parsed.skipped.len(), 2, "{:?}", parsed.skipped);
    assert!(parsed.skipped[1].contains("requires-python"));
}

#[test]
fn a_target_filter_keeps_what_reasons_dates_and_newest_need() {
    let page = br#"{"meta": {"api-version": "1.1"}, "name": "demo", "files": [
          {"filename": "demo-2.0-cp312-cp312-win_amd64.whl", "url": "a", "hashes": {},
           "upload-time": "2024-01-01T00:00:00Z"},
          {"filename": "demo-2.0-cp312-cp312-macosx_11_0_arm64.whl", "url": "b", "hashes": {}},
          {"filename": "demo-2.0-cp311-cp311-win_amd64.whl", "url": "b2", "hashes": {}},
          {"filename": "demo-2.0-cp310-cp310-win_amd64.whl", "url": "b3", "hashes": {}},
          {"filename": "demo-2.0-cp39-cp39-win_amd64.whl", "url": "b4", "hashes": {}},
          {"filename": "demo-1.0-cp312-cp312-win_amd64.whl", "url": "c", "hashes": {},
           "yanked": "bad"},
          {"filename": "demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl", "url": "d", "hashes": {},
           "yanked": "bad"},
          {"filename": "demo-1.0-cp38-cp38-win32.whl", "url": "d2", "hashes": {}},
          {"filename": "demo-1.0.tar.gz", "url": "e", "hashes": {}, "yanked": "bad"}
        ]}"#;
    let tags = crate::tags::Tags::new(vec!["cp312-cp312-manylinux_2_28_x86_64".parse().unwrap()]);
    let all = simple_json(page, &base()).unwrap();
    let kept = simple_json_filtered(page, &base(), Some(FileFilter { tags: &tags })).unwrap();
    assert_eq!(all.files.len(), 9);
    let urls: Vec<&str> = kept.files.iter().map(|f| f.url.path()).collect();
    // 2.0: the earliest upload (a) and the three smallest foreign first tags (cp310, cp311,
    // cp312-macosx; cp312-win is `a`, cp39 sorts after them). 1.0: its compatible wheel and
    // sdist, its smallest foreign tags (cp312-win, cp38), the first file not yanked (d2).
    assert_eq!(
        urls,
        [
            "/simple/demo/a",
            "/simple/demo/b",
            "/simple/demo/b2",
            "/simple/demo/b3",
            "/simple/demo/c",
            "/simple/demo/d",
            "/simple/demo/d2",
            "/simple/demo/e"
        ]
    );
}

#[test]
fn json_errors_are_described() {
    assert!(
        simple_json(b"{not json", &base())
            .unwrap_err()
            .0
            .starts_with("invalid JSON")
    );
    let v2 = br#"{"meta": {"api-version": "2.0"}, "name": "x", "files": []}"#;
    assert!(simple_json(v2, &base()).unwrap_err().0.contains("2.0"));
}

#[test]
fn html_page_with_escapes_fragments_and_yanks() {
    let page = br#"<!DOCTYPE html><html><head>
          <meta name="pypi:repository-version" content="1.1"></head><body>
          <a href="../../files/demo_pkg-1.0-py3-none-any.whl#sha256=ABCDEF"
             data-requires-python="&gt;=3.8,&lt;4"
             data-yanked="">
             demo_pkg-1.0-py3-none-any.whl</a><br/>
          <a href="https://files.example/demo-pkg-2.0.tar.gz#sha256=00ff" data-yanked="bad &amp; wrong"
             data-dist-info-metadata="sha256=1234">demo-pkg-2.0.tar.gz</a>
          <a href="../../files/other-1.0.tar.gz">other-1.0.tar.gz</a>
          <a href="../../files/demo_pkg-1.1-cp312-cp312-manylinux_2_28_x86_64.whl" data-core-metadata="true">x</a>
        </body></html>"#;
    let name = PackageName::from_str("demo-pkg").unwrap();
    let parsed = simple_html(page, &base(), Some(&name)).unwrap();
    assert_eq!(parsed.api_version.as_deref(), Some("1.1"));
    assert_eq!(parsed.files.len(), 3);
    let wheel = &parsed.files[0];
    assert_eq!(
        wheel.url.as_str(),
        "https://index.example/files/demo_pkg-1.0-py3-none-any.whl"
    );
    assert_eq!(wheel.hashes.get("sha256"), Some("abcdef"));
    assert_eq!(
        wheel.requires_python.as_ref().unwrap().to_string(),
        ">=3.8, <4"
    );
    assert_eq!(wheel.yanked.as_deref(), Some(""));
    assert_eq!(wheel.core_metadata, None);
    let sdist = &parsed.files[1];
    assert_eq!(sdist.yanked.as_deref(), Some("bad & wrong"));
    assert_eq!(
        sdist.core_metadata.as_ref().unwrap().get("sha256"),
        Some("1234")
    );
    assert_eq!(parsed.files[2].core_metadata, Some(Hashes::default()));
}

#[test]
fn html_base_tag_moves_relative_urls() {
    let page = br#"<html><head><base href="https://mirror.example/pkgs/"></head>
          <a href="demo-1.0.tar.gz">demo-1.0.tar.gz</a></html>"#;
    let parsed = simple_html(page, &base(), None).unwrap();
    assert_eq!(
        parsed.files[0].url.as_str(),
        "https://mirror.example/pkgs/demo-1.0.tar.gz"
    );
}

#[test]
fn unescapes_entities() {
    assert_eq!(
        unescape_html("&gt;=3.8&#44;&#x21;&bogus; &"),
        ">=3.8,!&bogus; &"
    );
}
