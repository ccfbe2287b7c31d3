//! Real virtual environments for tests: `python3 -m venv` plus pip installing small wheels the
//! test builds itself (zip files written by Python's `zipfile`; no network, `--no-index`).
//! CI has python3 with venv and ensurepip, so a test that needs them fails when they are
//! missing ([`python3`] says what is absent); it never passes without running.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Writes one wheel: argv = out_dir name version json({"requires": [...], "extras": [...]}).
const MAKE_WHEEL: &str = r#"
import base64, hashlib, json, os, re, sys, zipfile
out, name, version, spec = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
dist = re.sub(r"[^A-Za-z0-9.+]+", "_", name)
module = re.sub(r"[^A-Za-z0-9]+", "_", name).lower()
info = "%s-%s.dist-info" % (dist, version)
meta = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version, "Summary: test wheel " + name]
meta += ["Requires-Dist: " + r for r in spec.get("requires", [])]
meta += ["Provides-Extra: " + e for e in spec.get("extras", [])]
code = spec.get("files") or {module + "/__init__.py": "VERSION = %r\n" % version}
top = sorted({p.split("/")[0].removesuffix(".py") for p in code})
files = dict(code)
files.update({
    info + "/METADATA": "\n".join(meta) + "\n\n" + "A test wheel.\n",
    info + "/WHEEL": "Wheel-Version: 1.0\nGenerator: planner-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    info + "/top_level.txt": "\n".join(top) + "\n",
})
record = []
for path, text in files.items():
    data = text.encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
record.append(info + "/RECORD,,")
files[info + "/RECORD"] = "\n".join(record) + "\n"
target = os.path.join(out, "%s-%s-py3-none-any.whl" % (dist, version))
with zipfile.ZipFile(target, "w") as zf:
    for path, text in files.items():
        zf.writestr(path, text)
print(target)
"#;

/// The interpreter of `python3` on PATH, which can make venvs with pip (`venv` and
/// `ensurepip` import); panics saying so when there is none.
pub fn python3() -> &'static Path {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys, venv, ensurepip; print(sys.executable)"])
            .output()
            .map_err(|e| format!("python3 is not on PATH ({e})"))?;
        if !out.status.success() {
            return Err(format!(
                "python3 cannot make venvs with pip (install python3-venv): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    match found {
        Ok(path) => path,
        Err(why) => panic!("this test needs python3 with venv and ensurepip: {why}"),
    }
}

/// The version of [`python3`] (the Python of every venv it makes): `("3.11.7", "3.11")`.
pub fn host_python_version() -> (&'static str, &'static str) {
    static VERSION: OnceLock<(String, String)> = OnceLock::new();
    let (full, short) = VERSION.get_or_init(|| {
        let out = Command::new(python3())
            .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
            .output()
            .expect("run python3");
        check(&out, "python3 -c 'print(sys.version_info)'");
        let full = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let short = full.rsplit_once('.').map(|(s, _)| s.to_string()).unwrap();
        (full, short)
    });
    (full, short)
}

fn check(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Build a wheel into `dir`; returns its path.
pub fn build_wheel(
    dir: &Path,
    name: &str,
    version: &str,
    requires: &[&str],
    extras: &[&str],
) -> PathBuf {
    build_wheel_with_files(dir, name, version, requires, extras, &[])
}

/// [`build_wheel`] with these files (path in the wheel, text) in place of its one module; its
/// `top_level.txt` lists their first path components.
pub fn build_wheel_with_files(
    dir: &Path,
    name: &str,
    version: &str,
    requires: &[&str],
    extras: &[&str],
    files: &[(&str, &str)],
) -> PathBuf {
    let files: serde_json::Map<String, serde_json::Value> = files
        .iter()
        .map(|(path, text)| (path.to_string(), serde_json::Value::from(*text)))
        .collect();
    let spec =
        serde_json::json!({ "requires": requires, "extras": extras, "files": files }).to_string();
    let output = Command::new(python3())
        .args(["-c", MAKE_WHEEL])
        .arg(dir)
        .args([name, version, &spec])
        .output()
        .expect("run python3");
    check(&output, "building a wheel");
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// A legacy egg-info dist in `site`, laid out as pip before 23.1 installed an sdist with
/// `setup.py install` (seen live with pip 22.3.1, Flask-Login 0.6.2): its `files` (path, text)
/// under site-packages, and `NAME-VERSION-pyX.Y.egg-info/` with `PKG-INFO`, `requires.txt`,
/// `top_level.txt`, a `SOURCES.txt` naming the source tree (`src/...`, what Python 3.11's
/// importlib.metadata lists as its files) and the `installed-files.txt` pip wrote (paths
/// relative to the egg-info folder, the script in `bin` among them).
pub fn install_egg_info(
    site: &Path,
    name: &str,
    version: &str,
    requires: &[&str],
    files: &[(&str, &str)],
) {
    for (path, text) in files {
        let file = site.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let egg = site.join(format!("{name}-{version}-py3.11.egg-info"));
    std::fs::create_dir_all(&egg).unwrap();
    let metadata = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
    let tops: std::collections::BTreeSet<&str> = files
        .iter()
        .filter_map(|(p, _)| p.split('/').next())
        .collect();
    let sources: Vec<String> = files.iter().map(|(p, _)| format!("src/{p}")).collect();
    let mut installed: Vec<String> = files.iter().map(|(p, _)| format!("../{p}")).collect();
    installed.push(format!("../../../../bin/{name}"));
    for (file, text) in [
        ("PKG-INFO", metadata),
        ("requires.txt", requires.join("\n") + "\n"),
        (
            "top_level.txt",
            tops.into_iter().collect::<Vec<_>>().join("\n") + "\n",
        ),
        ("SOURCES.txt", sources.join("\n") + "\nsetup.py\n"),
        (
            "installed-files.txt",
            installed.join("\n") + "\nPKG-INFO\nrequires.txt\n",
        ),
    ] {
        std::fs::write(egg.join(file), text).unwrap();
    }
}

/// How an editable install points at its project ([`install_editable`]).
#[derive(Debug, Clone, Copy)]
pub enum Editable {
    /// setuptools' finder (`__editable___NAME_VERSION_finder.py`, its `MAPPING` naming each
    /// package's folder and each module's path less `.py`) and the `.pth` that installs it, as `pip install -e` of a pyproject
    /// project with setuptools 80 writes them (seen live 2026-12-06).
    Finder,
    /// A `.pth` naming the project's `src` folder, no `top_level.txt`, as `uv pip install -e`
    /// of a hatchling project writes them (`_editable_impl_NAME.pth`, seen live 2026-12-06).
    Pth,
}

/// An editable install of `name` in `site`: `files` (path, text) written under `project/src`,
/// the dist-info (`METADATA` with `requires`, `direct_url.json` saying editable, a `RECORD` of
/// what is in site-packages) and the pointer `how` writes.
pub fn install_editable(
    site: &Path,
    project: &Path,
    (name, version): (&str, &str),
    requires: &[&str],
    files: &[(&str, &str)],
    how: Editable,
) {
    let src = project.join("src");
    for (path, text) in files {
        let file = src.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let import = name.replace('-', "_");
    let pointers: Vec<(String, String)> = match how {
        Editable::Finder => {
            let finder = format!("__editable___{import}_{}_finder", version.replace('.', "_"));
            // Each top-level package by its folder, each top-level module by its path less `.py`.
            let tops: std::collections::BTreeSet<&str> = files
                .iter()
                .filter_map(|(p, _)| p.split('/').next())
                .collect();
            let entries: Vec<String> = (tops.iter())
                .map(|top| {
                    let top = top.strip_suffix(".py").unwrap_or(top);
                    format!("'{top}': '{}'", src.join(top).display())
                })
                .collect();
            let mapping = format!(
                "import sys\nMAPPING: dict[str, str] = {{{}}}\nNAMESPACES: dict[str, list[str]] = {{}}\n\n\ndef install():\n    pass\n",
                entries.join(", ")
            );
            let pth = format!("import {finder}; {finder}.install()");
            vec![
                (format!("{finder}.py"), mapping),
                (format!("__editable__.{name}-{version}.pth"), pth),
            ]
        }
        Editable::Pth => vec![(
            format!("_editable_impl_{import}.pth"),
            src.display().to_string(),
        )],
    };
    let info = site.join(format!("{import}-{version}.dist-info"));
    std::fs::create_dir_all(&info).unwrap();
    let mut record: Vec<String> = pointers
        .iter()
        .map(|(path, _)| format!("{path},,"))
        .collect();
    for (path, text) in &pointers {
        std::fs::write(site.join(path), text).unwrap();
    }
    let requires: String = requires
        .iter()
        .map(|r| format!("Requires-Dist: {r}\n"))
        .collect();
    let url = format!(
        "{{\"url\": \"file://{}\", \"dir_info\": {{\"editable\": true}}}}",
        project.display()
    );
    let metadata = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}");
    for (file, text) in [
        ("METADATA", metadata),
        ("INSTALLER", "pip\n".into()),
        ("direct_url.json", url),
    ] {
        std::fs::write(info.join(file), text).unwrap();
        record.push(format!("{import}-{version}.dist-info/{file},,"));
    }
    std::fs::write(info.join("RECORD"), record.join("\n") + "\n").unwrap();
}

/// A real venv made by `python3 -m venv` (with pip).
#[derive(Debug)]
pub struct RealVenv {
    /// The venv folder.
    pub path: PathBuf,
    /// Its interpreter.
    pub python: PathBuf,
}

impl RealVenv {
    /// Create a fresh venv at `path` (removed first).
    pub fn create(path: &Path) -> RealVenv {
        RealVenv::make(path, &[])
    }

    /// Create a fresh venv at `path` with no pip in it, as `uv venv` makes them.
    pub fn create_without_pip(path: &Path) -> RealVenv {
        RealVenv::make(path, &["--without-pip"])
    }

    /// `python3 -m venv FLAGS PATH`, `path` removed first.
    fn make(path: &Path, flags: &[&str]) -> RealVenv {
        let _ = std::fs::remove_dir_all(path);
        let output = Command::new(python3())
            .args(["-m", "venv"])
            .args(flags)
            .arg(path)
            .output()
            .expect("run python3 -m venv");
        check(&output, "`python3 -m venv`");
        RealVenv::at(path)
    }

    /// The venv already at `path` (a test world's, made elsewhere).
    pub fn at(path: &Path) -> RealVenv {
        RealVenv {
            path: path.to_path_buf(),
            python: path.join("bin/python"),
        }
    }

    /// Its `lib/pythonX.Y/site-packages`.
    pub fn site_packages(&self) -> PathBuf {
        let python = std::fs::read_dir(self.path.join("lib"))
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("python"))
            .expect("lib/pythonX.Y");
        python.path().join("site-packages")
    }

    /// Run `python -m pip ARGS` in the venv (no network, no version check).
    pub fn pip(&self, args: &[&str]) -> Output {
        let mut command = Command::new(&self.python);
        // Only the test's own wheels: no pip configuration from the host leaks in.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("PIP_") {
                command.env_remove(&key);
            }
        }
        command
            .args(["-m", "pip", "--disable-pip-version-check", "--no-input"])
            .args(args)
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("PIP_NO_INDEX", "1")
            .env("PIP_NO_CACHE_DIR", "1")
            .output()
            .expect("run pip")
    }

    /// `pip ARGS`, which must succeed.
    pub fn pip_ok(&self, args: &[&str]) -> String {
        let output = self.pip(args);
        check(&output, &format!("pip {}", args.join(" ")));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

/// The wheels of the test world, built once.
pub fn wheels() -> &'static Path {
    static WHEELS: OnceLock<PathBuf> = OnceLock::new();
    WHEELS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("planner-test-wheels");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        build_wheel(
            &dir,
            "alpha",
            "1.0",
            &[
                "beta>=2",
                "gamma; extra == \"fast\"",
                "zeta; sys_platform == \"win32\"",
            ],
            &["fast"],
        );
        build_wheel(
            &dir,
            "beta",
            "2.1",
            &["delta==1.0; python_version >= \"3\""],
            &[],
        );
        build_wheel(&dir, "beta", "1.0", &[], &[]);
        build_wheel(&dir, "delta", "1.0", &[], &[]);
        build_wheel(&dir, "gamma", "0.5", &[], &[]);
        build_wheel(&dir, "Demo_Pkg", "0.1.0+local.7", &["alpha[fast]>=1"], &[]);
        build_wheel(&dir, "epsilon", "1.0", &[], &[]);
        build_wheel(&dir, "omega", "1.0", &["missing-thing>=1", "delta"], &[]);
        dir
    })
}

/// A clean venv shared by the tests that only read it: alpha (and its closure, with the
/// `fast` extra through Demo_Pkg), Demo_Pkg 0.1.0+local.7 (non-normalized name, local label),
/// epsilon installed from a file path (direct_url.json).
pub fn clean_venv() -> &'static RealVenv {
    static VENV: OnceLock<RealVenv> = OnceLock::new();
    VENV.get_or_init(|| {
        let wheels = wheels();
        let venv = RealVenv::create(
            &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("planner-clean-venv"),
        );
        let find_links = wheels.to_string_lossy().into_owned();
        venv.pip_ok(&["install", "--find-links", &find_links, "Demo_Pkg"]);
        let epsilon = wheels.join("epsilon-1.0-py3-none-any.whl");
        venv.pip_ok(&["install", &epsilon.to_string_lossy()]);
        venv
    })
}

/// A fresh venv at `path` where pip installed alpha 1.0 and its closure from the test wheels
/// (every dist with the `RECORD` pip wrote).
pub fn alpha_venv(path: &Path) -> RealVenv {
    let venv = RealVenv::create(path);
    venv.pip_ok(&[
        "install",
        "--no-index",
        "--find-links",
        &wheels().to_string_lossy(),
        "alpha==1.0",
    ]);
    venv
}

/// Edit alpha's module by hand (a line appended) and delete its `INSTALLER`, as a person
/// patching site-packages would.
pub fn patch_alpha(venv: &RealVenv) {
    let files = super::files_under(&venv.path);
    let find = |suffix: &str| {
        files
            .iter()
            .find(|p| p.ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix} in {}", venv.path.display()))
            .clone()
    };
    let module = find("alpha/__init__.py");
    let mut text = std::fs::read_to_string(&module).unwrap();
    text.push_str("# patched by hand\n");
    std::fs::write(&module, text).unwrap();
    std::fs::remove_file(find("alpha-1.0.dist-info/INSTALLER")).unwrap();
}

/// The installed file of `venv` whose path ends with `suffix` (`alpha/__init__.py`).
pub fn installed_file(venv: &RealVenv, suffix: &str) -> PathBuf {
    super::files_under(&venv.path)
        .into_iter()
        .find(|p| p.ends_with(suffix))
        .unwrap_or_else(|| panic!("no {suffix} in {}", venv.path.display()))
}
