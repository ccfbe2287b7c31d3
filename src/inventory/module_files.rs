//! Where a module lives in a dist's file list: the paths its `RECORD` lists, or the members of
//! a release's wheel, relative to site-packages with `/` between parts.
//!
//! In: a file list (or one path of it) and a dotted module name (`google.protobuf.any_pb2`).
//! Out: whether a path belongs to the module ([`in_module`]: its source `a/b.py`, a file under
//! its package folder `a/b/`, its extension `a/b.cpython-311-x86_64-linux-gnu.so`), whether the
//! list has the module at all ([`has_module`]), and its source file ([`module_file`]:
//! `a/b/__init__.py`, else `a/b.py`). For the import evidence of installed dists
//! ([`super::importers`]) and of planned releases alike (`crate::plan`).

/// Whether `path` belongs to the module `a.b`: `a/b.py`, anything under `a/b/` (a package,
/// namespace or not), or an extension module `a/b.<tag>.so` (`.pyd`) beside it. A `.so` in a
/// folder `a/b.libs/` is not the module `a.b`.
pub(crate) fn in_module(path: &str, module: &str) -> bool {
    under(path, &module.replace('.', "/"))
}

/// Whether a file list has the module `a.b` ([`in_module`]).
pub(crate) fn has_module(files: &[String], module: &str) -> bool {
    let stem = module.replace('.', "/");
    files.iter().any(|path| under(path, &stem))
}

/// The source file of the module `a.b` in a file list: `a/b/__init__.py` or `a/b.py`.
pub(crate) fn module_file(files: &[String], module: &str) -> Option<String> {
    let stem = module.replace('.', "/");
    [format!("{stem}/__init__.py"), format!("{stem}.py")]
        .into_iter()
        .find(|candidate| files.contains(candidate))
}

/// [`in_module`] with the module as a path (`a/b`).
fn under(path: &str, stem: &str) -> bool {
    path.strip_prefix(stem).is_some_and(|rest| {
        rest.starts_with('/')
            || rest == ".py"
            || (rest.starts_with('.')
                && !rest.contains('/')
                && (rest.ends_with(".so") || rest.ends_with(".pyd")))
    })
}

#[cfg(test)]
mod tests {
    use super::{has_module, in_module, module_file};

    fn list(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn modules_in_a_file_list() {
        let files = list(&[
            "click/__init__.py",
            "click/core.py",
            "ns/sub/x.py",
            "numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
        ]);
        for yes in [
            "click",
            "click.core",
            "ns",
            "ns.sub",
            "numpy.core._multiarray_umath",
        ] {
            assert!(has_module(&files, yes), "{yes}");
        }
        for no in [
            "click._unicodefun",
            "click.cor",
            "clic",
            "numpy.core.multiarray",
        ] {
            assert!(!has_module(&files, no), "{no}");
        }
    }

    /// A dotted string in a binary that is no module of the dist it starts with (grpcio's
    /// `google.protobuf.Any`, a message type) names no import.
    #[test]
    fn a_dotted_name_in_a_binary_is_an_import_only_if_it_is_a_module() {
        let protobuf = list(&[
            "google/protobuf/__init__.py",
            "google/protobuf/any_pb2.py",
            "google/protobuf/internal/api_implementation.py",
        ]);
        assert!(!has_module(&protobuf, "google.protobuf.Any"));
        assert!(!has_module(&protobuf, "google.protobuf.any"));
        assert!(has_module(&protobuf, "google.protobuf.any_pb2"));
        assert!(has_module(&protobuf, "google.protobuf.internal"));
        let pyarrow = list(&[
            "pyarrow/dataset.py",
            "pyarrow/lib.cpython-311-x86_64-linux-gnu.so",
            "pyarrow/lib.pyx",
            "pyarrow/table.libs/libarrow.so",
        ]);
        assert!(has_module(&pyarrow, "pyarrow.dataset"));
        assert!(has_module(&pyarrow, "pyarrow.lib"));
        assert!(!has_module(&pyarrow, "pyarrow.datasets"));
        assert!(!has_module(&pyarrow, "pyarrow.table"));
    }

    #[test]
    fn a_path_belongs_to_the_module_it_is_or_lies_under() {
        assert!(in_module("cpuinfo/cpuinfo.py", "cpuinfo"));
        assert!(in_module("six.py", "six"));
        assert!(in_module(
            "_cffi_backend.cpython-312-x86_64-linux-gnu.so",
            "_cffi_backend"
        ));
        assert!(in_module(
            "nvidia/cublas/lib/libcublas.so.13",
            "nvidia.cublas"
        ));
        assert!(!in_module("cpuinfo2/x.py", "cpuinfo"));
        assert!(!in_module("cpuinfo.libs/libx.so", "cpuinfo"));
    }

    #[test]
    fn the_source_of_a_package_is_its_init() {
        let files = list(&["tb/__init__.py", "tb/main.py", "tb.py"]);
        assert_eq!(module_file(&files, "tb").as_deref(), Some("tb/__init__.py"));
        assert_eq!(
            module_file(&files, "tb.main").as_deref(),
            Some("tb/main.py")
        );
        assert_eq!(module_file(&files, "tb.core"), None);
    }
}
