//! Module clashes: a plan that leaves two dists shipping the same top-level module
//! (pytest-benchmark 5.3.1 pulls in `py-cpuinfo2`, whose wheel installs `cpuinfo/`, next to the
//! installed `py-cpuinfo`, which ships `cpuinfo/` too). Installed for real, one overwrites the
//! other's files, `import cpuinfo` gets whichever came last, and uninstalling either later
//! deletes files the other still needs.
//!
//! In: the inventory, a plan's changes and the [`Oracle`] (what each planned release's wheel
//! installs: [`Oracle::installs`], [`Oracle::wheel_files`]; an installed dist's `RECORD`:
//! [`Oracle::installed_files`]). Out: one [`Clash`] per (planned dist, other dist, module).
//!
//! Which dists are compared: every dist the plan adds or changes, against each installed dist
//! the plan keeps as it is and against the other planned dists. A namespace package shared by
//! design (`nvidia/`, `google/`, `jax_plugins/`) is not a clash: with both file lists known, a
//! clash is a file both ship other than an `__init__.py` (and `__pycache__`); with only the
//! installed `top_level.txt` (a venv copied without `RECORD`), it is a module exactly one installed
//! dist declares and the planned wheel ships as a regular module (`cpuinfo/__init__.py`,
//! `cpuinfo.py`, an extension). Unknown (a release whose file list cannot be had) is silent.

use std::collections::BTreeSet;

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, PackageName, Requirement};

use super::oracle::Oracle;
use super::planned::{PlannedEnvironment, applies_with};
use super::proposal::{Blocker, Change};
use crate::inventory::Inventory;
use crate::inventory::module_files::in_module;

/// Two dists that would both ship `module` after the plan.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Clash {
    /// The dist the plan adds or changes (`py-cpuinfo2`).
    pub(crate) planned: PackageName,
    /// Its planned version.
    pub(crate) version: Version,
    /// The other dist (`py-cpuinfo`).
    pub(crate) other: PackageName,
    /// Its version after the plan.
    pub(crate) other_version: Version,
    /// Whether the other dist is installed and kept as it is (else the plan adds or changes it).
    pub(crate) other_kept: bool,
    /// The top-level module both ship.
    pub(crate) module: String,
    /// A file both ship (`cpuinfo/cpuinfo.py`), when both file lists are known; else how the
    /// other's side is known (`top_level.txt`).
    pub(crate) evidence: String,
}

impl Clash {
    /// The sentence for a plan's warning and its risk factor.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "{} {} and {} {} {} both ship the module `{}` ({}): installed together, one \
             overwrites the other's files and uninstalling either deletes them",
            self.planned,
            self.version,
            if self.other_kept {
                "the installed"
            } else {
                "the planned"
            },
            self.other,
            self.other_version,
            self.module,
            self.evidence
        )
    }
}

/// The clashes a plan's `changes` leave, sorted.
pub(crate) fn clashes(
    inventory: &Inventory,
    changes: &[Change],
    oracle: &dyn Oracle,
) -> Vec<Clash> {
    let changed: BTreeSet<&PackageName> = changes.iter().map(|c| &c.name).collect();
    let planned: Vec<(&PackageName, &Version)> = changes
        .iter()
        .filter_map(|c| Some((&c.name, c.to.as_ref()?)))
        .collect();
    let mut found = BTreeSet::new();
    for (i, &(name, version)) in planned.iter().enumerate() {
        let Some(modules) = oracle.installs(name, version) else {
            continue;
        };
        let mut files: Option<Option<Vec<String>>> = None;
        let mut own_files = || {
            files
                .get_or_insert_with(|| oracle.wheel_files(name, version))
                .clone()
        };
        for module in modules.iter() {
            for dist in inventory.dists.iter().filter(|d| {
                d.name() != name
                    && !changed.contains(d.name())
                    && d.top_level.iter().any(|m| m == module)
            }) {
                let evidence = match (own_files(), oracle.installed_files(dist.name())) {
                    (Some(ours), Some(theirs)) => shared_file(&ours, &theirs, module),
                    (Some(ours), None) => {
                        let declaring = inventory
                            .dists
                            .iter()
                            .filter(|d| d.top_level.iter().any(|m| m == module))
                            .count();
                        (declaring == 1 && regular_module(&ours, module))
                            .then(|| format!("{}'s top_level.txt", dist.name()))
                    }
                    (None, _) => None,
                };
                if let Some(evidence) = evidence {
                    found.insert(Clash {
                        planned: name.clone(),
                        version: version.clone(),
                        other: dist.name().clone(),
                        other_version: dist.version().clone(),
                        other_kept: true,
                        module: module.clone(),
                        evidence,
                    });
                }
            }
            for &(other, other_version) in &planned[i + 1..] {
                if !oracle
                    .installs(other, other_version)
                    .is_some_and(|m| m.contains(module))
                {
                    continue;
                }
                let (Some(ours), Some(theirs)) =
                    (own_files(), oracle.wheel_files(other, other_version))
                else {
                    continue;
                };
                if let Some(evidence) = shared_file(&ours, &theirs, module) {
                    found.insert(Clash {
                        planned: name.clone(),
                        version: version.clone(),
                        other: other.clone(),
                        other_version: other_version.clone(),
                        other_kept: false,
                        module: module.clone(),
                        evidence,
                    });
                }
            }
        }
    }
    found.into_iter().collect()
}

/// A constraint no release of `name` meets (`name<0.dev0`, below every version): a solve under
/// it keeps `name` out of the environment.
pub(crate) fn absent(name: &PackageName) -> Requirement {
    crate::metadata::requirement::below(name, &Version::new([0]).with_dev(Some(0)))
}

/// The planned dists whose requirements (those whose markers hold) name `newcomer`: what pulled
/// it into `planned`.
pub(crate) fn pullers(
    planned: &PlannedEnvironment,
    newcomer: &PackageName,
    markers: &MarkerEnvironment,
) -> Vec<Blocker> {
    planned
        .dists
        .iter()
        .flat_map(|(name, dist)| {
            dist.requires_dist
                .iter()
                .filter(|r| &r.name == newcomer && applies_with(r, markers, &dist.extras))
                .map(|r| Blocker {
                    dependent: name.clone(),
                    dependent_version: dist.version.clone(),
                    requirement: r.clone(),
                })
        })
        .collect()
}

/// A file under `module` that both lists hold, other than an `__init__.py` (a namespace's
/// marker, shared by design), bytecode or a folder (a wheel's zip may list its folders,
/// `nvidia_cutlass_dsl/`, as members of their own; folders are shared, never overwritten):
/// `cpuinfo/cpuinfo.py`. Of several, a shared library first (what the overwrite breaks:
/// `nvidia/cusparselt/lib/libcusparseLt.so.0`), a license text last (nvidia-cusparselt-cu12
/// and -cu13 list `nvidia/cusparselt/LICENSE.txt` first).
fn shared_file(ours: &[String], theirs: &[String], module: &str) -> Option<String> {
    let theirs: BTreeSet<&str> = theirs.iter().map(String::as_str).collect();
    ours.iter()
        .filter(|path| in_module(path, module) && !path.ends_with('/'))
        .filter(|path| !path.ends_with("/__init__.py") && !path.contains("/__pycache__/"))
        .filter(|path| theirs.contains(path.as_str()))
        .min_by_key(|path| telling(path))
        .map(|path| format!("both install {path}"))
}

/// How well a shared file shows what an overwrite breaks (lower first): a shared library or
/// extension, any other file, a license or notice text.
fn telling(path: &str) -> u8 {
    let name = path.rsplit('/').next().unwrap_or(path);
    let upper = name.to_ascii_uppercase();
    if name.ends_with(".so") || name.contains(".so.") || name.ends_with(".pyd") {
        0
    } else if ["LICENSE", "LICENCE", "COPYING", "NOTICE"]
        .iter()
        .any(|head| upper.starts_with(head))
    {
        2
    } else {
        1
    }
}

/// Whether a wheel ships `module` as a regular module (not a namespace contribution): its
/// package's `__init__.py`, a `module.py`, or an extension.
fn regular_module(files: &[String], module: &str) -> bool {
    let init = format!("{module}/__init__.py");
    files
        .iter()
        .any(|path| path == &init || (!path.contains('/') && in_module(path, module)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_shared_file_is_a_clash_a_shared_namespace_is_not() {
        let cpuinfo2 = list(&[
            "cpuinfo/__init__.py",
            "cpuinfo/cpuinfo.py",
            "py_cpuinfo2-10.1.1.dist-info/RECORD",
        ]);
        let cpuinfo = list(&[
            "cpuinfo/__init__.py",
            "cpuinfo/__pycache__/cpuinfo.cpython-312.pyc",
            "cpuinfo/cpuinfo.py",
            "py_cpuinfo-9.0.0.dist-info/RECORD",
        ]);
        assert_eq!(
            shared_file(&cpuinfo2, &cpuinfo, "cpuinfo").as_deref(),
            Some("both install cpuinfo/cpuinfo.py")
        );
        let cublas = list(&["nvidia/__init__.py", "nvidia/cublas/lib/libcublas.so.13"]);
        let cudnn = list(&["nvidia/__init__.py", "nvidia/cudnn/lib/libcudnn.so.9"]);
        assert_eq!(shared_file(&cublas, &cudnn, "nvidia"), None);
        assert!(regular_module(&cpuinfo2, "cpuinfo"));
        assert!(regular_module(&list(&["six.py"]), "six"));
        assert!(regular_module(
            &list(&["_cffi_backend.cpython-312-x86_64-linux-gnu.so"]),
            "_cffi_backend"
        ));
        assert!(!regular_module(
            &list(&["google/protobuf/__init__.py"]),
            "google"
        ));
        assert!(!in_module("cpuinfo2/x.py", "cpuinfo"));
    }

    /// nvidia-cusparselt-cu12 0.7.1 (its real RECORD, testdata/record) and -cu13 0.8.1 install
    /// the same three files, the license first: the library is the one named.
    #[test]
    fn the_shared_library_is_named_before_a_license() {
        let cu12: Vec<String> =
            include_str!("../../testdata/record/nvidia_cusparselt_cu12-0.7.1.dist-info/RECORD")
                .lines()
                .map(|line| line.split(',').next().unwrap().to_string())
                .collect();
        let cu13: Vec<String> = cu12
            .iter()
            .map(|path| path.replace("cu12-0.7.1", "cu13-0.8.1"))
            .collect();
        assert_eq!(cu13[0], "nvidia/cusparselt/LICENSE.txt");
        assert_eq!(
            shared_file(&cu13, &cu12, "nvidia").as_deref(),
            Some("both install nvidia/cusparselt/lib/libcusparseLt.so.0")
        );
        let texts = list(&["nvidia/x/LICENSE.txt", "nvidia/x/include/x.h"]);
        assert_eq!(
            shared_file(&texts, &texts, "nvidia").as_deref(),
            Some("both install nvidia/x/include/x.h")
        );
    }

    /// The real nvidia-cutlass-dsl-libs-base and -cu13 4.8.1 wheels both list the folders
    /// `nvidia_cutlass_dsl/`, `nvidia_cutlass_dsl/dsl_packages/cutlass/_mlir/_mlir_libs/` and
    /// others as zip members, and no file in common: no clash. A file both list still is one.
    #[test]
    fn wheels_that_share_only_folders_do_not_clash() {
        let read = |text: &str| -> Vec<String> { text.lines().map(String::from).collect() };
        let base = read(include_str!(
            "../../testdata/clash/nvidia_cutlass_dsl_libs_base-4.8.1-cp312-cp312-manylinux_2_28_x86_64.members"
        ));
        let cu13 = read(include_str!(
            "../../testdata/clash/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.members"
        ));
        assert!(base.contains(&"nvidia_cutlass_dsl/".to_string()));
        assert!(cu13.contains(&"nvidia_cutlass_dsl/".to_string()));
        assert_eq!(shared_file(&base, &cu13, "nvidia_cutlass_dsl"), None);
        assert_eq!(shared_file(&cu13, &base, "nvidia_cutlass_dsl"), None);
        let mut both = cu13.clone();
        both.push("nvidia_cutlass_dsl/dsl_packages/cutlass/__init__.py".to_string());
        both.push("nvidia_cutlass_dsl/dsl_packages/cutlass/_mlir/ir.py".to_string());
        assert!(
            base.contains(&both[both.len() - 1]),
            "a real file of libs-base"
        );
        assert_eq!(
            shared_file(&both, &base, "nvidia_cutlass_dsl").as_deref(),
            Some("both install nvidia_cutlass_dsl/dsl_packages/cutlass/_mlir/ir.py")
        );
    }
}
