//! `planner propose` on the web stacks, through the real path: real venvs made with
//! `python3 -m venv` and pip, wheels built here that carry the requirements the real releases
//! declare and, where the evidence reads module sources, the real modules copied from their
//! wheels (`testdata/imports/`), served from a local index folder.
//!
//! - `werkzeug>=3` under Flask 2.0.3: `flask/helpers.py` line 16 imports `url_quote` from
//!   `werkzeug.urls`, which werkzeug 3.1's `urls.py` mentions only inside a string
//!   (`"werkzeug.url_quote"`) and no longer defines; that import is what breaks `import flask`.
//! - fastapi 0.95.2 over pydantic 2.5.3 (a venv broken before any plan): the plan that keeps the
//!   edge scores it as a break.
//! - pydantic>=2 moving fastapi along: fastapi, moved to a release that accepts pydantic 2, is
//!   not counted as a dependent left behind by pydantic or by the pydantic-core it pins.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestContext, repo_root, venv};

/// A simple-index folder under `root/index` with a page per project linking to its wheels.
fn index_of(root: &Path, projects: &[(&str, &[&PathBuf])]) -> PathBuf {
    let index = root.join("index");
    std::fs::create_dir_all(index.join("files")).unwrap();
    for (project, wheels) in projects {
        let page = index.join("simple").join(project);
        std::fs::create_dir_all(&page).unwrap();
        let mut links = String::new();
        for wheel in *wheels {
            let file = wheel.file_name().unwrap().to_str().unwrap();
            links.push_str(&format!("<a href=\"../../files/{file}\">{file}</a>\n"));
            std::fs::copy(wheel, index.join("files").join(file)).unwrap();
        }
        std::fs::write(
            page.join("index.html"),
            format!("<html><body>\n{links}</body></html>\n"),
        )
        .unwrap();
    }
    index
}

fn real_module(path: &str) -> String {
    let path = repo_root().join("testdata/imports").join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `propose ARGS` on `venv` against `index` as JSON.
fn propose(venv: &venv::RealVenv, index: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let ctx = TestContext::new();
    let simple = index.join("simple");
    let mut all = vec!["propose"];
    all.extend_from_slice(args);
    all.extend([
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        simple.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let out = ctx.run(&all);
    (out.code, out.json())
}

fn install(venv: &venv::RealVenv, wheels: &Path, pins: &[&str]) {
    let links = wheels.display().to_string();
    let mut args = vec!["install", "--no-deps", "--quiet", "--find-links", &links];
    args.extend_from_slice(pins);
    venv.pip_ok(&args);
}

/// Each plan as `kind score level`, then its changes and factors, one a line: what a reviewer
/// reads of a proposal.
fn summary(proposal: &Value) -> String {
    let mut out = String::new();
    for plan in proposal["plans"].as_array().unwrap() {
        out.push_str(&format!(
            "{} {} {}\n",
            plan["kind"].as_str().unwrap(),
            plan["risk"]["score"],
            plan["risk"]["level"].as_str().unwrap()
        ));
        for change in plan["changes"].as_array().unwrap() {
            out.push_str(&format!(
                "  {} {} -> {}\n",
                change["name"].as_str().unwrap(),
                change["from"].as_str().unwrap_or("-"),
                change["to"].as_str().unwrap_or("-")
            ));
        }
        for factor in plan["risk"]["factors"].as_array().unwrap() {
            out.push_str(&format!(
                "  {:+} {} {}\n",
                factor["points"].as_i64().unwrap(),
                factor["kind"].as_str().unwrap(),
                factor["detail"].as_str().unwrap()
            ));
        }
    }
    out
}

/// The import that breaks `import flask` under werkzeug 3 is cited, though
/// werkzeug 3.1's `urls.py` still holds the text `url_quote` (in a string and inside
/// `_codec_error_url_quote`). Real modules: flask 2.0.3's `helpers.py`, werkzeug 2.0.3's and
/// 3.1.3's `urls.py`.
#[test]
fn werkzeug_3_is_flagged_for_flask_helpers_url_quote() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let urls_old = real_module("werkzeug-2.0.3/werkzeug/urls.py");
    let urls_new = real_module("werkzeug-3.1.3/werkzeug/urls.py");
    let helpers = real_module("flask-2.0.3/flask/helpers.py");
    let old = [
        ("werkzeug/__init__.py", ""),
        ("werkzeug/urls.py", &*urls_old),
    ];
    venv::build_wheel_with_files(&wheels, "werkzeug", "2.0.3", &[], &[], &old);
    let new = [
        ("werkzeug/__init__.py", ""),
        ("werkzeug/urls.py", &*urls_new),
    ];
    let new = venv::build_wheel_with_files(&wheels, "werkzeug", "3.1.3", &[], &[], &new);
    let flask_files = [("flask/__init__.py", ""), ("flask/helpers.py", &*helpers)];
    let flask = venv::build_wheel_with_files(
        &wheels,
        "flask",
        "2.0.3",
        &["Werkzeug>=2.0"],
        &[],
        &flask_files,
    );
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    install(&venv, &wheels, &["werkzeug==2.0.3", "flask==2.0.3"]);
    let index = index_of(root.path(), &[("werkzeug", &[&new]), ("flask", &[&flask])]);
    let (code, proposal) = propose(&venv, &index, &["werkzeug>=3"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    insta::assert_snapshot!("werkzeug_3_under_flask_2_0", summary(&proposal));
}

/// Wheels of a fastapi/pydantic stack with the requirements the real releases declare:
/// fastapi 0.95.2 (`pydantic<2.0.0`), fastapi 0.100.0 (`pydantic>=1.7.4,<3.0.0`, 2.x accepted),
/// pydantic 1.10.13, pydantic 2.5.3 (`pydantic-core==2.14.6`), pydantic-core 2.14.6.
struct Stack {
    wheels: PathBuf,
    fastapi_old: PathBuf,
    fastapi_new: PathBuf,
    pydantic_old: PathBuf,
    pydantic_new: PathBuf,
    core: PathBuf,
}

fn fastapi_stack(root: &Path) -> Stack {
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let wheel = |name: &str, version: &str, requires: &[&str]| {
        let module = format!("{}/__init__.py", name.replace('-', "_"));
        venv::build_wheel_with_files(&wheels, name, version, requires, &[], &[(&module, "")])
    };
    Stack {
        fastapi_old: wheel(
            "fastapi",
            "0.95.2",
            &["pydantic>=1.6.2,!=1.7,!=1.7.1,!=1.7.2,!=1.7.3,!=1.8,!=1.8.1,<2.0.0"],
        ),
        fastapi_new: wheel(
            "fastapi",
            "0.100.0",
            &["pydantic!=1.8,!=1.8.1,!=2.0.0,!=2.0.1,<3.0.0,>=1.7.4"],
        ),
        pydantic_old: wheel("pydantic", "1.10.13", &[]),
        pydantic_new: wheel("pydantic", "2.5.3", &["pydantic-core==2.14.6"]),
        core: wheel("pydantic-core", "2.14.6", &[]),
        wheels,
    }
}

/// On a venv broken before any plan (pydantic 2.5.3 under fastapi 0.95.2's
/// `pydantic<2.0.0`, where `import fastapi` fails), the plan that keeps the edge scores it as a
/// break (`kept-broken-edge`, high), not as an override with a defensive-bound discount; the
/// plan that repairs it ranks first.
#[test]
fn a_plan_keeping_a_broken_edge_scores_it_as_a_break() {
    let root = tempfile::tempdir().unwrap();
    let stack = fastapi_stack(root.path());
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    install(
        &venv,
        &stack.wheels,
        &[
            "fastapi==0.95.2",
            "pydantic==2.5.3",
            "pydantic-core==2.14.6",
        ],
    );
    let index = index_of(
        root.path(),
        &[
            ("fastapi", &[&stack.fastapi_old]),
            ("pydantic", &[&stack.pydantic_old, &stack.pydantic_new]),
            ("pydantic-core", &[&stack.core]),
        ],
    );
    let (_, proposal) = propose(&venv, &index, &["pydantic==2.5.3", "--allow-override"]);
    insta::assert_snapshot!("fastapi_0_95_over_pydantic_2_kept", summary(&proposal));
}

/// `pydantic>=2` moving fastapi to a release that accepts it: fastapi is not a
/// dependent left behind (neither of pydantic nor of the pydantic-core that pydantic pins).
#[test]
fn a_dependent_the_plan_moves_along_is_not_counted() {
    let root = tempfile::tempdir().unwrap();
    let stack = fastapi_stack(root.path());
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    install(
        &venv,
        &stack.wheels,
        &["fastapi==0.95.2", "pydantic==1.10.13"],
    );
    let index = index_of(
        root.path(),
        &[
            ("fastapi", &[&stack.fastapi_old, &stack.fastapi_new]),
            ("pydantic", &[&stack.pydantic_old, &stack.pydantic_new]),
            ("pydantic-core", &[&stack.core]),
        ],
    );
    let (_, proposal) = propose(&venv, &index, &["pydantic>=2"]);
    insta::assert_snapshot!("pydantic_2_moves_fastapi_along", summary(&proposal));
}
