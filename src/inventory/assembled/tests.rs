use super::*;

/// duckdb 0.8.1's two functions that build `pandas.core.arrays.arrow.dtype` and
/// `pandas.core.arrays.arrow`, reassembled from its disassembly (testdata's `load_subtypes.S`).
const DUCKDB: &[u8] =
    include_bytes!("../../../testdata/extensions/assembled-names/duckdb-0.8.1-load-subtypes.so");
/// The same literal as GCC 12 builds it: two overlapping 16-byte constants.
const GCC12: &[u8] =
    include_bytes!("../../../testdata/extensions/assembled-names/gcc12-two-constants.so");

fn pandas(top: &str) -> bool {
    top == "pandas"
}

#[test]
fn duckdbs_constant_and_operands_build_the_module_it_loads_and_no_other() {
    let found = assemblies(DUCKDB, &pandas);
    let places: Vec<(&str, u64, u64)> = found
        .iter()
        .map(|a| (a.head.as_str(), a.head_at, a.load_at))
        .collect();
    assert_eq!(
        places,
        [
            ("pandas.core.arra", 0x2000, 0x1020),
            ("pandas.core.arra", 0x2000, 0x10b0)
        ]
    );
    let built = |a: &Assembly| {
        [
            "pandas.core.arrays.arrow.dtype",
            "pandas.core.arrays.arrow",
            "pandas.core.arrays.arrow.dtypes",
            "pandas.core.arrays.arrow.array",
            "pandas.core.arrays.arrow._arrow_utils",
            "pandas.core.arrays",
            "pandas.core.arra",
        ]
        .into_iter()
        .filter(|m| a.builds(m))
        .collect::<Vec<_>>()
    };
    assert_eq!(built(&found[0]), ["pandas.core.arrays.arrow.dtype"]);
    assert_eq!(built(&found[1]), ["pandas.core.arrays.arrow"]);
    assert!(assemblies(DUCKDB, &|top| top == "numpy").is_empty());
}

#[test]
fn two_overlapping_constants_build_the_name_they_end() {
    let found = assemblies(GCC12, &pandas);
    assert_eq!(found.len(), 1);
    assert!(found[0].builds("pandas.core.arrays.arrow.dtype"));
    assert!(!found[0].builds("pandas.core.arrays.arrow"));
    assert!(!found[0].builds("pandas.core.arrays.arrow.dtypx"));
}

#[test]
fn a_file_that_is_no_x86_64_elf_has_no_assembled_names() {
    assert!(assemblies(b"\x7fELF\0pandas.core.arrays.arrow.dtype\0", &pandas).is_empty());
    assert!(assemblies(&DUCKDB[..0x1000], &pandas).is_empty());
}

#[test]
fn the_modules_a_file_list_holds_under_a_constant() {
    let paths: Vec<String> = [
        "pandas/core/arrays/arrow/__init__.py",
        "pandas/core/arrays/arrow/dtype.py",
        "pandas/core/arrays/arrow/_arrow_utils.py",
        "pandas/core/arrays/arrow/extension_types.py",
        "pandas/core/arrays/_mixins.py",
        "pandas/core/arrays/sparse/accessor.py",
        "pandas/core/arrays/string_arrow.py",
        "pandas/_libs/missing.cpython-311-x86_64-linux-gnu.so",
        "pandas/core/arrays/arrow/dtype.pyi",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        modules_starting(&paths, "pandas.core.arra"),
        [
            "pandas.core.arrays._mixins",
            "pandas.core.arrays.arrow",
            "pandas.core.arrays.arrow.dtype",
            "pandas.core.arrays.string_arrow",
        ]
    );
    assert_eq!(
        modules_starting(&paths, "pandas._libs.mis"),
        ["pandas._libs.missing"]
    );
}
