//! `planner review --venv V --try` on a real venv from the loopback index of tiny wheels: each
//! changed pin's plan as pinned and its safer plan are tried in throw-away copies of the venv,
//! and the measured outcome is shown beside each, in text, markdown (the PR comment) and JSON.
//! A pin that measures a regression as pinned is exit 1, naming it; the venv is never written.

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::common::venv::RealVenv;
use crate::planner_snapshot;
use crate::try_::{assert_same_tree, path_without_uv, pip_ok, tree};

/// lib 2.0 has `old`, lib 3.0 only `new`; app 1.0 requires lib>=2,<3 and imports `old`, app
/// 1.1 requires lib>=3 and imports `new`; tool 1.1 is a clean upgrade. The venv holds lib 2.0,
/// app 1.0, tool 1.0; the PR pins lib==3.0 (was 2.0) and tool==1.1 (was 1.0).
struct World {
    ctx: TestContext,
    _server: IndexServer,
    url: String,
    venv: std::path::PathBuf,
    repo: std::path::PathBuf,
}

impl World {
    fn new() -> World {
        let mut ctx = TestContext::new();
        let wheels = serde_json::json!([
            {"name": "lib", "version": "2.0", "files": {"lib/__init__.py": "def old():\n    return 1\n"}},
            {"name": "lib", "version": "3.0", "files": {"lib/__init__.py": "def new():\n    return 2\n"}},
            {"name": "app", "version": "1.0", "requires": ["lib>=2,<3"],
             "files": {"app/__init__.py": "from lib import old\n"}},
            {"name": "app", "version": "1.1", "requires": ["lib>=3"],
             "files": {"app/__init__.py": "from lib import new\n"}},
            {"name": "tool", "version": "1.0", "files": {"tool/__init__.py": "V = 1\n"}},
            {"name": "tool", "version": "1.1", "files": {"tool/__init__.py": "V = 2\n"}},
        ]);
        let server = crate::common::index_server::tiny_wheels(&ctx.path().join("index"), &wheels);
        let url = server.url();
        let venv = ctx.path().join("venv");
        RealVenv::create(&venv);
        pip_ok(
            &venv,
            &[
                "install",
                "--index-url",
                &url,
                "lib==2.0",
                "app==1.0",
                "tool==1.0",
            ],
        );
        let repo = crate::review::layout(
            ctx.path(),
            &[("requirements.txt", "lib==2.0\ntool==1.0\n")],
            &[("requirements.txt", "lib==3.0\ntool==1.1\n")],
        );
        // Seconds and copy statistics vary run by run.
        ctx.filter(r"\d+\.\d+s\b", "[S]s");
        ctx.filter(r"(?m)^copied .*\n", "");
        ctx.filter(r"\(\d+ days ago\)", "([N] days ago)");
        ctx.filter(r"planner-try-\w+", "planner-try-[X]");
        ctx.filter(r"python3\.\d+", "python3.[X]");
        World {
            ctx,
            _server: server,
            url,
            venv,
            repo,
        }
    }

    /// `review --try --venv V` of `main..pr` in this format, PATH without uv (pip applies the
    /// plans: the snapshot does not depend on whether uv is here).
    fn review(&self, format: &str) -> crate::common::Output {
        crate::common::run(
            self.ctx
                .command()
                .env("PATH", path_without_uv())
                .env("TMPDIR", self.ctx.path())
                .arg("review")
                .arg(&self.repo)
                .args(["--base", "main", "--head", "pr", "--venv"])
                .arg(&self.venv)
                .args(["--index-url", &self.url, "--try", "--format", format]),
        )
    }
}

#[test]
fn review_try_measures_each_pin_as_pinned_and_its_safer_plan() {
    let world = World::new();
    let before = tree(&world.venv);
    let text = world.review("text");
    planner_snapshot!(world.ctx, text, @r#"
        exit_code: 1
        ----- stdout -----
        2 forced or pinned version(s) added or changed: base main (033679787328) -> head pr (fcdc506ee75b); judged for [TMP]/venv

        CRITICAL 100/100 requirements.txt:1  requirements pin  lib==3.0 (was lib==2.0)
          release: lib 3.0 was uploaded 2025-01-01 ([N] days ago)
          on [TMP]/venv:
            breaks: app 1.0 requires lib>=2,<3
            risk: critical 100/100 (default policy)
               +30  app 1.0 requires lib>=2, <3, forced to 3.0: breaks `<3`; in the corpus, plans of this shape (pin-upper-bound without defensive-upper-bound on one package) broke 3 of 7 times
               +15  3.0 is a major step outside `<3`; in the corpus, plans with this factor broke 12 of 31 times
               +60  app 1.0 (app/__init__.py, line 1) imports `old` from `lib`, which lib 3.0 does not have; in the corpus, plans with this factor broke 29 of 29 times
                +3  1 installed dist requires lib: app; in the corpus, plans with this factor broke 49 of 100 times
            safer: Move the blocker: app 1.0 -> 1.1 (risk low 10/100): app 1.0 -> 1.1, lib 2.0 -> 3.0
            tried as pinned: REGRESSED: 1 regression(s) in 4 checks and 0 test(s), [S]s
              FAIL import:app (app): ImportError: cannot import name 'old' from 'lib' ([TMP]/planner-try-[X]/venv/lib/python3.[X]/site-packages/lib/__init__.py)
            tried safer: clean: 0 regression(s) in 5 checks and 0 test(s), [S]s

        LOW 0/100        requirements.txt:2  requirements pin  tool==1.1 (was tool==1.0)
          release: tool 1.1 was uploaded 2025-01-01 ([N] days ago)
          on [TMP]/venv:
            risk: low 0/100 (default policy)
            tried as pinned: clean: 0 regression(s) in 3 checks and 0 test(s), [S]s


        ----- stderr -----
        trying `lib==3.0` as pinned (Force lib==3.0 over app 1.0's `lib>=2, <3`) in a copy of [TMP]/venv
        trying the safer plan (Move the blocker: app 1.0 -> 1.1) in a copy of [TMP]/venv
        trying `tool==1.1` as pinned (As asked: tool==1.1) in a copy of [TMP]/venv
        warning: `lib==3.0` (requirements.txt:1) measured 1 regression(s) as pinned (--try): import:app (app): ImportError: cannot import name 'old' from 'lib' ([TMP]/planner-try-[X]/venv/lib/python3.[X]/site-packages/lib/__init__.py)
        "#);
    assert_same_tree(&before, &world.venv, "after review --try");

    let markdown = world.review("markdown");
    assert_eq!(markdown.code, Some(1), "{}", markdown.stderr);
    let comment = markdown.stdout;
    world
        .ctx
        .insta_settings()
        .bind(|| insta::assert_snapshot!(comment, @r#"
            ## planner review

            2 forced or pinned version(s) added or changed: base main (033679787328) -> head pr (fcdc506ee75b); judged for [TMP]/venv

            | risk | where | pin | kind | breaks | safer plan | measured (--try) |
            |---|---|---|---|---|---|---|
            | **critical 100/100** | `requirements.txt:1` | `lib==3.0` | requirements pin | app 1.0 requires lib>=2,&lt;3 | Move the blocker: app 1.0 -> 1.1 (low 10/100) | as pinned: REGRESSED; safer: clean |
            | **low 0/100** | `requirements.txt:2` | `tool==1.1` | requirements pin | - | - | as pinned: clean |

            <details><summary><code>lib==3.0</code> at <code>requirements.txt:1</code>: critical 100/100</summary>

            Release: lib 3.0 was uploaded 2025-01-01 ([N] days ago)

            **[TMP]/venv**

            - breaks: app 1.0 requires lib>=2,&lt;3

            | points | factor |
            |---:|---|
            | +30 | app 1.0 requires lib>=2, &lt;3, forced to 3.0: breaks `<3`; in the corpus, plans of this shape (pin-upper-bound without defensive-upper-bound on one package) broke 3 of 7 times |
            | +15 | 3.0 is a major step outside `<3`; in the corpus, plans with this factor broke 12 of 31 times |
            | +60 | app 1.0 (app/__init__.py, line 1) imports `old` from `lib`, which lib 3.0 does not have; in the corpus, plans with this factor broke 29 of 29 times |
            | +3 | 1 installed dist requires lib: app; in the corpus, plans with this factor broke 49 of 100 times |
            | **100** | **critical** (default policy) |

            Safer: **Move the blocker: app 1.0 -> 1.1** (risk low 10/100): app 1.0 -> 1.1, lib 2.0 -> 3.0

            ```sh
            python3 -m pip install --only-binary :all: -- 'app==1.1' 'lib==3.0'
            ```

            Measured as pinned (`planner try`, Force lib==3.0 over app 1.0's \`lib>=2, &lt;3\`): **REGRESSED: 1 regression(s) in 4 checks and 0 test(s), [S]s**

            - regression: `import:app (app): ImportError: cannot import name 'old' from 'lib' ([TMP]/planner-try-[X]/venv/lib/python3.[X]/site-packages/lib/__init__.py)`

            Measured safer (`planner try`, Move the blocker: app 1.0 -> 1.1): **clean: 0 regression(s) in 5 checks and 0 test(s), [S]s**


            </details>

            <details><summary><code>tool==1.1</code> at <code>requirements.txt:2</code>: low 0/100</summary>

            Release: tool 1.1 was uploaded 2025-01-01 ([N] days ago)

            **[TMP]/venv**


            | points | factor |
            |---:|---|
            | **0** | **low** (default policy) |

            Measured as pinned (`planner try`, As asked: tool==1.1): **clean: 0 regression(s) in 3 checks and 0 test(s), [S]s**


            </details>
            "#));

    let json = world.review("json");
    assert_eq!(json.code, Some(1), "{}", json.stderr);
    let json = json.json();
    let measured: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let tried = &f["targets"][0]["tried"];
            ["pinned", "safer"].into_iter().map(move |what| {
                format!(
                    "{} {what}: {} {} {:?}",
                    f["pin"]["requirement"].as_str().unwrap(),
                    tried[what]["title"].as_str().unwrap_or("-"),
                    tried[what]["verdict"].as_str().unwrap_or("-"),
                    tried[what]["regressions"]
                )
            })
        })
        .collect();
    let measured = format!("{measured:#?}");
    world
        .ctx
        .insta_settings()
        .bind(|| insta::assert_snapshot!(measured, @r#"
            [
                "lib==3.0 pinned: Force lib==3.0 over app 1.0's `lib>=2, <3` regressed Array [String(\"import:app (app): ImportError: cannot import name 'old' from 'lib' ([TMP]/planner-try-[X]/venv/lib/python3.[X]/site-packages/lib/__init__.py)\")]",
                "lib==3.0 safer: Move the blocker: app 1.0 -> 1.1 clean Array []",
                "tool==1.1 pinned: As asked: tool==1.1 clean Array []",
                "tool==1.1 safer: - - Null",
            ]
            "#));
    assert_same_tree(&before, &world.venv, "after review --try");
    let left: Vec<_> = std::fs::read_dir(world.ctx.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("planner-try"))
        .collect();
    assert!(left.is_empty(), "copies left behind: {left:?}");
}
