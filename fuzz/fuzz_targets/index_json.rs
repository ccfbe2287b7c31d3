//! PEP 691 JSON project pages: no panic; files have absolute URLs without a fragment and belong
//! to the project the page names.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner::index::parse::simple_json;

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("https://index.test/simple/demo/").unwrap();
    let Ok(page) = simple_json(data, &base) else {
        return;
    };
    let name = page.name.as_ref().expect("a JSON page names its project");
    for file in &page.files {
        assert_eq!(file.filename.name(), name);
        assert!(file.url.fragment().is_none(), "{}", file.url);
    }
});
