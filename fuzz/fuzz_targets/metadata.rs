//! METADATA / PKG-INFO / `.metadata` bytes: no panic, and what parses survives the snapshot's
//! field form (the path `planner snapshot` then `--from-snapshot` takes) unchanged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner::inventory::snapshot::MetadataFields;
use planner::metadata::{CoreMetadata, parse_headers};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_headers(text);
        if let Some(fields) = MetadataFields::from_text(text) {
            let _ = fields.parse();
        }
    }
    let Ok(metadata) = CoreMetadata::parse(data) else {
        return;
    };
    let again = MetadataFields::from_metadata(&metadata)
        .parse()
        .expect("metadata that parsed must parse again from its snapshot fields");
    assert_eq!(again.name, metadata.name);
    assert_eq!(again.version, metadata.version);
    assert_eq!(again.requires_dist, metadata.requires_dist);
    assert_eq!(again.requires_python, metadata.requires_python);
    assert_eq!(again.provides_extra, metadata.provides_extra);
});
