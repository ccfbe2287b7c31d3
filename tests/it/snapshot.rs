//! `planner snapshot`: `--out` and the `--script` script give equal snapshots of one real
//! venv; snapshots and `pip inspect` output read back as the same inventory.

use std::process::Command;

use crate::common::{TestContext, venv};
use crate::planner_snapshot;

/// Write a snapshot to `out` with `planner snapshot --script`'s script run by `python`, in the
/// same cleared environment as the planner's runs (so the runtime sections agree).
fn write_with_script(ctx: &TestContext, python: &std::path::Path, out: &std::path::Path) {
    let script = ctx.run(&["snapshot", "--script"]);
    assert_eq!(script.code, Some(0));
    let script_path = out.with_extension("py");
    std::fs::write(&script_path, &script.stdout).unwrap();
    let output = Command::new(python)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", ctx.home())
        .arg(&script_path)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn script_and_planner_write_equal_snapshots() {
    let venv = venv::clean_venv();
    let mut ctx = TestContext::new();
    // The venv's own pip (and setuptools, before Python 3.12) count among its dists.
    ctx.filter(
        r"snapshot of \d+ distributions",
        "snapshot of [N] distributions",
    );
    let dir = ctx.path();
    let ours = dir.join("planner.json");
    let run = ctx.run(&[
        "snapshot",
        "--venv",
        venv.path.to_str().unwrap(),
        "--out",
        ours.to_str().unwrap(),
    ]);
    planner_snapshot!(ctx, run, @r#"
        exit_code: 0
        ----- stdout -----

        ----- stderr -----
        wrote a snapshot of [N] distributions to [TMP]/planner.json
        "#);

    let theirs = dir.join("script.json");
    write_with_script(&ctx, &venv.python, &theirs);

    let read = |path: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (a, b) = (read(&ours), read(&theirs));
    assert_eq!(a["schema"], "planner-snapshot/1");
    assert_eq!(b["schema"], "planner-snapshot/1");
    crate::common::schema::assert_valid(&a);
    crate::common::schema::assert_valid(&b);
    assert!(a["dists"].as_array().unwrap().len() >= 6);
    // Both run in the same venv, so even the paths agree; normalize them anyway so the
    // comparison is about content.
    let root = venv.path.to_str().unwrap();
    let normalize = |v: &serde_json::Value| -> serde_json::Value {
        serde_json::from_str(&v.to_string().replace(root, "[VENV]")).unwrap()
    };
    // Equal as JSON values (key order inside objects may differ: Python keeps file order).
    assert!(normalize(&a) == normalize(&b), "the two snapshots differ");
}

#[test]
fn snapshot_reads_back_as_the_same_inventory() {
    let ctx = TestContext::in_repo();
    let file = ctx.path().join("canonical.json");
    let run = ctx.run(&[
        "snapshot",
        "--venv",
        "testdata/venvs/canonical",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let direct = ctx
        .run(&[
            "inventory",
            "--venv",
            "testdata/venvs/canonical",
            "--format",
            "json",
        ])
        .json();
    let back = ctx.run(&[
        "inventory",
        "--from-snapshot",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(back.code, Some(0), "{}", back.stderr);
    let back = back.json();
    assert_eq!(back["environment"]["origin"]["kind"], "snapshot");
    assert_eq!(back["environment"]["tags"], direct["environment"]["tags"]);
    assert_eq!(
        back["environment"]["markers"],
        direct["environment"]["markers"]
    );
    let strip = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["dists"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.as_object_mut().unwrap().remove("format");
                d
            })
            .collect()
    };
    assert_eq!(strip(&back), strip(&direct));
    // check gives the same answer from the snapshot.
    let check = ctx.run(&["check", "--from-snapshot", file.to_str().unwrap()]);
    planner_snapshot!(ctx, check, @r#"
        exit_code: 0
        ----- stdout -----
        No broken requirements found.

        info:
          - flash-linear-attention 0.5.1 was installed from git@0c5dc3f0a57e (https://github.com/fla-org/flash-linear-attention), not from an index; it is never upgraded from one
          - torch 2.11.0+cu130 is a local build variant (+cu130); the public index may not have it

        ----- stderr -----
        "#);
}

#[test]
fn real_pip_inspect_output_reads_as_the_venv() {
    let venv = venv::clean_venv();
    let mut ctx = TestContext::new();
    // The host's pip wrote the document, for the host's interpreter.
    ctx.filter(r"\(pip \d+(\.\d+)*\)", "(pip [HOST_PIP])");
    ctx.filter(r"\bCPython 3\.\d+\b", "CPython [HOST_PY]");
    let file = ctx.path().join("inspect.json");
    std::fs::write(&file, venv.pip_ok(&["inspect"])).unwrap();
    let from_inspect = ctx.run(&[
        "inventory",
        "--from-snapshot",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(from_inspect.code, Some(0), "{}", from_inspect.stderr);
    // What stderr says of a `pip inspect` document read as a snapshot.
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("pip_inspect_notes", from_inspect.stderr));
    let direct = ctx
        .run(&[
            "inventory",
            "--venv",
            venv.path.to_str().unwrap(),
            "--format",
            "json",
        ])
        .json();
    let inspect = from_inspect.json();
    let key =
        |v: &serde_json::Value| -> Vec<(String, String, serde_json::Value, serde_json::Value)> {
            v["dists"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    (
                        d["name"].as_str().unwrap().to_string(),
                        d["version"].as_str().unwrap().to_string(),
                        d["requires_dist"].clone(),
                        d["direct_url"].clone(),
                    )
                })
                .collect()
        };
    assert_eq!(key(&inspect), key(&direct));
    assert_eq!(
        inspect["environment"]["markers"],
        direct["environment"]["markers"]
    );
    // Tags were generated from the markers; the interpreter's own list agrees on the best one
    // for pure-Python wheels.
    let tags: Vec<&str> = inspect["environment"]["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tags.contains(&"py3-none-any"));
}

#[test]
fn script_is_valid_python_and_out_is_atomic() {
    let python = venv::python3();
    let ctx = TestContext::in_repo();
    let script = ctx.run(&["snapshot", "--script"]).stdout;
    let dir = ctx.path();
    let path = dir.join("snapshot.py");
    std::fs::write(&path, &script).unwrap();
    let compiled = Command::new(python)
        .args(["-m", "py_compile"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(compiled.status.success());
    assert!(script.contains("Standard library only, Python 3.8+"));

    // A target folder that does not exist: exit 2, nothing written.
    let target = dir.join("missing/snap.json");
    let run = ctx.run(&[
        "snapshot",
        "--venv",
        "testdata/venvs/canonical",
        "--out",
        target.to_str().unwrap(),
    ]);
    planner_snapshot!(ctx, run, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::snapshot::no_folder

          × cannot write the snapshot to `[TMP]/missing/snap.json`: the
          │ folder `[TMP]/missing` does not exist
          help: make the folder first (`mkdir -p`), or name a file in one that exists
        "#);
    assert!(!target.exists());
    // A bad snapshot names the file.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    let run = ctx.run(&["inventory", "--from-snapshot", bad.to_str().unwrap()]);
    planner_snapshot!(ctx, run, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::inventory::snapshot

          × cannot read the snapshot `[TMP]/bad.json`: neither a planner
          │ snapshot (`schema: planner-snapshot/1`) nor `pip inspect` output
          │ (`installed` and `environment`)
          help: pass a file written by `planner snapshot --out`, by the `planner
                snapshot --script` script, or by `python -m pip inspect`
        "#);
}

/// A file edited in place and one deleted between two snapshots: both snapshot writers (planner
/// and the stdlib-only script) record the same changes, and `diff` names each, with its dist.
#[test]
fn an_edit_in_place_is_recorded_by_both_writers_and_named_by_diff() {
    let mut ctx = TestContext::new();
    let real = venv::alpha_venv(&ctx.path().join("venv"));
    let before = ctx.path().join("before.json");
    let after = ctx.path().join("after.json");
    let snap = |out: &std::path::Path| {
        let run = ctx.run(&[
            "snapshot",
            "--venv",
            real.path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    };
    snap(&before);
    venv::patch_alpha(&real);
    snap(&after);
    let by_script = ctx.path().join("script.json");
    write_with_script(&ctx, &real.python, &by_script);
    let files_of_alpha = |path: &std::path::Path| -> serde_json::Value {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        crate::common::schema::assert_valid(&doc);
        doc["dists"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["metadata"]["name"] == "alpha")
            .unwrap()["files"]
            .clone()
    };
    assert_eq!(files_of_alpha(&after), files_of_alpha(&by_script));
    assert_eq!(
        files_of_alpha(&after)["changes"].as_array().unwrap().len(),
        2
    );
    assert_eq!(files_of_alpha(&before)["changes"], serde_json::json!([]));
    ctx.filter(
        r"modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        "modified [MTIME]",
    );
    ctx.filter(r"\d+ -> \d+ bytes", "[SIZE] -> [SIZE] bytes");
    planner_snapshot!(
        ctx,
        ctx.run(&["diff", before.to_str().unwrap(), after.to_str().unwrap()])
    );
}

/// An edited module's line hashes and a file no `RECORD` owns are recorded alike by planner and
/// by the script; `diff` counts the lines two edits differ by, counts them against the file as
/// installed where that side is the venv on disk, and names the unowned file coming and going.
#[test]
fn line_counts_and_unowned_files_are_recorded_by_both_writers_and_named_by_diff() {
    let mut ctx = TestContext::new();
    ctx.filter(
        r"modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        "modified [MTIME]",
    );
    let real = venv::alpha_venv(&ctx.path().join("venv"));
    let module = venv::installed_file(&real, "alpha/__init__.py");
    let extra = module.with_file_name("extra.py");
    let original = std::fs::read_to_string(&module).unwrap();
    let snap = |name: &str| {
        let out = ctx.path().join(name);
        let run = ctx.run(&[
            "snapshot",
            "--venv",
            real.path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        out
    };
    let before = snap("before.json");
    std::fs::write(&module, format!("{original}# one\n# two\n")).unwrap();
    std::fs::write(&extra, "HELPER = 1\n").unwrap();
    let first = snap("first.json");
    let by_script = ctx.path().join("script.json");
    write_with_script(&ctx, &real.python, &by_script);
    let files_of_alpha = |path: &std::path::Path| -> serde_json::Value {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        crate::common::schema::assert_valid(&doc);
        doc["dists"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["metadata"]["name"] == "alpha")
            .unwrap()["files"]
            .clone()
    };
    let files = files_of_alpha(&first);
    assert_eq!(files, files_of_alpha(&by_script));
    assert_eq!(files_of_alpha(&before)["unowned"], serde_json::json!([]));
    assert_eq!(files["unowned"][0]["path"], "alpha/extra.py");
    assert_eq!(files["unowned"][0]["size"], 11);
    let hashes = files["changes"][0]["line_hashes"].as_array().unwrap().len();
    assert_eq!(hashes, original.lines().count() + 2);
    std::fs::write(
        &module,
        format!("{original}# one\n# three\n# four\n# five\n"),
    )
    .unwrap();
    let second = snap("second.json");
    let diff = |a: &std::path::Path, b: &std::path::Path| {
        let args = ["diff", a.to_str().unwrap(), b.to_str().unwrap()];
        let json = ctx.run(&[&args[..], &["--format", "json"]].concat()).json();
        crate::common::schema::assert_valid(&json);
        (json, ctx.run(&args))
    };
    let (json, text) = diff(&first, &second);
    let alpha = &json["changes"][0];
    assert_eq!(alpha["kind"], "edited-in-place");
    assert_eq!(
        alpha["files"][0]["lines"],
        serde_json::json!({"added": 3, "removed": 1})
    );
    planner_snapshot!(ctx, "diff_edited_again", text);
    // A pristine snapshot keeps no text of the file: the count is unknown, the file is named.
    let (json, text) = diff(&before, &second);
    assert_eq!(
        json["changes"][0]["files"][0]["lines"],
        serde_json::Value::Null
    );
    planner_snapshot!(ctx, "diff_pristine_to_edited", text);
    // Undone on disk: the venv's own file is that side's text.
    std::fs::write(&module, &original).unwrap();
    std::fs::remove_file(&extra).unwrap();
    let (json, text) = diff(&second, &real.path);
    assert_eq!(
        json["changes"][0]["files"][0]["lines"],
        serde_json::json!({"added": 0, "removed": 4})
    );
    planner_snapshot!(ctx, "diff_undone_on_disk", text);
}

/// A namespace folder two dists share (as `nvidia/` is), with files no `RECORD` lists at its
/// top, in a new sub-folder, deep in one dist's sub-folder, and a symlink: planner and the
/// script give each file to the same dist (the one owning files in its nearest folder, else the
/// first by name).
#[test]
fn both_writers_give_unowned_files_in_a_shared_folder_to_the_same_dist() {
    let ctx = TestContext::new();
    let real = venv::RealVenv::create_without_pip(&ctx.path().join("venv"));
    let site = real.site_packages();
    for (name, sub) in [("nsx_b", "b"), ("nsx_a", "a")] {
        let info = site.join(format!("{name}-1.0.dist-info"));
        std::fs::create_dir_all(&info).unwrap();
        std::fs::create_dir_all(site.join("nsx").join(sub)).unwrap();
        std::fs::write(site.join("nsx/__init__.py"), "").unwrap();
        std::fs::write(site.join(format!("nsx/{sub}/mod.py")), "x = 1\n").unwrap();
        std::fs::write(
            info.join("METADATA"),
            format!("Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\n"),
        )
        .unwrap();
        std::fs::write(
            info.join("RECORD"),
            format!(
                "nsx/__init__.py,,\nnsx/{sub}/mod.py,,\n{name}-1.0.dist-info/METADATA,,\n\
                 {name}-1.0.dist-info/RECORD,,\n"
            ),
        )
        .unwrap();
    }
    std::fs::create_dir_all(site.join("nsx/newdir")).unwrap();
    std::fs::create_dir_all(site.join("nsx/b/deep")).unwrap();
    std::fs::write(site.join("nsx/stray.txt"), "s\n").unwrap();
    std::fs::write(site.join("nsx/newdir/z.py"), "z\n").unwrap();
    std::fs::write(site.join("nsx/b/deep/q.py"), "q\n").unwrap();
    std::os::unix::fs::symlink("mod.py", site.join("nsx/b/link.py")).unwrap();
    let planner = ctx.path().join("planner.json");
    let run = ctx.run(&[
        "snapshot",
        "--venv",
        real.path.to_str().unwrap(),
        "--out",
        planner.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let script = ctx.path().join("script.json");
    write_with_script(&ctx, &real.python, &script);
    let unowned = |path: &std::path::Path| -> Vec<String> {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        crate::common::schema::assert_valid(&doc);
        let dists = doc["dists"].as_array().unwrap().iter();
        dists
            .flat_map(|d| {
                let files = d["files"]["unowned"].as_array().unwrap().iter();
                files.map(move |f| format!("{} {} {}", d["metadata"]["name"], f["path"], f["size"]))
            })
            .collect()
    };
    assert_eq!(
        unowned(&planner),
        [
            r#""nsx_a" "nsx/newdir/z.py" 2"#,
            r#""nsx_a" "nsx/stray.txt" 2"#,
            r#""nsx_b" "nsx/b/deep/q.py" 2"#,
            r#""nsx_b" "nsx/b/link.py" null"#,
        ]
    );
    assert_eq!(unowned(&planner), unowned(&script));
}
