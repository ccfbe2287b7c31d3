//! PEP 503 HTML project pages: no panic; every kept file belongs to the project asked for and
//! has an absolute URL without a fragment.
#![no_main]
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use planner::index::parse::simple_html;

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("https://index.test/simple/demo/").unwrap();
    let expected = pep508_rs::PackageName::from_str("demo").unwrap();
    let Ok(page) = simple_html(data, &base, Some(&expected)) else {
        return;
    };
    for file in &page.files {
        assert_eq!(file.filename.name(), &expected);
        assert!(file.url.fragment().is_none(), "{}", file.url);
    }
    let _ = simple_html(data, &base, None);
});
