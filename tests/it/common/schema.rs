//! The JSON contract: every document planner writes carries
//! `"schema": "planner-NAME/N"` and validates against `docs/schemas/NAME.json` (JSON Schema
//! 2020-12, checked with boon). [`assert_valid`] checks one document; `Output::json` calls it
//! on every planner document a test reads from stdout, so every JSON test checks the schema too.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::repo_root;

/// Every schema under docs/schemas, compiled once per test process.
struct Compiled {
    schemas: boon::Schemas,
    by_name: HashMap<String, boon::SchemaIndex>,
}

fn compiled() -> &'static Mutex<Compiled> {
    static COMPILED: OnceLock<Mutex<Compiled>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let dir = repo_root().join("docs/schemas");
        let mut compiler = boon::Compiler::new();
        compiler.enable_format_assertions();
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("docs/schemas") {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let value: serde_json::Value = serde_json::from_str(&text)
                    .unwrap_or_else(|err| panic!("{} is not JSON: {err}", path.display()));
                // Registered by its own `$id`, as a standard validator's registry holds it:
                // relative `$ref`s (`plan.json`) resolve against it, with no file paths.
                let url = value["$id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{} has no $id", path.display()))
                    .to_string();
                compiler.add_resource(&url, value).unwrap();
                let name = path.file_stem().unwrap().to_str().unwrap().to_string();
                names.push((name, url));
            }
        }
        let mut schemas = boon::Schemas::new();
        let by_name = names
            .into_iter()
            .map(|(name, url)| {
                let index = compiler
                    .compile(&url, &mut schemas)
                    .unwrap_or_else(|err| panic!("docs/schemas/{name}.json: {err:#}"));
                (name, index)
            })
            .collect();
        Mutex::new(Compiled { schemas, by_name })
    })
}

/// The schema file's name for a document's `schema` (`planner-inventory/1` -> `inventory`),
/// when it is a planner document.
pub fn schema_name(doc: &serde_json::Value) -> Option<String> {
    let schema = doc.get("schema")?.as_str()?;
    let (name, version) = schema.strip_prefix("planner-")?.split_once('/')?;
    version.parse::<u32>().ok()?;
    Some(name.to_string())
}

/// Panic unless `doc` names a published schema and validates against it.
pub fn assert_valid(doc: &serde_json::Value) {
    let name = schema_name(doc).unwrap_or_else(|| {
        panic!(
            "not a planner document (no `\"schema\": \"planner-NAME/N\"`): {}",
            first_chars(doc)
        )
    });
    let compiled = compiled().lock().unwrap_or_else(|e| e.into_inner());
    let index = *compiled
        .by_name
        .get(&name)
        .unwrap_or_else(|| panic!("no docs/schemas/{name}.json for {}", doc["schema"]));
    if let Err(err) = compiled.schemas.validate(doc, index) {
        panic!(
            "the {} document does not match docs/schemas/{name}.json:\n{err:#}\n{}",
            doc["schema"],
            first_chars(doc)
        );
    }
}

fn first_chars(doc: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(doc).unwrap_or_default();
    text.chars().take(3000).collect()
}
