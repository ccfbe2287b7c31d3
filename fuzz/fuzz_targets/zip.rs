//! The zip / zip64 central-directory reader (range reads of wheels, `.zip` sdists): no panic,
//! no huge allocation, never more than the metadata size cap returned, and never a central
//! directory over its caps declared as one to read next (the same bytes as a range read's tail).
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner_pypi::zip::{
    MAX_DIRECTORY_BYTES, MAX_DIRECTORY_ENTRIES, declared_directory, zip_member,
};
use planner_pypi::metadata::max_bytes;

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(bytes)) = zip_member(data, |name| name.ends_with(".dist-info/METADATA")) {
        assert!(bytes.len() <= max_bytes() + 1);
    }
    let _ = zip_member(data, |_| true);
    // The bytes as the tail of a larger file (a range read's last window).
    for total in [data.len() as u64, data.len() as u64 + (1 << 34)] {
        if let Ok((size, entries)) = declared_directory(data, total) {
            assert!(size <= MAX_DIRECTORY_BYTES && entries <= MAX_DIRECTORY_ENTRIES);
        }
    }
});
