//! Which installed dists import a module, read from their Python sources.
//!
//! In: an installed dist read from disk (its `RECORD` lists its files) and a top-level module
//! name (`pkg_resources`). Out: the first of its `.py` files with an `import` statement of that
//! module (`import pkg_resources`, `import pkg_resources.extern as x`, `from pkg_resources
//! import ...`, `import os, pkg_resources`), at any indentation (inside `try:` too).
//!
//! [`statements::import_statements`] and [`import_uses_in`] read every absolute import
//! statement of some modules with what it imports (`from jinja2 import Markup, escape`: module
//! `jinja2`, names `Markup`, `escape`) and how it is guarded: statements under
//! `if`/`elif`/`else`/`match` or in an `except` handler run only sometimes and are left out (`if
//! TYPE_CHECKING:` among them), but for an `except ImportError:` handler's import at module
//! level, kept with the `try:` body it falls back from and the `__build__` test of the branch it
//! sits in (`fallbacks`: requests-toolbelt 0.9.1's `_compat.py` line 50, which runs where the
//! body's import fails); one in a `try:` body is guarded by what its handlers catch
//! ([`ImportGuard`]); one inside a private function that nothing else in its file names is marked
//! dead (it never runs). Which names the imported module itself binds is
//! [`super::module_names`]'s job.
//!
//! What it cannot see: imports spelled at run time (`importlib.import_module("...")`,
//! `__import__`), imports in compiled extensions or in byte code without sources, statements
//! split over lines with backslashes, and dists read from a snapshot (no files).
//!
//! Its parts: `dist` (which files of a dist are read, and a cheap first pass over them),
//! `lines` (logical lines), `guards` (what a block says of the statements inside it), `blocks`
//! (the blocks open around each line, one walk for every reader below), `runs` (which functions
//! run), `statements` (the import statements themselves), `fallbacks` (the imports an
//! `except ImportError:` handler falls back to), `version_tests` (tests of another module's
//! version that raise at import) and `gencode` (protobuf generated modules whose shape the
//! runtime refuses).

mod blocks;
mod dist;
mod fallbacks;
mod gencode;
mod guards;
mod lines;
mod runs;
mod statements;
mod version_tests;

pub(crate) use dist::{
    MAX_FILE_BYTES, import_uses_in, imported_modules, imports_module, is_build_copy,
    read_installed, record_paths, source_imports_module,
};
pub(crate) use fallbacks::assigned_build;
pub use fallbacks::{BranchTest, Fallback};
pub(crate) use gencode::{
    DirectDescriptor, direct_descriptor, may_build_descriptors, protobuf_refuses_direct_descriptors,
};
pub(super) use lines::logical_lines;
pub(crate) use statements::{
    import_statements_run_by, import_time_statements, unconditional_imports,
};
pub(crate) use version_tests::{VersionTest, raising_version_tests};

/// What a `try:` around an import statement catches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImportGuard {
    /// Nothing: a failing import fails the importing module.
    None,
    /// Only `ModuleNotFoundError`: a missing module is caught, a missing name
    /// (`from click import _unicodefun`, an `ImportError`) is not.
    MissingModule,
    /// `ImportError`, `Exception`, `BaseException` or everything.
    Any,
}

/// One absolute import statement of a module (`import a.b`, `from a.b import x, y`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportStatement {
    /// Its first line (1-based).
    pub line: usize,
    /// The module imported or imported from (`a.b`).
    pub module: String,
    /// The names a `from` import takes (empty for `import a.b`; `*` left out).
    pub names: Vec<String>,
    /// What catches its failure.
    pub guard: ImportGuard,
    /// It is inside a private function (`def _name`) that nothing else in its file names: it
    /// never runs (cffi 1.15's `_workaround_for_static_import_finders`, "This function is never
    /// called", imports `pycparser.lextab`). An import in a function that is called is kept:
    /// black 22.1's `patch_click()` imports `click._unicodefun` when `black` starts.
    pub dead: bool,
    /// It is inside a function that runs neither when its module is imported nor when the
    /// dist's console or GUI scripts start, as far as its file shows (`runs`): Jinja2 2.11.3's
    /// `PackageLoader.__init__` runs `from pkg_resources import ...` only when a user makes a
    /// `PackageLoader`. Its failure is no import-time break: no claim is made from it.
    pub deferred: bool,
    /// An import in an `except ImportError:` handler (its guard is [`ImportGuard::Any`], as
    /// for an optional import): it runs where the `try:` body's import fails, and then its own
    /// failure is not caught ([`Fallback`]: requests-toolbelt 0.9.1's `_compat.py` line 50
    /// under urllib3 2).
    pub fallback: Option<Box<Fallback>>,
    /// Not an import: a module-level attribute use of an imported module in a class base or a
    /// decorator (`class VariableEffect(jax.core.Effect):` after `import jax` is module
    /// `jax.core`, names `Effect`), which fails at import as a missing name would; or a dotted
    /// use in a function body (`openai.error.Timeout` after `import openai`), always
    /// [`deferred`](Self::deferred): only the call-time evidence reads it.
    pub attribute: bool,
    /// The innermost function whose body holds it (`_create_retry_decorator`), if any.
    pub function: Option<String>,
}

/// One import statement of an installed dist's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportUse {
    /// The importing dist and its version.
    pub dist: pep508_rs::PackageName,
    /// Its version.
    pub version: pep440_rs::Version,
    /// The file (its path in `RECORD`).
    pub file: String,
    /// The statement.
    pub statement: ImportStatement,
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod statement_tests;
