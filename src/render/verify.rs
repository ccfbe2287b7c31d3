//! The post-upgrade verification script: Python, standard library only.
//!
//! The template (`verify.py` beside this file) holds no plan data; the plan is inserted as ONE
//! JSON string literal: the plan's JSON text, made ASCII-only (every non-ASCII character,
//! `\u2028` and bidi controls included, escaped as `\uXXXX`), then encoded again as a JSON string,
//! which is also a valid Python string literal. Nothing from the plan reaches code or comments.

use crate::plan::Plan;

const TEMPLATE: &str = include_str!("verify.py");
const PLACEHOLDER: &str = "__PLAN_JSON__";

/// The script for one plan.
pub fn script(plan: &Plan) -> String {
    let json = serde_json::to_string(plan).expect("plans always serialize");
    let literal = python_string_literal(&json);
    let (head, tail) = TEMPLATE
        .split_once(PLACEHOLDER)
        .expect("the template has one placeholder");
    debug_assert!(!tail.contains(PLACEHOLDER));
    format!("{head}{literal}{tail}")
}

/// A JSON text as a double-quoted string literal that Python and JSON both read back exactly:
/// the inner text is made ASCII-only first, so the literal holds only printable ASCII.
pub fn python_string_literal(json: &str) -> String {
    let mut ascii = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            ascii.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                ascii.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    // Outer encoding: only `"` and `\` need escaping in printable ASCII.
    serde_json::to_string(&ascii).expect("strings always serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plans;

    fn python() -> Option<&'static str> {
        std::process::Command::new("python3")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| "python3")
    }

    #[test]
    fn literal_is_printable_ascii_and_round_trips() {
        let nasty = "a'''b\\c\"d\ne\u{2028}f\u{202e}g\u{1F600}h</script>";
        let json = serde_json::to_string(&nasty).unwrap();
        let literal = python_string_literal(&json);
        assert!(
            literal.bytes().all(|b| (0x20..0x7f).contains(&b)),
            "{literal}"
        );
        let inner: String = serde_json::from_str(&literal).unwrap();
        let back: String = serde_json::from_str(&inner).unwrap();
        assert_eq!(back, nasty);
    }

    /// Hostile text in every string field reaches Python intact and never becomes code.
    #[test]
    fn hostile_plan_data_stays_data() {
        let mut plan = test_plans::forced();
        let nasty = "x''' + __import__('os').system('echo PWNED') + '''\\\n#\u{2028}\u{202e}\"";
        plan.title = nasty.to_string();
        plan.overrides[0].reason = nasty.to_string();
        plan.warnings.push(nasty.to_string());
        let script = script(&plan);
        assert!(!script.contains("__PLAN_JSON__"));
        assert!(
            script
                .lines()
                .all(|l| !l.starts_with('#') || !l.contains("PWNED"))
        );
        let Some(python) = python() else { return };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verify.py");
        std::fs::write(&path, &script).unwrap();
        let out = std::process::Command::new(python)
            .args(["-m", "py_compile"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Load the module without running main() and compare the plan it holds.
        let probe = "import importlib.util, json, sys\n\
                     spec = importlib.util.spec_from_file_location('v', sys.argv[1])\n\
                     m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n\
                     sys.stdout.write(json.dumps(m.PLAN))";
        let out = std::process::Command::new(python)
            .args(["-c", probe])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("PWNED\n"));
        let back: Plan = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, plan);
    }

    #[test]
    fn canonical_version_matches_pep440() {
        let Some(python) = python() else { return };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verify.py");
        std::fs::write(&path, script(&test_plans::forced())).unwrap();
        let probe = "import importlib.util, sys\n\
                     spec = importlib.util.spec_from_file_location('v', sys.argv[1])\n\
                     m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n\
                     pairs = [('2.12', '2.12.0'), ('1.0-RC1', '1.0rc1'), ('2.11.0+CU_130', '2.11.0+cu.130'), ('1.0.post2', '1.0-2'), ('v1!2.0.dev', '1!2.dev0')]\n\
                     assert all(m.canonical_version(a) == m.canonical_version(b) for a, b in pairs), [(m.canonical_version(a), m.canonical_version(b)) for a, b in pairs]\n\
                     assert m.canonical_version('3.6.0') != m.canonical_version('3.7.0')\n\
                     assert m.canonical_version('2.11.0') != m.canonical_version('2.11.0+cu130')";
        let out = std::process::Command::new(python)
            .args(["-c", probe])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
