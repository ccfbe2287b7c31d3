//! Secrets in every output (reliability items 13, 15, 34): a canary password
//! given every way planner accepts credentials (URL userinfo, `~/.netrc`, `PIP_INDEX_URL`,
//! `UV_INDEX_URL`, a `keyring` command on PATH with `--keyring-provider subprocess`) reaches the
//! index, and appears nowhere else: not on stdout or stderr of any command in any format, with
//! or without `-v` / `-vv`, not in plan files, install scripts, verify.py, snapshots or the
//! cache.

use std::path::{Path, PathBuf};

use crate::common::index_server::{Fault, IndexServer};
use crate::common::{Output, TestContext, files_under};
use crate::planner_snapshot;

const CANARY: &str = "canary-pw-51f0e7";

fn canonical_venv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/venvs/canonical")
}

/// How the credentials are handed over.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `--index-url http://alice:CANARY@host/simple/`
    UrlUserinfo,
    /// `machine 127.0.0.1 login alice password CANARY` in `~/.netrc`, a plain `--index-url`.
    Netrc,
    /// `PIP_INDEX_URL` with userinfo, no flag.
    PipIndexUrl,
    /// `UV_INDEX_URL` with userinfo, no flag.
    UvIndexUrl,
    /// `--keyring-provider subprocess --index-url http://alice@host/simple/`: a real `keyring`
    /// executable (a shell script) first on PATH answers `keyring get URL alice`.
    Keyring,
}

struct Setup {
    ctx: TestContext,
    /// `--index-url` arguments (empty when the URL comes from the environment).
    index_args: Vec<String>,
    /// Environment variables for every run.
    env: Vec<(String, String)>,
}

fn setup(server: &IndexServer, source: Source, password: &str) -> Setup {
    let ctx = TestContext::new();
    let with_password = server.url_with_credentials("alice", password);
    let (index_args, env) = match source {
        Source::UrlUserinfo => (vec!["--index-url".to_string(), with_password], vec![]),
        Source::Netrc => {
            std::fs::write(
                ctx.home().join(".netrc"),
                format!("machine 127.0.0.1\n  login alice\n  password {password}\n"),
            )
            .unwrap();
            (vec!["--index-url".to_string(), server.url()], vec![])
        }
        Source::PipIndexUrl => (vec![], vec![("PIP_INDEX_URL".to_string(), with_password)]),
        Source::UvIndexUrl => (vec![], vec![("UV_INDEX_URL".to_string(), with_password)]),
        Source::Keyring => {
            let user_only = server.url().replacen("://", "://alice@", 1);
            let path = keyring_on_path(&ctx, &server.url(), password);
            (
                vec![
                    "--index-url".to_string(),
                    user_only,
                    "--keyring-provider".to_string(),
                    "subprocess".to_string(),
                ],
                vec![("PATH".to_string(), path)],
            )
        }
    };
    Setup {
        ctx,
        index_args,
        env,
    }
}

/// A `keyring` executable in a folder of its own that answers `keyring get SERVICE alice` with
/// `password` for the index URL (and fails for anything else, as keyring does when it knows
/// nothing); it logs each call's arguments to `keyring.log` beside it. Returns a PATH with that
/// folder first.
fn keyring_on_path(ctx: &TestContext, index_url: &str, password: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = ctx.dir.path().join("keyring-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("keyring");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{log}'\n\
             if [ \"$1\" = get ] && [ \"$2\" = '{index_url}' ] && [ \"$3\" = alice ]; then\n\
             printf '%s\\n' '{password}'\nexit 0\nfi\n\
             echo 'no such credential' >&2\nexit 1\n",
            log = bin.join("keyring.log").display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", bin.display())
}

impl Setup {
    fn run(&self, args: &[&str]) -> Output {
        let mut cmd = self.ctx.command();
        cmd.args(args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        crate::common::run(&mut cmd)
    }

    fn path(&self, name: &str) -> String {
        self.ctx.dir.path().join(name).display().to_string()
    }
}

/// Every command, every output format, `--out-dir`, snapshots in and out, `check --accept`,
/// each with `verbosity` (`""`, `-v` or `-vv`) first. Returns each run's argv and output.
fn every_command(setup: &Setup, verbosity: &str) -> Vec<(Vec<String>, Output)> {
    let venv = canonical_venv().display().to_string();
    let out_dir = setup.path("out");
    let snapshot = setup.path("snapshot.json");
    let plan = format!("{out_dir}/plans/2-forced-override/plan.json");
    let (venv, out_dir, snapshot, plan) = (&*venv, &*out_dir, &*snapshot, &*plan);
    let index: Vec<&str> = setup.index_args.iter().map(String::as_str).collect();
    let index = &index[..];
    let propose = ["propose", "triton==3.7.0", "--allow-override"];
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for format in ["text", "json", "markdown"] {
        runs.push([&propose[..], &["--venv", venv, "--format", format], index].concat());
    }
    runs.push([&propose[..], &["--venv", venv, "--out-dir", out_dir], index].concat());
    for format in ["text", "json"] {
        runs.push([&["outdated", "--venv", venv, "--format", format][..], index].concat());
        runs.push(
            [
                &[
                    "resolve",
                    "--python-version",
                    "3.12",
                    "--python-platform",
                    "x86_64-manylinux_2_28",
                    "--format",
                    format,
                ][..],
                index,
                &["--", "torch==2.12.0", "triton==3.7.0"],
            ]
            .concat(),
        );
        runs.push(vec!["inventory", "--venv", venv, "--format", format]);
        runs.push(vec![
            "check", "--venv", venv, "--format", format, "--accept", plan,
        ]);
    }
    runs.push(vec!["snapshot", "--venv", venv, "--out", snapshot]);
    runs.push(vec!["snapshot", "--script"]);
    runs.push([&propose[..], &["--from-snapshot", snapshot], index].concat());
    runs.into_iter()
        .map(|argv| {
            let argv: Vec<&str> = [verbosity]
                .into_iter()
                .filter(|v| !v.is_empty())
                .chain(argv)
                .collect();
            let out = setup.run(&argv);
            (argv.iter().map(|s| s.to_string()).collect(), out)
        })
        .collect()
}

/// No output, and no file the runs left (the cache, plan files, scripts, snapshots), holds the
/// canary; the files that must (the user's own `.netrc`, the test's `keyring` script) are
/// skipped.
fn assert_no_canary(setup: &Setup, runs: &[(Vec<String>, Output)]) {
    for (argv, out) in runs {
        assert!(
            !out.stdout.contains(CANARY),
            "{argv:?} stdout: {}",
            out.stdout
        );
        assert!(
            !out.stderr.contains(CANARY),
            "{argv:?} stderr: {}",
            out.stderr
        );
    }
    let netrc = setup.ctx.home().join(".netrc");
    let keyring = setup.ctx.dir.path().join("keyring-bin/keyring");
    let files: Vec<PathBuf> = files_under(setup.ctx.dir.path())
        .into_iter()
        .filter(|f| *f != netrc && *f != keyring)
        .collect();
    for file in &files {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
        assert!(
            !text.contains(CANARY),
            "{} holds the canary",
            file.display()
        );
        assert!(!file.to_string_lossy().contains(CANARY));
    }
}

fn require_auth(server: &IndexServer) {
    let basic = format!(
        "Basic {}",
        base64_encode(format!("alice:{CANARY}").as_bytes())
    );
    server.fault("/", Fault::RequireAuth(basic));
}

#[test]
fn canary_password_appears_in_no_output_of_any_command() {
    assert!(
        canonical_venv().is_dir(),
        "testdata/venvs/canonical is missing"
    );
    for source in [
        Source::UrlUserinfo,
        Source::Netrc,
        Source::PipIndexUrl,
        Source::UvIndexUrl,
        Source::Keyring,
    ] {
        let server = IndexServer::recorded();
        require_auth(&server);
        let setup = setup(&server, source, CANARY);
        // `-vv` logs every record `-v` does and more; one source also runs plain and `-v`.
        let verbosities: &[&str] = match source {
            Source::UrlUserinfo => &["", "-v", "-vv"],
            _ => &["", "-vv"],
        };
        let runs: Vec<_> = verbosities
            .iter()
            .flat_map(|v| every_command(&setup, v))
            .collect();
        let verbose = runs.iter().filter(|(argv, _)| argv[0] == "-vv");
        assert!(
            verbose.clone().any(|(_, out)| out.stderr.contains("DEBUG")),
            "{source:?}: -vv logged nothing"
        );
        for (argv, out) in &runs {
            // Each command did its work (so the index, behind auth, answered): 0, or 1 where
            // `check` finds the canonical venv's broken pins.
            assert!(
                matches!(out.code, Some(0) | Some(1)),
                "{source:?} {argv:?}: exit {:?}\n{}",
                out.code,
                out.stderr
            );
        }
        // The credentials did reach the index, each way they were given.
        let authorized = server
            .log()
            .iter()
            .filter(|l| l.headers.contains_key("authorization"))
            .count();
        assert!(authorized > 0, "{source:?}: no request carried credentials");
        let out_dir = setup.ctx.dir.path().join("out");
        let scripts = files_under(&out_dir);
        assert!(
            scripts.iter().any(|f| f.ends_with("install-pip.sh"))
                && scripts.iter().any(|f| f.ends_with("install-uv.sh"))
                && scripts.iter().any(|f| f.ends_with("verify.py")),
            "{source:?}: --out-dir wrote {scripts:?}"
        );
        assert_no_canary(&setup, &runs);
        assert_scripts_read_credentials_at_run_time(&setup.ctx, &out_dir);
        if let Source::Keyring = source {
            // Asked as pip and uv ask: the index URL as the service, the URL's user name.
            let log = setup.ctx.dir.path().join("keyring-bin/keyring.log");
            let log = std::fs::read_to_string(log).unwrap();
            assert!(
                log.lines()
                    .any(|l| l == format!("get {} alice", server.url())),
                "{log}"
            );
        }
    }
}

/// The install scripts name the index without its credentials and take the URL (with
/// credentials) from `$PLANNER_INDEX_URL` at run time; pip and uv also read `~/.netrc` then.
/// Wherever the credentials came from, each script is the same (one snapshot per script).
fn assert_scripts_read_credentials_at_run_time(ctx: &TestContext, out_dir: &Path) {
    for file in files_under(out_dir) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("install-") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("alice"), "{}:\n{text}", file.display());
        // Named by the plan's folder and the script: `plans/1-move-blockers/install-pip.sh`.
        let plan = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        ctx.insta_settings().bind(|| {
            insta::assert_snapshot!(format!("credentials_read_at_run_time_{plan}_{name}"), text);
        });
    }
}

/// Wrong credentials: every index-reading command fails naming the index with `****` in place
/// of the userinfo, and still never prints the (wrong) password.
#[test]
fn rejected_credentials_are_reported_without_them() {
    let server = IndexServer::recorded();
    require_auth(&server);
    let wrong = format!("{CANARY}-wrong");
    for source in [Source::UrlUserinfo, Source::Netrc, Source::PipIndexUrl] {
        let setup = setup(&server, source, &wrong);
        let venv = canonical_venv().display().to_string();
        let venv = venv.as_str();
        let index: Vec<&str> = setup.index_args.iter().map(String::as_str).collect();
        let mut runs = Vec::new();
        for args in [
            &["propose", "triton==3.7.0", "--venv", venv][..],
            &["outdated", "--venv", venv, "--format", "json"],
            &["resolve", "--python-version", "3.12", "triton"],
        ] {
            let argv: Vec<&str> = [args, &index[..]].concat();
            let out = setup.run(&argv);
            assert_eq!(out.code, Some(2), "{source:?} {argv:?}: {}", out.stderr);
            assert!(out.stderr.contains("401"), "{source:?}: {}", out.stderr);
            runs.push((argv.iter().map(|s| s.to_string()).collect(), out));
        }
        assert_no_canary(&setup, &runs);
    }
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
                out.push(TABLE[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Without `--keyring-provider subprocess` (or `PIP_KEYRING_PROVIDER` / `UV_KEYRING_PROVIDER`)
/// the `keyring` command is never run, as in pip and uv: the index answers 401. With
/// `UV_KEYRING_PROVIDER=subprocess` it is.
#[test]
fn keyring_is_asked_only_when_enabled() {
    let server = IndexServer::recorded();
    require_auth(&server);
    let setup = setup(&server, Source::Keyring, CANARY);
    let flagless: Vec<&str> = setup.index_args[..2].iter().map(String::as_str).collect();
    let argv = [
        &["resolve", "--python-version", "3.12", "triton"][..],
        &flagless,
    ]
    .concat();
    let out = setup.run(&argv);
    planner_snapshot!(setup.ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::solve::index

          × could not read `triton` from the index
          ╰─▶ http://****@127.0.0.1:[PORT]/simple/ answered 401 for `triton` (http://
              ****@127.0.0.1:[PORT]/simple/triton/)
          help: the index needs credentials. Tried: credentials in the index URL,
                ~/.netrc (absent or unreadable), no keyring (--keyring-provider
                subprocess asks the `keyring` command). Put them in the index URL
                (`https://user:token@host/simple`) or in ~/.netrc (`machine HOST login
                USER password TOKEN`)
        "#);

    let log = setup.ctx.dir.path().join("keyring-bin/keyring.log");
    assert!(!log.exists(), "keyring was run without being enabled");

    let mut cmd = setup.ctx.command();
    cmd.args(&argv).env("UV_KEYRING_PROVIDER", "subprocess");
    for (k, v) in &setup.env {
        cmd.env(k, v);
    }
    let out = crate::common::run(&mut cmd);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(log.exists());
}

/// An index URL that does not parse was echoed with its password (stderr and the JSON error)
/// by propose, resolve, try and bisect; a `?token=` query was written in clear to stdout, the
/// plan files and the scripts. Now the first is shown with `****`, the token is left out of
/// everything written (the scripts read the whole URL from `$PLANNER_INDEX_URL`), and `try`
/// refuses to put it into an installer command, as it refuses a password.
#[test]
fn index_urls_that_do_not_parse_or_carry_a_token_never_show_it() {
    let server = IndexServer::recorded();
    let setup = Setup {
        ctx: TestContext::new(),
        index_args: Vec::new(),
        env: Vec::new(),
    };
    let venv = canonical_venv().display().to_string();
    let venv = venv.as_str();
    let out_dir = setup.path("out");
    let with_token = format!("{}?token={CANARY}", server.url());
    let propose = [
        "propose",
        "triton==3.7.0",
        "--allow-override",
        "--venv",
        venv,
    ];
    let written = setup.run(
        &[
            &propose[..],
            &["--index-url", &with_token, "--out-dir", &out_dir],
        ]
        .concat(),
    );
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    let plan = format!("{out_dir}/plans/2-forced-override");
    let snapshot = setup.path("snapshot.json");
    assert_eq!(
        setup
            .run(&["snapshot", "--venv", venv, "--out", &snapshot])
            .code,
        Some(0)
    );
    let mut runs = vec![(vec!["propose --out-dir".to_string()], written)];
    for bad in [
        format!("http://alice:{CANARY}@[bad/simple/"),
        format!("http://alice:pa/ss-{CANARY}@[bad/simple/"),
        format!("http://alice:{CANARY}@host:99999/simple/"),
    ] {
        for flag in ["--index-url", "--extra-index-url"] {
            for argv in [
                [&propose[..], &["--format", "json", flag, &bad]].concat(),
                [&propose[..], &[flag, &bad]].concat(),
                vec!["resolve", "triton", flag, &bad],
            ] {
                let out = setup.run(&argv);
                assert_eq!(out.code, Some(2), "{argv:?}: {}", out.stderr);
                runs.push((argv.iter().map(|s| s.to_string()).collect(), out));
            }
        }
        for argv in [
            vec!["try", &plan, "--venv", venv, "--index-url", &bad],
            vec![
                "bisect",
                "--venv",
                venv,
                "--good",
                &snapshot,
                "--verify",
                "--index-url",
                &bad,
            ],
        ] {
            let out = setup.run(&argv);
            assert_eq!(out.code, Some(2), "{argv:?}: {}", out.stderr);
            runs.push((argv.iter().map(|s| s.to_string()).collect(), out));
        }
    }
    let out = setup.run(&["try", &plan, "--venv", venv, "--index-url", &with_token]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    runs.push((vec!["try --index-url ?token=".to_string()], out));
    assert_no_canary(&setup, &runs);
}
