//! Wheel and sdist file names: no panic; a parsed name and version are valid values, and a
//! wheel's tag set expands to at least one tag.
#![no_main]
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use planner_pypi::filename::DistFilename;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(parsed) = DistFilename::from_str(text) else {
        return;
    };
    let name = parsed.name().to_string();
    assert_eq!(pep508_rs::PackageName::from_str(&name).as_ref(), Ok(parsed.name()));
    let version = parsed.version().to_string();
    assert_eq!(
        pep440_rs::Version::from_str(&version).as_ref(),
        Ok(parsed.version())
    );
    if let DistFilename::Wheel(wheel) = &parsed {
        assert!(!wheel.tags.is_empty());
    }
});
