//! The sources of an editable install, where they live.
//!
//! In: an installed dist whose `direct_url.json` says it was installed in editable mode (`pip
//! install -e`, `uv pip install -e`). Out: the `.py` files of its packages in the project's own
//! folder, as absolute paths ([`sources`]), so that its imports are evidence like any installed
//! dist's (the project being developed is often the dependent that matters most).
//!
//! An editable install puts no sources in site-packages, only what points at them, listed in
//! its `RECORD`: setuptools' finder (`__editable___myapp_0_1_finder.py`, whose `MAPPING` names
//! each top-level package's folder or module's file) or a `.pth` file whose plain lines are
//! folders put on `sys.path` (setuptools' flat layouts, hatchling, flit, pdm, uv's own builds),
//! under which the dist's top-level names ([`InstalledDist::top_level`], else its name as an
//! import name) are its packages.
//! Folders are walked for `.py` files, tests, hidden folders, `__pycache__` and nested
//! environments left out, at most [`MAX_SOURCES`] files.

use std::path::{Path, PathBuf};

use super::{DirectUrl, InstalledDist, pth, record};

/// The most source files read from one editable project.
pub(crate) const MAX_SOURCES: usize = 20_000;

/// The largest finder or `.pth` file read.
const MAX_POINTER_BYTES: u64 = 1 << 20;

/// The `.py` files of an editable `dist`'s packages, as absolute paths; empty for a dist not
/// installed in editable mode or whose pointers name nothing that exists.
pub(crate) fn sources(dist: &InstalledDist) -> Vec<String> {
    let editable = matches!(
        dist.direct_url,
        Some(DirectUrl::Directory { editable: true, .. })
    );
    let (true, Some(site)) = (editable, dist.path.parent()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for root in roots(dist, site) {
        walk(&root, &mut out);
    }
    out.sort();
    out.dedup();
    out.truncate(MAX_SOURCES);
    out
}

/// The folders and files the install's pointers name: the finder's `MAPPING` values (a package's
/// folder, or a module's file less its `.py`), and each
/// top-level name found under a `.pth` file's folders.
fn roots(dist: &InstalledDist, site: &Path) -> Vec<PathBuf> {
    let pointers: Vec<String> = record::inside_paths(&dist.path)
        .unwrap_or_default()
        .into_iter()
        .filter(|path| !path.contains('/'))
        .collect();
    let tops = top_names(dist);
    let mut roots = Vec::new();
    for pointer in &pointers {
        let Ok(text) = crate::bounded::read_text(&site.join(pointer), MAX_POINTER_BYTES) else {
            continue;
        };
        if pointer.starts_with("__editable___") && pointer.ends_with("_finder.py") {
            for target in mapping(&text) {
                // A module is mapped without its `.py` (`'flatmod': '/src/flat/flatmod'`).
                roots.push(PathBuf::from(format!("{target}.py")));
                roots.push(PathBuf::from(target));
            }
        } else if pointer.ends_with(".pth") {
            for folder in pth::plain_folders(&text, site) {
                for top in &tops {
                    roots.push(folder.join(top));
                    roots.push(folder.join(format!("{top}.py")));
                }
            }
        }
    }
    roots.retain(|root| root.is_absolute() && root.exists());
    roots
}

/// The dist's top-level names, or where it lists none (hatchling's and uv's editable wheels
/// carry no `top_level.txt`, and their `RECORD` lists only the `.pth` file) its name as an
/// import name (`my-app` -> `my_app`), the package such a build backend looks for.
fn top_names(dist: &InstalledDist) -> Vec<String> {
    if !dist.top_level.is_empty() {
        return dist.top_level.clone();
    }
    vec![dist.name().as_ref().replace(['-', '.'], "_")]
}

/// The values of setuptools' `MAPPING: dict[str, str] = {'myapp': '/src/myapp/myapp'}`, the
/// line it writes into an editable finder: the string literals after its `{`, every second one.
fn mapping(finder: &str) -> Vec<String> {
    let Some(line) = finder.lines().find(|l| l.starts_with("MAPPING")) else {
        return Vec::new();
    };
    let Some((_, literal)) = line.split_once('{') else {
        return Vec::new();
    };
    strings(literal).into_iter().skip(1).step_by(2).collect()
}

/// The quoted string literals of `text` in order (`'...'` or `"..."`, `\\` and `\'` escapes
/// read), as Python's `repr` of a `dict[str, str]` writes them.
fn strings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\'' && c != '"' {
            continue;
        }
        let mut value = String::new();
        while let Some(next) = chars.next() {
            match next {
                '\\' => value.extend(chars.next()),
                end if end == c => break,
                other => value.push(other),
            }
        }
        out.push(value);
    }
    out
}

/// Add the `.py` files under `root` (or `root` itself, a module's file) to `out`.
fn walk(root: &Path, out: &mut Vec<String>) {
    let entries = walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(32)
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !skipped(entry));
    for entry in entries.filter_map(Result::ok) {
        if out.len() >= MAX_SOURCES {
            return;
        }
        let path = entry.path();
        let is_source = entry.file_type().is_file() && path.extension().is_some_and(|e| e == "py");
        if let (true, Some(text)) = (is_source, path.to_str()) {
            out.push(text.to_string());
        }
    }
}

/// A folder the walk does not enter: tests, hidden and cache folders, and nested environments.
fn skipped(entry: &walkdir::DirEntry) -> bool {
    let name = entry.file_name().to_string_lossy();
    entry.file_type().is_dir()
        && (name.starts_with('.')
            || matches!(
                name.as_ref(),
                "__pycache__" | "test" | "tests" | "testing" | "node_modules" | "site-packages"
            )
            || entry.path().join("pyvenv.cfg").exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line setuptools 80 writes (seen live: `pip install -e` of a pyproject project).
    #[test]
    fn a_finder_mapping_names_each_top_level_folder() {
        let finder = "import sys\nMAPPING: dict[str, str] = {'myapp': '/tmp/s/myapp/myapp', \
                      'tool': \"/tmp/s/it's/tool.py\"}\nNAMESPACES: dict[str, list[str]] = {}\n";
        assert_eq!(
            mapping(finder),
            ["/tmp/s/myapp/myapp", "/tmp/s/it's/tool.py"]
        );
        assert_eq!(mapping("MAPPING = {}\n"), Vec::<String>::new());
        assert_eq!(strings(r"'a\\b', 'c\'d'"), ["a\\b", "c'd"]);
    }

    #[test]
    fn a_pth_file_names_folders_by_its_plain_lines() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir(&src).unwrap();
        let text = format!("# comment\nimport os\n{}\nmissing\n", src.display());
        assert_eq!(pth::plain_folders(&text, dir.path()), [src]);
    }

    #[test]
    fn tests_caches_and_nested_environments_are_not_walked() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("myapp");
        for folder in ["tests", "__pycache__", ".hidden", "sub", "env"] {
            std::fs::create_dir_all(pkg.join(folder)).unwrap();
            std::fs::write(pkg.join(folder).join("m.py"), "").unwrap();
        }
        std::fs::write(pkg.join("env/pyvenv.cfg"), "").unwrap();
        std::fs::write(pkg.join("__init__.py"), "").unwrap();
        std::fs::write(pkg.join("data.txt"), "").unwrap();
        let mut out = Vec::new();
        walk(&pkg, &mut out);
        out.sort();
        let root = pkg.display().to_string();
        assert_eq!(
            out,
            [format!("{root}/__init__.py"), format!("{root}/sub/m.py")]
        );
    }
}
