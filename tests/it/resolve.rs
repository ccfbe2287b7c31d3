//! `planner resolve` end to end: the binary against the loopback server of recorded real index
//! data (torch 2.11.0 pins `triton==3.6.0`).

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::planner_snapshot;

fn resolve(ctx: &TestContext, server: &IndexServer, extra: &[&str]) -> crate::common::Output {
    let url = server.url();
    let mut args = vec![
        "resolve",
        "--index-url",
        url.as_str(),
        "--python-version",
        "3.12",
        "--python-platform",
        "x86_64-manylinux_2_28",
    ];
    args.extend_from_slice(extra);
    ctx.run(&args)
}

#[test]
fn torch_pins_its_triton_and_the_explanation_names_it() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let out = resolve(&ctx, &server, &["torch==2.11.0", "triton==3.7.0"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    planner_snapshot!(ctx, "torch_triton_conflict_text", out);
    // torch 2.11.0's dependencies end the solve in a conflict: none of them is fetched.
    for dependency in ["jinja2", "networkx", "sympy", "filelock", "fsspec"] {
        let asked = server.requests(&format!("/simple/{dependency}/"));
        assert!(asked.is_empty(), "{dependency} was fetched: {asked:?}");
    }

    let out = resolve(
        &ctx,
        &server,
        &["--format", "json", "--", "torch==2.11.0", "triton==3.7.0"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["satisfiable"], false);
    assert!(
        doc["facts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["dependent"] == "torch"
                && f["dependency"] == "triton"
                && f["specifier"] == "==3.6.0"),
        "{doc:#}"
    );
    assert_eq!(doc["hints"][0]["kind"], "blocker-versions");
    planner_snapshot!(ctx, "torch_triton_conflict_json", out);
}

#[test]
fn compiles_torch_with_via_annotations() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let out = resolve(&ctx, &server, &["torch==2.11.0"]);
    planner_snapshot!(ctx, "torch_compile_text", out);
}

#[test]
fn requirement_constraint_and_override_files() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let dir = ctx.dir.path();
    std::fs::write(
        dir.join("reqs.txt"),
        "# the stack\ntorch==2.11.0 \\\n  # pinned\n",
    )
    .unwrap();
    std::fs::write(dir.join("constraints.txt"), "filelock<4\n").unwrap();
    std::fs::write(dir.join("overrides.txt"), "triton==3.7.0\n").unwrap();
    let out = resolve(
        &ctx,
        &server,
        &[
            "-r",
            "reqs.txt",
            "-c",
            "constraints.txt",
            "--override",
            "overrides.txt",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["packages"]["torch"], "2.11.0");
    assert_eq!(doc["packages"]["triton"], "3.7.0");
    assert!(
        doc["packages"]["filelock"]
            .as_str()
            .unwrap()
            .starts_with('3'),
        "{doc:#}"
    );
    assert_eq!(doc["overridden"][0]["dependent"], "torch");
    assert_eq!(
        doc["overridden"][0]["original"],
        "triton==3.6.0 ; platform_system == 'Linux'"
    );
    assert_eq!(doc["overridden"][0]["replacement"], "triton==3.7.0");
    assert_eq!(doc["via"]["torch"][0], "<root>");
}

#[test]
fn a_root_from_a_requirements_file_names_the_file_in_its_via_line() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    std::fs::write(ctx.dir.path().join("reqs.txt"), "torch==2.11.0\n").unwrap();
    let out = resolve(&ctx, &server, &["-r", "reqs.txt", "filelock"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let via = |pin: &str| {
        let at = lines.iter().position(|l| *l == pin).expect(pin);
        lines[at + 1]
    };
    assert_eq!(via("torch==2.11.0"), "    # via -r reqs.txt");
    let at = lines
        .iter()
        .position(|l| l.starts_with("filelock=="))
        .unwrap();
    assert_eq!(
        lines[at + 1..at + 4],
        ["    # via", "    #   (command line)", "    #   torch"]
    );
}

#[test]
fn bad_input_is_an_error_naming_it() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    planner_snapshot!(ctx, resolve(&ctx, &server, &["torch>>2"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'torch>>2' for '[REQ]...': `torch>>2` is not a valid requirement: no such comparison operator ">>", must be one of ~= == != <= >= < > ===
          hint: write a PEP 508 requirement such as `numpy>=2,<3`

        For more information, try '--help'.
        "#);

    std::fs::write(ctx.dir.path().join("r.txt"), "torch\n-e .\n").unwrap();
    planner_snapshot!(ctx, resolve(&ctx, &server, &["-r", "r.txt"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::requirements::line

          × `r.txt` line 2: the option `-e` is not supported here
          help: write one PEP 508 requirement per line (`numpy>=2,<3`); `-r FILE` and
                `-c FILE` are the only options understood
        "#);
}

#[test]
fn unknown_project_exits_one_with_a_hint() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let out = resolve(&ctx, &server, &["--format", "json", "no-such-project-here"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["satisfiable"], false);
    assert_eq!(doc["hints"][0]["kind"], "not-found");
}

#[test]
fn triton_3_7_needs_torch_2_12() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let out = resolve(
        &ctx,
        &server,
        &["--format", "json", "torch", "triton==3.7.0"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["packages"]["torch"], "2.12.0", "{doc:#}");
    assert_eq!(doc["packages"]["triton"], "3.7.0");
    assert_eq!(doc["files"]["torch"]["source"], "index");
    insta::assert_snapshot!(
        "torch_wheel_for_manylinux_2_28",
        doc["files"]["torch"]["filename"].as_str().unwrap()
    );
}

#[test]
fn misspelt_names_get_did_you_mean() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    // A typo of a name torch requires (known once torch's metadata is read).
    let out = resolve(
        &ctx,
        &server,
        &["--format", "json", "torch==2.11.0", "tritn==3.6.0"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let hints = doc["hints"].as_array().unwrap();
    assert_eq!(hints[0]["kind"], "not-found", "{doc:#}");
    assert_eq!(hints[1]["kind"], "did-you-mean", "{doc:#}");
    assert_eq!(hints[1]["package"], "tritn");
    assert_eq!(hints[1]["suggestions"], serde_json::json!(["triton"]));

    // A PEP 503 confusable the index is asked about (an HTTP index cannot list its names).
    let out = resolve(&ctx, &server, &["dateutil"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    planner_snapshot!(ctx, "did_you_mean_text", out);
}

#[test]
fn an_override_of_a_root_requirement_is_reported_with_the_root_as_dependent() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    std::fs::write(ctx.dir.path().join("overrides.txt"), "torch==2.11.0\n").unwrap();
    let args = ["--override", "overrides.txt", "torch>=2.12"];
    planner_snapshot!(ctx, resolve(&ctx, &server, &args), @r#"
        exit_code: 0
        ----- stdout -----
        # Resolved by planner for Python 3.12.0 (linux x86_64)
        cuda-bindings==13.5.0
            # via torch
        cuda-pathfinder==1.9.1
            # via cuda-bindings
        cuda-toolkit==13.0.2
            # via torch
        filelock==4.3.1
            # via torch
        fsspec==2026.9.0
            # via torch
        jinja2==3.1.6
            # via torch
        markupsafe==3.0.4
            # via jinja2
        mpmath==1.3.0
            # via sympy
        networkx==3.7
            # via torch
        nvidia-cublas==13.1.0.3
            # via
            #   cuda-toolkit
            #   nvidia-cudnn-cu13
            #   nvidia-cusolver
        nvidia-cuda-cupti==13.0.85
            # via cuda-toolkit
        nvidia-cuda-nvrtc==13.0.88
            # via cuda-toolkit
        nvidia-cuda-runtime==13.0.96
            # via cuda-toolkit
        nvidia-cudnn-cu13==9.19.0.56
            # via torch
        nvidia-cufft==12.0.0.61
            # via cuda-toolkit
        nvidia-cufile==1.15.1.6
            # via cuda-toolkit
        nvidia-curand==10.4.0.35
            # via cuda-toolkit
        nvidia-cusolver==12.0.4.66
            # via cuda-toolkit
        nvidia-cusparse==12.6.3.3
            # via
            #   cuda-toolkit
            #   nvidia-cusolver
        nvidia-cusparselt-cu13==0.8.0
            # via torch
        nvidia-nccl-cu13==2.28.9
            # via torch
        nvidia-nvjitlink==13.0.88
            # via
            #   cuda-toolkit
            #   nvidia-cufft
            #   nvidia-cusolver
            #   nvidia-cusparse
        nvidia-nvshmem-cu13==3.4.5
            # via torch
        nvidia-nvtx==13.0.85
            # via cuda-toolkit
        setuptools==81.0.0
            # via torch
        sympy==1.14.0
            # via torch
        torch==2.11.0
            # via (command line)
        triton==3.6.0
            # via torch
        typing-extensions==4.16.0
            # via torch
        # override: your requirement `torch>=2.12`, replaced by `torch==2.11.0`

        ----- stderr -----
        "#);
    let mut json_args = vec!["--format", "json"];
    json_args.extend_from_slice(&args);
    let out = resolve(&ctx, &server, &json_args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        doc["overridden"],
        serde_json::json!([{
            "dependent": "<root>",
            "dependent_version": null,
            "original": "torch>=2.12",
            "replacement": "torch==2.11.0"
        }]),
        "{doc:#}"
    );
}

#[test]
fn unreadable_files_on_a_page_are_skipped_without_a_word() {
    let ctx = TestContext::new();
    let index = demo_index(
        &ctx,
        "1.0",
        r#"<a href="../../files/demo-1.0-py3-none-any.whl" data-core-metadata="true">demo-1.0-py3-none-any.whl</a>
<a href="../../files/demo-0.1-py3.2.tar.gz">demo-0.1-py3.2.tar.gz</a>
<a href="../../files/demo-0.2.src.zip">demo-0.2.src.zip</a>
<a href="../../files/demo-0.3-py3-none-any.whl" data-requires-python="&gt;= '2.7'">demo-0.3-py3-none-any.whl</a>"#,
    );
    let out = ctx.run(&[
        "resolve",
        "--index-url",
        index.to_str().unwrap(),
        "--python-version",
        "3.12",
        "demo",
    ]);
    // pip and uv skip them silently; so does planner at normal verbosity.
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        # Resolved by planner for Python 3.12.0 (linux x86_64)
        demo==1.0
            # via (command line)

        ----- stderr -----
        "#);
    // -v shows them: one debug line for the project, however many files.
    let args = [
        "-v",
        "resolve",
        "--index-url",
        index.to_str().unwrap(),
        "--python-version",
        "3.12",
        "demo",
    ];
    let verbose = ctx.run(&args);
    assert_eq!(verbose.stdout, out.stdout);
    let notes: Vec<&str> = verbose
        .stderr
        .lines()
        .filter(|l| l.contains("demo: ignored"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", verbose.stderr);
    // A DEBUG line (shown with -vv), after its time.
    let note = notes[0].trim_start().to_string();
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("ignored_files_debug_note", note));
}

/// Found by `fuzz/run metadata`: pep508_rs panicked on a name ending in `-` followed by more
/// text; the same text typed as a requirement or target panicked planner (exit 101).
#[test]
fn a_name_ending_in_punctuation_is_an_error_not_a_panic() {
    let ctx = TestContext::new();
    planner_snapshot!(ctx, ctx.run(&["resolve", "--offline", "foo-==1"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'foo-==1' for '[REQ]...': `foo-==1` is not a valid requirement: package name `foo-` must end with an alphanumeric character
          hint: write a PEP 508 requirement such as `numpy>=2,<3`

        For more information, try '--help'.
        "#);
    planner_snapshot!(ctx, ctx.run(&["propose", "--offline", "triton-==3.7.0"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'triton-==3.7.0' for '[TARGET]...': invalid target `triton-==3.7.0`: package name `triton-` must end with an alphanumeric character
          hint: targets are PEP 508 requirements: `triton==3.7.0`, `numpy>=2`, `transformers`

        For more information, try '--help'.
        "#);
}

/// A local version's `+` is `%2B` in file URLs; the JSON names the file as it is called, as
/// every other place that shows a file name does (the URL keeps its escape).
#[test]
fn json_file_names_are_percent_decoded() {
    let ctx = TestContext::new();
    let index = demo_index(
        &ctx,
        "1.0+cpu",
        r#"<a href="../../files/demo-1.0%2Bcpu-py3-none-any.whl" data-core-metadata="true">demo-1.0+cpu-py3-none-any.whl</a>"#,
    );
    let out = ctx.run(&[
        "resolve",
        "--index-url",
        index.to_str().unwrap(),
        "--python-version",
        "3.12",
        "--format",
        "json",
        "demo",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["packages"]["demo"], "1.0+cpu", "{doc:#}");
    let file = &doc["files"]["demo"];
    assert_eq!(file["filename"], "demo-1.0+cpu-py3-none-any.whl", "{doc:#}");
    assert!(
        file["url"]
            .as_str()
            .unwrap()
            .ends_with("/demo-1.0%2Bcpu-py3-none-any.whl"),
        "{doc:#}"
    );
}

/// A local index under the test's folder: `simple/demo/index.html` with these links, and the
/// metadata of `demo-{version}-py3-none-any.whl` in `files/`. Returns the `simple` folder.
fn demo_index(ctx: &TestContext, version: &str, links: &str) -> std::path::PathBuf {
    let root = ctx.dir.path().join("index");
    let simple = root.join("simple").join("demo");
    let files = root.join("files");
    std::fs::create_dir_all(&simple).unwrap();
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(
        files.join(format!("demo-{version}-py3-none-any.whl.metadata")),
        format!("Metadata-Version: 2.1\nName: demo\nVersion: {version}\n"),
    )
    .unwrap();
    std::fs::write(
        simple.join("index.html"),
        format!("<!DOCTYPE html><html><body>\n{links}\n</body></html>"),
    )
    .unwrap();
    root.join("simple")
}
