//! Tests of another module's version that raise when its module is imported: pyarrow 26.0.1's
//! `pyarrow/lib.pyx` (the Cython source of `pyarrow.lib`, which `import pyarrow` runs) holds
//!
//! ```text
//! if np is not None:
//!     if int(np.__version__.partition('.')[0]) < 2:
//!         raise ImportError(
//! ```
//!
//! after `import numpy as np`: beside numpy 1.26.4, `import pyarrow` fails ("pyarrow requires
//! NumPy 2.0 or newer, found 1.26.4"), though pyarrow 26.0.1 declares no numpy requirement.
//!
//! In: a Python or Cython source. Out: each `if`/`elif` outside every function (nested in
//! other `if`s too), not in a `try:` that catches `ImportError`, whose test is one of two exact
//! shapes on `A.__version__` of a module `A` imported in the file, and whose block starts with
//! `raise`: the major version as an integer (`int(A.__version__.partition('.')[0]) < 2`, or
//! `.split('.')[0]`) against an integer, or the version parsed (`Version(A.__version__) <
//! Version("2.0")`, `parse`, `parse_version`, `LooseVersion`) against a literal. Any other
//! test (a string comparison, a helper, a version read elsewhere) is not read: no claim.

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifier};

use super::ImportGuard;
use super::blocks::{caught_by, in_def, walk_blocks};
use super::lines::logical_lines;

/// One test of another module's version whose block raises at import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VersionTest {
    /// The `if` line (1-based).
    pub line: usize,
    /// The module whose version it reads (`numpy`).
    pub module: String,
    /// The test as written (`int(np.__version__.partition('.')[0]) < 2`).
    pub test: String,
    /// What it compares.
    compare: Compare,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Compare {
    /// The major version against an integer.
    Major(Op, u64),
    /// The whole version against a version.
    Version(Op, Version),
}

/// A comparison as Python runs it: `Version.__lt__` and the others of `packaging.version` (and
/// `int`'s) are a plain total order. No PEP 440 specifier match (`VersionSpecifier::contains`)
/// stands in for it: a specifier ignores local labels (`==2.1.0` matches `2.1.0+cu121`, which
/// `Version('2.1.0+cu121') == Version('2.1.0')` does not) and keeps a bound's pre-releases out
/// of `<` and its post-releases out of `>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    fn holds<T: Ord>(self, a: &T, b: &T) -> bool {
        match self {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
            Op::Eq => a == b,
            Op::Ne => a != b,
        }
    }
}

impl VersionTest {
    /// Whether the test holds (the module raises) with `version` of the module's dist.
    pub(crate) fn holds(&self, version: &Version) -> bool {
        match &self.compare {
            Compare::Major(op, n) => op.holds(&version.release().first().copied().unwrap_or(0), n),
            Compare::Version(op, v) => op.holds(version, v),
        }
    }

    /// The versions of the module's dist with which the test does not hold (the module
    /// imports): `>=2` for `int(np.__version__.partition('.')[0]) < 2`, `>=1.22` for
    /// `Version(np.__version__) < Version('1.22')`.
    pub(crate) fn passing(&self) -> VersionSpecifier {
        let spec = match &self.compare {
            Compare::Major(op, n) => match op {
                Op::Lt => format!(">={n}"),
                Op::Le => format!(">={}", n + 1),
                Op::Gt => format!("<{}", n + 1),
                Op::Ge => format!("<{n}"),
                Op::Eq => format!("!={n}.*"),
                Op::Ne => format!("=={n}.*"),
            },
            Compare::Version(op, v) => match op {
                Op::Lt => format!(">={v}"),
                Op::Le => format!(">{v}"),
                Op::Gt => format!("<={v}"),
                Op::Ge => format!("<{v}"),
                Op::Eq => format!("!={v}"),
                Op::Ne => format!("=={v}"),
            },
        };
        VersionSpecifier::from_str(&spec).expect("an operator and a version make a specifier")
    }
}

/// The version tests of `source` that raise at import (see the module's docs).
pub(crate) fn raising_version_tests(source: &str) -> Vec<VersionTest> {
    let lines = logical_lines(source);
    let mut aliases: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::new();
    walk_blocks(&lines, |at, logical, open| {
        let in_def = in_def(open);
        let caught = caught_by(open) == ImportGuard::Any;
        let text = logical.text.as_ref();
        if !in_def {
            bind_aliases(text, &mut aliases);
        }
        let test = text
            .strip_prefix("if ")
            .or_else(|| text.strip_prefix("elif "))
            .and_then(|t| t.strip_suffix(':'))
            .map(str::trim);
        let raises = lines
            .get(at + 1)
            .is_some_and(|next| next.indent > logical.indent && next.text.starts_with("raise"));
        if let Some(test) = test.filter(|_| !in_def && !caught && raises)
            && let Some((module, compare)) = parse_test(test, &aliases)
        {
            out.push(VersionTest {
                line: logical.line,
                module,
                test: test.to_string(),
                compare,
            });
        }
    });
    out
}

/// `import numpy as np` (`np` -> `numpy`), `import numpy` (`numpy` -> `numpy`).
fn bind_aliases(text: &str, aliases: &mut BTreeMap<String, String>) {
    let Some(rest) = text.strip_prefix("import ") else {
        return;
    };
    for part in rest.split(',') {
        match part.split_whitespace().collect::<Vec<_>>().as_slice() {
            [m, "as", alias] if !m.contains('.') => {
                aliases.insert(alias.to_string(), m.to_string());
            }
            [m] if !m.contains('.') => {
                aliases.insert(m.to_string(), m.to_string());
            }
            _ => {}
        }
    }
}

/// The module and comparison of a test in one of the two shapes read.
fn parse_test(test: &str, aliases: &BTreeMap<String, String>) -> Option<(String, Compare)> {
    let flat: String = test.chars().filter(|c| !c.is_whitespace()).collect();
    let flat = flat.replace('"', "'");
    let (left, op, right) = split_op(&flat)?;
    for (alias, module) in aliases {
        let version = format!("{alias}.__version__");
        let majors = [
            format!("int({version}.partition('.')[0])"),
            format!("int({version}.split('.')[0])"),
        ];
        if majors.contains(&left.to_string()) {
            return Some((module.clone(), Compare::Major(op, right.parse().ok()?)));
        }
        for wrapper in ["Version", "parse", "parse_version", "LooseVersion"] {
            let qualified = |w: &str| {
                w.rsplit('.').next() == Some(wrapper)
                    && w.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            };
            let Some((w, inner)) = left.strip_suffix(')').and_then(|l| l.split_once('(')) else {
                continue;
            };
            if inner != version || !qualified(w) {
                continue;
            }
            let literal = right
                .strip_prefix(w)
                .and_then(|r| r.strip_prefix("('"))
                .and_then(|r| r.strip_suffix("')"))?;
            return Some((
                module.clone(),
                Compare::Version(op, Version::from_str(literal).ok()?),
            ));
        }
    }
    None
}

/// `a<b` as (`a`, `<`, `b`): the one comparison of a test without spaces.
fn split_op(flat: &str) -> Option<(&str, Op, &str)> {
    for (token, op) in [
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<", Op::Lt),
        (">", Op::Gt),
    ] {
        if let Some((left, right)) = flat.split_once(token) {
            if right.contains(['<', '>', '=']) || left.contains(['<', '>', '=']) {
                return None;
            }
            return Some((left, op, right));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    /// pyarrow 26.0.1's `pyarrow/lib.pyx`, lines 24-46 (the Cython `cimport` lines left in).
    const PYARROW_LIB: &str = "\
import datetime
import decimal as _pydecimal
try:
    import numpy as np
except ImportError:
    np = None
import os
import sys

from cython.operator cimport dereference as deref
from pyarrow.includes.libarrow cimport *
cimport cpython as cp


# Initialize NumPy C API only if numpy was able to be imported
if np is not None:
    if int(np.__version__.partition('.')[0]) < 2:
        raise ImportError(
            f\"pyarrow requires NumPy 2.0 or newer, found {np.__version__}\"
        )
    arrow_init_numpy()
";

    #[test]
    fn pyarrow_26_raises_beside_numpy_1() {
        let found = raising_version_tests(PYARROW_LIB);
        assert_eq!(found.len(), 1, "{found:?}");
        let test = &found[0];
        assert_eq!(
            (test.line, test.module.as_str(), test.test.as_str()),
            (17, "numpy", "int(np.__version__.partition('.')[0]) < 2")
        );
        assert!(test.holds(&v("1.26.4")));
        assert!(!test.holds(&v("2.0.0")));
        assert!(!test.holds(&v("2.4.6")));
        assert_eq!(test.passing().to_string(), ">=2");
    }

    #[test]
    fn only_the_exact_shapes_at_import_raising_are_read() {
        let source = "\
from packaging.version import Version
import numpy as np, scipy
import pandas
if Version(np.__version__) < Version('1.22'):
    raise ImportError('old numpy')
elif packaging.version.parse(scipy.__version__) >= packaging.version.parse(\"2\"):
    raise RuntimeError('new scipy')
if Version(pandas.__version__) < Version('2'):
    warnings.warn('old pandas')
if np.__version__ < '1.22':
    raise ImportError('a string comparison')
if helper(np.__version__) < 2:
    raise ImportError('a helper')
def f():
    if int(np.__version__.split('.')[0]) < 2:
        raise ImportError('in a function')
try:
    if int(np.__version__.split('.')[0]) < 3:
        raise ImportError('caught')
except ImportError:
    pass
";
        let found: Vec<(usize, String)> = raising_version_tests(source)
            .into_iter()
            .map(|t| (t.line, t.module))
            .collect();
        assert_eq!(found, [(4, "numpy".to_string()), (6, "scipy".to_string())]);
        let tests = raising_version_tests(source);
        assert!(tests[0].holds(&v("1.21.6")) && !tests[0].holds(&v("1.22.0")));
        assert!(tests[1].holds(&v("2.0")) && !tests[1].holds(&v("1.17.1")));
        let passing: Vec<String> = tests.iter().map(|t| t.passing().to_string()).collect();
        assert_eq!(passing, [">=1.22", "<2"]);
        for (test, version) in [(&tests[0], "1.22.0"), (&tests[1], "1.17.1")] {
            assert!(test.passing().contains(&v(version)) && !test.holds(&v(version)));
        }
    }

    /// Each answer as Python's `packaging.version.Version` gives it (pip 23.2.1's copy,
    /// `Version('2.0.0rc1') < Version('2.0')` is `True` ...), where a PEP 440 specifier match
    /// answers the other way: the test is an order, not a specifier.
    #[test]
    fn a_parsed_version_compares_as_python_orders_it_not_as_a_specifier_matches() {
        use pep440_rs::VersionSpecifier;
        let source = "\
import numpy, torch, attr
if Version(numpy.__version__) < Version('2.0'):
    raise ImportError('a pre-release of the bound is below it')
if Version(torch.__version__) <= Version('2.1.0'):
    raise ImportError('a local label is above the bound')
if Version(torch.__version__) == Version('2.1.0'):
    raise ImportError('a local label is not equal')
if Version(attr.__version__) > Version('1.7'):
    raise ImportError('a post-release of the bound is above it')
";
        let tests = raising_version_tests(source);
        let cases = [
            ("2.0.0rc1", true, "<2.0"),
            ("2.1.0+cu121", false, "<=2.1.0"),
            ("2.1.0+cu121", false, "==2.1.0"),
            ("1.7.post1", true, ">1.7"),
        ];
        assert_eq!(tests.len(), cases.len(), "{tests:?}");
        for (test, (version, python, specifier)) in tests.iter().zip(cases) {
            assert_eq!(
                test.holds(&v(version)),
                python,
                "{} with {version}",
                test.test
            );
            let specifier = VersionSpecifier::from_str(specifier).unwrap();
            assert_eq!(specifier.contains(&v(version)), !python, "{specifier}");
        }
    }
}
