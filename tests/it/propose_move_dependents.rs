//! `propose` moves what must move with the request, on recorded real index data: the pages
//! (real versions and upload times) and the core metadata (real `Requires-Dist`) of
//! `testdata/move-dependents/index`, recorded from the public index for CPython 3.11 (see
//! `testdata/move-dependents/README.md`), served on loopback; the venv is a real one
//! (`python3 -m venv` + pip) whose dists carry their releases' recorded requirements and the
//! files the evidence reads.
//!
//! - `numpy>=2` on pandas 1.5.3 + scikit-learn 1.2.2 + matplotlib 3.7.1 over numpy 1.24.4: their
//!   compiled extensions name `numpy.core.multiarray` (as the real 1.5.3/1.2.2/3.7.1 wheels'
//!   `.so` files do), so numpy 2 crosses their ABI boundary; the recommended plan moves them
//!   to releases made once numpy 2 existed. Live, the as-asked plan broke 9 imports with
//!   `numpy.dtype size changed`; the move plan passed a pandas/scikit-learn/matplotlib test.

use std::path::{Path, PathBuf};

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::common::venv::{RealVenv, build_wheel_with_files};
use crate::planner_snapshot;

fn index_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/move-dependents/index")
}

/// The recorded `Requires-Dist` of `name==version` in the recorded index `index` (its first
/// recorded wheel's `.metadata`).
fn recorded_requires(index: &Path, name: &str, version: &str) -> Vec<String> {
    let files = index.join("files");
    let prefix = format!("{}-{version}-", name.replace('-', "_")).to_lowercase();
    let mut found: Vec<PathBuf> = std::fs::read_dir(&files)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let file = p.file_name().unwrap().to_string_lossy().to_lowercase();
            file.starts_with(&prefix) && file.ends_with(".whl.metadata")
        })
        .collect();
    found.sort();
    let path = found
        .first()
        .unwrap_or_else(|| panic!("{name}=={version} is not recorded"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("Requires-Dist: "))
        .map(str::to_string)
        .collect()
}

/// A real venv with each `(pin, files)` installed from a wheel carrying the release's
/// requirements as the recorded index `index` holds them, and `files`.
pub(crate) fn venv_of(index: &Path, root: &Path, pins: &[(&str, &[(&str, &str)])]) -> RealVenv {
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    for (pin, files) in pins {
        let (name, version) = pin.split_once("==").unwrap();
        let requires = recorded_requires(index, name, version);
        let requires: Vec<&str> = requires.iter().map(String::as_str).collect();
        build_wheel_with_files(&wheels, name, version, &requires, &[], files);
    }
    let venv = RealVenv::create(&root.join("venv"));
    let links = wheels.display().to_string();
    let mut args = vec!["install", "--no-deps", "--quiet", "--find-links", &links];
    args.extend(pins.iter().map(|(pin, _)| *pin));
    venv.pip_ok(&args);
    venv
}

/// `propose ARGS --format json` on `venv` against the recorded index, snapshotted whole
/// (exit code, the plan JSON, stderr).
/// With `RECORD_INDEX_URL` set (`scripts/record-ranges` serving), against that instead: how
/// the wheel bytes under `sparse/` were recorded.
fn propose(ctx: &TestContext, venv: &RealVenv, args: &[&str]) -> crate::common::Output {
    propose_on(ctx, &venv.path, &index_dir(), args)
}

/// [`propose`] against the recorded index `index`.
fn propose_on(
    ctx: &TestContext,
    venv: &Path,
    index: &Path,
    args: &[&str],
) -> crate::common::Output {
    let server = IndexServer::start(index);
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let mut all = vec!["propose"];
    all.extend_from_slice(args);
    all.extend([
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ]);
    ctx.run(&all)
}

/// An extension module that names numpy's C-API module, as the real pre-numpy-2 builds do.
pub(crate) const NUMPY_EXTENSION: &str = "\0_ARRAY_API\0numpy.core.multiarray\0";

fn context() -> TestContext {
    let mut ctx = TestContext::new();
    ctx.filter(r"Python 3\.\d+\.\d+", "Python 3.X");
    ctx.filter(r"\d+ dists", "N dists");
    ctx
}

#[test]
fn numpy_2_moves_the_compiled_dependents_to_releases_built_for_it() {
    let root = tempfile::tempdir().unwrap();
    let so = |path: &'static str| -> &'static [(&'static str, &'static str)] {
        Box::leak(Box::new([(path, NUMPY_EXTENSION)]))
    };
    let none: &[(&str, &str)] = &[];
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[
            ("numpy==1.24.4", none),
            (
                "pandas==1.5.3",
                so("pandas/_libs/algos.cpython-311-x86_64-linux-gnu.so"),
            ),
            (
                "scikit-learn==1.2.2",
                so("sklearn/_loss/_loss.cpython-311-x86_64-linux-gnu.so"),
            ),
            (
                "matplotlib==3.7.1",
                so("matplotlib/_path.cpython-311-x86_64-linux-gnu.so"),
            ),
            ("scipy==1.15.3", none),
            ("contourpy==1.3.2", none),
            ("cycler==0.12.1", none),
            ("fonttools==4.68.0", none),
            ("joblib==1.6.0", none),
            ("cloudpickle==3.1.3", none),
            ("kiwisolver==1.5.1", none),
            ("packaging==26.4", none),
            ("pillow==13.0.0", none),
            ("pyparsing==3.3.3", none),
            ("python-dateutil==4.0.0", none),
            ("pytz==2026.6", none),
            ("threadpoolctl==3.8.0", none),
            ("tzdata==2026.6", none),
        ],
    );
    let ctx = context();
    let out = propose(&ctx, &venv, &["numpy>=2"]);
    planner_snapshot!(ctx, "numpy_2", out);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let plan = &out.json()["plans"][0];
    assert_eq!(plan["kind"], "move-dependents", "{plan:#}");
    assert!(!plan_predicts_break(plan), "{plan:#}");
}

/// Whether the plan carries a factor that predicts a break.
fn plan_predicts_break(plan: &serde_json::Value) -> bool {
    plan["risk"]["factors"].as_array().unwrap().iter().any(|f| {
        [
            "abi-break",
            "import-target-missing",
            "planned-import-missing",
        ]
        .contains(&f["kind"].as_str().unwrap())
    })
}

/// `(path inside the wheel, text)` of each real module under `testdata/imports/<release>/`.
pub(crate) fn real_modules(
    release: &str,
    paths: &[&'static str],
) -> &'static [(&'static str, &'static str)] {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/imports")
        .join(release);
    let files: Vec<(&str, &str)> = paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(dir.join(path))
                .unwrap_or_else(|e| panic!("{release}/{path}: {e}"));
            (*path, &*Box::leak(text.into_boxed_str()))
        })
        .collect();
    Box::leak(files.into_boxed_slice())
}

/// `django==4.2.*` on Django 3.2.25 + DRF 3.12.4: DRF's `rest_framework/parsers.py` (the real
/// 3.12.4 file) imports `parse_header` from `django.http.multipartparser`, which the installed
/// Django 3.2.25's (the real file) defines and Django 4.2's (read from its wheel on the index)
/// no longer does. The recommended plan moves DRF to a
/// 3.x release made once Django 4.2 existed. Live, `manage.py check` plus a serializer and a
/// router passed on that plan.
#[test]
fn django_4_2_moves_drf_to_a_release_that_imports_it() {
    let root = tempfile::tempdir().unwrap();
    let none: &[(&str, &str)] = &[];
    let django = real_modules("django-3.2.25", &["django/http/multipartparser.py"]);
    let drf = real_modules("djangorestframework-3.12.4", &["rest_framework/parsers.py"]);
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[
            ("django==3.2.25", django),
            ("djangorestframework==3.12.4", drf),
            ("asgiref==3.13.0", none),
            ("pytz==2026.6", none),
            ("sqlparse==0.6.1", none),
        ],
    );
    let ctx = context();
    let out = propose(&ctx, &venv, &["django==4.2.*"]);
    planner_snapshot!(ctx, "django_4_2", out);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let plans = out.json()["plans"].clone();
    assert_eq!(plans[0]["kind"], "move-dependents", "{plans:#}");
    assert!(!plan_predicts_break(&plans[0]), "{plans:#}");
    let asked = plans
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "upgrade");
    assert!(asked.is_some_and(plan_predicts_break), "{plans:#}");
}

/// `flask>=3` on Flask 2.0.3 + Flask-Login 0.5.0 + Flask-SQLAlchemy 2.5.1 (the real modules of
/// all three and of Werkzeug 2.0.3 that the imports name:
/// Flask-Login imports `_request_ctx_stack` from flask and `safe_str_cmp` from werkzeug,
/// Flask-SQLAlchemy `_app_ctx_stack` from flask, all gone in Flask 3 / Werkzeug 3): the
/// recommended plan moves Flask-Login, Flask-SQLAlchemy and, as Flask-SQLAlchemy 3 requires,
/// SQLAlchemy along. Live, an app using all three passed on that plan.
#[test]
fn flask_3_moves_its_extensions_along() {
    let root = tempfile::tempdir().unwrap();
    let none: &[(&str, &str)] = &[];
    let login = real_modules(
        "flask-login-0.5.0",
        &["flask_login/login_manager.py", "flask_login/utils.py"],
    );
    let sqlalchemy = real_modules("flask-sqlalchemy-2.5.1", &["flask_sqlalchemy/__init__.py"]);
    let flask = real_modules("flask-2.0.3", &["flask/__init__.py"]);
    let werkzeug = real_modules(
        "werkzeug-2.0.3",
        &["werkzeug/security.py", "werkzeug/urls.py"],
    );
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[
            ("flask==2.0.3", flask),
            ("werkzeug==2.0.3", werkzeug),
            ("flask-login==0.5.0", login),
            ("flask-sqlalchemy==2.5.1", sqlalchemy),
            ("sqlalchemy==1.4.54", none),
            // Their real modules: Flask 3, moved up beside them, is read for what it imports.
            (
                "jinja2==3.1.6",
                real_modules("jinja2-3.1.6", &["jinja2/__init__.py"]),
            ),
            (
                "itsdangerous==2.2.0",
                real_modules("itsdangerous-2.2.0", &["itsdangerous/__init__.py"]),
            ),
            (
                "click==8.5.1",
                real_modules("click-8.5.1", &["click/__init__.py"]),
            ),
            (
                "markupsafe==3.0.4",
                real_modules("markupsafe-3.0.4", &["markupsafe/__init__.py"]),
            ),
            ("greenlet==3.5.6", none),
        ],
    );
    let ctx = context();
    let out = propose(&ctx, &venv, &["flask>=3"]);
    planner_snapshot!(ctx, "flask_3", out);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let plans = out.json()["plans"].clone();
    let first = &plans[0];
    assert_eq!(first["kind"], "move-dependents", "{plans:#}");
    assert!(!plan_predicts_break(first), "{plans:#}");
    for moved in ["flask-login", "flask-sqlalchemy", "sqlalchemy"] {
        assert!(first["pins"][moved].is_string(), "{moved}: {first:#}");
    }
}

/// `python-dateutil>=4` on pandas 1.5.3 whose compiled extensions name `dateutil.tz` and
/// `pytz` (Cython code importing them, as the real 1.5.3 `pandas/_libs/tslibs` builds do) and
/// use numpy's C API: python-dateutil is pure Python, it has no C API to break, so no plan
/// carries an `abi-break` (the module name in a binary was taken for ABI evidence; live,
/// pandas 2.3.3 with python-dateutil 4.0.0 passed its timezone tests).
#[test]
fn a_pure_python_dist_named_by_an_extension_is_no_abi_break() {
    let root = tempfile::tempdir().unwrap();
    let none: &[(&str, &str)] = &[];
    let tslibs: &[(&str, &str)] = &[(
        "pandas/_libs/tslibs/timezones.cpython-311-x86_64-linux-gnu.so",
        "\0_ARRAY_API\0numpy.core.multiarray\0dateutil.tz\0pytz\0",
    )];
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[
            ("numpy==1.24.4", none),
            ("pandas==1.5.3", tslibs),
            ("python-dateutil==3.0.0", none),
            ("pytz==2026.6", none),
            ("six==1.17.0", none),
        ],
    );
    let ctx = context();
    let out = propose(&ctx, &venv, &["python-dateutil>=4"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let plans = out.json()["plans"].clone();
    let kinds: Vec<String> = plans
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|plan| plan["risk"]["factors"].as_array().unwrap().clone())
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect();
    // The move does cross into a line pandas 1.5.3 predates: only the ABI claim is false.
    assert!(
        kinds.iter().any(|k| k == "dependent-predates-major"),
        "{plans:#}"
    );
    assert!(!kinds.iter().any(|k| k == "abi-break"), "{plans:#}");
}

/// A bare `propose jax` on jax 0.8.1 + jaxlib 0.8.1 + flax 0.12.1 (the venv's 29 dists at their
/// recorded releases, for CPython 3.12: jax 0.11 and later need it): jax 0.12.0.1 no longer has
/// `jax.core.Effect`, which flax 0.12.1's `flax/nnx/variablelib.py` (the real file) subclasses
/// at module level, so the recommended plan takes flax along to 0.12.12 and the request as
/// asked, which leaves flax, comes after it. Live (a real venv), the recommended plan passed an
/// nnx training step and `pip check`; the as-asked one failed `import flax.nnx` with
/// `AttributeError: module 'jax.core' has no attribute 'Effect'`.
#[test]
fn a_bare_jax_takes_flax_along() {
    let root = tempfile::tempdir().unwrap();
    let index =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/move-dependents/jax-index");
    let jax = real_modules("jax-0.8.1", &["jax/core.py"]);
    let flax = real_modules("flax-0.12.1", &["flax/nnx/variablelib.py"]);
    let none: &[(&str, &str)] = &[];
    let mut pins: Vec<(&str, &[(&str, &str)])> = vec![("jax==0.8.1", jax), ("flax==0.12.1", flax)];
    pins.extend(JAX_VENV.iter().map(|pin| (*pin, none)));
    let venv = as_python_312(&venv_of(&index, root.path(), &pins));
    let ctx = context();
    let out = propose_on(&ctx, &venv, &index, &["jax"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let plans = out.json()["plans"].clone();
    let first = &plans[0];
    assert_eq!(first["kind"], "move-dependents", "{plans:#}");
    assert!(!plan_predicts_break(first), "{plans:#}");
    for (name, version) in [
        ("jax", "0.12.0.1"),
        ("jaxlib", "0.12.0.1"),
        ("flax", "0.12.12"),
    ] {
        assert_eq!(first["pins"][name], version, "{name}: {first:#}");
    }
    let asked = plans
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "upgrade");
    assert!(asked.is_some_and(plan_predicts_break), "{plans:#}");
}

/// `venv` made to read as CPython 3.12.1 (the interpreter running the tests may be older): its
/// site-packages under `lib/python3.12`, its `pyvenv.cfg` naming 3.12.1 and no interpreter, so
/// planner reads the environment from the layout, as it reads the shared h200 fixture.
fn as_python_312(venv: &RealVenv) -> PathBuf {
    let lib = venv.path.join("lib");
    let old = std::fs::read_dir(&lib)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("python3")
        })
        .unwrap();
    std::fs::rename(&old, lib.join("python3.12")).unwrap();
    std::fs::remove_dir_all(venv.path.join("bin")).unwrap();
    std::fs::write(
        venv.path.join("pyvenv.cfg"),
        "home = /nonexistent\ninclude-system-site-packages = false\nversion_info = 3.12.1\n",
    )
    .unwrap();
    venv.path.clone()
}

/// The jax venv's other dists (`pip freeze` of `jax==0.8.1 jaxlib==0.8.1 flax==0.12.1` on
/// CPython 3.12), with no files of their own.
const JAX_VENV: &[&str] = &[
    "absl-py==2.5.1",
    "aiofiles==25.1.0",
    "etils==1.15.0",
    "fsspec==2026.9.0",
    "humanize==4.17.0",
    "jaxlib==0.8.1",
    "markdown-it-py==4.3.0",
    "mdurl==0.1.2",
    "ml-dtypes==0.7.0",
    "msgpack==1.2.4",
    "numpy==2.5.5",
    "opt-einsum==3.4.0",
    "optax==0.2.8",
    "orbax-checkpoint==0.12.8",
    "prometheus-client==0.26.0",
    "protobuf==7.36.2",
    "psutil==7.2.2",
    "pygments==2.21.0",
    "pyyaml==6.0.4",
    "rich==15.0.0",
    "scipy==1.18.1",
    "simplejson==4.3.0",
    "tensorstore==0.1.86",
    "treescope==0.1.10",
    "typing-extensions==4.16.0",
    "uvloop==0.23.0",
    "zipp==4.1.2",
];
