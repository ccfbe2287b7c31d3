//! The zip / zip64 central-directory reader (range reads of wheels, `.zip` sdists): no panic,
//! no huge allocation, and never more than the metadata size cap returned.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner::index::zip::zip_member;
use planner::metadata::max_bytes;

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(bytes)) = zip_member(data, |name| name.ends_with(".dist-info/METADATA")) {
        assert!(bytes.len() <= max_bytes() + 1);
    }
    let _ = zip_member(data, |_| true);
});
