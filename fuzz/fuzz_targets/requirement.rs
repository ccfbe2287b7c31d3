//! PEP 508 requirements, PEP 440 versions and specifiers, `Requires-Python` values: no panic,
//! and what parses re-serializes to text that parses to the same value (generated commands and
//! plan files are written from the parsed form).
#![no_main]
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::Requirement;
use planner::metadata::parse_requires_python;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(requirement) = Requirement::<url::Url>::from_str(text) {
        let written = requirement.to_string();
        let again = Requirement::<url::Url>::from_str(&written)
            .unwrap_or_else(|e| panic!("`{written}` (from `{text}`) does not parse: {e}"));
        assert_eq!(again, requirement, "`{text}` -> `{written}`");
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
});
