//! Snapshot files and `pip inspect` output (`--from-snapshot`): no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner::inventory::snapshot::parse;

fuzz_target!(|data: &[u8]| {
    let _ = parse(std::path::Path::new("fuzz.json"), data);
});
