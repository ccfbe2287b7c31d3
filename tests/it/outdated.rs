//! `planner outdated` end to end: the binary against the loopback index server.

use std::path::{Path, PathBuf};

use crate::common::index_server::{Fault, IndexServer};
use crate::common::{TestContext, files_under, h200_fixtures, run};
use crate::planner_snapshot;

/// A venv on disk (no interpreter): `pyvenv.cfg` plus dist-info folders.
fn fake_venv(root: &Path, dists: &[(&str, &str, &[&str], Option<&str>)]) -> PathBuf {
    let venv = root.join("venv");
    let site = venv.join("lib/python3.12/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\nimplementation = CPython\nversion_info = 3.12.3\n\
         include-system-site-packages = false\n",
    )
    .unwrap();
    for (name, version, requires, direct_url) in dists {
        let dir = site.join(format!("{}-{version}.dist-info", name.replace('-', "_")));
        std::fs::create_dir_all(&dir).unwrap();
        let mut metadata = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
        for r in *requires {
            metadata.push_str(&format!("Requires-Dist: {r}\n"));
        }
        std::fs::write(dir.join("METADATA"), metadata).unwrap();
        std::fs::write(dir.join("INSTALLER"), "pip\n").unwrap();
        if let Some(url) = direct_url {
            std::fs::write(dir.join("direct_url.json"), url).unwrap();
        }
    }
    venv
}

fn small_venv(ctx: &TestContext) -> PathBuf {
    fake_venv(
        ctx.dir.path(),
        &[
            ("requests", "2.33.0", &["urllib3<3,>=1.26"], None),
            ("urllib3", "2.6.0", &[], None),
            ("capper", "1.0", &["urllib3<2.7"], None),
            (
                "mytool",
                "0.1",
                &[],
                Some(
                    r#"{"url": "https://example.invalid/mytool.git", "vcs_info": {"vcs": "git", "commit_id": "0123456789abcdef0123456789abcdef01234567"}}"#,
                ),
            ),
        ],
    )
}

/// stdout as one JSON document, checked against docs/schemas/outdated.json.
fn json(out: &str) -> serde_json::Value {
    let doc = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    crate::common::schema::assert_valid(&doc);
    doc
}

#[test]
fn outdated_json_lists_newer_versions_and_what_holds_them_back() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let out = ctx.run(&[
        "outdated",
        "--venv",
        venv.to_str().unwrap(),
        "--python-platform",
        "x86_64-manylinux_2_28",
        "--index-url",
        &server.url(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc = json(&out.stdout);
    assert_eq!(doc["schema"], "planner-outdated/1");
    let packages = doc["packages"].as_array().unwrap();
    let get = |n: &str| packages.iter().find(|p| p["name"] == n).unwrap().clone();
    let requests = get("requests");
    assert_eq!(requests["installed"], "2.33.0");
    assert_eq!(requests["newest_compatible"], "2.34.2");
    assert_eq!(requests["outdated"], true);
    let urllib3 = get("urllib3");
    assert_eq!(urllib3["newest_compatible"], "2.8.0");
    assert_eq!(
        urllib3["held_back_by"],
        serde_json::json!([{"name": "capper", "version": "1.0", "specifier": "<2.7"}])
    );
    assert_eq!(urllib3["newest_allowed"], "2.6.3");
    assert_eq!(doc["unmanaged"][0]["name"], "mytool");
    assert_eq!(doc["not_found"][0]["name"], "capper");
    assert!(
        server.requests("/simple/mytool/").is_empty(),
        "never compared"
    );
}

#[test]
fn outdated_text_on_the_h200_fixture() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = h200_fixtures().join("h200-venv");
    let out = ctx.run(&[
        "outdated",
        "--venv",
        venv.to_str().unwrap(),
        "--python-platform",
        "x86_64-manylinux_2_28",
        "--index-url",
        &server.url(),
    ]);
    // triton is capped by torch's exact pin; its row says so (`torch 2.11.0 (==3.6.0)`).
    planner_snapshot!(ctx, "h200_fixture_text", out);
}

#[test]
fn outdated_offline_needs_a_warm_cache() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let args = |offline: bool| {
        let mut a = vec![
            "outdated".to_string(),
            "--venv".to_string(),
            venv.to_str().unwrap().to_string(),
            "--index-url".to_string(),
            server.url(),
        ];
        if offline {
            a.push("--offline".to_string());
        }
        a
    };
    let cold = ctx.run(&args(true).iter().map(String::as_str).collect::<Vec<_>>());
    planner_snapshot!(ctx, cold, @r#"
        exit_code: 2
        ----- stdout -----
        All 0 packages found on the index are up to date for Python 3.12.3.

        Installed from outside the index (not compared):
          mytool 0.1 (git@0123456789ab)

        Could not be checked:
          capper 1.0: offline: the project page of capper is not in the cache (http://127.0.0.1:[PORT]/simple/capper/)
          requests 2.33.0: offline: the project page of requests is not in the cache (http://127.0.0.1:[PORT]/simple/requests/)
          urllib3 2.6.0: offline: the project page of urllib3 is not in the cache (http://127.0.0.1:[PORT]/simple/urllib3/)

        ----- stderr -----
        warning: 3 of 3 packages could not be checked; the first error:
        planner::index::offline

          × offline: the project page of capper is not in the cache
          │ (http://127.0.0.1:[PORT]/simple/capper/)
          help: run once without `--offline` to fill the cache (same --cache-dir)
        "#);
    assert!(server.log().is_empty());
    let warm = ctx.run(&args(false).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(warm.code, Some(0), "{}", warm.stderr);
    server.clear_log();
    let offline = ctx.run(&args(true).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(offline.code, Some(0), "{}", offline.stderr);
    assert_eq!(without_why(&offline.stdout), without_why(&warm.stdout));
    assert!(server.log().is_empty());
}

/// `outdated`'s text with the reason of each "judged without the release's wheel files" heading
/// left out: the recorded server serves metadata only, so online a wheel read is "not found"
/// and offline "not in the cache" (each run says its own; the rows and checks are the same).
fn without_why(text: &str) -> String {
    let heading = "\"Can move to\" judged without the release's wheel files";
    (text.lines())
        .map(|l| if l.starts_with(heading) { heading } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A release whose own metadata is unusable (here: it names another release; it does not
/// parse) is passed over online, and `--offline` over the cache that run filled answers the
/// same: the failure is cached with the file (immutable by its URL and hash). Before, it was
/// not, and the offline run said "?" and exited 2 where the online run had answered.
#[test]
fn a_release_whose_metadata_is_unusable_is_passed_over_offline_too() {
    let server = IndexServer::recorded();
    // Pages that do not advertise the two releases' `.metadata` (whose hashes would not match
    // the bodies below), so that the bodies are read and checked.
    for (project, wheel) in [
        ("requests", "requests-2.34.2-py3-none-any.whl"),
        ("urllib3", "urllib3-2.6.3-py3-none-any.whl"),
    ] {
        let path = crate::common::index_server::testdata_index()
            .join(format!("simple/{project}/index.json"));
        let mut page: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for file in page["files"].as_array_mut().unwrap() {
            if file["filename"] == wheel {
                file.as_object_mut().unwrap().remove("core-metadata");
                file.as_object_mut().unwrap().remove("dist-info-metadata");
            }
        }
        server.fault(
            &format!("/simple/{project}/"),
            Fault::Body(serde_json::to_vec(&page).unwrap()),
        );
    }
    server.fault(
        "/files/requests-2.34.2-py3-none-any.whl.metadata",
        Fault::Body(b"Metadata-Version: 2.1\nName: requests\nVersion: 2.34.1\n".to_vec()),
    );
    server.fault(
        "/files/urllib3-2.6.3-py3-none-any.whl.metadata",
        Fault::Body(b"Metadata-Version: 2.1\nName: urllib3\n".to_vec()),
    );
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let args = |offline: bool| {
        let mut args = vec![
            "outdated",
            "--venv",
            venv.to_str().unwrap(),
            "--python-platform",
            "x86_64-manylinux_2_28",
        ];
        if offline {
            args.push("--offline");
        }
        args
    };
    let url = server.url();
    let online = ctx.run(&[&args(false)[..], &["--index-url", &url]].concat());
    planner_snapshot!(ctx, "unusable_metadata_online", online);
    assert_eq!(
        server
            .requests("/files/requests-2.34.2-py3-none-any.whl.metadata")
            .len(),
        1,
        "the unusable metadata was read online"
    );
    server.clear_log();
    let offline = ctx.run(&[&args(true)[..], &["--index-url", &url]].concat());
    assert_eq!(
        (offline.code, without_why(&offline.stdout)),
        (online.code, without_why(&online.stdout)),
        "{}",
        offline.stderr
    );
    assert!(server.log().is_empty(), "{:?}", server.log());
}

#[test]
fn canary_password_never_leaks() {
    const CANARY: &str = "canary-pw-9c4e1b";
    let server = IndexServer::recorded();
    // The server insists on exactly these credentials.
    let basic = format!(
        "Basic {}",
        base64_encode(format!("alice:{CANARY}").as_bytes())
    );
    server.fault("/simple/", Fault::RequireAuth(basic));
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let good = server.url_with_credentials("alice", CANARY);
    let bad = server.url_with_credentials("alice", &format!("{CANARY}-wrong"));
    let mut outputs = Vec::new();
    for (url, format) in [
        (&good, "json"),
        (&good, "text"),
        (&bad, "text"),
        (&bad, "json"),
    ] {
        // The bad-credential runs must reach the server, not the cache the good ones filled.
        let refresh = if *url == bad { "--refresh" } else { "-q" };
        let out = ctx.run(&[
            "outdated",
            "--venv",
            venv.to_str().unwrap(),
            "--index-url",
            url,
            "--format",
            format,
            refresh,
        ]);
        outputs.push(out);
    }
    assert_eq!(outputs[0].code, Some(0), "{}", outputs[0].stderr);
    // The refusal names the index with its password masked.
    planner_snapshot!(ctx, outputs[2], @r#"
        exit_code: 2
        ----- stdout -----
        All 0 packages found on the index are up to date for Python 3.12.3.

        Installed from outside the index (not compared):
          mytool 0.1 (git@0123456789ab)

        Could not be checked:
          capper 1.0: http://****@127.0.0.1:[PORT]/simple/ answered 401 for `capper` (http://****@127.0.0.1:[PORT]/simple/capper/)
          requests 2.33.0: http://****@127.0.0.1:[PORT]/simple/ answered 401 for `requests` (http://****@127.0.0.1:[PORT]/simple/requests/)
          urllib3 2.6.0: http://****@127.0.0.1:[PORT]/simple/ answered 401 for `urllib3` (http://****@127.0.0.1:[PORT]/simple/urllib3/)

        ----- stderr -----
        warning: 3 of 3 packages could not be checked; the first error:
        planner::index::unauthorized

          × http://****@127.0.0.1:[PORT]/simple/ answered 401 for `capper`
          │ (http://****@127.0.0.1:[PORT]/simple/capper/)
          help: the index needs credentials. Tried: credentials in the index URL,
                ~/.netrc (absent or unreadable), no keyring (--keyring-provider
                subprocess asks the `keyring` command). Put them in the index URL
                (`https://user:token@host/simple`) or in ~/.netrc (`machine HOST login
                USER password TOKEN`)
        "#);
    for out in &outputs {
        assert!(!out.stdout.contains(CANARY), "stdout: {}", out.stdout);
        assert!(!out.stderr.contains(CANARY), "stderr: {}", out.stderr);
    }
    let cached = files_under(&ctx.cache());
    assert!(!cached.is_empty());
    for file in cached {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(CANARY),
            "{} holds the password",
            file.display()
        );
        assert!(!file.to_string_lossy().contains(CANARY));
    }
    // The credentials did reach the index (so the test proves something).
    assert!(
        server
            .requests("/simple/requests/")
            .iter()
            .any(|l| l.headers.contains_key("authorization"))
    );
}

fn base64_encode(bytes: &[u8]) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The index cache's freshness reads the pinned clock (`PLANNER_NOW`, src/clock.rs): a page
/// served with `max-age=600` (and a 404 of the venv's unindexed names, remembered for a minute)
/// is fresh half a minute after it was fetched and stale an hour after, whatever the wall clock
/// says.
#[test]
fn cache_freshness_follows_the_pinned_clock() {
    let server = IndexServer::recorded();
    server.set_max_age(Some(600));
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let venv = venv.to_str().unwrap();
    let url = server.url();
    let at = |now: &str| {
        let out = run(ctx.command().env("PLANNER_NOW", now).args([
            "outdated",
            "--venv",
            venv,
            "--index-url",
            &url,
        ]));
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let asked = server.requests("/simple/").len();
        server.clear_log();
        asked
    };
    assert!(at("2026-12-01T00:00:00Z") > 0);
    assert_eq!(at("2026-12-01T00:00:30Z"), 0, "fresh half a minute later");
    assert!(at("2026-12-01T01:00:00Z") > 0, "stale an hour later");
}

#[test]
fn quiet_silences_warnings_not_data() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let out = ctx.run(&[
        "-q",
        "outdated",
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &server.url(),
    ]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        Package   Installed  Can move to  Newest here  Latest  Held back by
        --------  ---------  -----------  -----------  ------  ------------
        requests  2.33.0     2.34.2       2.34.2       2.34.2  requests 2.34.2: files not read, not fully checked (below)
        urllib3   2.6.0      2.6.3        2.8.0        2.8.0   urllib3 2.6.3: files not read, not fully checked (below), capper 1.0 (<2.7)

        2 of 2 packages are outdated; 1 held back by installed requirements.

        Installed from outside the index (not compared):
          mytool 0.1 (git@0123456789ab)

        Not found on the index:
          capper 1.0

        "Can move to" judged without the release's wheel files (the index serves no wheel file for it (not found)); not checked:
          requests 2.33.0 -> 2.34.2: version checks
          urllib3 2.6.0 -> 2.6.3: version checks

        ----- stderr -----
        "#);
}

#[cfg(feature = "live-index")]
mod live {
    //! Against the live public index (opt-in: `cargo test --features live-index`): a real venv
    //! made by `python3 -m venv`, old releases installed with its pip, then `planner outdated`
    //! compared with `pip list --outdated`.

    use super::*;
    use std::collections::BTreeMap;
    use std::process::Command;

    fn pip_outdated(venv: &Path) -> BTreeMap<String, (String, String)> {
        let out = Command::new(venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "list",
                "--outdated",
                "--format",
                "json",
                "--disable-pip-version-check",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        rows.iter()
            .map(|r| {
                let name = r["name"]
                    .as_str()
                    .unwrap()
                    .to_ascii_lowercase()
                    .replace('_', "-");
                (
                    name,
                    (
                        r["version"].as_str().unwrap().to_string(),
                        r["latest_version"].as_str().unwrap().to_string(),
                    ),
                )
            })
            .collect()
    }

    #[test]
    #[allow(clippy::print_stderr)] // the agreement figure, for the record
    fn live_outdated_agrees_with_pip_list_outdated() {
        let ctx = TestContext::new();
        let venv = ctx.dir.path().join("venv");
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .unwrap();
        assert!(made.success());
        let install = Command::new(venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "requests==2.31.0",
                "urllib3==1.26.18",
                "idna==3.4",
                "certifi==2023.7.22",
                "charset-normalizer==3.2.0",
                "packaging==23.1",
                "six==1.16.0",
                "tqdm==4.66.1",
                "pyyaml==6.0.1",
                "jinja2==3.1.2",
                "markupsafe==2.1.3",
                "filelock==3.12.2",
                "typing-extensions==4.7.1",
                "attrs==23.1.0",
                "click==8.1.6",
            ])
            .status()
            .unwrap();
        assert!(install.success());
        let expected = pip_outdated(&venv);
        let out = ctx.run(&[
            "outdated",
            "--venv",
            venv.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let ours: BTreeMap<String, (String, String)> = doc["packages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["outdated"] == true)
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    (
                        p["installed"].as_str().unwrap().to_string(),
                        p["newest_compatible"].as_str().unwrap().to_string(),
                    ),
                )
            })
            .collect();
        let agree = expected
            .iter()
            .filter(|(n, v)| ours.get(*n) == Some(v))
            .count();
        eprintln!(
            "outdated vs pip list --outdated: {agree} of {} pip rows agree; planner lists {}",
            expected.len(),
            ours.len()
        );
        assert_eq!(ours, expected);
    }
}

/// "Can move to" checks the candidate's own requirements against the installed
/// versions (the h200 fixture on the recorded index of `testdata/index`): torchvision 0.29.2
/// requires `torch>=2.14.0` (torch 2.11.0 installed) and every release between needs a newer
/// torch too; jax-cuda13-plugin 0.12.0.1 requires the jax-cuda13-pjrt 0.12.0.1 that the plugin
/// 0.11.2 installed holds back itself. Neither can move alone; the row says what it needs.
#[test]
fn can_move_to_checks_the_candidates_own_requirements() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = h200_fixtures().join("h200-venv");
    let args = [
        "outdated",
        "--venv",
        venv.to_str().unwrap(),
        "--python-platform",
        "x86_64-manylinux_2_28",
        "--index-url",
        &server.url(),
    ];
    let out = ctx.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report = json(&out.stdout);
    let row = |name: &str| {
        report["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let vision = row("torchvision");
    assert_eq!(vision["newest_compatible"], "0.29.2");
    assert_eq!(
        vision["newest_allowed"],
        serde_json::Value::Null,
        "{vision:#}"
    );
    assert_eq!(
        vision["needs"],
        serde_json::json!([{"release": "0.29.2", "name": "torch", "installed": "2.11.0",
                            "specifier": ">=2.14.0"}])
    );
    let plugin = row("jax-cuda13-plugin");
    assert_eq!(
        plugin["newest_allowed"],
        serde_json::Value::Null,
        "{plugin:#}"
    );
    assert_eq!(plugin["needs"][0]["name"], "jax-cuda13-pjrt");
    // A candidate whose own requirements hold is still offered.
    assert_eq!(row("absl-py")["newest_allowed"], "2.5.1");

    let out = ctx.run(&args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("torchvision "))
        .unwrap();
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cells[2], "-", "{line}");
    assert!(
        line.ends_with("torchvision 0.29.2 needs torch>=2.14.0 (2.11.0 installed)"),
        "{line}"
    );
}

/// ESC and newlines from an index page's project `name` and `meta.api-version`, and
/// from pyvenv.cfg's `version_info`, reached the terminal raw (stderr, and `outdated`'s stdout).
/// Each now goes through the terminal sanitizer: no control character is printed, and no field
/// starts a line of its own that reads as planner's.
#[test]
fn hostile_fields_from_the_index_and_the_venv_are_escaped() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = small_venv(&ctx);
    let page = |name: &str, api: &str| {
        serde_json::to_vec(&serde_json::json!({
            "meta": {"api-version": api}, "name": name, "files": []
        }))
        .unwrap()
    };
    server.fault(
        "/simple/requests/",
        Fault::Body(page("\u{1b}[2Jevil\nerror: forged line", "1.0")),
    );
    server.fault(
        "/simple/urllib3/",
        Fault::Body(page("urllib3", "\u{1b}]0;title\u{7}2.0\nerror: forged")),
    );
    let raw = |text: &str| text.contains('\u{1b}') || text.contains('\u{7}');
    let forged = |text: &str| {
        text.lines()
            .any(|l| l.trim_start().starts_with("error: forged"))
    };
    let mut outputs = Vec::new();
    for format in ["text", "json"] {
        let out = ctx.run(&[
            "outdated",
            "--venv",
            venv.to_str().unwrap(),
            "--python-platform",
            "x86_64-manylinux_2_28",
            "--index-url",
            &server.url(),
            "--format",
            format,
        ]);
        assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
        for text in [&out.stdout, &out.stderr] {
            assert!(
                !raw(text) && !forged(text),
                "{format}:\n{}\n{}",
                out.stdout,
                out.stderr
            );
        }
        outputs.push(out);
    }
    // The page's name is shown escaped, in text and JSON alike.
    planner_snapshot!(ctx, outputs[0], @r#"
        exit_code: 2
        ----- stdout -----
        All 0 packages found on the index are up to date for Python 3.12.3.

        Installed from outside the index (not compared):
          mytool 0.1 (git@0123456789ab)

        Not found on the index:
          capper 1.0

        Could not be checked:
          requests 2.33.0: invalid project page http://127.0.0.1:[PORT]/simple/requests/: invalid project name `\u{1b}[2Jevil\u{a}error: forged line`: Not a valid package or extra name: "\u{1b}[2Jevil\u{a}error: forged line". Names must start and end with a letter or digit and may only contain -, _, ., and alphanumeric characters.
          urllib3 2.6.0: invalid project page http://127.0.0.1:[PORT]/simple/urllib3/: repository API version \u{1b}]0;title\u{7}2.0\u{a}error: forged is not supported (only 1.x)

        ----- stderr -----
        note: planning for platform `x86_64-manylinux_2_28`
        warning: 2 of 3 packages could not be checked; the first error:
        planner::index::invalid_page

          × invalid project page http://127.0.0.1:[PORT]/simple/requests/: invalid
          │ project name `\u{1b}[2Jevil\u{a}error: forged line`: Not a valid package
          │ or extra name: "\u{1b}[2Jevil\u{a}error: forged line". Names must start
          │ and end with a letter or digit and may only contain -, _, ., and
          │ alphanumeric characters.
          help: the index served a page that is not a valid simple-repository page
                (PEP 503/691)
        "#);
    planner_snapshot!(ctx, outputs[1], @r#"
        exit_code: 2
        ----- stdout -----
        {
          "schema": "planner-outdated/1",
          "python_version": "3.12.3",
          "indexes": [
            "http://127.0.0.1:[PORT]/simple/"
          ],
          "packages": [],
          "unmanaged": [
            {
              "name": "mytool",
              "installed": "0.1",
              "source": "git@0123456789ab"
            }
          ],
          "not_found": [
            {
              "name": "capper",
              "installed": "1.0"
            }
          ],
          "errors": [
            {
              "name": "requests",
              "installed": "2.33.0",
              "error": "invalid project page http://127.0.0.1:[PORT]/simple/requests/: invalid project name `\\u{1b}[2Jevil\\u{a}error: forged line`: Not a valid package or extra name: \"\\u{1b}[2Jevil\\u{a}error: forged line\". Names must start and end with a letter or digit and may only contain -, _, ., and alphanumeric characters."
            },
            {
              "name": "urllib3",
              "installed": "2.6.0",
              "error": "invalid project page http://127.0.0.1:[PORT]/simple/urllib3/: repository API version \\u{1b}]0;title\\u{7}2.0\\u{a}error: forged is not supported (only 1.x)"
            }
          ]
        }

        ----- stderr -----
        note: planning for platform `x86_64-manylinux_2_28`
        warning: 2 of 3 packages could not be checked; the first error:
        planner::index::invalid_page

          × invalid project page http://127.0.0.1:[PORT]/simple/requests/: invalid
          │ project name `\u{1b}[2Jevil\u{a}error: forged line`: Not a valid package
          │ or extra name: "\u{1b}[2Jevil\u{a}error: forged line". Names must start
          │ and end with a letter or digit and may only contain -, _, ., and
          │ alphanumeric characters.
          help: the index served a page that is not a valid simple-repository page
                (PEP 503/691)
        "#);
    // pyvenv.cfg's version, where no interpreter runs.
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /nonexistent\nversion_info = 3.\u{1b}[2J\nerror: forged\n",
    )
    .unwrap();
    std::fs::remove_dir_all(venv.join("lib")).unwrap();
    let out = ctx.run(&["inventory", "--venv", venv.to_str().unwrap()]);
    assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
    assert!(!raw(&out.stderr) && !forged(&out.stderr), "{}", out.stderr);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::inventory::unknown_python

          × cannot tell the Python version of `[TMP]/venv`: its pyvenv.cfg
          │ line 2: version_info `3.\u{1b}[2J` is not a Python version (after parsing
          │ `3`, found `.\u{1b}[2J`, which is not part of a valid version)
          help: pass --python-version X.Y[.Z] (and --python-platform) to say which
                Python the environment is for
        "#);
}
