//! JSON output: the documented schema (`docs/plan-json.md`), pretty-printed, stable key order.

use serde::Serialize;

/// Pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("plan types always serialize");
    text.push('\n');
    text
}
