//! PEP 668: an interpreter whose standard library folder holds
//! `EXTERNALLY-MANAGED` is reported as externally managed by `propose`, in every format and in
//! the install scripts, and planner does not add `--break-system-packages`; a virtual
//! environment made from the very same interpreter is not. pip, run against the same
//! interpreter, agrees that it refuses.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::venv::python3;
use crate::common::{TestContext, files_under, skip};
use crate::planner_snapshot;

/// A real interpreter with a prefix of its own: `python3`'s binary copied to `root/bin/`, its
/// standard library linked file by file into `root/lib/pythonX.Y/` (empty site-packages), plus
/// an `EXTERNALLY-MANAGED` file there, as Debian and Fedora ship it.
fn managed_interpreter(root: &Path) -> PathBuf {
    let real = std::fs::canonicalize(python3()).unwrap();
    let info = Command::new(&real)
        .args([
            "-I",
            "-c",
            "import sys, sysconfig; print(sysconfig.get_path('stdlib')); \
             print(f'python{sys.version_info[0]}.{sys.version_info[1]}')",
        ])
        .output()
        .unwrap();
    let info = String::from_utf8(info.stdout).unwrap();
    let mut lines = info.lines();
    let (stdlib, version) = (lines.next().unwrap(), lines.next().unwrap());
    let lib = root.join("lib").join(version);
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(root.join("bin")).unwrap();
    for entry in std::fs::read_dir(stdlib).unwrap().flatten() {
        let name = entry.file_name();
        if name != "site-packages" && name != "EXTERNALLY-MANAGED" {
            symlink(entry.path(), lib.join(&name)).unwrap();
        }
    }
    std::fs::create_dir_all(lib.join("site-packages")).unwrap();
    std::fs::write(
        lib.join("EXTERNALLY-MANAGED"),
        "[externally-managed]\nError=managed by the test's package manager\n",
    )
    .unwrap();
    let python = root.join("bin/python3");
    std::fs::copy(&real, &python).unwrap();
    let prefix = Command::new(&python)
        .args(["-I", "-c", "import sys; print(sys.prefix)"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&prefix.stdout).trim(),
        root.display().to_string(),
        "the copied interpreter did not take its own prefix: {}",
        String::from_utf8_lossy(&prefix.stderr)
    );
    python
}

fn propose(ctx: &TestContext, path: &str, extra: &[&str]) -> crate::common::Output {
    let index = crate::common::index_server::testdata_index().join("simple");
    let mut cmd = ctx.command();
    cmd.env("PATH", path).args([
        "propose",
        "packaging",
        "--index-url",
        index.to_str().unwrap(),
    ]);
    crate::common::run(cmd.args(extra))
}

#[test]
fn externally_managed_interpreters_are_named_and_never_forced() {
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let root = ctx.path().join("managed");
    let python = managed_interpreter(&root);
    let path = root.join("bin").display().to_string();

    // pip, the oracle: it refuses this interpreter (pip >= 22.3 runs itself inside it).
    let pip = Command::new(python3())
        .args(["-m", "pip", "--python"])
        .arg(&python)
        .args(["install", "--dry-run", "--no-index", "packaging"])
        .output()
        .unwrap();
    let pip_err = String::from_utf8_lossy(&pip.stderr);
    if pip_err.contains("no such option: --python") {
        skip("pep668 oracle", "this pip has no --python (pip < 22.3)");
    } else {
        assert!(
            pip_err.contains("externally-managed-environment"),
            "{pip_err}"
        );
    }

    let json = propose(&ctx, &path, &["--format", "json"]);
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let warnings = serde_json::to_string_pretty(&json.json()["warnings"]).unwrap();
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("externally_managed_warnings", warnings));
    planner_snapshot!(ctx, "externally_managed_text", propose(&ctx, &path, &[]));
    let out_dir = ctx.path().join("out");
    let written = propose(&ctx, &path, &["--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    let scripts: Vec<PathBuf> = files_under(&out_dir)
        .into_iter()
        .filter(|f| {
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("install-")
        })
        .collect();
    assert_eq!(scripts.len(), 2, "{scripts:?}");
    for script in &scripts {
        let text = std::fs::read_to_string(script).unwrap();
        // The commands name the interpreter that answered (the prefix has no bin/python), after
        // a comment saying the environment is externally managed.
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(format!("externally_managed_{name}"), text));
        let commands = text.lines().filter(|l| !l.starts_with('#'));
        assert!(
            !commands
                .clone()
                .any(|l| l.contains("--break-system-packages")),
            "{text}"
        );
    }
    assert!(
        !json.json()["plans"]
            .to_string()
            .contains("--break-system-packages"),
        "a command forces the install"
    );

    // A venv of the same interpreter is not externally managed (PEP 668 exempts venvs).
    let venv_path = ctx.path().join("venv");
    let made = Command::new(&python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv_path)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let plain = propose(&ctx, &path, &["--venv", venv_path.to_str().unwrap()]);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(
        !plain.stderr.contains("externally managed"),
        "{}",
        plain.stderr
    );
}
