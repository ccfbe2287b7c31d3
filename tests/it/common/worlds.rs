//! Setups several test files share: a venv and the index it is planned against, made the one
//! way their tests need.
//!
//! - [`Jinja2Venv`]: the recorded jinja2 and markupsafe pages of `testdata/propose-cases/index`
//!   served on loopback, and a real venv holding Jinja2 3.1.6 and MarkupSafe 3.0.4 (its real
//!   `markupsafe/__init__.py`) and whatever more a test installs beside them
//!   (`propose_wheel_only`, `propose_wheel_only_blockers`).
//! - [`TinyWorld`]: a loopback index of tiny wheels (`index_server::tiny_wheels`) and a real
//!   venv into which pip installs some of them (`propose_version_implied`).

use std::path::{Path, PathBuf};

use super::TestContext;
use super::index_server::{IndexServer, tiny_wheels};
use super::venv::RealVenv;

/// The recorded index of the jinja2 cases (`testdata/propose-cases/index`).
pub fn propose_cases_index() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/propose-cases/index")
}

/// A real venv with Jinja2 3.1.6, MarkupSafe 3.0.4 and `more` (pins of the recorded index,
/// without files of their own), and the index it is planned against.
pub struct Jinja2Venv {
    /// The venv.
    pub venv: RealVenv,
    /// The loopback server of the recorded index.
    pub server: IndexServer,
    /// The index URL the tests pass: `RECORD_INDEX_URL` when set (`scripts/record-ranges`
    /// serving: how the wheel bytes under `sparse/` were recorded), else the loopback server's.
    pub url: String,
    /// The folder the venv and its wheels live in (removed when the value is dropped).
    _root: tempfile::TempDir,
}

impl Jinja2Venv {
    pub fn new(more: &[&str]) -> Self {
        let root = tempfile::tempdir().unwrap();
        let init = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/imports/markupsafe-3.0.4/markupsafe/__init__.py"),
        )
        .unwrap();
        let markupsafe: &[(&str, &str)] = &[("markupsafe/__init__.py", &init)];
        let mut pins: Vec<(&str, &[(&str, &str)])> =
            vec![("markupsafe==3.0.4", markupsafe), ("jinja2==3.1.6", &[])];
        pins.extend(more.iter().map(|pin| (*pin, &[][..])));
        let venv =
            crate::propose_move_dependents::venv_of(&propose_cases_index(), root.path(), &pins);
        let server = IndexServer::start(&propose_cases_index());
        let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
        Jinja2Venv {
            venv,
            server,
            url,
            _root: root,
        }
    }

    /// The venv's folder, as an argument.
    pub fn venv_path(&self) -> &str {
        self.venv.path.to_str().unwrap()
    }
}

/// A loopback index of tiny wheels and a real venv into which pip installed some of them.
pub struct TinyWorld {
    /// The loopback server.
    pub server: IndexServer,
    /// Its URL.
    pub url: String,
    /// The venv's folder (under the test context's).
    pub venv: PathBuf,
}

impl TinyWorld {
    /// The index of `wheels` under `ctx`'s folder and a venv holding `install` from it.
    pub fn new(ctx: &TestContext, wheels: &serde_json::Value, install: &[&str]) -> Self {
        let server = tiny_wheels(&ctx.path().join("index"), wheels);
        let url = server.url();
        let venv = ctx.path().join("venv");
        RealVenv::create(&venv);
        let world = TinyWorld { server, url, venv };
        world.pip_install(install);
        world
    }

    /// `pip install --index-url URL PINS` into the venv (panics when pip fails).
    pub fn pip_install(&self, pins: &[&str]) {
        crate::try_::pip_ok(
            &self.venv,
            &[&["install", "--index-url", &self.url][..], pins].concat(),
        );
    }

    /// The venv's folder.
    pub fn venv(&self) -> &Path {
        &self.venv
    }
}
