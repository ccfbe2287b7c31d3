//! Modules a dist provides through a `.pth` path entry.
//!
//! In: the dists read from site-packages and the environment (its site-packages folders and the
//! folders its interpreter reported on `sys.path` inside them). Out: each dist's `top_level`
//! gains the modules its files put under such a folder; a planned wheel's modules are read the
//! same way ([`wheel_modules`]).
//!
//! A `.pth` file in site-packages adds folders to `sys.path`: a plain line names one (relative
//! to site-packages), an `import` line may add any (nvidia-cutlass-dsl 4.8.1's
//! `nvidia_cutlass_dsl_packages.pth` inserts `nvidia_cutlass_dsl/dsl_packages`, where
//! nvidia-cutlass-dsl-libs-base installs the `cutlass` package). A file `F/m/x.py` under such a
//! folder `F` is importable as `m.x`, so `m` is a module of the dist whose `RECORD` lists it.
//! The folders come from the interpreter (`sys.path` after `site` ran, which evaluates `import`
//! lines) and, where none ran, from the plain lines of the `.pth` files alone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{DistFormat, Environment, InstalledDist, record};

/// The largest `.pth` file read.
const MAX_PTH_BYTES: u64 = 1 << 20;

/// Add to each dist's `top_level` the modules its files put under a `.pth` folder.
pub(crate) fn add_modules(dists: &mut [InstalledDist], environment: &Environment) {
    let folders = folders(environment);
    if folders.is_empty() {
        return;
    }
    for dist in dists.iter_mut() {
        if dist.format != DistFormat::DistInfo || !dist.path.is_dir() {
            continue;
        }
        let Some(paths) = record::inside_paths(&dist.path) else {
            continue;
        };
        let mut names: BTreeSet<String> = dist.top_level.iter().cloned().collect();
        names.extend(modules_under(&paths, &folders));
        dist.top_level = names.into_iter().collect();
    }
}

/// The modules a wheel with these members would put under the environment's `.pth` folders
/// (a planned release of nvidia-cutlass-dsl-libs-base: `cutlass`), beside its top-level ones.
pub(crate) fn wheel_modules(members: &[String], environment: &Environment) -> BTreeSet<String> {
    modules_under(members, &folders(environment))
}

/// The `.pth` folders, each relative to its site-packages (`nvidia_cutlass_dsl/dsl_packages`).
fn folders(environment: &Environment) -> Vec<String> {
    let sites = &environment.site_packages;
    let mut absolute: Vec<PathBuf> = environment.pth_paths.clone();
    for site in sites {
        absolute.extend(plain_lines(site));
    }
    let mut out: Vec<String> = absolute
        .iter()
        .filter_map(|path| {
            let site = sites.iter().find(|site| path.starts_with(site))?;
            let inside = path.strip_prefix(site).ok()?.to_str()?.to_string();
            (!inside.is_empty()).then_some(inside)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The folders the plain lines of `site`'s `.pth` files name (`import` lines and comments left
/// out), those that exist.
fn plain_lines(site: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(site) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pth") {
            continue;
        }
        let Ok(text) = crate::bounded::read_text(&path, MAX_PTH_BYTES) else {
            continue;
        };
        out.extend(plain_folders(&text, site));
    }
    out
}

/// The folders one `.pth` file's plain lines name (`import` lines and comments left out), those
/// that exist; a relative line is taken from `site`.
pub(crate) fn plain_folders(text: &str, site: &Path) -> Vec<PathBuf> {
    text.lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with("import"))
        .map(|line| site.join(line))
        .filter(|folder| folder.is_dir())
        .collect()
}

/// The top-level modules `RECORD` paths put under the folders: `F/m/...` gives `m`, `F/m.py`
/// and an extension module `F/m.<tag>.so` give `m`.
fn modules_under(paths: &[String], folders: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for folder in folders {
        let prefix = format!("{folder}/");
        for path in paths {
            let Some(rest) = path.strip_prefix(&prefix) else {
                continue;
            };
            let name = match rest.split_once('/') {
                Some((package, _)) => Some(package),
                None => module_file(rest),
            };
            if let Some(name) = name.filter(|n| is_identifier(n)) {
                out.insert(name.to_string());
            }
        }
    }
    out
}

/// Python sources (`m.py`) and extension modules (`m.cpython-312-x86_64-linux-gnu.so`,
/// `m.abi3.so`, `m.so`, `m.pyd`): `m`.
fn module_file(file: &str) -> Option<&str> {
    if let Some(stem) = file.strip_suffix(".py") {
        return Some(stem);
    }
    let stem = file
        .strip_suffix(".so")
        .or_else(|| file.strip_suffix(".pyd"))?;
    stem.split('.').next()
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nvidia-cutlass-dsl-libs-base 4.8.1's files under the folder nvidia-cutlass-dsl's `.pth`
    /// adds (paths from its real `RECORD`): `cutlass` and `iket` are its modules; the package
    /// that holds the folder stays one too, and a file beside it adds nothing.
    #[test]
    fn a_pth_folder_makes_the_packages_under_it_modules() {
        let paths: Vec<String> = [
            "nvidia_cutlass_dsl/__init__.py",
            "nvidia_cutlass_dsl/dsl_packages/cutlass/__init__.py",
            "nvidia_cutlass_dsl/dsl_packages/cutlass/cute/core.py",
            "nvidia_cutlass_dsl/dsl_packages/iket/__init__.py",
            "nvidia_cutlass_dsl/dsl_packages/fast.cpython-311-x86_64-linux-gnu.so",
            "nvidia_cutlass_dsl/dsl_packages/README.txt",
            "nvidia_cutlass_dsl/dsl_packages/not-a-name/x.py",
            "nvidia_cutlass_dsl_libs_base-4.8.1.dist-info/RECORD",
        ]
        .map(String::from)
        .to_vec();
        let folders = ["nvidia_cutlass_dsl/dsl_packages".to_string()];
        let found: Vec<String> = modules_under(&paths, &folders).into_iter().collect();
        assert_eq!(found, ["cutlass", "fast", "iket"]);
        assert!(modules_under(&paths, &[]).is_empty());
    }
}
