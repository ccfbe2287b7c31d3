//! A local index's project page read through the one bounded reader and parsed, and the same
//! bytes parsed as a page of an http index: the page cap holds exactly (refused when over, never
//! cut), and every file kept stays inside the trust boundary: on a local index a `file:` URL
//! under the index's folder with no `..`, on an http index an http(s) URL; never a fragment.
//!
//! The first byte picks the format (JSON or HTML) and the cap (a few hundred bytes to the
//! whole input); the rest is the page, written to `<tmp>/simple/demo/index.{json,html}`.
#![no_main]
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use planner::index::local::{PageFormat, read_page};
use planner::index::parse::{simple_html, simple_json};

fn tree() -> &'static Path {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("planner-fuzz-local-page-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("simple/demo")).unwrap();
        dir
    })
}

fn check_local(page: &planner::index::parse::ProjectPage, tree: &Path) {
    for file in &page.files {
        let url = url::Url::parse(file.url.as_str()).unwrap();
        assert_eq!(url.scheme(), "file", "{url}");
        assert!(url.fragment().is_none(), "{url}");
        let path = url.to_file_path().unwrap();
        assert!(path.starts_with(tree), "{url} is outside {}", tree.display());
        assert!(
            !path.components().any(|c| matches!(c, std::path::Component::ParentDir)),
            "{url}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, page)) = data.split_first() else {
        return;
    };
    let json = first & 1 == 0;
    let cap = if first & 2 == 0 {
        page.len() as u64
    } else {
        u64::from(first >> 2) * 64
    };
    let tree = tree();
    let dir = tree.join("simple/demo");
    let (write, other) = if json {
        ("index.json", "index.html")
    } else {
        ("index.html", "index.json")
    };
    let _ = std::fs::remove_file(dir.join(other));
    std::fs::write(dir.join(write), page).unwrap();
    let name = pep508_rs::PackageName::from_str("demo").unwrap();
    match read_page(&tree.join("simple"), &name, cap) {
        Ok(Some(local)) => {
            assert!(page.len() as u64 <= cap);
            assert_eq!(local.body, page, "the reader returned other bytes than the file's");
            assert_eq!(local.format == PageFormat::Json, json);
            let parsed = match local.format {
                PageFormat::Json => simple_json(&local.body, &local.base),
                PageFormat::Html => simple_html(&local.body, &local.base, Some(&name)),
            };
            if let Ok(parsed) = parsed {
                check_local(&parsed, tree);
            }
        }
        Ok(None) => panic!("the page was written but not found"),
        Err(err) => assert!(
            page.len() as u64 > cap,
            "a page within the cap was refused: {err}"
        ),
    }
    let http = url::Url::parse("https://index.test/simple/demo/").unwrap();
    let parsed = if json {
        simple_json(page, &http)
    } else {
        simple_html(page, &http, Some(&name))
    };
    if let Ok(parsed) = parsed {
        for file in &parsed.files {
            let url = url::Url::parse(file.url.as_str()).unwrap();
            assert!(matches!(url.scheme(), "http" | "https"), "{url}");
            assert!(url.fragment().is_none(), "{url}");
        }
    }
});
