use super::*;
use crate::plan::test_plans;
use crate::risk::Policy;

/// The interpreter the script tests run (CI has one; a missing one fails the test).
fn python() -> &'static str {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "these tests run the generated script: python3 must be on PATH"
    );
    "python3"
}

fn canonical_inventory() -> crate::inventory::Inventory {
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/venvs/canonical");
    crate::inventory::load_venv(&venv).unwrap()
}

fn spec_of(plan: &crate::plan::Plan) -> VerifySpec {
    crate::verify::select(
        Some(plan),
        &canonical_inventory(),
        &Policy::builtin(),
        false,
    )
}

/// Load the script as a module (main() does not run) and evaluate `expr` on it.
fn eval(script: &str, expr: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("verify.py");
    std::fs::write(&path, script).unwrap();
    let probe = format!(
        "import importlib.util, json, sys\n\
         spec = importlib.util.spec_from_file_location('v', sys.argv[1])\n\
         m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n\
         sys.stdout.write(json.dumps({expr}))"
    );
    let out = std::process::Command::new(python())
        .args(["-c", &probe])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
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
    let mut spec = spec_of(&plan);
    spec.smoke[0].code = nasty.to_string();
    let script = script(&spec);
    assert!(!script.contains("__SPEC_JSON__"));
    assert!(
        script
            .lines()
            .all(|l| !l.starts_with('#') || !l.contains("PWNED"))
    );
    let out = std::process::Command::new(python())
        .args(["-c", "import ast, sys; ast.parse(sys.stdin.read())"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(script.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = eval(&script, "m.SPEC");
    assert!(!back.contains("PWNED\n"));
    let back: serde_json::Value = serde_json::from_str(&back).unwrap();
    assert_eq!(back, serde_json::to_value(&spec).unwrap());
    assert_eq!(back["plan"]["title"], nasty);
    assert_eq!(back["smoke"][0]["code"], nasty);
}

#[test]
fn canonical_version_matches_pep440() {
    let script = script(&spec_of(&test_plans::forced()));
    let pairs = "[('2.12', '2.12.0'), ('1.0-RC1', '1.0rc1'), ('2.11.0+CU_130', '2.11.0+cu.130'), \
                 ('1.0.post2', '1.0-2'), ('v1!2.0.dev', '1!2.dev0')]";
    let same = eval(
        &script,
        &format!("all(m.canonical_version(a) == m.canonical_version(b) for a, b in {pairs})"),
    );
    assert_eq!(same, "true");
    let differ = eval(
        &script,
        "[m.canonical_version('3.6.0') != m.canonical_version('3.7.0'), \
         m.canonical_version('2.11.0') != m.canonical_version('2.11.0+cu130')]",
    );
    assert_eq!(differ, "[true, true]");
}

/// The script of the canonical incident's forced plan (triton 3.7.0 over torch's pin), on the
/// canonical venv: triton, torch (whose pin is overridden) and everything that reaches triton
/// are imported; the torch and triton smoke tests are embedded as data.
#[test]
fn canonical_forced_plan_script() {
    let spec = spec_of(&test_plans::forced());
    let names: Vec<String> = spec
        .dists
        .iter()
        .map(|d| format!("{} {:?}", d.name, d.why))
        .collect();
    assert!(names.contains(&"triton Changed".to_string()), "{names:?}");
    assert!(
        names.contains(&"torch OverriddenDependent".to_string()),
        "{names:?}"
    );
    insta::assert_snapshot!(script(&spec));
}

/// A module the changed dist's new release no longer ships (flask 3.1 dropped `flask.scaffold`;
/// flask 2.1.3 has no `flask.sansio`, so `flask.sansio.app` fails on its package) is removed by
/// the plan when nothing left in the environment imports it: a skip with the reason, not a
/// failure. Where the static import evidence (SPEC's deep modules) names a file still on disk
/// that imports it, it is a break. A module it still ships, or a failure on something the module
/// imports, is judged as before. Read against the test interpreter's real `pip` dist.
#[test]
fn a_module_the_new_release_no_longer_ships_is_removed_unless_something_left_imports_it() {
    let script = script(&spec_of(&test_plans::forced()));
    let cases = "[('pip._gone', 'pip', 'pip._gone'), ('pip._gone.sub', 'pip', 'pip._gone'), \
                  ('pip._internal', 'pip', 'pip._internal'), ('pip._gone', 'pip', 'six'), \
                  ('pip._gone', 'setuptools', 'pip._gone')]";
    let judge = |dists: &str| {
        let judged = eval(
            &script,
            &format!(
                "(m.SPEC.update(expect=[{{'name': 'pip'}}], dists={dists}), setattr(m, 'CHANGED', frozenset(['pip'])), \
                  [m.dropped_module(m.Installed(), {{'module': mod, 'dist': dist}}, {{'missing': missing}}) \
                   for mod, dist, missing in {cases}], m.Installed().version('pip'))[2:]"
            ),
        );
        let (judged, version): (serde_json::Value, String) = serde_json::from_str(&judged).unwrap();
        serde_json::to_string_pretty(&judged)
            .unwrap()
            .replace(&format!("pip {version} "), "pip VERSION ")
    };
    insta::assert_snapshot!(judge("[]"), @r#"
        [
          [
            true,
            "removed by the plan: pip VERSION does not ship `pip._gone`, and nothing left in the environment imports it"
          ],
          [
            true,
            "removed by the plan: pip VERSION does not ship `pip._gone.sub` (`pip._gone` is gone), and nothing left in the environment imports it"
          ],
          null,
          null,
          null
        ]
        "#);
    // A file left in the environment imports the package the module was in.
    let imported = "[{'name': 'x', 'deep': [{'module': 'pip._gone', 'imports': 'pip', \
                     'file': 'pip/__init__.py'}]}]";
    insta::assert_snapshot!(judge(imported), @r#"
        [
          [
            false,
            "pip VERSION does not ship `pip._gone`, and `pip/__init__.py`, still in the environment, imports it"
          ],
          [
            false,
            "pip VERSION does not ship `pip._gone.sub` (`pip._gone` is gone), and `pip/__init__.py`, still in the environment, imports it"
          ],
          null,
          null,
          null
        ]
        "#);
    // The importing file is gone too (a file of the changed dist's old release).
    let gone = "[{'name': 'x', 'deep': [{'module': 'pip._gone', 'imports': 'pip', \
                 'file': 'pip/_no_such_file.py'}]}]";
    assert_eq!(judge(gone), judge("[]"));
}

/// A file that imports the package a dropped module was in does not import the module: scikit-learn
/// 1.9.1's `sklearn/_loss/loss.py` runs `from scipy.special import xlogy` (the deep module
/// `scipy.special`); scipy 1.17.1 has no `scipy.special._ufunc_tools`, which scipy 1.18.1 had,
/// and nothing imports it, so the plan scipy 1.18.1 -> 1.17.1 removed it (try said it broke
/// `loss.py`; the plan applied for real imports and fits). `from scipy.special import
/// _ufunc_tools` is the deep module `scipy.special._ufunc_tools`: that file does break.
#[test]
fn a_file_importing_the_package_of_a_dropped_module_does_not_import_it() {
    let script = script(&spec_of(&test_plans::forced()));
    let judge = |deep: &str| {
        let dists = format!("[{{'name': 'x', 'deep': [{deep}]}}]");
        let judged = eval(
            &script,
            &format!(
                "(m.SPEC.update(expect=[{{'name': 'pip'}}], dists={dists}), setattr(m, 'CHANGED', frozenset(['pip'])), \
                  m.dropped_module(m.Installed(), {{'module': 'pip._internal._gone', 'dist': 'pip'}}, \
                                   {{'missing': 'pip._internal._gone'}})[0])[2]"
            ),
        );
        judged.trim().to_string()
    };
    let package = "{'module': 'pip._internal', 'imports': 'pip', 'file': 'pip/__init__.py'}";
    assert_eq!(judge(package), "true", "removed: nothing imports it");
    let module = "{'module': 'pip._internal._gone', 'imports': 'pip', 'file': 'pip/__init__.py'}";
    assert_eq!(
        judge(module),
        "false",
        "a break: pip/__init__.py imports it"
    );
}

/// shellingham 1.5.4's `nt.py` (imported under `os.name == "nt"` by its package, and by verify
/// as a first-level module) runs `ctypes.windll.kernel32` at module level: on Linux that is a
/// module for another platform, a skip in every run, never a failure or a regression.
#[test]
fn windows_only_ctypes_is_a_module_for_another_platform() {
    let script = script(&spec_of(&test_plans::forced()));
    let reason = |error: &str| {
        eval(
            &script,
            &format!("m.optional_reason(m.Installed(), {{'dist': 'pip'}}, {{'error': {error:?}}})"),
        )
    };
    assert_eq!(
        reason("AttributeError: module 'ctypes' has no attribute 'windll'"),
        "[\"ctypes.windll\", \"needs Windows' ctypes (module 'ctypes' has no attribute 'windll'): a \
         module for another platform\"]"
    );
    assert_eq!(
        reason("AttributeError: module 'os' has no attribute 'x'"),
        "null"
    );
}
