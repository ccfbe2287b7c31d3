//! `planner inventory`: the shared H200 fixture against pip's own listing, the canonical and
//! broken testdata venvs, a real venv against `pip inspect`, discovery and bad paths.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::common::{
    self, TestContext, copy_dir, files_under, h200_fixtures, normalized, repo_root, run, venv,
};
use crate::planner_snapshot;

fn names_versions(json: &serde_json::Value) -> BTreeSet<(String, String)> {
    json["dists"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["version"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn h200_lists_the_same_197_dists_as_pip_list() {
    let fixtures = h200_fixtures();
    let ctx = TestContext::new();
    let run = ctx.run(&[
        "inventory",
        "--venv",
        fixtures.join("h200-venv").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ours = names_versions(&run.json());
    let oracle: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures.join("h200-venv/oracle/pip-list.json")).unwrap(),
    )
    .unwrap();
    let theirs: BTreeSet<(String, String)> = oracle
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                normalized(d["name"].as_str().unwrap()),
                d["version"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(theirs.len(), 197);
    assert_eq!(ours, theirs);
    // No interpreter there: the pyvenv.cfg fallback; the note saying so is for -v only (it was
    // once printed on every run), the origin in the data says it.
    let json = run.json();
    assert_eq!(json["environment"]["origin"]["kind"], "pyvenv-cfg");
    assert_eq!(json["environment"]["python_version"], "3.12.3");
    // Nothing on stderr, the fallback's note ("without running Python") included.
    insta::assert_snapshot!(run.stderr, @"");
    // The marker environment agrees with the machine's where the host can know it.
    let markers: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures.join("h200-venv/oracle/markers.json")).unwrap(),
    )
    .unwrap();
    for key in [
        "python_full_version",
        "python_version",
        "implementation_name",
        "sys_platform",
    ] {
        assert_eq!(json["environment"]["markers"][key], markers[key], "{key}");
    }
}

#[test]
fn h200_pip_inspect_snapshot_lists_the_same_dists() {
    let h200 = h200_fixtures().join("h200-venv");
    let ctx = TestContext::new();
    let from_venv = ctx.run(&[
        "inventory",
        "--venv",
        h200.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let from_inspect = ctx.run(&[
        "inventory",
        "--from-snapshot",
        h200.join("oracle/pip-inspect.json").to_str().unwrap(),
        "--python-platform",
        "x86_64-manylinux_2_28",
        "--format",
        "json",
    ]);
    assert_eq!(from_inspect.code, Some(0), "{}", from_inspect.stderr);
    let (a, b) = (from_venv.json(), from_inspect.json());
    assert_eq!(names_versions(&a), names_versions(&b));
    // The same requirements, dist by dist.
    for (x, y) in a["dists"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["dists"].as_array().unwrap())
    {
        assert_eq!(x["requires_dist"], y["requires_dist"], "{}", x["name"]);
        assert_eq!(x["installer"], y["installer"], "{}", x["name"]);
        assert_eq!(x["requested"], y["requested"], "{}", x["name"]);
    }
    let env = &b["environment"];
    assert_eq!(env["origin"]["kind"], "snapshot");
    assert_eq!(env["markers"]["platform_release"], "6.18.44-fc-v657-gpu");
    assert_eq!(env["tags"][0], "cp312-cp312-manylinux_2_28_x86_64");
}

#[test]
fn canonical_stack_keeps_local_labels_and_the_git_commit() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&[
        "inventory",
        "--venv",
        "testdata/venvs/canonical",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let dists = json["dists"].as_array().unwrap();
    let get = |name: &str| dists.iter().find(|d| d["name"] == name).unwrap();
    assert_eq!(get("torch")["version"], "2.11.0+cu130");
    assert_eq!(get("triton")["version"], "3.6.0");
    assert_eq!(get("transformers")["version"], "5.8.0");
    let fla = get("flash-linear-attention");
    assert_eq!(fla["version"], "0.5.1");
    assert_eq!(fla["direct_url"]["kind"], "vcs");
    assert_eq!(fla["direct_url"]["vcs"], "git");
    assert!(fla["source"].as_str().unwrap().starts_with("git@"));
    assert_eq!(get("torch")["top_level"][0], "functorch");
    assert!(
        get("torch")["requires_dist"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().starts_with("triton==3.6.0"))
    );
    // Deterministic ordering: sorted by normalized name.
    let names: Vec<&str> = dists.iter().map(|d| d["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn canonical_table() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&["inventory", "--venv", "testdata/venvs/canonical"]);
    planner_snapshot!(ctx, run);
}

#[test]
fn broken_venv_lists_what_it_can_and_names_each_bad_file() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&[
        "inventory",
        "--venv",
        "testdata/venvs/broken",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let unreadable: Vec<&str> = json["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["path"].as_str().unwrap())
        .collect();
    assert_eq!(unreadable.len(), 4, "{unreadable:?}");
    for bad in [
        "nometa-1.0.dist-info",
        "badversion-1.0.dist-info",
        "badreq-1.0.dist-info",
        "latin1-1.0.dist-info",
    ] {
        assert!(unreadable.iter().any(|p| p.ends_with(bad)), "{bad}");
    }
    // Every dist it could read, and a warning naming each bad file.
    planner_snapshot!(
        ctx,
        "broken_venv_text",
        ctx.run(&["inventory", "--venv", "testdata/venvs/broken"])
    );
    let egg = json["dists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "old-egg")
        .unwrap();
    assert_eq!(egg["format"], "egg-info");
    assert_eq!(egg["requires_dist"][0], "libok>=1");
}

#[test]
fn missing_and_non_venv_paths_exit_2_naming_the_path() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&["inventory", "--venv", "testdata/venvs/no-such-venv"]);
    planner_snapshot!(ctx, run, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::inventory::not_found

          × the environment `testdata/venvs/no-such-venv` does not exist
          help: pass the folder of a virtual environment (the one holding
                `pyvenv.cfg`) with --venv
        "#);
    let run = ctx.run(&["inventory", "--venv", "testdata"]);
    planner_snapshot!(ctx, run, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::inventory::not_a_venv

          × `testdata` is not a virtual environment (no pyvenv.cfg, no bin/python, no
          │ lib/python*/site-packages)
          help: pass the venv's root folder (the one holding `pyvenv.cfg`), not its
                site-packages or bin/
        "#);
}

#[test]
fn discovery_prefers_virtual_env_then_dot_venv() {
    let ctx = TestContext::new();
    let canonical = common::repo_root().join("testdata/venvs/canonical");
    // ./.venv in the working directory (the context's temp dir).
    copy_dir(&canonical, &ctx.path().join(".venv"));
    planner_snapshot!(ctx, "discovered_dot_venv", ctx.run(&["inventory"]));
    // $VIRTUAL_ENV wins over ./.venv.
    let output = common::run(
        ctx.command()
            .env(
                "VIRTUAL_ENV",
                common::repo_root().join("testdata/venvs/broken"),
            )
            .arg("inventory"),
    );
    planner_snapshot!(ctx, "discovered_virtual_env", output);
}

#[test]
fn overrides_rebuild_markers_and_tags() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&[
        "inventory",
        "--venv",
        "testdata/venvs/canonical",
        "--python-version",
        "3.13",
        "--python-platform",
        "aarch64-manylinux_2_28",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let env = &run.json()["environment"];
    assert_eq!(env["markers"]["python_version"], "3.13");
    assert_eq!(env["markers"]["platform_machine"], "aarch64");
    assert_eq!(env["tags"][0], "cp313-cp313-manylinux_2_28_aarch64");
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!(run.stderr, @r#"
            note: planning for platform `aarch64-manylinux_2_28`
            note: planning for Python 3.13 instead of the environment's 3.12.3
            "#)
    });
    let bad = ctx.run(&[
        "inventory",
        "--venv",
        "testdata/venvs/canonical",
        "--python-platform",
        "sparc-sun-solaris",
    ]);
    planner_snapshot!(ctx, bad, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'sparc-sun-solaris' for '--python-platform <PLATFORM>': unknown Python platform `sparc-sun-solaris`
          hint: use uv's spelling: x86_64-manylinux_2_28, aarch64-manylinux_2_28, x86_64-unknown-linux-gnu (linux), aarch64-apple-darwin (macos), x86_64-apple-darwin, x86_64-pc-windows-msvc (windows)

        For more information, try '--help'.
        "#);
}

/// A real venv made by `python3 -m venv` and pip: `planner inventory` agrees with
/// `pip inspect` on every dist (name, version, installer, requested, direct URL, requires).
#[test]
fn real_venv_agrees_with_pip_inspect() {
    let venv = venv::clean_venv();
    let inspect: serde_json::Value =
        serde_json::from_str(&venv.pip_ok(&["inspect"])).expect("pip inspect JSON");
    let run = TestContext::new().run(&[
        "inventory",
        "--venv",
        venv.path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["environment"]["origin"]["kind"], "interpreter");
    assert_eq!(json["environment"]["markers"], inspect["environment"]);
    let ours: Vec<&serde_json::Value> = json["dists"].as_array().unwrap().iter().collect();
    let theirs = inspect["installed"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for item in theirs {
        let meta = &item["metadata"];
        let name = normalized(meta["name"].as_str().unwrap());
        let dist = ours
            .iter()
            .find(|d| d["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} missing from planner inventory"));
        assert_eq!(dist["display_name"], meta["name"], "{name}");
        assert_eq!(dist["version"], meta["version"], "{name}");
        assert_eq!(dist["installer"], item["installer"], "{name}");
        assert_eq!(dist["requested"], item["requested"], "{name}");
        assert_eq!(
            dist["direct_url"].is_null(),
            item.get("direct_url").is_none(),
            "{name}"
        );
        let reqs = |v: &serde_json::Value| -> Vec<pep508_rs::Requirement> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| r.as_str().unwrap().parse().unwrap())
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_eq!(
            reqs(&dist["requires_dist"]),
            reqs(&meta["requires_dist"]),
            "{name}"
        );
    }
    let demo = ours.iter().find(|d| d["name"] == "demo-pkg").unwrap();
    assert_eq!(demo["version"], "0.1.0+local.7");
    let epsilon = ours.iter().find(|d| d["name"] == "epsilon").unwrap();
    assert_eq!(epsilon["source"], "file");
}

/// The last discovery step: no --venv, no $VIRTUAL_ENV, no ./.venv: the python3 on PATH.
#[test]
fn discovery_falls_back_to_python3_on_path() {
    let venv = venv::clean_venv();
    let ctx = TestContext::new();
    let path = std::env::join_paths(std::iter::once(venv.path.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let output = run(ctx
        .command()
        .env("PATH", path)
        .args(["inventory", "--format", "json"]));
    let stderr = &output.stderr;
    assert_eq!(output.code, Some(0), "{stderr}");
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("discovery_note_python3_on_path", stderr));
    let json = output.json();
    assert_eq!(json["environment"]["origin"]["kind"], "interpreter");
    assert!(
        json["environment"]["origin"]["python"]
            .as_str()
            .unwrap()
            .starts_with(venv.path.to_str().unwrap())
    );
    assert!(names_versions(&json).contains(&("demo-pkg".into(), "0.1.0+local.7".into())));
}

/// The tags the planner synthesizes for a platform are the ones the interpreter's own
/// `packaging.tags.sys_tags()` lists, in the same order; and so are the probe script's
/// standard-library fallback's.
#[test]
fn synthesized_tags_equal_the_interpreters() {
    let venv = venv::clean_venv();
    let ctx = TestContext::new();
    let venv_path = venv.path.to_str().unwrap();
    let real = ctx
        .run(&["inventory", "--venv", venv_path, "--format", "json"])
        .json();
    let real_tags = real["environment"]["tags"].as_array().unwrap().clone();
    let best = real_tags[0].as_str().unwrap();
    // cp311-cp311-manylinux_2_36_x86_64 -> x86_64-manylinux_2_36
    let platform = best.splitn(3, '-').nth(2).unwrap();
    let (glibc, arch) = platform
        .strip_prefix("manylinux_")
        .map(|rest| {
            let parts: Vec<&str> = rest.splitn(3, '_').collect();
            (format!("{}_{}", parts[0], parts[1]), parts[2].to_string())
        })
        .expect("a manylinux host");
    let target = format!("{arch}-manylinux_{glibc}");
    let synthesized = ctx
        .run(&[
            "inventory",
            "--venv",
            venv_path,
            "--python-platform",
            &target,
            "--format",
            "json",
        ])
        .json();
    // packaging < 22 (pip 23's vendored copy) does not list `cpXY-none-any`; newer
    // packaging, and the planner, put it before `pyXY-none-any`. Compare without it.
    let strip = |tags: &serde_json::Value| -> Vec<String> {
        tags.as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .filter(|t| !(t.starts_with("cp") && t.ends_with("-none-any")))
            .collect()
    };
    let (ours, theirs) = (
        strip(&synthesized["environment"]["tags"]),
        strip(&real["environment"]["tags"]),
    );
    let first_difference = ours.iter().zip(&theirs).position(|(a, b)| a != b);
    assert!(
        ours.len() == theirs.len() && first_difference.is_none(),
        "{} vs {} tags; first difference at {first_difference:?}: {:?} vs {:?}",
        ours.len(),
        theirs.len(),
        first_difference.map(|i| &ours[i]),
        first_difference.map(|i| &theirs[i]),
    );

    let script = common::repo_root().join("src/inventory/probe.py");
    let check = r#"
import runpy, sys
ns = runpy.run_path(sys.argv[1])
from pip._vendor.packaging import tags
real = [str(t) for t in tags.sys_tags()]
fallback = ns["fallback_tags"]()
# packaging < 22 does not list cpXY-none-any (see above).
if not any(t.startswith("cp") and t.endswith("-none-any") for t in real):
    fallback = [t for t in fallback if not (t.startswith("cp") and t.endswith("-none-any"))]
assert fallback == real, [(a, b) for a, b in zip(fallback, real) if a != b][:5] or (len(fallback), len(real))
print(len(real))
"#;
    let output = std::process::Command::new(&venv.python)
        .args(["-c", check])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Installed files that are not what they should be. A METADATA that is a symlink to
/// `/dev/zero` took `inventory` to 10.1 GB in 30 s; a FIFO there hung it forever; a dangling
/// or self-looping dist-info symlink made every command exit 2 with an untrue "changed while it
/// was being read". Each is now one unreadable dist that says what it is, and the rest are
/// listed; nothing in the venv changes.
#[test]
#[allow(unsafe_code)] // libc::mkfifo makes the FIFO the test reads
fn hostile_installed_files_are_named_not_read() {
    let ctx = TestContext::new();
    let venv = ctx.path().join("venv");
    copy_dir(&repo_root().join("testdata/venvs/broken"), &venv);
    let site = venv.join("lib/python3.12/site-packages");
    let dist = |name: &str| {
        let dir = site.join(name);
        std::fs::create_dir(&dir).unwrap();
        dir
    };
    std::os::unix::fs::symlink("/dev/zero", dist("zero-1.0.dist-info").join("METADATA")).unwrap();
    let fifo = dist("fifo-1.0.dist-info").join("METADATA");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // A RECORD and a top_level.txt that never end, beside a good METADATA.
    let good = dist("endless-1.0.dist-info");
    std::fs::write(
        good.join("METADATA"),
        "Metadata-Version: 2.1\nName: endless\nVersion: 1.0\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", good.join("RECORD")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", good.join("top_level.txt")).unwrap();
    std::os::unix::fs::symlink("nowhere-1.0.dist-info", site.join("dangling-1.0.dist-info"))
        .unwrap();
    std::os::unix::fs::symlink("loop-1.0.dist-info", site.join("loop-1.0.dist-info")).unwrap();
    let before = files_under(&venv);
    let started = std::time::Instant::now();
    let run = ctx.run(&[
        "inventory",
        "--venv",
        venv.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    assert!(names_versions(&json).contains(&("endless".into(), "1.0".into())));
    let reason = |dir: &str| {
        json["unreadable"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["path"].as_str().unwrap().ends_with(dir))
            .unwrap_or_else(|| panic!("{dir} not listed: {json}"))["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        reason("zero-1.0.dist-info"),
        "METADATA is a device, not a regular file"
    );
    assert_eq!(
        reason("fifo-1.0.dist-info"),
        "METADATA is a FIFO (named pipe), not a regular file"
    );
    assert_eq!(
        reason("dangling-1.0.dist-info"),
        "dangling-1.0.dist-info is a symlink to nowhere-1.0.dist-info, which does not exist"
    );
    assert_eq!(
        reason("loop-1.0.dist-info"),
        "loop-1.0.dist-info is a symlink loop (it leads back to itself)"
    );
    assert!(
        !run.stderr.contains("changed while it was being read"),
        "{}",
        run.stderr
    );
    assert_eq!(files_under(&venv), before, "the venv is never modified");
}

/// A site-packages that is a symlink loop (or leads nowhere) is an error naming it, not
/// "0 distributions" with exit 0.
#[test]
fn a_site_packages_that_leads_nowhere_is_an_error() {
    // A real venv whose interpreter answers: Python's site module leaves such a folder out, so
    // the probe alone listed "0 distributions" with exit 0.
    let ctx = TestContext::new();
    for (case, target) in [("loop", "site-packages"), ("dangling", "gone")] {
        let venv = crate::common::venv::RealVenv::create_without_pip(
            &ctx.path().join(format!("real-{case}")),
        )
        .path;
        let lib = std::fs::read_dir(venv.join("lib"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::remove_dir_all(lib.join("site-packages")).unwrap();
        std::os::unix::fs::symlink(target, lib.join("site-packages")).unwrap();
        let run = ctx.run(&["inventory", "--venv", venv.to_str().unwrap()]);
        assert_eq!(
            run.code,
            Some(2),
            "real {case}: {}{}",
            run.stdout,
            run.stderr
        );
        assert!(
            run.stderr.contains("site-packages"),
            "real {case}: {}",
            run.stderr
        );
    }
    // A folder whose path has the same length everywhere: the error is wrapped to a width.
    let ctx = TestContext::in_fixed_length_folder();
    for (case, target) in [("loop", "site-packages"), ("dangling", "gone")] {
        let venv = ctx.path().join(case);
        copy_dir(&repo_root().join("testdata/venvs/broken"), &venv);
        let lib = venv.join("lib/python3.12");
        std::fs::remove_dir_all(lib.join("site-packages")).unwrap();
        std::os::unix::fs::symlink(target, lib.join("site-packages")).unwrap();
        let run = ctx.run(&["inventory", "--venv", venv.to_str().unwrap()]);
        let text = run.snapshot();
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(format!("site_packages_{case}"), text));
    }
}
