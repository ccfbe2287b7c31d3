//! Plan files read by `check --accept`: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner::plan::AcceptedOverrides;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut accepted = AcceptedOverrides::default();
    if accepted.add_json(text, std::path::Path::new("plan.json")).is_ok() {
        let _ = accepted.edges();
    }
});
