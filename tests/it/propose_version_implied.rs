//! A release that raises on import through a test of another dist's version in its own shipped
//! sources, solved again with what the test implies. On a loopback index of tiny wheels shaped
//! after the real ones: pyarrow 26.0.1 carries the real first 46 lines of its `pyarrow/lib.pyx`
//! (`testdata/evidence-truth/pyarrow/26.0.1-lib.pyx`; line 41 raises "pyarrow requires NumPy 2.0
//! or newer" when numpy's major version is below 2), pyarrow 26.0.0 the same lines (the real
//! 26.0.0 wheel's are identical), pyarrow 25.0.1 the real first 41 lines of its own
//! (`25.0.1-lib.pyx`: no such test). None of them declares a numpy requirement, as the real
//! releases do not; pandas 2.2.3 requires `numpy>=1.22.4`, numba 0.58.1 `numpy<1.27,>=1.22` (as
//! their real metadata does). The venv is a real one (pip): numpy 1.26.4, pandas 2.2.3,
//! pyarrow 18.1.0.
//!
//! Live (2026-12-05, CPython 3.11.7, the data recipe of `testdata/ml-venvs`): `propose pyarrow`
//! recommended pyarrow 26.0.1 beside numpy 1.26.4 (risk 66), and `import pyarrow` fails there.

use crate::common::TestContext;
use crate::common::worlds::TinyWorld;

/// The tiny wheels: numpy 1.26.4 and 2.3.5, pandas 2.2.3, numba 0.58.1, pyarrow 18.1.0, 25.0.1,
/// 26.0.0 and 26.0.1.
pub(crate) fn wheels() -> serde_json::Value {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let lib = |version: &str| {
        std::fs::read_to_string(
            repo.join(format!("testdata/evidence-truth/pyarrow/{version}-lib.pyx")),
        )
        .unwrap()
    };
    let numpy = |version: &str| {
        serde_json::json!({"name": "numpy", "version": version,
            "files": {"numpy/__init__.py": format!("__version__ = \"{version}\"\n")}})
    };
    let pyarrow = |version: &str, lib: Option<String>| {
        let mut files =
            serde_json::json!({"pyarrow/__init__.py": "from pyarrow.lib import Table\n"});
        if let Some(lib) = lib {
            files["pyarrow/lib.pyx"] = lib.into();
        }
        serde_json::json!({"name": "pyarrow", "version": version, "files": files})
    };
    serde_json::json!([
        numpy("1.26.4"),
        numpy("2.3.5"),
        {"name": "pandas", "version": "2.2.3", "requires": ["numpy>=1.22.4"],
         "files": {"pandas/__init__.py": "import numpy\n"}},
        {"name": "numba", "version": "0.58.1", "requires": ["numpy<1.27,>=1.22"],
         "files": {"numba/__init__.py": "import numpy\n"}},
        pyarrow("18.1.0", None),
        pyarrow("25.0.1", Some(lib("25.0.1"))),
        pyarrow("26.0.0", Some(lib("26.0.1"))),
        pyarrow("26.0.1", Some(lib("26.0.1"))),
    ])
}

/// Each plan in one line (kind, title, pyarrow and numpy pins, numpy's reasons), then the
/// warnings and the conflict.
fn summary(json: &serde_json::Value) -> String {
    let mut lines = Vec::new();
    for plan in json["plans"].as_array().unwrap() {
        let numpy = plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "numpy")
            .map_or(String::new(), |c| c["reasons"].to_string());
        lines.push(format!(
            "{} | {} | pyarrow {} numpy {} | risk {} | numpy's reasons {numpy}",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            plan["pins"]["pyarrow"].as_str().unwrap(),
            plan["pins"]["numpy"].as_str().unwrap(),
            plan["risk"]["score"],
        ));
    }
    for warning in json["warnings"].as_array().unwrap() {
        lines.push(format!("warning: {}", warning.as_str().unwrap()));
    }
    if let Some(explanation) = json["conflict"]["explanation"].as_str() {
        lines.push(format!("conflict: {explanation}"));
    }
    lines.join("\n")
}

/// `propose pyarrow` (numpy 1.26.4): the plan with numpy moved to 2 (pyarrow 26.0.1's own file
/// needs it; pandas 2.2.3 accepts it) and pyarrow 25.0.1, below the releases whose test fails;
/// not pyarrow 26.0.1 beside numpy 1.26.4. With numba 0.58.1 installed (`numpy<1.27`) numpy
/// cannot move, and the conflict says why; `pyarrow>=26` then has no plan (exit 1) unless
/// forced.
#[test]
fn a_release_whose_own_file_needs_a_newer_dist_is_solved_with_that_need() {
    let ctx = TestContext::new();
    let world = TinyWorld::new(
        &ctx,
        &wheels(),
        &["numpy==1.26.4", "pandas==2.2.3", "pyarrow==18.1.0"],
    );
    let (venv, url) = (world.venv(), world.url.as_str());
    let json = |args: &[&str]| {
        let out = ctx.propose(venv, url, &[args, &["--format", "json"]].concat());
        format!("exit {:?}\n{}", out.code, summary(&out.json()))
    };
    let mut answers = vec![json(&["pyarrow"])];
    world.pip_install(&["numba==0.58.1"]);
    answers.push(json(&["pyarrow"]));
    answers.push(json(&["pyarrow>=26"]));
    answers.push(json(&["pyarrow>=26", "--allow-override"]));
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!(answers.join("\n\n")));
}

/// `propose --all` (numpy 1.26.4): the major-pyarrow layer takes numpy to 2 along (pyarrow
/// 26.0.1's own file needs it; pandas 2.2.3 accepts it), its reason citing the line; never
/// pyarrow 26.0.1 beside numpy 1.26.4. With numba 0.58.1 installed (`numpy<1.27`) the layer
/// stops at pyarrow 25.0.1, its title and held-back line saying why.
#[test]
fn a_layer_whose_release_needs_a_newer_dist_on_import_is_solved_with_that_need() {
    let ctx = TestContext::new();
    let world = TinyWorld::new(
        &ctx,
        &wheels(),
        &["numpy==1.26.4", "pandas==2.2.3", "pyarrow==18.1.0"],
    );
    let (venv, url) = (world.venv(), world.url.as_str());
    let json = || {
        let out = ctx.propose(venv, url, &["--all", "--format", "json"]);
        let json = out.json();
        let held: Vec<String> = json["plans"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p["held_back"].as_array().unwrap().clone())
            .filter(|h| h["name"] == "pyarrow")
            .map(|h| format!("held back: {h}"))
            .collect();
        format!(
            "exit {:?}\n{}\n{}",
            out.code,
            summary(&json),
            held.join("\n")
        )
    };
    let mut answers = vec![json()];
    world.pip_install(&["numba==0.58.1"]);
    answers.push(json());
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!(answers.join("\n\n")));
}

/// A made-up dist whose 2.0 raises on import through two tests in its own `__init__.py` (numpy's
/// major version, as pyarrow 26's `lib.pyx` reads it, and pandas' version parsed), 1.5 through
/// none.
fn two_tests() -> serde_json::Value {
    let mut wheels = wheels();
    let init = "import numpy as np\nimport pandas as pd\nfrom packaging.version import Version\n\n\
                if int(np.__version__.partition('.')[0]) < 2:\n    \
                raise ImportError(\"arrowkit requires NumPy 2\")\n\
                if Version(pd.__version__) < Version(\"2.3\"):\n    \
                raise ImportError(\"arrowkit requires pandas 2.3\")\n";
    let kit = |version: &str, init: &str| {
        serde_json::json!({"name": "arrowkit", "version": version,
            "files": {"arrowkit/__init__.py": init}})
    };
    let list = wheels.as_array_mut().unwrap();
    list.push(serde_json::json!({"name": "pandas", "version": "2.3.3",
        "requires": ["numpy>=1.22.4"], "files": {"pandas/__init__.py": "import numpy\n"}}));
    list.push(kit("1.0", "\n"));
    list.push(kit("1.5", "\n"));
    list.push(kit("2.0", init));
    wheels
}

/// `propose arrowkit` (numpy 1.26.4, pandas 2.2.3): arrowkit 2.0 fails both its tests. Every
/// failing test is solved for: numpy and pandas moved together, each citing its line, or
/// arrowkit 1.5 below it; never arrowkit 2.0 with only numpy moved.
#[test]
fn every_failing_test_of_a_planned_release_is_solved_for() {
    let ctx = TestContext::new();
    let world = TinyWorld::new(
        &ctx,
        &two_tests(),
        &["numpy==1.26.4", "pandas==2.2.3", "arrowkit==1.0"],
    );
    let out = ctx.propose(world.venv(), &world.url, &["arrowkit", "--format", "json"]);
    let json = out.json();
    let mut lines = vec![format!("exit {:?}", out.code)];
    for plan in json["plans"].as_array().unwrap() {
        let changes: Vec<String> = plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                format!(
                    "{} {} -> {} {}",
                    c["name"], c["from"], c["to"], c["reasons"]
                )
            })
            .collect();
        lines.push(format!(
            "{} | {} | risk {}\n  {}",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            plan["risk"]["score"],
            changes.join("\n  ")
        ));
    }
    for warning in json["warnings"].as_array().unwrap() {
        lines.push(format!("warning: {}", warning.as_str().unwrap()));
    }
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!(lines.join("\n")));
}

/// [`two_tests`] with arrowkit 1.9, inside 1.0's major line, whose `__init__.py` raises on
/// import below numpy 2 (pyarrow 26's test, in its first line).
fn inside_the_line() -> serde_json::Value {
    let mut wheels = two_tests();
    let init = "import numpy as np\n\n\
                if int(np.__version__.partition('.')[0]) < 2:\n    \
                raise ImportError(\"arrowkit requires NumPy 2\")\n";
    wheels.as_array_mut().unwrap().push(serde_json::json!({
        "name": "arrowkit", "version": "1.9", "files": {"arrowkit/__init__.py": init}}));
    wheels
}

/// Each plan of a layered `--all` in one line (layer, title, arrowkit and numpy pins, risk),
/// its warnings and arrowkit's held-back lines.
fn layer_summary(out: &crate::common::Output) -> String {
    let json = out.json();
    let mut lines = vec![format!("exit {:?}", out.code)];
    for plan in json["plans"].as_array().unwrap() {
        lines.push(format!(
            "{} | {} | arrowkit {} numpy {} | risk {}",
            plan["layer"]["name"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            plan["pins"]["arrowkit"].as_str().unwrap(),
            plan["pins"]["numpy"].as_str().unwrap(),
            plan["risk"]["score"],
        ));
        for warning in plan["warnings"].as_array().unwrap() {
            lines.push(format!("  warning: {}", warning.as_str().unwrap()));
        }
        for held in plan["held_back"].as_array().unwrap() {
            if held["name"] == "arrowkit" {
                lines.push(format!("  held back: {held}"));
            }
        }
    }
    for warning in json["warnings"].as_array().unwrap() {
        lines.push(format!("warning: {}", warning.as_str().unwrap()));
    }
    lines.join("\n")
}

/// The safe layer and `--layer everything` are solved around a planned release's own import
/// test as the major layers are: beside numpy 1.26.4 (which the safe layer never takes to 2)
/// the safe layer stops at arrowkit 1.5, below 1.9 whose `__init__.py` needs numpy 2, and the
/// major-numpy layer takes arrowkit 1.9 with numpy 2. With numba 0.58.1 (`numpy<1.27`) holding
/// numpy, `everything` stops at arrowkit 1.5 too, below 1.9 and 2.0; never a release that
/// raises on import beside numpy 1.26.4.
#[test]
fn the_safe_layer_and_everything_are_solved_around_import_tests() {
    let ctx = TestContext::new();
    let world = TinyWorld::new(
        &ctx,
        &inside_the_line(),
        &["numpy==1.26.4", "pandas==2.2.3", "arrowkit==1.0"],
    );
    let (venv, url) = (world.venv(), world.url.as_str());
    let layers = |args: &[&str]| {
        let out = ctx.propose(
            venv,
            url,
            &[&["--all"], args, &["--format", "json"]].concat(),
        );
        format!("--all {}\n{}", args.join(" "), layer_summary(&out))
    };
    let mut answers = vec![layers(&[])];
    world.pip_install(&["numba==0.58.1"]);
    answers.push(layers(&[]));
    answers.push(layers(&["--layer", "everything"]));
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!(answers.join("\n\n")));
}

/// The plans offered beside a request solved again around an import test, each on its own
/// scenario, asserted on the whole rendered text.
mod beside {
    use super::*;

    /// [`wheels`] with arrowkit 1.0, 1.5 (no test), 1.9 (its `__init__.py` raises below numpy
    /// 2), 2.0 (no test); kitholder 1.0 (`arrowkit<2`) and 2.0 (any arrowkit); kitcore 1.0;
    /// kitplug 0.9 (any arrowkit) and 1.0 (`arrowkit>=2`).
    fn kits() -> serde_json::Value {
        let mut wheels = wheels();
        let test = "import numpy as np\n\n\
                    if int(np.__version__.partition('.')[0]) < 2:\n    \
                    raise ImportError(\"arrowkit requires NumPy 2\")\n";
        let dist = |name: &str, version: &str, requires: &[&str], init: &str| {
            serde_json::json!({"name": name, "version": version, "requires": requires,
                "files": {format!("{name}/__init__.py"): init}})
        };
        let list = wheels.as_array_mut().unwrap();
        list.push(dist("arrowkit", "1.0", &[], "\n"));
        list.push(dist("arrowkit", "1.5", &[], "\n"));
        list.push(dist("arrowkit", "1.9", &[], test));
        list.push(dist("arrowkit", "2.0", &[], "\n"));
        list.push(dist(
            "kitholder",
            "1.0",
            &["arrowkit<2"],
            "import arrowkit\n",
        ));
        list.push(dist("kitholder", "2.0", &["arrowkit"], "import arrowkit\n"));
        list.push(dist("kitcore", "1.0", &[], "\n"));
        list.push(dist("kitplug", "0.9", &["arrowkit"], "import arrowkit\n"));
        list.push(dist(
            "kitplug",
            "1.0",
            &["arrowkit>=2"],
            "import arrowkit\n",
        ));
        wheels
    }

    /// A [`TinyWorld`] of `wheels` holding `install`, then `forced` installed with `--no-deps`.
    fn world(
        ctx: &TestContext,
        wheels: &serde_json::Value,
        install: &[&str],
        forced: &[&str],
    ) -> TinyWorld {
        let world = TinyWorld::new(ctx, wheels, install);
        if !forced.is_empty() {
            world.pip_install(&[&["--no-deps"][..], forced].concat());
        }
        world
    }

    /// `propose REQUEST`'s exit code and whole text.
    fn text(ctx: &TestContext, venv: &std::path::Path, url: &str, request: &str) -> String {
        let out = ctx.propose(venv, url, &[request, "--format", "text"]);
        format!("exit {:?}\n{}", out.code, out.stdout)
    }

    /// [`text`] under a policy that couples kitholder with kitcore: a request for arrowkit keeps
    /// that stack where it is, so kitholder 1.0 (`arrowkit<2`) holds arrowkit at 1.9.
    fn coupled(ctx: &TestContext, venv: &std::path::Path, url: &str) -> String {
        let policy = ctx.path().join("policy.toml");
        std::fs::write(
            &policy,
            "name = \"kits\"\n\n[[coupled]]\nmembers = [\"kitholder\", \"kitcore\"]\n\
             reason = \"kitholder is built against one kitcore\"\n",
        )
        .unwrap();
        let policy = policy.to_str().unwrap();
        let out = ctx.propose(venv, url, &["arrowkit", "--policy", policy]);
        format!("exit {:?}\n{}", out.code, out.stdout)
    }

    /// numpy 2.3.5 forced under numba 0.58.1 (`numpy<1.27`): `propose pyarrow` as asked repairs
    /// numpy back to 1.26.4, beside which pyarrow 26.0.1 raises on import; numba holds numpy
    /// below what the test needs, so the plan stops at pyarrow 25.0.1. Beside it, the request
    /// keeping the broken edge (numpy 2.3.5 stays, pyarrow 26.0.1 imports beside it).
    #[test]
    fn keeping_the_broken_edge() {
        let ctx = TestContext::new();
        let install = [
            "numpy==1.26.4",
            "pandas==2.2.3",
            "pyarrow==18.1.0",
            "numba==0.58.1",
        ];
        let world = world(&ctx, &wheels(), &install, &["numpy==2.3.5"]);
        let answer = text(&ctx, world.venv(), &world.url, "pyarrow");
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(answer));
    }

    /// kitholder 1.0 (`arrowkit<2`), which the request as asked keeps (its coupled stack is not
    /// asked for), holds arrowkit at 1.9, whose `__init__.py` raises below numpy 2: `propose
    /// arrowkit` stops at 1.5 (recommended) or moves numpy to 2 with 1.9; beside them, the plan
    /// that moves kitholder forward to 2.0 and takes arrowkit 2.0 (no test).
    #[test]
    fn moving_what_holds_the_target() {
        let ctx = TestContext::new();
        let install = [
            "numpy==1.26.4",
            "arrowkit==1.0",
            "kitholder==1.0",
            "kitcore==1.0",
        ];
        let world = world(&ctx, &kits(), &install, &[]);
        let answer = coupled(&ctx, world.venv(), &world.url);
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(answer));
    }

    /// The same with kitplug 1.0 (`arrowkit>=2`) forced in beside arrowkit 1.0: the forward
    /// repair (arrowkit 2.0, kitholder moved) does what was asked and is recommended; the plans
    /// solved around 1.9's test take kitplug back to 0.9; the plan keeping the broken edge
    /// keeps arrowkit where kitplug's edge was broken.
    #[test]
    fn repairing_forward() {
        let ctx = TestContext::new();
        let install = [
            "numpy==1.26.4",
            "arrowkit==1.0",
            "kitholder==1.0",
            "kitcore==1.0",
        ];
        let world = world(&ctx, &kits(), &install, &["kitplug==1.0"]);
        let answer = coupled(&ctx, world.venv(), &world.url);
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(answer));
    }
}
