//! Which installed dists import a module, read from their Python sources.
//!
//! In: an installed dist read from disk (its `RECORD` lists its files) and a top-level module
//! name (`pkg_resources`). Out: the first of its `.py` files with an `import` statement of that
//! module (`import pkg_resources`, `import pkg_resources.extern as x`, `from pkg_resources
//! import ...`, `import os, pkg_resources`), at any indentation (inside `try:` too).
//!
//! What it cannot see: imports spelled at run time (`importlib.import_module("...")`,
//! `__import__`), imports in compiled extensions or in byte code without sources, statements
//! split over lines with backslashes, and dists read from a snapshot (no files).

use memchr::memmem;

use super::extensions::read_capped;
use super::{DistFormat, InstalledDist};

/// At most this many bytes are read from one source file.
const MAX_FILE_BYTES: u64 = 4 << 20;

/// The first `.py` file of `dist` (its path in `RECORD`) that imports `module`.
pub fn imports_module(dist: &InstalledDist, module: &str) -> Option<String> {
    if dist.format != DistFormat::DistInfo || module.is_empty() {
        return None;
    }
    let site = dist.path.parent()?;
    let record = std::fs::read_to_string(dist.path.join("RECORD")).ok()?;
    let finder = memmem::Finder::new(module.as_bytes());
    record
        .lines()
        .map(|line| line.split(',').next().unwrap_or("").trim_matches('"'))
        .filter(|path| path.ends_with(".py") && !path.split('/').any(|part| part == ".."))
        .find(|path| {
            read_capped(&site.join(path), MAX_FILE_BYTES).is_some_and(|bytes| {
                finder.find(&bytes).is_some()
                    && String::from_utf8_lossy(&bytes)
                        .lines()
                        .any(|line| imports(line, module))
            })
        })
        .map(str::to_string)
}

/// Whether one source line is an import statement of `module` (or of a submodule of it).
fn imports(line: &str, module: &str) -> bool {
    let names_it = |name: &str| {
        let name = name.trim();
        name == module
            || name
                .strip_prefix(module)
                .is_some_and(|r| r.starts_with('.'))
    };
    let line = line.trim_start();
    if let Some(rest) = line.strip_prefix("from ") {
        return rest.split_whitespace().next().is_some_and(names_it);
    }
    if let Some(rest) = line.strip_prefix("import ") {
        let rest = rest.split('#').next().unwrap_or("");
        return rest
            .split(',')
            .filter_map(|part| part.split_whitespace().next())
            .any(names_it);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::imports;

    #[test]
    fn import_statements_of_a_module_and_its_submodules() {
        for line in [
            "import pkg_resources",
            "    import pkg_resources as pr",
            "import os, pkg_resources  # old API",
            "from pkg_resources import iter_entry_points",
            "from pkg_resources.extern import packaging",
            "import pkg_resources.extern",
        ] {
            assert!(imports(line, "pkg_resources"), "{line}");
        }
        for line in [
            "import pkg_resources_extra",
            "from mypkg import pkg_resources",
            "# import pkg_resources",
            "x = 'import pkg_resources'",
            "from . import pkg_resources",
        ] {
            assert!(!imports(line, "pkg_resources"), "{line}");
        }
    }
}
