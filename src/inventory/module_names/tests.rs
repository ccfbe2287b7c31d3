//! Unit tests of `crate::inventory::module_names`.

use std::collections::BTreeSet;

use super::{Lazy, ModuleNames, module_names};
use crate::inventory::test_sources::{real, set};

fn defined(source: &str, asked: &[&str]) -> BTreeSet<String> {
    module_names(source, &set(asked)).defined
}

#[test]
fn werkzeug_3_1_urls_mentions_url_quote_but_does_not_define_it() {
    let asked = [
        "url_quote",
        "url_parse",
        "iri_to_uri",
        "uri_to_iri",
        "_decode_idna",
    ];
    let old = module_names(&real("werkzeug-2.0.3/werkzeug/urls.py"), &set(&asked));
    let new = module_names(&real("werkzeug-3.1.3/werkzeug/urls.py"), &set(&asked));
    assert_eq!(
        old,
        ModuleNames {
            defined: set(&[
                "url_quote",
                "url_parse",
                "iri_to_uri",
                "uri_to_iri",
                "_decode_idna"
            ]),
            open: false,
            lazy: None,
            stars: Vec::new(),
        }
    );
    assert_eq!(
        new,
        ModuleNames {
            defined: set(&["iri_to_uri", "uri_to_iri", "_decode_idna"]),
            open: false,
            lazy: None,
            stars: Vec::new(),
        }
    );
}

#[test]
fn jinja2_3_1_no_longer_defines_markup_and_escape() {
    let asked = ["Markup", "escape", "Environment", "pass_context"];
    let old = module_names(&real("jinja2-3.0.3/jinja2/__init__.py"), &set(&asked));
    let new = module_names(&real("jinja2-3.1.4/jinja2/__init__.py"), &set(&asked));
    assert_eq!(old.defined, set(&asked));
    assert_eq!(new.defined, set(&["Environment", "pass_context"]));
    assert!(!old.open && !new.open);
}

/// A module that binds names in many ways (imports, `__all__`, assignments, `def`, `class`,
/// walrus, `with`, `for`, `type`), and mentions others in ways that bind
/// nothing: a docstring, a comment, strings, attributes, subscripts, function scope, longer
/// and prefixed names.
const MANY_WAYS: &str = r#"
"""Docstring naming in_doc."""
import os.path, sys as system
from .core import (
    a,  # in_comment
    b as bee,
)
__all__ = ["listed", 'also_listed']
__all__ += ["added"]
__all__.extend(("extended",))
x = y = 1
first, (second, *rest) = 1, (2, 3)
obj.attr = 5
table["key"] = 6
annotated: int = 7
counter += 1
message = "in_string" + f"{in_fstring}"
_prefixed_name = 3
def func(arg=1):
    inner = 2
    global from_function
class Klass:
    member = 3
if (walrus := 3) > 2: one_line = 4
with open(x) as handle: pass
for i, j in []: pass
type Alias = int
result = {"key": 1} if x else lambda v: v
"#;

/// The names [`MANY_WAYS`] defines at module level.
const DEFINED: &[&str] = &[
    "os",
    "system",
    "a",
    "bee",
    "listed",
    "also_listed",
    "added",
    "extended",
    "x",
    "y",
    "first",
    "second",
    "rest",
    "annotated",
    "counter",
    "message",
    "func",
    "from_function",
    "Klass",
    "walrus",
    "one_line",
    "handle",
    "i",
    "j",
    "Alias",
    "result",
];

/// The names [`MANY_WAYS`] mentions without defining them at module level.
const NOT_DEFINED: &[&str] = &[
    "in_doc",
    "path",
    "sys",
    "b",
    "in_comment",
    "obj",
    "attr",
    "table",
    "in_string",
    "in_fstring",
    "name",
    "prefixed_name",
    "arg",
    "inner",
    "member",
    "v",
];

#[test]
fn all_lists_count_and_strings_comments_and_longer_names_do_not() {
    let asked: Vec<&str> = DEFINED.iter().chain(NOT_DEFINED).copied().collect();
    assert_eq!(asked.len(), 42);
    assert_eq!(defined(MANY_WAYS, &asked), set(DEFINED));
    assert!(!module_names(MANY_WAYS, &set(&asked)).open);
}

#[test]
fn conditional_and_guarded_definitions_count() {
    let source = "\
try:
    from ._speedups import escape
except ImportError:
    from ._native import escape
    soft_unicode = str
if sys.version_info >= (3, 8):
    from typing import Literal
else:
    Literal = None
if TYPE_CHECKING:
    import typing_only
";
    assert_eq!(
        defined(
            source,
            &["escape", "soft_unicode", "Literal", "typing_only", "sys"]
        ),
        set(&["escape", "soft_unicode", "Literal", "typing_only"])
    );
}

#[test]
fn open_modules() {
    for source in [
        "from ._x import *\n",
        "def __getattr__(name):\n    pass\n",
        "__getattr__, __dir__, __all__ = lazy.attach(__name__, submodules)\n",
        "from ._lazy import __getattr__\n",
        "for n in names:\n    globals()[n] = make(n)\n",
        "def _init():\n    exec('x = 1')\n",
        "sys.modules[__name__] = _Module()\n",
        "globals().update(_names)\n",
        "exec(_code, globals())\n",
        "_globals = globals()\n_builder.Build(DESCRIPTOR, 'm', _globals)\n",
        "_g = globals()\n_g['x'] = 1\n",
        "_g = vars()\n_g.update(names)\n",
        "register(globals())\n",
        "_bind(1, globals(), strict=True)\n",
        "_bind(1, ns=globals())\n",
    ] {
        assert!(module_names(source, &set(&["x"])).open, "{source}");
    }
    for closed in [
        "import sys\nx = 'globals()'\n",
        // werkzeug 3.1's exceptions.py and utils.py, 2.0's routing.py
        "def _find():\n    for obj in globals().values():\n        pass\n",
        "def f():\n    module = __import__(name, globals(), locals(), [obj])\n",
        "def g():\n    exec(code, globs, locs)\n",
        "def h(obj):\n    obj.__dict__[self.__name__] = value\n",
        // matplotlib 3.7's qt_compat.py and font_manager.py
        "def _exec(obj):\n    obj.exec() if hasattr(obj, 'exec') else obj.exec_()\n",
        "def f(self):\n    vars(self).update(vars(new_fm))\n",
        // the namespace read, or handed on only in a function or to `__import__`
        "_mod = __import__('m', globals(), locals(), ['x'])\n",
        "_g = globals()\nprint(_g['__name__'])\n",
        "def f():\n    register(globals())\n",
        "_file = _LazyModule(__name__, globals()['__file__'], {})\n",
    ] {
        assert!(!module_names(closed, &set(&["x"])).open, "{closed}");
    }
}

/// Flask 3.1's `__init__.py` answers only `__version__`; Flask 2.3's answered the names
/// 3.0 removed. A `__getattr__` that reads a table, or falls through to something else,
/// keeps the module open.
#[test]
fn a_getattr_that_answers_named_cases_only_provides_those() {
    let flask_3_1 = "from .app import Flask as Flask\n\ndef __getattr__(name: str) -> t.Any:\n    if name == \"__version__\":\n        import importlib.metadata\n        import warnings\n\n        warnings.warn(\"gone\", DeprecationWarning, stacklevel=2)\n        return importlib.metadata.version(\"flask\")\n\n    raise AttributeError(name)\n";
    let names = module_names(flask_3_1, &set(&["_app_ctx_stack", "__version__", "Flask"]));
    assert!(!names.open);
    assert_eq!(names.defined, set(&["__version__", "Flask"]));
    let flask_2_3 = "def __getattr__(name):\n    if name == \"_app_ctx_stack\":\n        return _cv_app\n    elif name in (\"_request_ctx_stack\", \"escape\"):\n        return _other(name)\n    raise AttributeError(name)\n\ndef later(x):\n    if x: return 1\n";
    let names = module_names(
        flask_2_3,
        &set(&["_app_ctx_stack", "_request_ctx_stack", "gone"]),
    );
    assert!(!names.open);
    assert_eq!(
        names.defined,
        set(&["_app_ctx_stack", "_request_ctx_stack"])
    );
    for open in [
        // a table, not literals
        "def __getattr__(name):\n    if name in _deprecated:\n        return _deprecated[name]\n    raise AttributeError(name)\n",
        // falls through to a lookup
        "def __getattr__(name):\n    if name == \"x\":\n        return 1\n    return _lazy(name)\n",
        // never raises
        "def __getattr__(name):\n    if name == \"x\":\n        return 1\n",
        // defined twice
        "def __getattr__(name):\n    raise AttributeError(name)\nif X:\n    def __getattr__(name):\n        return 1\n",
    ] {
        assert!(module_names(open, &set(&["y"])).open, "{open}");
    }
}

#[test]
fn a_bracket_in_a_string_does_not_swallow_the_next_lines() {
    let source = "OPEN = \"(\"\nCLOSE = ')'\ndef after():\n    pass\n";
    assert_eq!(
        defined(source, &["OPEN", "CLOSE", "after"]),
        set(&["OPEN", "CLOSE", "after"])
    );
}

/// Strings that span lines do not swallow the definitions after them: a triple-quoted
/// string closed and reopened on one line (pygments' `''' + CSSFILE_TEMPLATE + '''`), an
/// escaped quote before the closing triple (numpy's f2py `\""""`), a triple-quoted string
/// closed on its own line with brackets in it, a single-quoted string continued by a
/// backslash (scipy's tests).
#[test]
fn strings_over_lines_do_not_swallow_what_follows() {
    let source = [
        "HEADER = '''\\",
        "<style>",
        "''' + TEMPLATE + '''",
        "</style>",
        "'''",
        "FOOTER = '''\\",
        "'''",
        "rules = {",
        "    'body': \"\"\"",
        "  s = f(\\\"\"\"\" + version + \"\"\"\\\");",
        "\"\"\",",
        "}",
        "HREF = re.compile(r\"\"\"href\\s*=\\s*['\"]?([^'\"> ]+)\"\"\", re.I)",
        "def check():",
        "    assert_((x <= 0), \"failed to find \\",
        "                        the value %i\" % i)",
        "class After:",
        "    pass",
    ]
    .join("\n");
    assert_eq!(
        defined(
            &source,
            &["HEADER", "FOOTER", "rules", "HREF", "check", "After"]
        ),
        set(&["HEADER", "FOOTER", "rules", "HREF", "check", "After"])
    );
}

/// jax 0.8.1's `jax/core.py` re-exports `Effect`; jax 0.12.0.1's does not, and its
/// `__getattr__ = _deprecation_getattr(__name__, _deprecations)` answers only the table's keys
/// (`pytype_aval_mappings`): closed, so `Effect` is surely gone. A helper over a table that is
/// not a dict literal, or another callee, stays open.
#[test]
fn a_deprecation_getattr_over_a_literal_table_answers_only_its_keys() {
    let asked = set(&["Effect", "pytype_aval_mappings", "Tracer"]);
    let old = module_names(&real("jax-0.8.1/jax/core.py"), &asked);
    assert!(old.defined.contains("Effect"), "{old:?}");
    let new = module_names(&real("jax-0.12.0.1/jax/core.py"), &asked);
    assert_eq!(
        new,
        ModuleNames {
            defined: set(&["Tracer", "pytype_aval_mappings"]),
            open: false,
            lazy: None,
            stars: Vec::new(),
        }
    );
    for source in [
        "_d = make()\n__getattr__ = deprecation_getattr(__name__, _d)\n",
        "_d = {'a': 1}\n__getattr__ = lazy_getattr(__name__, _d)\n",
    ] {
        assert!(module_names(source, &asked).open, "{source}");
    }
}

/// transformers' `__init__.py` replaces itself with a `_LazyModule`: 4.57.6's import structure
/// (and its `if TYPE_CHECKING:` mirror) lists `HybridCache`, 5.25.0's does not; both hand out
/// the names of the files under `models/` too (`define_import_structure(Path(__file__).parent /
/// "models")`, mirrored by `from .models import *`), which the caller reads. Before, the
/// replacement made the module open and nothing was claimed.
#[test]
fn a_lazy_module_hands_out_its_import_structure_and_the_folders_it_is_built_from() {
    let asked = set(&[
        "Cache",
        "DynamicCache",
        "EncoderDecoderCache",
        "HybridCache",
        "PreTrainedModel",
        "__version__",
    ]);
    let models = Some(Lazy {
        stars: vec![(1, "models".to_string())],
        folders: vec!["models".to_string()],
    });
    let old = module_names(
        &real("transformers-4.57.6/transformers/__init__.py"),
        &asked,
    );
    assert_eq!(
        old,
        ModuleNames {
            defined: asked.clone(),
            open: false,
            lazy: models.clone(),
            stars: Vec::new(),
        }
    );
    let new = module_names(
        &real("transformers-5.25.0/transformers/__init__.py"),
        &asked,
    );
    let mut kept = asked.clone();
    kept.remove("HybridCache");
    assert_eq!(
        new,
        ModuleNames {
            defined: kept,
            open: false,
            lazy: models,
            stars: Vec::new(),
        }
    );
    // `models/__init__.py`: built from its own folder (`_file = globals()["__file__"]`, a read
    // of the globals, not a write), one star per model
    let inner = module_names(
        &real("transformers-5.25.0/transformers/models/__init__.py"),
        &asked,
    );
    let lazy = inner.lazy.expect("lazy");
    assert!(!inner.open);
    assert_eq!(lazy.folders, [""]);
    assert!(lazy.stars.contains(&(1, "gemma2".to_string())), "{lazy:?}");
    assert!(lazy.stars.len() > 300, "{}", lazy.stars.len());
}

/// What keeps a lazy module open, or not lazy: a star import of an absolute module, a
/// structure built from what cannot be read, another replacement of `sys.modules[__name__]`, a
/// write of the globals.
#[test]
fn a_lazy_module_built_from_what_cannot_be_read_stays_open() {
    let asked = set(&["Gone"]);
    let lazy = |body: &str| {
        format!(
            "import sys\nfrom .utils import _LazyModule, define_import_structure\n{body}\n\
             sys.modules[__name__] = _LazyModule(__name__, globals()[\"__file__\"], {{}})\n"
        )
    };
    let closed = module_names(&lazy("from ..sub.x import *"), &asked);
    assert!(!closed.open, "{closed:?}");
    assert_eq!(closed.lazy.unwrap().stars, [(2, "sub.x".to_string())]);
    for body in [
        "from other import *",
        "s = define_import_structure(find_folder())",
        "globals()[\"Gone\"] = 1",
    ] {
        let found = module_names(&lazy(body), &asked);
        assert!(found.open, "{body}: {found:?}");
    }
    let replaced = module_names("import sys\nsys.modules[__name__] = Shim()\n", &asked);
    assert!(replaced.open && replaced.lazy.is_none(), "{replaced:?}");
}

/// protobuf's generated code since 3.20 binds its messages through the module's namespace, not
/// by assignment: tensorboard 2.21.0's real `projector_config_pb2.py` defines `EmbeddingInfo`,
/// which torch 2.11.0's `torch/utils/tensorboard/_embedding.py` (line 7) imports (the import
/// works: `from torch.utils.tensorboard import SummaryWriter` and a write ran beside it).
#[test]
fn protobuf_gencode_that_binds_its_messages_through_globals_is_open() {
    let source = real("tensorboard-2.21.0/tensorboard/plugins/projector/projector_config_pb2.py");
    let names = module_names(&source, &set(&["EmbeddingInfo", "DESCRIPTOR"]));
    assert_eq!(names.defined, set(&["DESCRIPTOR"]));
    assert!(names.open);
}
