//! Whether an installed dist's compiled extension modules are built against another package's
//! C API, and through which mechanism.
//!
//! In: an installed dist read from disk (its `RECORD` lists its files), another package's name
//! and the move planned for it. Out: the mechanism, when one of the dist's extension modules
//! (`.so`, `.pyd`) carries the marker of a C API that [`C_APIS`] knows and the move crosses a
//! line that changed that API: numpy's `_ARRAY_API` capsule (what `import_array` reads) across
//! numpy 1 -> 2, torch's `libtorch`/`libc10` links across a torch line. A module name alone in
//! a binary is no ABI evidence: Cython code that does `import pytz` names `pytz` too, and a
//! pure-Python or data dist has no C API to break. A dist read from a snapshot has no files, so
//! the answer is "none" (not known): see `docs/risk-model.md`.

use std::collections::BTreeSet;
use std::path::Path;

use memchr::memmem;
use pep440_rs::Version;

use super::{DistFormat, InstalledDist};

/// At most this many bytes are read from one extension module (the import strings of a
/// CPython extension sit in its read-only data, far below this).
const MAX_FILE_BYTES: u64 = 256 << 20;
/// At most this many bytes are read per dist.
const MAX_DIST_BYTES: u64 = 1 << 30;

/// A C API other dists' compiled extensions are built against, and the lines that changed it.
pub struct CApi {
    /// The dist that provides it (normalized name).
    pub package: &'static str,
    /// Strings an extension built against it carries: the capsule `import_array` reads, the
    /// shared libraries it links.
    pub markers: &'static [&'static str],
    /// The mechanism, as the factor text names it.
    pub mechanism: &'static str,
    /// The first major version of each line that changed it; empty: every major line does.
    pub breaking_majors: &'static [u64],
}

/// The C APIs planner knows a release line to have changed. A dist not listed here is never
/// an ABI break: pure-Python and data dists have no C API, and an ABI-stable one (the limited
/// API, a capsule kept compatible) does not break its users' builds.
pub const C_APIS: &[CApi] = &[
    CApi {
        package: "numpy",
        markers: &["_ARRAY_API", "_UFUNC_API"],
        mechanism: "numpy's C API (the `_ARRAY_API` table `import_array` loads)",
        breaking_majors: &[2],
    },
    CApi {
        package: "torch",
        markers: &[
            "libtorch_python.so",
            "libtorch_cpu.so",
            "libtorch.so",
            "libc10.so",
        ],
        mechanism: "torch's C++ API (linked against `libtorch`/`libc10`)",
        breaking_majors: &[],
    },
];

/// The C API of `package` whose ABI the move `from` -> `to` changes, if planner knows one.
pub fn c_api_changed(package: &str, from: &Version, to: &Version) -> Option<&'static CApi> {
    let api = C_APIS.iter().find(|api| api.package == package)?;
    let major = |v: &Version| v.release().first().copied().unwrap_or(0);
    let (from, to) = (major(from), major(to));
    let crosses = if api.breaking_majors.is_empty() {
        from != to
    } else {
        api.breaking_majors
            .iter()
            .any(|&line| from.min(to) < line && line <= from.max(to))
    };
    crosses.then_some(api)
}

/// How a dist's compiled extensions use another package's C API: the mechanism, and the
/// extension module that shows it (the evidence a claim cites).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbiLink {
    /// The mechanism, as the factor text names it ([`CApi::mechanism`]).
    pub mechanism: &'static str,
    /// The first extension module that carries one of the C API's markers; `None` where only
    /// the module name was recorded (the risk corpus).
    pub carrier: Option<Carrier>,
}

/// An extension module of a dist that carries a C API's marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carrier {
    /// Its path in the dist's `RECORD` (`pandas/_libs/lib.cpython-311-x86_64-linux-gnu.so`).
    pub file: String,
    /// The marker found in it (`_ARRAY_API`).
    pub marker: &'static str,
}

impl std::fmt::Display for Carrier {
    /// `` `pandas/_libs/lib.cpython-311-x86_64-linux-gnu.so` carries `_ARRAY_API` ``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` carries `{}`", self.file, self.marker)
    }
}

/// The mechanism through which `dist`'s compiled extensions use `package`'s C API and the
/// module that carries its marker, when the move `from` -> `to` changes that API and one of
/// its extension modules carries the marker.
pub(crate) fn abi_link(
    dist: &InstalledDist,
    package: &str,
    from: &Version,
    to: &Version,
) -> Option<AbiLink> {
    let api = c_api_changed(package, from, to)?;
    let carrier = carrier(dist, api.markers)?;
    Some(AbiLink {
        mechanism: api.mechanism,
        carrier: Some(carrier),
    })
}

/// The first of `dist`'s compiled extension modules (in `RECORD` order) that holds one of
/// `needles`, and which.
fn carrier(dist: &InstalledDist, needles: &[&'static str]) -> Option<Carrier> {
    if dist.format == DistFormat::Snapshot || needles.is_empty() {
        return None;
    }
    let site = dist.path.parent()?;
    let paths = super::record::inside_paths(&dist.path)?;
    let finders: Vec<memmem::Finder<'_>> = needles
        .iter()
        .map(|m| memmem::Finder::new(m.as_bytes()))
        .collect();
    let mut budget = MAX_DIST_BYTES;
    for path in paths.iter().filter(|path| is_extension(path)) {
        let Some(bytes) = read_capped(&site.join(path), budget.min(MAX_FILE_BYTES)) else {
            continue;
        };
        budget = budget.saturating_sub(bytes.len() as u64);
        if let Some(n) = finders.iter().position(|f| f.find(&bytes).is_some()) {
            return Some(Carrier {
                file: path.clone(),
                marker: needles[n],
            });
        }
        if budget == 0 {
            break;
        }
    }
    None
}

/// At most this many bytes are read from one extension module for the module names it holds.
const MAX_NAMES_BYTES: u64 = 96 << 20;
/// A bare (undotted) string this short in a binary is not read as a module name: see
/// [`module_names_in`].
const MIN_BARE_NAME: usize = 3;

/// The module names a compiled extension module of a dist holds as whole C strings, whose first
/// part is one of `tops` (`pyarrow.dataset`, `pyarrow` and `polars` in duckdb 0.8.1's
/// `duckdb.cpython-311-x86_64-linux-gnu.so`: the names its C++ code passes to
/// `PyImport_ImportModule` or looks up in `sys.modules`), sorted. Only importable extension
/// modules are read (`*.cpython-*.so`, `*.abi3.so`, `*.pyd`; not the shared libraries beside
/// them), each up to [`MAX_NAMES_BYTES`]: a name past that is not seen. A string that merely
/// equals a module's name counts as naming it: the claim made from it is "names", never
/// "calls" (and [`super::importers`] takes a bare one as an import only where the dist
/// declares the other). A bare name of [`MIN_BARE_NAME`] characters or fewer is not one: strings that short
/// fill a binary's tables of codes (duckdb 0.8.1 holds `pil`, `pip`, `pis` among its locale
/// codes, and does not import pip); a dotted name counts at any length.
///
/// What a compiler does not keep as one C string is not seen here: duckdb 0.8.1 imports
/// `pandas.core.arrays.arrow.dtype` (gone in pandas 2.1), but its compiled code builds that name
/// from a 16-byte constant (`pandas.core.arra`) and immediate operands, so no whole string holds
/// it, nor `pandas` alone; [`extension_module_names`] reads those through [`super::assembled`].
pub(crate) fn module_names_in(bytes: &[u8], tops: &dyn Fn(&str) -> bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut start = 0;
    for end in memchr::memchr_iter(0, bytes) {
        let text = &bytes[start..end];
        start = end + 1;
        if text.len() < 2 || text.len() > 120 || !(text[0].is_ascii_alphabetic() || text[0] == b'_')
        {
            continue;
        }
        let dotted = text.split(|&b| b == b'.').all(|part| {
            !part.is_empty()
                && !part[0].is_ascii_digit()
                && part.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        });
        let Ok(name) = std::str::from_utf8(text) else {
            continue;
        };
        let bare_code = !name.contains('.') && name.len() <= MIN_BARE_NAME;
        if dotted && !bare_code && tops(name.split('.').next().unwrap_or(name)) {
            out.insert(name.to_string());
        }
    }
    out
}

/// A module name an extension module builds in code instead of holding it as a C string
/// ([`super::assembled`]), and where a user sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Built {
    /// The module (`pandas.core.arrays.arrow.dtype`).
    pub module: String,
    /// The 16-byte constant it starts with (`pandas.core.arra`).
    pub head: String,
    /// That constant's address.
    pub head_at: u64,
    /// The address of the code that loads the constant and builds the rest.
    pub load_at: u64,
}

impl std::fmt::Display for Built {
    /// `` code at 0x1ba60b0 builds `pandas.core.arrays.arrow.dtype` from `pandas.core.arra` at
    /// 0x244ee90 and immediate operands ``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "code at {:#x} builds `{}` from `{}` at {:#x} and immediate operands",
            self.load_at, self.module, self.head, self.head_at
        )
    }
}

impl Built {
    /// Where a user sees it: `` duckdb/duckdb.cpython-311-x86_64-linux-gnu.so, a compiled
    /// extension module whose code at 0x1ba60b0 builds ... ``.
    pub(crate) fn cite(&self, file: &str) -> String {
        format!("{file}, a compiled extension module whose {self}")
    }
}

/// The modules installed dists ship whose names start with a 16-byte constant (the candidates an
/// [`super::assembled::Assembly`] may build: [`super::assembled::modules_starting`]).
pub(crate) type Shipped<'a> = &'a dyn Fn(&str) -> Vec<String>;

/// What one extension module names: its path in `RECORD`, the module names it holds whose first
/// part `tops` accepts (whole strings, [`module_names_in`], and those it builds in code), and
/// how it builds the latter.
pub(crate) type ExtensionNames = (String, BTreeSet<String>, Vec<Built>);

/// Each extension module of `dist` with the module names it holds whose first part `tops`
/// accepts: whole strings ([`module_names_in`]) and the modules `shipped` lists that its code
/// builds from a 16-byte constant and immediate operands ([`super::assembled`]: duckdb 0.8.1's
/// `pandas.core.arrays.arrow.dtype`); those holding none are left out.
pub(crate) fn extension_module_names(
    dist: &InstalledDist,
    tops: &dyn Fn(&str) -> bool,
    shipped: Shipped<'_>,
) -> Vec<ExtensionNames> {
    if dist.format == DistFormat::Snapshot {
        return Vec::new();
    }
    let (Some(site), Some(paths)) = (dist.path.parent(), super::record::inside_paths(&dist.path))
    else {
        return Vec::new();
    };
    paths
        .into_iter()
        .filter(|path| is_extension_module(path))
        .filter_map(|path| {
            let bytes = read_extension(site, &path)?;
            let mut names = module_names_in(&bytes, tops);
            let built = built_names(&bytes, tops, shipped);
            names.extend(built.iter().map(|b| b.module.clone()));
            (!names.is_empty()).then_some((path, names, built))
        })
        .collect()
}

/// The modules `shipped` lists that an extension module's code builds ([`super::assembled`]),
/// each once, at the first place that builds it.
fn built_names(bytes: &[u8], tops: &dyn Fn(&str) -> bool, shipped: Shipped<'_>) -> Vec<Built> {
    let mut out: Vec<Built> = Vec::new();
    for place in super::assembled::assemblies(bytes, tops) {
        for module in shipped(&place.head) {
            if place.builds(&module) && out.iter().all(|b| b.module != module) {
                out.push(Built {
                    module,
                    head: place.head.clone(),
                    head_at: place.head_at,
                    load_at: place.load_at,
                });
            }
        }
    }
    out.sort();
    out
}

/// Whether `path` is a Python extension module (`duckdb/duckdb.cpython-311-x86_64-linux-gnu.so`,
/// `polars/polars.abi3.so`, `x.pyd`), not a shared library it links.
pub(crate) fn is_extension_module(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.ends_with(".pyd")
        || (file.ends_with(".so") && (file.contains(".cpython-") || file.contains(".abi3.")))
}

/// An extension module's first [`MAX_NAMES_BYTES`] bytes (`path` relative to site-packages).
pub(crate) fn read_extension(site: &Path, path: &str) -> Option<Vec<u8>> {
    read_capped(&site.join(path), MAX_NAMES_BYTES)
}

fn is_extension(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.ends_with(".so") || file.ends_with(".pyd") || file.contains(".so.")
}

/// The first `cap` bytes of an installed file (a regular file only: a FIFO listed in `RECORD`
/// must not hang the scan).
pub(super) fn read_capped(path: &Path, cap: u64) -> Option<Vec<u8>> {
    crate::bounded::read_prefix(path, cap).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    #[test]
    fn only_a_known_c_api_across_a_line_that_changed_it_is_an_abi_change() {
        let numpy = c_api_changed("numpy", &v("1.26.4"), &v("2.0.0")).unwrap();
        assert!(numpy.mechanism.contains("_ARRAY_API"));
        assert!(c_api_changed("numpy", &v("2.0.0"), &v("1.26.4")).is_some());
        assert!(c_api_changed("numpy", &v("2.0.0"), &v("2.4.6")).is_none());
        assert!(c_api_changed("numpy", &v("1.24.4"), &v("1.26.4")).is_none());
        assert!(c_api_changed("torch", &v("2.11.0"), &v("3.0.0")).is_some());
        for (package, from, to) in [
            ("ml-dtypes", "0.5.4", "0.7.0"),
            ("pytz", "2025.2", "2026.6"),
            ("tzdata", "2025.2", "2026.6"),
            ("python-dateutil", "2.9.0", "4.0.0"),
            ("protobuf", "5.29.0", "7.36.2"),
            ("attrs", "25.4.0", "26.1.0"),
        ] {
            assert!(
                c_api_changed(package, &v(from), &v(to)).is_none(),
                "{package}"
            );
        }
    }

    #[test]
    fn an_extension_names_only_whole_strings_of_installed_modules() {
        // Shaped after duckdb 0.8.1's extension module: whole C strings `pyarrow.dataset`,
        // `numpy.core.multiarray` and `polars` among symbol names and format strings.
        let bytes = b"\x7fELF\0pyarrow.dataset\0from_pandas\0numpy.core.multiarray\0polars\0\
                      ({pandas.DataFrame}) -> None\0_ZN6duckdb4Item\0pyarrow.\0.numpy\0\
                      numpy.2x\0requests\0";
        let installed = |top: &str| matches!(top, "pyarrow" | "numpy" | "polars" | "pandas");
        let found: Vec<String> = module_names_in(bytes, &installed).into_iter().collect();
        assert_eq!(
            found,
            ["numpy.core.multiarray", "polars", "pyarrow.dataset"]
        );
        assert!(is_extension_module(
            "duckdb.cpython-311-x86_64-linux-gnu.so"
        ));
        assert!(is_extension_module("polars/polars.abi3.so"));
        assert!(!is_extension_module("pyarrow/libarrow.so.1500"));
        assert!(!is_extension_module("torch/lib/libtorch_cpu.so"));
    }

    #[test]
    fn a_short_bare_string_in_a_table_of_codes_names_no_module() {
        // duckdb 0.8.1's extension module, as its bytes are: a table of three-letter locale
        // codes holding `pip`, and the names it does look up (`sys.modules` then `polars`;
        // `pyarrow.dataset` then `pyarrow`). duckdb does not import pip.
        let bytes = b"Phlp\0pam\0pap\0pau\0pbi\0pcd\0pcm\0pdc\0pdt\0ped\0pex\0pfl\0phl\0\
                      phn\0pil\0pip\0pis\0pka\0pko\0pla\0pms\0png\0\
                      whilst downloading an exsys\0modules\0polars\0\0\0\
                      ({%}) -> %\0pyarrow.dataset\0pyarrow\0RecordBatch\0";
        let installed = |top: &str| matches!(top, "pyarrow" | "polars" | "pip" | "six");
        let found: Vec<String> = module_names_in(bytes, &installed).into_iter().collect();
        assert_eq!(found, ["polars", "pyarrow", "pyarrow.dataset"]);
        // A dotted name counts at any length; a bare one of three characters never does.
        let found = module_names_in(b"\0six.moves\0six\0", &installed);
        assert_eq!(found.into_iter().collect::<Vec<_>>(), ["six.moves"]);
    }
}
