use std::collections::BTreeSet;

use super::ImportGuard;
use super::dist::imported_tops;
use super::statements::import_statements;
use crate::inventory::test_sources::{real, set};

fn statements(source: &str, module: &str) -> Vec<(usize, String, Vec<String>, ImportGuard)> {
    import_statements(source, &set(&[module]))
        .into_iter()
        .filter(|s| !s.attribute)
        .map(|s| (s.line, s.module, s.names, s.guard))
        .collect()
}

#[test]
fn imported_tops_reads_every_import_line_of_real_sources() {
    // The same modules as reading every line, on real sources.
    for path in [
        "black-22.1.0/black/__init__.py",
        "flask-1.1.2/flask/__init__.py",
        "jinja2-3.1.4/jinja2/__init__.py",
    ] {
        let source = real(path);
        let mut every_line = BTreeSet::new();
        for line in source.lines().map(str::trim_start) {
            let words: Vec<&str> = if let Some(rest) = line.strip_prefix("from ") {
                rest.split_whitespace().take(1).collect()
            } else if let Some(rest) = line.strip_prefix("import ") {
                rest.split(',')
                    .filter_map(|p| p.split_whitespace().next())
                    .collect()
            } else {
                continue;
            };
            let tops = words.iter().map(|w| w.split('.').next().unwrap_or(""));
            every_line.extend(tops.filter(|t| !t.is_empty()).map(str::to_string));
        }
        assert_eq!(imported_tops(source.as_bytes()), every_line, "{path}");
    }
    let black = imported_tops(real("black-22.1.0/black/__init__.py").as_bytes());
    assert!(black.contains("click") && black.contains("typing"));
    // Relative imports name no top-level module; a word "import" inside a line that does
    // not start with `import`/`from` is not an import.
    let tops = imported_tops(
        b"from . import x\nx = 'import numpy'\n  import os.path, json as j\r\nfrom  a.b import c\n",
    );
    assert_eq!(tops, set(&["a", "json", "os"]));
}

#[test]
fn black_22_1_imports_click_unicodefun_under_a_module_not_found_guard() {
    // The same statements Python's ast reads (testdata/risk-corpus/cases/
    // black221-click-8.1.7.json, `imports`): `from click import _unicodefun` inside
    // `try: ... except ModuleNotFoundError`, which a missing *name* is not.
    let got = statements(&real("black-22.1.0/black/__init__.py"), "click");
    let want = vec![
        (34, "click".to_string(), vec![], ImportGuard::None),
        (
            35,
            "click.core".to_string(),
            vec!["ParameterSource".to_string()],
            ImportGuard::None,
        ),
        (
            1408,
            "click".to_string(),
            vec!["core".to_string()],
            ImportGuard::MissingModule,
        ),
        (
            1409,
            "click".to_string(),
            vec!["_unicodefun".to_string()],
            ImportGuard::MissingModule,
        ),
    ];
    assert_eq!(got, want);
}

/// cffi 1.15.1's `cparser.py` imports `pycparser.yacctab` and `pycparser.lextab` (gone in
/// pycparser 3) only in `_workaround_for_static_import_finders`, "This function is never
/// called": dead. Its module-level `import pycparser` (in a `try:` body whose handler catches
/// ImportError) is not. A public function, or a private one the file calls, is not dead.
#[test]
fn an_import_in_a_private_function_nothing_calls_is_dead() {
    let got: Vec<(usize, String, bool)> =
        import_statements(&real("cffi-1.15.1/cffi/cparser.py"), &set(&["pycparser"]))
            .into_iter()
            .map(|s| (s.line, s.module, s.dead))
            .collect();
    assert_eq!(
        got,
        vec![
            (23, "pycparser.yacctab".to_string(), true),
            (24, "pycparser.lextab".to_string(), true),
        ]
    );
    let source = "def patch():\n    import m.a\ndef _used():\n    import m.b\n\
                      async def _never():\n    import m.c\nclass C:\n    def _meth(self):\n        \
                      import m.d\nX = _used\n";
    let dead: Vec<(String, bool)> = import_statements(source, &set(&["m"]))
        .into_iter()
        .map(|s| (s.module, s.dead))
        .collect();
    assert_eq!(
        dead,
        vec![
            ("m.a".to_string(), false),
            ("m.b".to_string(), false),
            ("m.c".to_string(), true),
            ("m.d".to_string(), true),
        ]
    );
    // Only a whole word on another line counts: `_partial` and `x_part` do not name `_part`;
    // `(_helper)` does, and `_helper` naming itself on its own `def` line does not.
    let source = "def _part():\n    import m.e\nY = _partial + x_part\n\
                  def _helper(_helper=None):\n    import m.f\nZ = [(_helper)]\n";
    let dead: Vec<(String, bool)> = import_statements(source, &set(&["m"]))
        .into_iter()
        .map(|s| (s.module, s.dead))
        .collect();
    assert_eq!(
        dead,
        vec![("m.e".to_string(), true), ("m.f".to_string(), false)]
    );
}

/// flax 0.12.1's `nnx/variablelib.py` line 277, `class VariableEffect(jax.core.Effect):`
/// after `import jax`: module `jax.core`, names `Effect`, an attribute use. A chain in a
/// string, on a name not imported from the module, or after a call is none; one in a function
/// body is deferred.
#[test]
fn a_class_base_on_an_imported_module_is_an_attribute_use() {
    let uses: Vec<(usize, String, Vec<String>)> =
        import_statements(&real("flax-0.12.1/flax/nnx/variablelib.py"), &set(&["jax"]))
            .into_iter()
            .filter(|s| s.attribute)
            .map(|s| (s.line, s.module, s.names))
            .collect();
    assert!(
        uses.contains(&(277, "jax.core".to_string(), vec!["Effect".to_string()])),
        "{uses:?}"
    );
    let source = "import jax.numpy as jnp\nfrom jax import tree_util as tu\nimport other\n\
                      class A(jnp.ndarray, other.Base):\n    x = 'jax.core.Y'\n\
                      @tu.register_pytree_node_class\nclass B(f().jax.Z, \"jnp.Q\"):\n    pass\n\
                      def g():\n    class C(jnp.Inner):\n        pass\n";
    // `class C(jnp.Inner)` in `g` is a use in a function body: deferred, for the call-time
    // evidence only
    let (deferred, uses): (Vec<_>, Vec<_>) = import_statements(source, &set(&["jax"]))
        .into_iter()
        .filter(|s| s.attribute)
        .partition(|s| s.deferred);
    let deferred: Vec<(usize, String)> = deferred.into_iter().map(|s| (s.line, s.module)).collect();
    assert_eq!(deferred, vec![(10, "jax.numpy".to_string())]);
    let uses: Vec<(usize, String, Vec<String>)> = uses
        .into_iter()
        .map(|s| (s.line, s.module, s.names))
        .collect();
    assert_eq!(
        uses,
        vec![
            (4, "jax.numpy".to_string(), vec!["ndarray".to_string()]),
            (
                6,
                "jax.tree_util".to_string(),
                vec!["register_pytree_node_class".to_string()]
            ),
        ]
    );
}

#[test]
fn flask_1_1_2_imports_markup_and_escape_from_jinja2() {
    let got = statements(&real("flask-1.1.2/flask/__init__.py"), "jinja2");
    assert_eq!(
        got,
        vec![
            (
                14,
                "jinja2".to_string(),
                vec!["escape".to_string()],
                ImportGuard::None
            ),
            (
                15,
                "jinja2".to_string(),
                vec!["Markup".to_string()],
                ImportGuard::None
            ),
        ]
    );
}

#[test]
fn guards_and_conditions() {
    let source = "\
import os
try:
    import click.termui
except ImportError:
    pass
try:
    from click import style
except (ModuleNotFoundError, OSError) as e:
    style = None
if TYPE_CHECKING:
    from click import Context
else:
    import click.parser
def f():
    from click import (
        echo,  # a comment
        secho as s,
    )
    x = \"\"\"
from click import not_code
\"\"\"
class C:
    import click.core
from click.testing import *
from .click import relative
";
    assert_eq!(
        statements(source, "click"),
        vec![
            (3, "click.termui".to_string(), vec![], ImportGuard::Any),
            (
                7,
                "click".to_string(),
                vec!["style".to_string()],
                ImportGuard::MissingModule
            ),
            (
                15,
                "click".to_string(),
                vec!["echo".to_string(), "secho".to_string()],
                ImportGuard::None
            ),
            (23, "click.core".to_string(), vec![], ImportGuard::None),
            (24, "click.testing".to_string(), vec![], ImportGuard::None),
        ]
    );
}

#[test]
fn an_import_under_an_availability_test_runs_at_import_time() {
    // transformers 5.17.0: `if is_jinja_available():` then `import jinja2` at line 36, which
    // runs wherever Jinja2 is installed; import_statements leaves it out (an `if`).
    let source = real("transformers-5.17.0/transformers/utils/chat_template_utils.py");
    let wanted = set(&["jinja2"]);
    assert!(import_statements(&source, &wanted).is_empty());
    let found: Vec<(usize, String)> = super::import_time_statements(&source, &wanted)
        .into_iter()
        .map(|s| (s.line, s.module))
        .collect();
    assert_eq!(found.first(), Some(&(36, "jinja2".to_string())));
    assert!(found.iter().all(|(line, _)| (36..=43).contains(line)));
    // Never: typing-only, platform tests, a function body, a caught ImportError, an else.
    let source = "import sys\nif TYPE_CHECKING:\n    import typed\n\
                      if sys.platform == 'win32':\n    import winonly\n\
                      def f():\n    import later\n\
                      try:\n    import opt\nexcept ImportError:\n    opt = None\n\
                      if have():\n    pass\nelse:\n    import fallback\n\
                      class C:\n    import inclass\n\
                      if have():\n    import real\n";
    let wanted = set(&[
        "typed", "winonly", "later", "opt", "fallback", "inclass", "real",
    ]);
    let found: Vec<String> = super::import_time_statements(source, &wanted)
        .into_iter()
        .map(|s| s.module)
        .collect();
    assert_eq!(found, ["inclass", "real"]);
}

/// A dotted use: (line, module, names, function, deferred).
type Use = (usize, String, Vec<String>, Option<String>, bool);

/// The dotted uses a function body makes of a module.
fn uses(source: &str, module: &str) -> Vec<Use> {
    import_statements(source, &set(&[module]))
        .into_iter()
        .filter(|s| s.attribute)
        .map(|s| (s.line, s.module, s.names, s.function, s.deferred))
        .collect()
}

#[test]
fn a_dotted_use_in_a_function_body_is_read_at_its_own_line() {
    // langchain 0.0.300's `langchain/llms/openai.py` lines 84-97, shortened: the function's own
    // `import openai`, then a list whose items span lines.
    let source = "def _create_retry_decorator(\n    llm,\n) -> Callable[[Any], Any]:\n    import openai\n\n    errors = [\n        openai.error.Timeout,\n        openai.error.APIError,  # openai.api_resources\n    ]\n    return errors\n\n\ndef completion_with_retry(llm):\n    return _create_retry_decorator(llm)\n";
    let f = Some("_create_retry_decorator".to_string());
    assert_eq!(
        uses(source, "openai"),
        vec![
            (
                7,
                "openai.error".into(),
                vec!["Timeout".into()],
                f.clone(),
                true
            ),
            // its own physical line; the comment's name is no use
            (8, "openai.error".into(), vec!["APIError".into()], f, true),
        ]
    );
}

#[test]
fn dotted_uses_that_may_not_run_or_are_caught_are_not_read() {
    let source = "import openai\nfrom typing import TYPE_CHECKING\n\n\ndef f():\n    if TYPE_CHECKING:\n        x = openai.error.Timeout\n    try:\n        y = openai.error.APIError\n    except Exception:\n        pass\n    z = 'openai.error.X'\n    return openai.types.Model\n\n\nf()\n";
    assert_eq!(
        uses(source, "openai"),
        vec![(
            13,
            "openai.types".into(),
            vec!["Model".into()],
            Some("f".into()),
            true
        )]
    );
    // a name no import binds to the module is no use of it
    assert_eq!(
        uses("def g(openai):\n    return openai.error.X\n", "openai"),
        vec![]
    );
}
