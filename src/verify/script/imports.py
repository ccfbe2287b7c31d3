# ---- where the time goes (--profile, or PLANNER_VERIFY_PROFILE=1 in the environment) -------------

# phase -> [how many times, seconds]: summed over the threads that ran it, so the phases that run
# side by side add up to more than the wall time. Reported only when asked for.
PROFILE = {}
_PROFILE_LOCK = threading.Lock()


def profiled(phase, seconds, count=1):
    with _PROFILE_LOCK:
        entry = PROFILE.setdefault(phase, [0, 0.0])
        entry[0] += count
        entry[1] += seconds


class timed:
    """`with timed(phase):` adds the block's seconds to `phase`."""

    def __init__(self, phase):
        self.phase = phase

    def __enter__(self):
        self.start = time.monotonic()

    def __exit__(self, *exc):
        profiled(self.phase, time.monotonic() - self.start)


def profile_report(wall):
    return {
        "wall": round(wall, 2),
        "phases": {
            name: {"count": count, "s": round(seconds, 2)}
            for name, (count, seconds) in sorted(PROFILE.items())
        },
    }


# ---- installed dists, their modules and who owns which file -------------------------------------

# Not library code: tests, and the examples/scripts/docs folders some dists ship at the top
# level by mistake (e3nn's `examples`, botorch's `scripts`), whose imports need tools that are
# not installed.
_TEST_NAMES = (
    "test",
    "tests",
    "testing",
    "conftest",
    "setup",
    "__main__",
    "examples",
    "example",
    "scripts",
    "docs",
    "doc",
    "benchmarks",
    "benchmark",
    "tutorials",
)


# Folders a wheel may ship beside its code, never a namespace package of its own (a regular
# package of that name, such as the `build` frontend's, is imported).
_NOT_CODE = ("build", "dist", "website", "site", "notebooks")


def canonical_name(name):
    return re.sub(r"[-_.]+", "-", name or "").lower()


def _public(name):
    return (
        name.isidentifier()
        and not name.startswith("_")
        and name not in _TEST_NAMES
        and not name.startswith("test_")
    )


_EXTENSIONS = tuple(
    s for s in importlib.machinery.EXTENSION_SUFFIXES if s not in (".so", ".pyd")
)


def _module_name(part):
    """`x.py` / `x.cpython-312-x86_64-linux-gnu.so` / `x.abi3.so` -> `x`; else None (a plain
    `libx.so` is a shared library, not a module)."""
    if part.endswith(".py"):
        return part[:-3]
    for suffix in _EXTENSIONS:
        if part.endswith(suffix):
            return part[: -len(suffix)]
    return None


class _RecordFile:
    """One file of a RECORD with what verify.py reads of importlib.metadata's PackagePath: its
    `parts` (as PurePosixPath splits it: no empty or `.` parts, a leading `/` kept), its
    `hash` (`mode`, `value`, or None), and its path as text or os.PathLike (`locate_file`)."""

    __slots__ = ("path", "parts", "hash")

    def __init__(self, path, digest):
        self.path = path
        parts = tuple(p for p in path.split("/") if p and p != ".")
        self.parts = ("/",) + parts if path.startswith("/") else parts
        mode, _, value = digest.partition("=")
        self.hash = _FileHash(mode, value) if digest else None

    def __str__(self):
        return self.path

    def __fspath__(self):
        return self.path


_FileHash = collections.namedtuple("_FileHash", "mode value")


class _Dist:
    """An installed dist whose RECORD, requirements and other files are read once: each access of
    importlib.metadata's reads and parses the file again (transformers' RECORD: 70 ms a module)."""

    def __init__(self, dist):
        self._dist, self._path, self._cache = dist, getattr(dist, "_path", None), {}

    def _once(self, key, read):
        if key not in self._cache:
            self._cache[key] = read()
        return self._cache[key]

    @property
    def files(self):
        return self._once("files", self._read_files)

    def _read_files(self):
        """Its RECORD's files ([_RecordFile]), as importlib.metadata's `files` lists them (on
        Python 3.12 and later, only those on disk) without a pathlib object a line: on 3.12 its
        `files` took 0.7 s for a 23,000-file venv, 2-2.5 s for the 76,000 of the GPU stack, while
        verify --all's budget runs. A legacy egg-info: [_egg_info_files]. A dist without a RECORD:
        importlib.metadata's answer."""
        if str(self._path or "").endswith(".egg-info"):
            return self._egg_info_files()
        text = self._dist.read_text("RECORD") if self._path is not None else None
        if text is None:
            return self._dist.files
        base = os.path.dirname(str(self._path))
        files = [
            _RecordFile(row[0], row[1] if len(row) > 1 else "")
            for row in csv.reader(text.splitlines())
            if row and row[0]
        ]
        if sys.version_info >= (3, 12):
            files = [f for f in files if os.path.exists(os.path.join(base, f.path))]
        return files

    def _egg_info_files(self):
        """A legacy egg-info's `installed-files.txt` (pip's `setup.py install` before pip 23.1), its
        paths (relative to the egg-info folder) made relative to site-packages, those that leave
        it dropped; None without one. Python 3.11's importlib.metadata reads SOURCES.txt instead,
        whose paths are the source tree's (`src/flask_login/...`), no installed file."""
        text = self._dist.read_text("installed-files.txt")
        if text is None:
            return None
        folder = os.path.basename(str(self._path))
        files = []
        for line in map(str.strip, text.splitlines()):
            path = posixpath.normpath(posixpath.join(folder, line))
            if line and not line.startswith("/") and not path.startswith(".."):
                files.append(_RecordFile(path, ""))
        return files

    @property
    def requires(self):
        return self._once("requires", lambda: self._dist.requires)

    @property
    def metadata(self):
        return self._once("metadata", lambda: self._dist.metadata)

    @property
    def version(self):
        return self._once("version", lambda: self._dist.version)

    def read_text(self, name):
        return self._once(("text", name), lambda: self._dist.read_text(name))

    def locate_file(self, path):
        return self._dist.locate_file(path)

    def module_index(self):
        """{module name: the files it may resolve to}, from the RECORD."""
        return self._once("modules", lambda: _module_index(self))


class Installed:
    """Every dist importlib.metadata sees, and the owners of each file their RECORDs list."""

    def __init__(self):
        self.dists = {}
        for dist in map(_Dist, importlib.metadata.distributions()):
            name = canonical_name(dist.metadata["Name"] or "")
            if name:
                self.dists.setdefault(name, []).append(dist)
        self._owners = None
        self._tops = None
        self._real_dirs = {}
        self._building = (
            threading.Lock()
        )  # the indexes are built once, by the first thread to ask

    def top_names(self):
        """Every top-level import name some installed dist ships."""
        with self._building:
            if self._tops is None:
                tops = set()
                for dists in self.dists.values():
                    for dist in dists:
                        tops.update(dist_tops(dist))
                self._tops = tops
        return self._tops

    def get(self, name):
        found = self.dists.get(canonical_name(name))
        return found[0] if found else None

    def version(self, name):
        dist = self.get(name)
        return dist.version if dist is not None else None

    def _real(self, path):
        head, tail = os.path.split(os.path.abspath(path))
        real = self._real_dirs.get(head)
        if real is None:
            real = self._real_dirs[head] = os.path.realpath(head)
        return os.path.join(real, tail)

    def owners(self, path):
        """[(dist name, dist-info path, recorded hash)] of every RECORD that lists `path`."""
        with self._building:
            if self._owners is None:
                owners = {}
                for name, dists in self.dists.items():
                    for dist in dists:
                        for file in dist.files or []:
                            if file.parts and file.parts[-1].endswith(
                                (".py", ".so", ".pyd")
                            ):
                                key = self._real(str(dist.locate_file(file)))
                                digest = file.hash.value if file.hash else None
                                owners.setdefault(key, []).append(
                                    (name, _dist_path(dist), digest)
                                )
                self._owners = owners
        return self._owners.get(self._real(path), [])


def dist_tops(dist):
    """The top-level import names `dist` ships (its RECORD's first parts, its top_level.txt)."""
    tops = {
        _module_name(f.parts[0]) if len(f.parts) == 1 else f.parts[0]
        for f in dist.files or []
        if f.parts
    }
    text = dist.read_text("top_level.txt") or ""
    return tops | {n.strip() for n in text.splitlines()}


def _dist_path(dist):
    path = getattr(dist, "_path", None)
    return str(path) if path is not None else canonical_name(dist.metadata["Name"])


def _is_editable(dist):
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        return bool(json.loads(text).get("dir_info", {}).get("editable"))
    except ValueError:
        return False


def dist_modules(dist, subpackages):
    """Import names of a dist from its RECORD, as sorted (module, is_subpackage) pairs: top-level
    modules and packages (a namespace package's children instead of the namespace), and with
    `subpackages` their first-level public modules and subpackages. Private and test names are
    skipped."""
    files = [f.parts for f in (dist.files or []) if f.parts]
    if not files:
        text = dist.read_text("top_level.txt") or ""
        return sorted(
            (n.strip(), False) for n in text.splitlines() if _public(n.strip())
        )
    modules, subs, dirs, inits, children = set(), set(), set(), set(), {}
    for parts in files:
        first = parts[0]
        if first.endswith((".dist-info", ".egg-info", ".data")) or first in (
            "..",
            "__pycache__",
            "bin",
        ):
            continue
        if len(parts) == 1:
            name = _module_name(first)
            if name and _public(name):
                modules.add(name)
            continue
        if not _public(first):
            continue
        dirs.add(first)
        if len(parts) == 2 and parts[1] == "__init__.py":
            inits.add(first)
        elif len(parts) == 2:
            child = _module_name(parts[1])
            if child and _public(child):
                children.setdefault(first, set()).add(child)
        elif len(parts) == 3 and parts[2] == "__init__.py" and _public(parts[1]):
            children.setdefault(first, set()).add(parts[1])
    for top in dirs:
        if top in inits:
            modules.add(top)
            if subpackages:
                subs.update("%s.%s" % (top, c) for c in children.get(top, ()))
        elif top not in _NOT_CODE and not any(
            parts[0] == top and any(p in inits for p in parts[1:-1]) for parts in files
        ):
            # A namespace package (no __init__.py of its own): its children are what imports.
            # Not a build folder shipped by mistake (botorch 0.18.1's `build/lib/botorch/...`).
            modules.update("%s.%s" % (top, c) for c in children.get(top, ()))
    if not modules and _is_editable(dist):
        return _editable_modules(dist)
    return sorted([(m, False) for m in modules] + [(m, True) for m in subs - modules])


def _editable_modules(dist):
    """An editable install's import names: its RECORD lists only what points at its project
    (setuptools' finder, a .pth file), so its top_level.txt, else its name as an import name
    (hatchling and uv write no top_level.txt): `my-app` -> `my_app`."""
    text = dist.read_text("top_level.txt") or ""
    names = [n.strip() for n in text.splitlines() if _public(n.strip())]
    if not names:
        names = [canonical_name(dist.metadata["Name"] or "").replace("-", "_")]
    return sorted((n, False) for n in names if n.isidentifier())


def _module_index(dist):
    out = {}
    for f in dist.files or []:
        parts = list(f.parts)
        name = _module_name(parts[-1]) if parts else None
        if name is None:
            continue
        keys = [".".join(parts[:-1] + [name])] + (
            [".".join(parts[:-1])] if parts[-1] == "__init__.py" else []
        )
        for key in keys:
            out.setdefault(key, []).append(str(dist.locate_file(f)))
    return out


def module_files(dist, module):
    """The files of `dist` that `module` may resolve to (its `__init__.py` or module file)."""
    index = dist.module_index() if isinstance(dist, _Dist) else _module_index(dist)
    return list(index.get(module, ()))


# ---- one import per child process ----------------------------------------------------------------

# One import and its outcome: the code both a fresh interpreter (PROBE) and a forked child of a
# warm parent (SERVER, below) run. `django_apps`: configure Django first (settings.configure() with
# an in-memory database and these INSTALLED_APPS), for modules that need settings to import.
IMPORT_ONE = r'''
import ast, importlib, importlib.machinery, importlib.util, json, os, re, sys, traceback

def _describe(exc):
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    lines = text.splitlines() or [type(exc).__name__]
    head = re.compile(r"^([\w.]*\.)?%s(:|$)" % re.escape(type(exc).__name__))
    shown = next((l for l in lines if head.match(l)), lines[-1])
    return shown[:600], text[:2000]

def _configure_django(apps):
    import django
    from django.conf import settings
    settings.configure(
        INSTALLED_APPS=apps, SECRET_KEY="planner-verify", USE_TZ=True, ROOT_URLCONF=[],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}])
    django.setup()

def _resolve(module, level, path):
    """The source file of `module` (`from ..module import x` in the file at `path` when `level`),
    found on disk without importing anything; None when not found."""
    if level:
        base = os.path.dirname(path)
        for _ in range(level - 1):
            base = os.path.dirname(base)
        bases, parts = [base], module.split(".") if module else []
    else:
        loaded = sys.modules.get(module)
        if getattr(loaded, "__file__", None):
            return loaded.__file__
        try:
            spec = importlib.util.find_spec(module.split(".")[0])
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        if "." not in module:
            return spec.origin
        bases, parts = list(spec.submodule_search_locations or []), module.split(".")[1:]
    for base in bases:
        stem = os.path.join(base, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None

def _binds(node, name):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in node.names)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign)) else []
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))

def _not_installed(module):
    top = module.split(".")[0]
    if top in sys.modules:
        return None
    try:
        return top if importlib.util.find_spec(top) is None else None
    except (ImportError, ValueError):
        return None

def _absent_behind(path, name, depth=0):
    """Why `name` is missing from the module at `path`: the top-level module, not installed, whose
    import guards every module-level binding of `name` (`if is_vision_available(): import
    PIL.Image; PILImageResampling = ...`, `try: import x`), followed through `from m import name`
    into `m`. None when a binding is unconditional, none exists, or every guarding import is
    installed (then the name is missing for another reason: a break)."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError, TypeError):
        return None
    bindings = []

    def walk(body, blocks):
        for node in body:
            if _binds(node, name):
                bindings.append((node, blocks))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            subs = [getattr(node, k, None) for k in ("body", "orelse", "finalbody")]
            subs += [h.body for h in getattr(node, "handlers", [])]
            for sub in subs:
                if isinstance(sub, list) and sub:
                    walk(sub, blocks + [sub])

    walk(tree.body, [])
    if not bindings or any(not blocks for _, blocks in bindings):
        return None
    for node, blocks in bindings:
        for block in reversed(blocks):
            for stmt in block:
                for sub in ast.walk(stmt):
                    found = None
                    if isinstance(sub, ast.Import):
                        found = next((m for m in (_not_installed(a.name) for a in sub.names) if m), None)
                    elif isinstance(sub, ast.ImportFrom) and not sub.level and sub.module:
                        found = _not_installed(sub.module)
                    if found:
                        return found
        if isinstance(node, ast.ImportFrom) and depth < 3:
            source = _resolve(node.module or "", node.level, path)
            found = source and _absent_behind(source, name, depth + 1)
            if found:
                return found
    return None

_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_NO_NAME = re.compile(r"cannot import name '(\w+)' from '[\w.]+' \((.+)\)$")
# "...: PyQt6, PySide6, PyQt5, PySide2": the modules an ImportError's message lists at its end.
_LISTED = re.compile(r":\s*([A-Za-z_]\w*(?:,\s*[A-Za-z_]\w*)+)\s*\.?$")

def _tried_in_turn(exc, frames):
    """The modules an ImportError that a module raises itself lists as tried in turn (matplotlib's
    `backends.qt_compat`: "Failed to import any of the following Qt binding modules: PyQt6,
    PySide6, PyQt5, PySide2"), when the raising file names each of them (a string or an import)
    and none is installed; else None."""
    if type(exc) is not ImportError or not frames:
        return None
    found = _LISTED.search((str(exc).splitlines() or [""])[0])
    if not found:
        return None
    names = [n.strip() for n in found.group(1).split(",")]
    try:
        with open(frames[-1], encoding="utf-8", errors="replace") as f:
            source = f.read()
    except OSError:
        return None
    named = all(
        re.search(r"[\"']%s[\"']|\bimport\s+%s\b" % (n, n), source) for n in names
    )
    return names if named and all(_not_installed(n) for n in names) else None


def _missing(exc, frames, depth=0, line="", tried=False):
    """The module this environment lacks that made the import fail: a ModuleNotFoundError's
    (also one re-raised as a subclass without `name`, as etils does), or the module whose absence
    left a name undefined (`cannot import name`, `NameError`); else None. `tried`: what
    `_tried_in_turn(exc, frames)` gave, where the caller has it already (False: not computed)."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return exc.name, None
    if isinstance(exc, ImportError):
        first = (str(exc).splitlines() or [""])[0]
        found = _NO_MODULE.match(first)
        if found:
            return found.group(1), None
        found = _NO_NAME.match(first)
        if found and "partially initialized" not in first:
            return _absent_behind(found.group(2), found.group(1)), found.group(1)
    if isinstance(exc, NameError) and frames:
        name = getattr(exc, "name", None) or (re.findall(r"name '(\w+)' is not defined", str(exc)) or [None])[0]
        if name:
            return _absent_behind(frames[-1], name), name
    # `torch.Tensor` where `try: import torch / except ImportError: torch = None` left `torch`
    # None (treescope's `external/torch_support.py`): the module guarding that import lacks.
    if isinstance(exc, AttributeError) and frames and line and getattr(exc, "obj", 0) is None:
        attribute = getattr(exc, "name", None) or ""
        for name in re.findall(r"\b(\w+)\.%s\b" % re.escape(attribute), line) if attribute else ():
            found = _absent_behind(frames[-1], name)
            if found:
                return found, name
    if tried is False:
        tried = _tried_in_turn(exc, frames)
    if tried:
        return tried[0], None
    # An ImportError of its own raised while handling one (`except ImportError as err: raise
    # ImportError('... requires the package recommonmark') from err`, docutils 0.20): the module
    # the handled one missed.
    cause = (exc.__cause__ or exc.__context__) if isinstance(exc, ImportError) else None
    if cause is not None and depth < 5:
        return _missing(cause, frames, depth + 1, line)
    return None, None

def _drop_orphans():
    # A package whose import failed leaves in sys.modules the submodules it had imported by
    # then (Python takes out only the modules that failed): importing one of them again, or
    # anything that imports it, would return it without running the package, and pass. Jinja2
    # 2.11.3 under MarkupSafe 3: after `import jinja2` failed in a process, `jinja2.utils`
    # "imported" there. Such orphans are taken out so that an import runs what it would run fresh.
    mods = sys.modules
    gone = [n for n in mods if "." in n and n.rpartition(".")[0] not in mods]
    while gone:
        for n in gone:
            mods.pop(n, None)
        gone = [n for n in mods if "." in n and n.rpartition(".")[0] not in mods]

def import_one(name, django_apps=None, first=()):
    _drop_orphans()
    try:
        if django_apps is not None:
            _configure_django(django_apps)
        for other in first:
            try:
                importlib.import_module(other)
            except BaseException:
                pass
        module = importlib.import_module(name)
    except BaseException as exc:
        shown, text = _describe(exc)
        summary = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
        frames = [f.filename for f in summary]
        tried = _tried_in_turn(exc, frames)
        missing, undefined = _missing(exc, frames, line=summary[-1].line if summary else "", tried=tried)
        return {"ok": False, "error": shown, "text": text, "frames": frames, "missing": missing,
                "undefined": undefined if missing else None, "absent": bool(missing and _not_installed(missing)),
                "tried": tried}
    spec = getattr(module, "__spec__", None)
    # A module that put another module in its place in `sys.modules` (polars 2's `polars._plr`
    # puts the runtime's compiled `_polars_runtime_32._polars_runtime` there): the file the
    # import ran, found on its parent's path as the import found it.
    replaced = isinstance(module, type(sys)) and getattr(spec, "name", name) != name
    return {"ok": True, "file": getattr(module, "__file__", None) or _replaced_by(name, module),
            "path": list(getattr(module, "__path__", None) or []),
            "loader": _loader_file(module),
            "ran": _found_file(name) if replaced else None}

def _replaced_by(name, module):
    # A module that puts another object in its place in `sys.modules` (Twisted's
    # `twisted.internet.reactor` installs the reactor there): the file it was loaded from, found
    # on its parent's path as the import found it.
    if isinstance(module, type(sys)):
        return None
    return _found_file(name)

def _found_file(name):
    parent = name.rpartition(".")[0]
    path = getattr(sys.modules.get(parent), "__path__", None) if parent else None
    if parent and path is None:
        return None
    spec = importlib.machinery.PathFinder.find_spec(name, path)
    return getattr(spec, "origin", None) if spec is not None and spec.has_location else None

def _loader_file(module):
    # A module without a file (a legacy alias an import hook serves, transformers 5's
    # `transformers.tokenization_utils_fast`): the file of the code that loaded it.
    if getattr(module, "__file__", None):
        return None
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None) or getattr(module, "__loader__", None)
    home = sys.modules.get(type(loader).__module__) if loader is not None else None
    return getattr(home, "__file__", None)
'''

PROBE = (
    IMPORT_ONE
    + r"""
def look_up(module, name, result):
    # getattr, not a look in the module's dict: a module `__getattr__` may hand the name out.
    try:
        getattr(sys.modules[module], name)
    except AttributeError:
        where = result.get("file") or "unknown location"
        error = "ImportError: cannot import name %r from %r (%s)" % (name, module, where)
        return dict(result, ok=False, error=error, text=error)
    except BaseException as exc:
        shown, text = _describe(exc)
        return dict(result, ok=False, error=shown, text=text)
    return result

options = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
result = import_one(sys.argv[1], options.get("django_apps"), options.get("first", ()))
if result["ok"] and options.get("name"):
    result = look_up(sys.argv[1], options["name"], result)
sys.stdout.write("\nPLANNER-PROBE " + json.dumps(result) + "\n")
"""
)


def run_child(argv, timeout, cwd=None, background=False):
    """Run argv in its own process group; kill the whole group on timeout. `background`: at a
    lower priority (nice +10), so that it takes the cores only when the imports leave them idle.
    Returns (returncode or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        cwd=cwd,
        start_new_session=True,
    )
    if background and hasattr(os, "setpriority"):
        try:
            os.setpriority(os.PRIO_PROCESS, proc.pid, 10)
        except OSError:
            pass
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = proc.communicate()
        return None, out, err, round(time.monotonic() - start, 2)
    return proc.returncode, out, err, round(time.monotonic() - start, 2)


def last_line(text):
    # A banner line (`=====`) says nothing: the last line with a word in it.
    lines = [
        l.strip()
        for l in (text or "").strip().splitlines()
        if re.search(r"[A-Za-z0-9]", l)
    ]
    return lines[-1][:600] if lines else ""


# The modules imported in a fresh interpreter (probe_import), for the report's counts.
FRESH = []


def probe_import(module, timeout, **options):
    """`module` imported in a fresh interpreter; `options`: django_apps (configure Django first),
    first (modules to import before it, failures ignored), name (then look this name up in it)."""
    FRESH.append(module)
    argv = [sys.executable, "-c", PROBE, module, json.dumps(options)]
    code, out, err, seconds = run_child(argv, timeout)
    if code is None:
        return {
            "ok": False,
            "s": seconds,
            "timeout": True,
            "error": "timed out after %gs (the import hangs)" % timeout,
        }
    marker = [l for l in out.splitlines() if l.startswith("PLANNER-PROBE ")]
    if not marker:
        why = ("killed by signal %d" % -code) if code < 0 else ("exit %d" % code)
        return {
            "ok": False,
            "s": seconds,
            "error": "%s: %s" % (why, last_line(err) or last_line(out) or "no output"),
        }
    result = json.loads(marker[-1][len("PLANNER-PROBE ") :])
    result["s"] = seconds
    return result


def provenance(installed, dist_name, module, result):
    """None when the module comes from `dist_name`'s own files; else why not (naming paths)."""
    dist = installed.get(dist_name)
    if dist is None or not dist.files:
        return None
    if _is_editable(dist):
        return None
    expected = module_files(dist, module)
    file = result.get("file")
    if not file:
        paths = result.get("path") or []
        if not paths:
            # Served by the dist's own import hook (an alias): its own.
            loader = result.get("loader")
            if loader and any(
                o[0] == canonical_name(dist_name) for o in installed.owners(loader)
            ):
                return None
            return "resolved to a module without a file (expected %s)" % (
                expected[0] if expected else "a file of " + dist_name
            )
        # A namespace package: every portion must be inside the dists' site-packages.
        return None
    owners = installed.owners(file)
    mine = [o for o in owners if o[0] == canonical_name(dist_name)]
    ran = result.get("ran")
    if (
        not mine
        and ran
        and any(o[0] == canonical_name(dist_name) for o in installed.owners(ran))
    ):
        # Its own file ran and put another dist's module in its place (polars' `_plr`).
        return None
    if not mine:
        who = (
            ("owned by %s (%s)" % (owners[0][0], owners[0][1]))
            if owners
            else "listed in no installed dist's RECORD"
        )
        return "shadowed: resolves to %s, %s; %s installs it at %s" % (
            file,
            who,
            dist_name,
            expected[0] if expected else "(not found in its RECORD)",
        )
    others = [
        o
        for o in owners
        if o[0] != canonical_name(dist_name) and (o[2] is None or o[2] != mine[0][2])
    ]
    if others:
        return (
            "shadowed: %s is shipped by %s (%s) and by %s (%s) with different contents"
            % (file, dist_name, mine[0][1], others[0][0], others[0][1])
        )
    return None
