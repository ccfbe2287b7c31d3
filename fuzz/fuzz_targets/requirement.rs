//! PEP 508 requirements, PEP 440 versions and specifiers, `Requires-Python` values: no panic,
//! and what parses re-serializes to text that parses to the same value (generated commands and
//! plan files are written from the parsed form).
#![no_main]
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use pep440_rs::{Version, VersionSpecifiers};
use planner_pypi::metadata::{CoreMetadata, parse_requirement, parse_requires_python};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Through planner's one entry point: pep508_rs 0.9.2 itself panics on names ending in
    // `.`/`-`/`_` followed by more text, which parse_requirement refuses first.
    if let Ok(requirement) = parse_requirement(text) {
        let written = requirement.to_string();
        let again = parse_requirement(&written)
            .unwrap_or_else(|e| panic!("`{written}` (from `{text}`) does not parse: {e}"));
        // pep508_rs simplifies markers (`a == 'x' and a == 'y'` is written as the never-true
        // `python_version < '0'`), so the written form, not the tree, is what must be stable.
        // The one exception: that never-true marker reads back as `python_full_version < '0'`
        // (also never true for a released Python), which is then stable.
        let rewritten = again.to_string();
        if requirement.marker.is_false() {
            let third = parse_requirement(&rewritten)
                .unwrap_or_else(|e| panic!("`{rewritten}` (from `{text}`) does not parse: {e}"));
            assert_eq!(third.to_string(), rewritten, "`{text}` -> `{written}`");
        } else {
            assert_eq!(rewritten, written, "`{text}` -> `{written}`");
        }
        assert_eq!(again.name, requirement.name, "`{text}` -> `{written}`");
        assert_eq!(again.extras, requirement.extras, "`{text}` -> `{written}`");
        assert_eq!(again.version_or_url, requirement.version_or_url, "`{text}` -> `{written}`");
    }
    if let Ok(specifiers) = VersionSpecifiers::from_str(text) {
        let written = specifiers.to_string();
        let again = VersionSpecifiers::from_str(&written)
            .unwrap_or_else(|e| panic!("`{written}` (from `{text}`) does not parse: {e}"));
        assert_eq!(again, specifiers, "`{text}` -> `{written}`");
    }
    if let Ok(version) = Version::from_str(text) {
        let written = version.to_string();
        let again = Version::from_str(&written)
            .unwrap_or_else(|e| panic!("`{written}` (from `{text}`) does not parse: {e}"));
        assert_eq!(again, version, "`{text}` -> `{written}`");
    }
    let _ = parse_requires_python(text);
    requires_dist_agrees(text);
});

/// A metadata file reads its `Requires-Dist` values in parts, with a marker memo: twice the same
/// value (the second from the memo) must give what one parse of the whole gives.
fn requires_dist_agrees(text: &str) {
    if text != text.trim() || text.chars().any(char::is_control) {
        return; // not a header value as written (the metadata reader trims and refuses those)
    }
    let file = format!("Name: a\nVersion: 1\nRequires-Dist: {text}\nRequires-Dist: {text}\n");
    match (parse_requirement(text), CoreMetadata::parse_str(&file)) {
        (Ok(whole), Ok(metadata)) => {
            assert_eq!(metadata.requires_dist, vec![whole.clone(), whole], "`{text}`")
        }
        (Err(_), Err(_)) => {}
        (whole, metadata) => panic!("`{text}`: {whole:?} as a whole, {metadata:?} in a file"),
    }
}
