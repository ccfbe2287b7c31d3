use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement, VersionOrUrl};

use super::*;
use crate::plan::test_plans;

/// What a set of emitted commands and files installs, parsed back from their text.
#[derive(Debug, Default, PartialEq, Eq)]
struct ParsedBack {
    installs: BTreeMap<PackageName, Version>,
    forced: BTreeMap<PackageName, Version>,
    removals: Vec<PackageName>,
    constraints: BTreeMap<PackageName, Version>,
    overrides: BTreeMap<PackageName, Version>,
}

fn exact(requirement: &Requirement) -> Version {
    let Some(VersionOrUrl::VersionSpecifier(spec)) = &requirement.version_or_url else {
        panic!("not a pin: {requirement}");
    };
    assert_eq!(spec.len(), 1, "{requirement}");
    assert_eq!(spec[0].operator(), &pep440_rs::Operator::Equal);
    spec[0].version().clone()
}

fn parse_pins(text: &str) -> BTreeMap<PackageName, Version> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let req = Requirement::from_str(l).unwrap();
            (req.name.clone(), exact(&req))
        })
        .collect()
}

fn parse_back(text: &str, files: &InstallFiles) -> ParsedBack {
    let mut parsed = ParsedBack {
        constraints: parse_pins(&files.constraints),
        overrides: parse_pins(&files.overrides),
        ..ParsedBack::default()
    };
    for line in text.lines() {
        let Some(argv) = shlex::split(line) else {
            panic!("does not split: {line}");
        };
        let Some(sep) = argv.iter().position(|t| t == "--") else {
            continue;
        };
        let (options, requirements) = (&argv[..sep], &argv[sep + 1..]);
        let uninstall = options.iter().any(|t| t == "uninstall");
        let force = options.iter().any(|t| t == "--force-reinstall");
        if force {
            assert!(options.iter().any(|t| t == "--no-deps"));
        }
        for token in requirements {
            if uninstall {
                parsed.removals.push(PackageName::from_str(token).unwrap());
                continue;
            }
            let req = Requirement::from_str(token).unwrap();
            assert_eq!(req.to_string(), *token, "re-serialized form");
            let target = if force {
                &mut parsed.forced
            } else {
                &mut parsed.installs
            };
            target.insert(req.name.clone(), exact(&req));
        }
    }
    parsed
}

fn settings() -> CommandOptions {
    CommandOptions {
        python: "/tmp/venv dir/bin/python".into(),
        index_url: Some("http://127.0.0.1:8080/simple/".into()),
        files_dir: None,
        constraints: true,
        allow_build: false,
        pip_outside: false,
    }
}

#[test]
fn forced_plan_round_trips_for_pip_and_uv() {
    let plan = test_plans::forced();
    let files = install_files(&plan, &settings()).unwrap();
    let pip = inline_steps(&files, &files.pip);
    let back = parse_back(&pip, &files);
    // pip: nothing ordinary to install; the forced dist alone, with --force-reinstall --no-deps.
    assert!(back.installs.is_empty());
    assert_eq!(
        back.forced,
        [(test_plans::n("triton"), test_plans::v("3.7.0"))].into()
    );
    // Constraints: the whole planned environment minus the overridden dist.
    let mut expected = plan.pins.clone();
    expected.remove(&test_plans::n("triton"));
    assert_eq!(back.constraints, expected);
    assert_eq!(back.overrides, back.forced);

    let uv = inline_steps(&files, &files.uv);
    let back = parse_back(&uv, &files);
    assert_eq!(back.installs, back.overrides);
    assert!(uv.contains("--overrides overrides.txt"));
    insta::assert_snapshot!(pip, @"'/tmp/venv dir/bin/python' -m pip install --only-binary :all: --index-url http://127.0.0.1:8080/simple/ --force-reinstall --no-deps -- 'triton==3.7.0'");
    insta::assert_snapshot!(uv, @r"
    printf '%s\n' 'filelock==3.20.0' 'numpy==2.3.4' 'torch==2.11.0+cu130' > constraints.txt
    printf '%s\n' 'triton==3.7.0' > overrides.txt
    uv pip install --python '/tmp/venv dir/bin/python' --no-build --index-url http://127.0.0.1:8080/simple/ --constraints constraints.txt --overrides overrides.txt -- 'triton==3.7.0'
    ");
}

#[test]
fn move_blockers_plan_round_trips() {
    let plan = test_plans::move_blockers();
    let files = install_files(&plan, &settings()).unwrap();
    for steps in [&files.pip, &files.uv] {
        let back = parse_back(&inline_steps(&files, steps), &files);
        let planned: BTreeMap<PackageName, Version> = plan
            .changes
            .iter()
            .map(|c| (c.name.clone(), c.to.clone().unwrap()))
            .collect();
        assert_eq!(back.installs, planned);
        assert!(back.forced.is_empty());
        assert_eq!(back.constraints, plan.pins);
        assert!(back.overrides.is_empty());
    }
}

#[test]
fn reinstall_and_removal_steps() {
    let mut plan = test_plans::move_blockers();
    plan.changes[0].to = Some(test_plans::v("2.11.0"));
    plan.changes[0].action = crate::plan::Action::Reinstall;
    plan.changes.push(crate::plan::Change {
        name: test_plans::n("six"),
        from: Some(test_plans::v("1.17.0")),
        to: None,
        action: crate::plan::Action::Remove,
        reasons: vec![crate::plan::Reason::Resolution],
        forced: false,
        yanked: None,
        upload_time: None,
        top_level: vec![],
        repair: false,
        from_source_only: false,
    });
    let files = install_files(&plan, &settings()).unwrap();
    let back = parse_back(&inline_steps(&files, &files.pip), &files);
    assert_eq!(
        back.forced.keys().map(|k| k.as_ref()).collect::<Vec<_>>(),
        ["torch"]
    );
    assert_eq!(back.removals, [test_plans::n("six")]);
    let uv = inline_steps(&files, &files.uv);
    assert!(uv.contains("--reinstall-package torch"));
    assert!(uv.contains("uv pip uninstall --python '/tmp/venv dir/bin/python' -- six"));
}

/// A venv made by uv has no pip: every pip step runs the pip of `python3` against it, and the
/// script names the venv's interpreter as `"$PYTHON"` there too.
#[test]
fn a_venv_without_pip_gets_the_outer_pip_in_every_step() {
    let mut plan = test_plans::forced();
    plan.changes.push(crate::plan::Change {
        name: test_plans::n("six"),
        from: Some(test_plans::v("1.17.0")),
        to: None,
        action: crate::plan::Action::Remove,
        reasons: vec![crate::plan::Reason::Resolution],
        forced: false,
        yanked: None,
        upload_time: None,
        top_level: vec![],
        repair: false,
        from_source_only: false,
    });
    let mut s = settings();
    s.pip_outside = true;
    let files = install_files(&plan, &s).unwrap();
    assert_eq!(files.pip.len(), 2);
    for step in &files.pip {
        assert_eq!(
            step[..5],
            [
                "python3",
                "-m",
                "pip",
                "--python",
                "/tmp/venv dir/bin/python"
            ],
            "{step:?}"
        );
    }
    let line = script_step(&files.pip[0], "/tmp/venv dir/bin/python", None);
    assert!(
        line.starts_with("python3 -m pip --python \"$PYTHON\" install "),
        "{line}"
    );
    // The uv steps need no pip and do not change.
    assert_eq!(files.uv, install_files(&plan, &settings()).unwrap().uv);
}

#[test]
fn credentials_never_reach_commands() {
    let plan = test_plans::forced();
    let mut s = settings();
    s.index_url = Some("https://alice:hunter2@example.invalid/simple/".into());
    let err = install_files(&plan, &s).unwrap_err();
    assert!(!format!("{err:?}").contains("hunter2"));
}

#[test]
fn scripts_quote_and_resolve_files_next_to_them() {
    let plan = test_plans::forced();
    let python = "/opt/my venv/$HOME/bin/python";
    let files = install_files(
        &plan,
        &CommandOptions {
            python: python.into(),
            index_url: None,
            files_dir: None,
            constraints: true,
            allow_build: false,
            pip_outside: false,
        },
    )
    .unwrap();
    let script = script(&files.uv, std::path::Path::new(python), "uv", &[]);
    insta::assert_snapshot!(script, @r#"
    #!/usr/bin/env bash
    # Written by planner: carry out one plan with uv. Review it before running.
    set -euo pipefail
    HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    VERIFY=0
    TESTS=()
    ROLLBACK=0
    while [ "$#" -gt 0 ]; do
      case "$1" in
        --verify) VERIFY=1 ;;
        --rollback-on-regression) VERIFY=1; ROLLBACK=1 ;;
        --test) [ "$#" -ge 2 ] || { echo "$0: --test needs a command" >&2; exit 2; }
          TESTS+=("--test=$2"); VERIFY=1; shift ;;
        --test=*) TESTS+=("$1"); VERIFY=1 ;;
        *) echo "usage: $0 [--verify] [--rollback-on-regression] [--test CMD]..." >&2; exit 2 ;;
      esac
      shift
    done
    PYTHON_DEFAULT='/opt/my venv/$HOME/bin/python'
    PYTHON="${PLANNER_PYTHON:-$PYTHON_DEFAULT}"
    if [ "$VERIFY" = 1 ]; then
      echo "verify: recording the baseline in $HERE/verify-baseline.json" >&2
      "$PYTHON" "$HERE/verify.py" --baseline "$HERE/verify-baseline.json" ${TESTS[@]+"${TESTS[@]}"} >/dev/null
    fi
    uv pip install --python "$PYTHON" --no-build --constraints "$HERE/constraints.txt" --overrides "$HERE/overrides.txt" -- 'triton==3.7.0'
    if [ "$VERIFY" = 1 ]; then
      echo "verify: comparing with the baseline; report in $HERE/verify-report.json" >&2
      STATUS=0
      "$PYTHON" "$HERE/verify.py" --compare "$HERE/verify-baseline.json" --report "$HERE/verify-report.json" ${TESTS[@]+"${TESTS[@]}"} >/dev/null || STATUS=$?
      if [ "$STATUS" = 1 ]; then
        if [ "$ROLLBACK" = 1 ]; then
          echo "verify: the plan regressed; rolling back with $HERE/rollback-uv.sh" >&2
          bash "$HERE/rollback-uv.sh"
          echo "verify: rolled back; the regressions are in $HERE/verify-report.json" >&2
        else
          echo "verify: the plan regressed (see $HERE/verify-report.json); to put the environment back:" >&2
          printf '  bash %q\n' "$HERE/rollback-uv.sh" >&2
        fi
      fi
      exit "$STATUS"
    fi
    "#);
    // bash agrees that it is well formed, when bash is here.
    if let Ok(out) = std::process::Command::new("bash")
        .arg("-n")
        .arg("-c")
        .arg(&script)
        .output()
    {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Install-pip.sh and install-uv.sh failed to parse when the venv path held `'`, and
/// a `}` corrupted the `${PLANNER_PYTHON:-...}` default. Over paths with every troublesome byte
/// (quotes, `}`, `$`, backticks, backslashes, spaces, a newline), each script parses (`bash -n`)
/// and, run for real with a recording `python` at that path and a recording `uv` on PATH, hands
/// the installer the path byte for byte.
#[test]
fn scripts_run_with_any_byte_in_the_paths() {
    use std::os::unix::ffi::OsStrExt;
    let Ok(bash) = which_bash() else {
        panic!("bash is needed to check the generated scripts");
    };
    let plan = test_plans::forced();
    let root = tempfile::tempdir().unwrap();
    for (i, dir) in troublesome_dirs().into_iter().enumerate() {
        let venv = RecordingVenv::new(root.path(), i, dir);
        let python_text = venv.python.display().to_string();
        let files = install_files(
            &plan,
            &CommandOptions {
                python: python_text.clone(),
                index_url: Some("http://127.0.0.1:1/simple/it's/".into()),
                files_dir: None,
                constraints: true,
                allow_build: false,
                pip_outside: false,
            },
        )
        .unwrap();
        let out_dir = venv.root.join("plan");
        std::fs::create_dir_all(&out_dir).unwrap();
        for (installer, steps) in [("pip", &files.pip), ("uv", &files.uv)] {
            let text = script(steps, &venv.python, installer, &[]);
            let path = out_dir.join(format!("install-{installer}.sh"));
            std::fs::write(&path, &text).unwrap();
            let context = format!("{dir:?} {installer}");
            let args = venv.run(&bash, &path, root.path(), (&context, &text));
            let args: Vec<&[u8]> = args.split(|b| *b == 0).filter(|a| !a.is_empty()).collect();
            assert!(
                args.contains(&venv.python.as_os_str().as_bytes()),
                "{context}: the interpreter's path did not arrive whole: {:?}",
                args.iter()
                    .map(|a| String::from_utf8_lossy(a))
                    .collect::<Vec<_>>()
            );
            assert!(
                args.iter()
                    .any(|a| *a == b"http://127.0.0.1:1/simple/it's/"),
                "{context}: {args:?}"
            );
            assert!(!root.path().join("pwned").exists() && !out_dir.join("pwned").exists());
        }
    }
}

/// Folder names with every troublesome byte: quotes, `}`, `$`, backticks, backslashes,
/// spaces, a newline, bytes that are not UTF-8.
fn troublesome_dirs() -> Vec<&'static std::ffi::OsStr> {
    use std::os::unix::ffi::OsStrExt;
    [
        &b"it's"[..],
        b"say \"hi\"",
        b"a}b{c",
        b"$HOME and $(touch pwned) and `touch pwned`",
        b"back\\slash",
        b"new\nline",
        b"all of '\"}$`\\ \t them",
        // Not UTF-8 (Latin-1 `caf\xe9`, a lone continuation byte, `'` and `\` beside them):
        // carried as these bytes, not as the lossy `caf\u{fffd}`.
        b"caf\xe9 \x80'\\x41",
    ]
    .iter()
    .map(|b| std::ffi::OsStr::from_bytes(b))
    .collect()
}

/// A venv folder named `{i}-{dir}` whose `bin/python` and `bin/uv` record their argv.
struct RecordingVenv {
    root: std::path::PathBuf,
    bin: std::path::PathBuf,
    python: std::path::PathBuf,
    /// Where the argv goes, NUL-separated.
    record: std::path::PathBuf,
}

impl RecordingVenv {
    fn new(parent: &std::path::Path, i: usize, dir: &std::ffi::OsStr) -> RecordingVenv {
        let mut name = std::ffi::OsString::from(format!("{i}-"));
        name.push(dir);
        let root = parent.join(name);
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let python = bin.join("python");
        let record = parent.join(format!("{i}.args"));
        // The fake interpreter and uv write their argv, NUL-separated, where the test reads it.
        let recorder = format!(
            "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%s\\0' \"$a\"; done >> {}\n",
            safe::literal(record.to_str().unwrap())
        );
        for exe in [&python, &bin.join("uv")] {
            std::fs::write(exe, &recorder).unwrap();
            let mut perms = std::fs::metadata(exe).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
            std::fs::set_permissions(exe, perms).unwrap();
        }
        RecordingVenv {
            root,
            bin,
            python,
            record,
        }
    }

    /// Check that `script` parses (`bash -n`), run it with this venv's `bin` first on PATH
    /// and no `PLANNER_*` overrides, and return the argv recorded (a failure shows the case
    /// and the script's text).
    fn run(
        &self,
        bash: &std::path::Path,
        script: &std::path::Path,
        cwd: &std::path::Path,
        (context, text): (&str, &str),
    ) -> Vec<u8> {
        let parsed = std::process::Command::new(bash)
            .arg("-n")
            .arg(script)
            .output()
            .unwrap();
        assert!(
            parsed.status.success(),
            "{context}: {}\n{text}",
            String::from_utf8_lossy(&parsed.stderr)
        );
        let _ = std::fs::remove_file(&self.record);
        let ran = std::process::Command::new(bash)
            .arg(script)
            .env_remove("PLANNER_PYTHON")
            .env_remove("PLANNER_INDEX_URL")
            .env("PATH", {
                let mut path = self.bin.clone().into_os_string();
                path.push(":/usr/bin:/bin");
                path
            })
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "{context}: {}\n{text}",
            String::from_utf8_lossy(&ran.stderr)
        );
        std::fs::read(&self.record).unwrap()
    }
}

fn which_bash() -> Result<std::path::PathBuf, ()> {
    ["/bin/bash", "/usr/bin/bash"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_file())
        .ok_or(())
}
