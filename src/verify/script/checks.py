# ---- the checks ---------------------------------------------------------------------------------

_VERSION = re.compile(
    r"^\s*v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)"
    r"(?P<pre>[-_.]?(?P<pre_l>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>[0-9]+)?)?"
    r"(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?"
    r"(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$",
    re.IGNORECASE,
)
_PRE = {
    "a": "a",
    "alpha": "a",
    "b": "b",
    "beta": "b",
    "c": "rc",
    "rc": "rc",
    "pre": "rc",
    "preview": "rc",
}


def canonical_version(text):
    """PEP 440 normal form, trailing zeros dropped, so `2.12` equals `2.12.0`."""
    m = _VERSION.match(text or "")
    if not m:
        return (text or "").strip().lower()
    release = [int(x) for x in m.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    out = ""
    if m.group("epoch") and int(m.group("epoch")):
        out += "%d!" % int(m.group("epoch"))
    out += ".".join(str(x) for x in release)
    if m.group("pre"):
        out += _PRE[m.group("pre_l").lower()] + str(int(m.group("pre_n") or 0))
    if m.group("post"):
        out += ".post" + str(int(m.group("post_n1") or m.group("post_n2") or 0))
    if m.group("dev"):
        out += ".dev" + str(int(m.group("dev_n") or 0))
    if m.group("local"):
        out += "+" + ".".join(re.split(r"[-_.]", m.group("local").lower()))
    return out


def check(name, kind, status, package=None, **fields):
    entry = {"name": name, "kind": kind, "status": status, "package": package}
    entry.update({k: v for k, v in fields.items() if v is not None})
    return entry


def check_versions(installed):
    out = []
    for expect in SPEC["expect"]:
        name, wanted = expect["name"], expect["version"]
        found = installed.version(name)
        if wanted is None:
            ok = found is None
            detail = None if ok else "still installed (%s)" % found
        else:
            ok = found is not None and canonical_version(found) == canonical_version(
                wanted
            )
            detail = (
                None
                if ok
                else ("not installed" if found is None else "found %s" % found)
            )
        out.append(
            check(
                "version:" + name,
                "version",
                "pass" if ok else "fail",
                name,
                expected=wanted,
                found=found,
                error=detail,
            )
        )
    return out


def import_jobs(installed, baseline_mode):
    """Imports to run (dicts: module, dist, why, via, sub, uses, cited), and checks for dists with
    nothing to import."""
    jobs, out, seen = [], [], set()

    def add(module, name, target, sub, deep=None):
        if module in seen:
            return
        seen.add(module)
        jobs.append(
            {
                "module": module,
                "dist": name,
                "why": target["why"],
                "via": target.get("via"),
                "evidence": target.get("evidence"),
                "sub": sub,
                "uses": deep and deep["imports"],
                "cited": deep and deep.get("cited"),
                "deep": bool(deep),
                "budgeted": bool(deep) and target["why"] == "installed",
                "fan_in": (deep or {}).get("fan_in", 0),
            }
        )

    for target in SPEC["dists"]:
        name = target["name"]
        dist = installed.get(name)
        if dist is None:
            status = "skip" if baseline_mode or target["why"] == "changed" else "fail"
            out.append(
                check(
                    "import:" + name,
                    "import",
                    status,
                    name,
                    why=target["why"],
                    error="not installed" if status == "fail" else None,
                    detail="not installed" if status == "skip" else None,
                )
            )
            continue
        modules = dist_modules(dist, target.get("subpackages", False))
        if not modules:
            out.append(
                check(
                    "import:" + name,
                    "import",
                    "skip",
                    name,
                    why=target["why"],
                    detail="no importable module in its RECORD",
                )
            )
        for module, sub in modules:
            add(module, name, target, sub)
        for deep in target.get("deep", []):
            # A changed dist's own module that a dependent imports: only where this release has it
            # (one it dropped fails the dependent's import, which names it).
            if canonical_name(deep["imports"]) != canonical_name(name) or module_files(
                dist, deep["module"]
            ):
                add(deep["module"], name, target, True, deep)
    return jobs, out


# Modules that exist on one platform only: an import that needs one elsewhere is not a break.
_PLATFORM_ONLY = dict(
    [
        (m, "win32")
        for m in (
            "winreg",
            "_winreg",
            "_winapi",
            "msvcrt",
            "_msi",
            "winsound",
            "nt",
            "_overlapped",
            "win32api",
            "win32con",
            "win32file",
            "win32event",
            "win32process",
            "win32pipe",
            "win32security",
            "win32service",
            "pywintypes",
            "pythoncom",
            "win32com",
            "wmi",
        )
    ]
    + [
        (m, "darwin")
        for m in (
            "_scproxy",
            "Foundation",
            "AppKit",
            "objc",
            "CoreFoundation",
            "Quartz",
            "Cocoa",
        )
    ]
)
_PLATFORM_NAMES = {"win32": "Windows", "darwin": "macOS"}
# `from six.moves import winreg` on Linux (python-dateutil's `tz/win.py`): a compatibility module
# that has no such name here because the module it stands for exists on another platform only.
_PLATFORM_NAME_FROM = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
# What Windows-only code meets elsewhere below the import system: ctypes' Windows loaders and
# helpers (shellingham's `nt.py` runs `ctypes.windll.kernel32` at module level), and
# `ctypes.wintypes` on interpreters where it cannot be built.
_WINDOWS_CTYPES = re.compile(
    r"module 'ctypes' has no attribute '(windll|WinDLL|oledll|OleDLL|WinError|"
    r"FormatError|GetLastError|HRESULT|WINFUNCTYPE)'|_type_ 'v' not supported"
)
# Names `select` has on some platforms only: kqueue and its `KQ_*` constants on BSD and macOS
# (Twisted's `kqreactor` on Linux: "module 'select' has no attribute 'KQ_EV_ADD'"), `devpoll` on
# Solaris, `epoll` and its `EPOLL*` constants on Linux.
_SELECT_NAME = re.compile(
    r"cannot import name '(\w+)' from 'select'|module 'select' has no attribute '(\w+)'"
)
_SELECT_ONLY_ON = (
    (
        re.compile(r"(kqueue|kevent|KQ_\w+)$"),
        ("darwin", "freebsd", "openbsd", "netbsd"),
        "BSD and macOS",
    ),
    (re.compile(r"devpoll$"), ("sunos",), "Solaris"),
    (re.compile(r"(epoll|EPOLL\w+)$"), ("linux",), "Linux"),
)
# Import names that differ from their dist's name, for telling a required dist from an optional one.
_DIST_OF = {
    "yaml": "pyyaml",
    "PIL": "pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "bs4": "beautifulsoup4",
    "attr": "attrs",
    "dateutil": "python-dateutil",
    "jwt": "pyjwt",
    "dotenv": "python-dotenv",
    "magic": "python-magic",
    "OpenSSL": "pyopenssl",
    "Crypto": "pycryptodome",
    "serial": "pyserial",
    "zmq": "pyzmq",
    "git": "gitpython",
    "psycopg2": "psycopg2-binary",
}


def declared(dist):
    """{canonical name: None when required unconditionally, else the extras it is declared under}."""
    out = {}
    for text in (dist.requires or []) if dist is not None else []:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", text)
        if not m:
            continue
        name = canonical_name(m.group(1))
        extras = re.findall(
            r"extra\s*==\s*[\'\"]([^\'\"]+)[\'\"]", text.partition(";")[2]
        )
        if not extras:
            out[name] = None
        elif out.get(name, ()) is not None:
            out[name] = sorted(set(out.get(name) or []) | set(extras))
    return out


# The dists the plan changes (canonical names), built once.
CHANGED = frozenset(canonical_name(e["name"]) for e in SPEC["expect"])


def _select_only_elsewhere(error):
    """(name, why) when `error` is a name `select` has on other platforms only."""
    found = _SELECT_NAME.search(error)
    name = found and (found.group(1) or found.group(2))
    for pattern, platforms, where in _SELECT_ONLY_ON if name else ():
        if pattern.match(name) and not sys.platform.startswith(platforms):
            why = "`select.%s` exists only on %s (a name for another platform)"
            return "select." + name, why % (name, where)
    return None


def optional_reason(installed, job, result):
    """(what is missing, why) when a failed import needs what this environment does not have and
    the importer does not require: a module for another platform, a dist the importer declares only
    under an extra (or not at all). None: the failure is a break."""
    needs = declared(installed.get(job["dist"]))
    windows = _WINDOWS_CTYPES.search(result.get("error") or "")
    if windows and not sys.platform.startswith("win"):
        return (
            "ctypes.windll",
            "needs Windows' ctypes (%s): a module for another platform"
            % windows.group(0),
        )
    select_only = _select_only_elsewhere(result.get("error") or "")
    if select_only:
        return select_only
    through = _PLATFORM_NAME_FROM.search(result.get("error") or "")
    if through and not result.get("missing"):
        platform = _PLATFORM_ONLY.get(through.group(1))
        if platform and not sys.platform.startswith(platform):
            return through.group(1), (
                "`%s` exists only on %s (a module for another platform, through `%s`)"
                % (through.group(1), _PLATFORM_NAMES[platform], through.group(2))
            )
    missing = (result.get("missing") or "").split(".")[0]
    if missing:
        platform = _PLATFORM_ONLY.get(missing)
        if platform and not sys.platform.startswith(platform):
            return missing, "`%s` exists only on %s (a module for another platform)" % (
                missing,
                _PLATFORM_NAMES[platform],
            )
        name = canonical_name(_DIST_OF.get(missing, missing))
        if missing in installed.top_names():
            return unshipped_own_module(installed, job, result) or optional_module_of(
                installed, job, result["missing"], needs
            )
        if name in CHANGED or (name in needs and needs[name] is None):
            return None
        # `PILImageResampling` undefined: the import that guards it needs the missing module.
        via = (
            "; `%s` is defined only where `%s` imports" % (result["undefined"], missing)
            if result.get("undefined")
            else ""
        )
        if needs.get(name):
            return (
                missing,
                "needs the optional `%s` (%s declares it only under its extra%s %s%s)"
                % (
                    missing,
                    job["dist"],
                    "s" if len(needs[name]) > 1 else "",
                    ", ".join(needs[name]),
                    via,
                ),
            )
        tried = result.get("tried") or [missing]
        return (
            missing,
            "needs %s, which no installed dist provides and %s does not require (an optional dependency%s)"
            % (" or ".join("`%s`" % t for t in tried), job["dist"], via),
        )
    words = {
        canonical_name(w)
        for w in re.findall(
            r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]",
            result.get("text") or result.get("error") or "",
        )
    }
    for name, extras in sorted(needs.items()):
        if (
            extras
            and name in words
            and name not in CHANGED
            and installed.get(name) is None
        ):
            return (
                name,
                "needs the optional `%s` (%s declares it only under its extra%s %s)"
                % (
                    name,
                    job["dist"],
                    "s" if len(extras) > 1 else "",
                    ", ".join(extras),
                ),
            )
    return None


def unshipped_own_module(installed, job, result):
    """(module, why) when the failing module is the job's dist's own, the plan leaves that dist
    alone, and the module it misses is in the dist's own package yet not in its RECORD: the
    release ships a module that imports what it never shipped (orbax-checkpoint 0.11.20's
    `checkpointers/checkpointer_test_utils.py` does `from .pyglib import gfile`), which fails
    wherever that release is installed, not because of this environment. A top-level package
    that fails so is no skip: the dist itself does not import. None otherwise."""
    missing, name = result.get("missing") or "", job["dist"]
    dist = installed.get(name)
    package = missing.rpartition(".")[0]
    if (
        dist is None
        or not dist.files
        or canonical_name(name) in CHANGED
        or not package
        or "." not in job["module"]
        or not ships_below(dist, package)
        or job["module"].split(".")[0] != missing.split(".")[0]
        or module_files(dist, missing)
        or ships_below(dist, missing)
    ):
        return None
    return (
        missing,
        "imports `%s`, which %s %s itself does not ship (its RECORD lists no such file): it fails "
        "wherever this release is installed" % (missing, name, dist.version),
    )


def ships_below(dist, module):
    """Whether `dist` ships a file inside `module`'s folder (a namespace portion: protobuf ships
    `google/protobuf/...`, inside `google`, and nothing inside `google/cloud`)."""
    parts = tuple(module.split("."))
    return any(tuple(f.parts[: len(parts)]) == parts for f in dist.files or [])


def extra_in_use(installed, job, missing):
    """Whether `missing` is declared under an extra of `job`'s dist of which another requirement
    is installed (kombu's `redis` extra: redis installed, packaging not): the feature the module
    serves is in use, so a module that imported before and now needs `missing` broke."""
    needs = declared(installed.get(job["dist"]))
    name = canonical_name(_DIST_OF.get(missing, missing))
    extras = set(needs.get(name) or ())
    return any(
        other != name and extras & set(those or ()) and installed.get(other) is not None
        for other, those in needs.items()
    )


def optional_module_of(installed, job, module, needs):
    """(top, why) when the missing `module` is below a top-level name that installed dists
    provide, none of which `job`'s dist requires unconditionally or the plan changes (an optional
    dependency, present at a release without that module: jax's integrations with tensorflow or
    its private modules); None: a break. Below a namespace package (`google`) only the dists
    that ship the missing module's own portion (`google/cloud/`) provide it: when none does,
    nothing installed provides it (orbax-checkpoint's `cloud_logger` needs `google.cloud`,
    which protobuf's `google/protobuf` is not)."""
    top = module.split(".")[0]
    owners = sorted(
        n
        for n, dists in installed.dists.items()
        if any(top in dist_tops(d) for d in dists)
    )
    portion = ".".join(module.split(".")[:2])
    namespace = not any(
        module_files(d, top) for n in owners for d in installed.dists[n]
    )
    if namespace and portion != top:
        owners = [
            n
            for n in owners
            if any(ships_below(d, portion) for d in installed.dists[n])
        ]
        if not owners and not any(
            extras is None and installed.get(n) is None for n, extras in needs.items()
        ):
            return (
                portion,
                "needs `%s`, which no installed dist provides (the namespace package `%s` holds "
                "other dists' portions) and %s requires nothing that is missing (an optional "
                "dependency)" % (portion, top, job["dist"]),
            )
    if not owners or any(
        o in CHANGED
        or (o in needs and needs[o] is None)
        or o == canonical_name(job["dist"])
        for o in owners
    ):
        return None
    owner = owners[0]
    declared_as = (
        "declares it only under its extra%s %s"
        % ("s" if len(needs[owner]) > 1 else "", ", ".join(needs[owner]))
        if needs.get(owner)
        else "does not require it"
    )
    return (
        top,
        "needs `%s`, which %s %s does not have (%s %s: an optional dependency)"
        % (module, owner, installed.version(owner), job["dist"], declared_as),
    )


def dropped_module(installed, job, result):
    """A module of a changed dist that its new release no longer ships (the import failed on the
    module itself or on the package it was in, not on something it imports): (True, why) when
    nothing left in the environment imports it (the plan removed it: not a break of its own);
    (False, why) when a remaining file does (static import evidence): a break. None otherwise."""
    module, name = job["module"], job["dist"]
    dist = installed.get(name)
    missing = result.get("missing") or ""
    if (
        canonical_name(name) not in CHANGED
        or dist is None
        or not missing
        or not (module == missing or module.startswith(missing + "."))
    ):
        return None
    if module_files(dist, module) or module_files(dist, missing):
        return None
    gone = "" if missing == module else " (`%s` is gone)" % missing
    users = importers_left(dist, name, missing)
    if users:
        return (
            False,
            "%s %s does not ship `%s`%s, and %s, still in the environment, import%s it"
            % (
                name,
                dist.version,
                module,
                gone,
                ", ".join("`%s`" % u for u in users[:3])
                + (" and %d more" % (len(users) - 3) if len(users) > 3 else ""),
                "s" if len(users) == 1 else "",
            ),
        )
    return (
        True,
        "removed by the plan: %s %s does not ship `%s`%s, and nothing left in the environment imports it"
        % (name, dist.version, module, gone),
    )


def importers_left(dist, name, module):
    """The files, still on disk, that the static import analysis found importing `module` of the
    changed dist `name` (the module that is gone, or a module inside it) when they are imported:
    SPEC's deep modules. A file that imports the package `module` is in does not import `module`
    (`from scipy.special import xlogy` needs no `scipy.special._ufunc_tools`; `from scipy.special
    import _ufunc_tools` is the deep module `scipy.special._ufunc_tools`)."""
    out = set()
    for target in SPEC["dists"]:
        for deep in target.get("deep") or []:
            imported = deep["module"]
            if canonical_name(deep["imports"]) != canonical_name(name) or not (
                imported == module or imported.startswith(module + ".")
            ):
                continue
            if os.path.exists(str(dist.locate_file(deep["file"]))):
                out.add(deep["file"])
    return sorted(out)


def judge_import(installed, job, result):
    module, name = job["module"], job["dist"]
    fields = {
        "why": job["why"],
        "via": job["via"],
        "evidence": job.get("evidence"),
        "uses": job["uses"],
        "cited": job["cited"] or None,
        "s": result.get("s"),
        "file": result.get("file"),
        "django": result.get("django"),
    }
    if not result["ok"]:
        if result.get("django_skip"):
            return check(
                "import:" + module,
                "import",
                "skip",
                name,
                detail="needs a configured Django project even under a minimal settings.configure(): "
                + result["error"],
                **fields,
            )
        dropped = dropped_module(installed, job, result)
        if dropped and dropped[0]:
            return check(
                "import:" + module,
                "import",
                "skip",
                name,
                detail=dropped[1],
                removed=True,
                **fields,
            )
        if dropped:
            return check(
                "import:" + module, "import", "fail", name, error=dropped[1], **fields
            )
        optional = optional_reason(installed, job, result)
        if optional:
            return check(
                "import:" + module,
                "import",
                "skip",
                name,
                missing=optional[0],
                detail=optional[1],
                extra_in_use=extra_in_use(installed, job, optional[0]) or None,
                **fields,
            )
        return check(
            "import:" + module, "import", "fail", name, error=result["error"], **fields
        )
    # A changed dist's module imported for a dependent (`click._unicodefun`, under black) must
    # come from the changed dist's files, not the dependent's.
    dist = installed.get(name)
    theirs = (
        job["deep"]
        and job["uses"]
        and dist is not None
        and module.split(".")[0] not in dist_tops(dist)
    )
    owner = job["uses"] if theirs else name
    wrong = provenance(installed, owner, module, result)
    if wrong:
        return check("import:" + module, "import", "fail", name, error=wrong, **fields)
    detail = (
        "; ".join(
            d
            for d in (
                "imported under a minimal Django configuration (settings.configure())"
                if result.get("django")
                else None,
                "cannot be imported first (a circular import): imported after the other modules of its package"
                if result.get("after_siblings")
                else None,
                "failed when forked from the warm parent (%s), passed in a fresh interpreter"
                % result["fork_failed"]
                if result.get("fork_failed")
                else None,
                "failed when imported after other modules in one child (%s), passed alone"
                % result["batch_failed"]
                if result.get("batch_failed")
                else None,
                "its own %s ran and put the module of %s in its place"
                % (result["ran"], result.get("file"))
                if result.get("ran")
                else None,
            )
            if d
        )
        or None
    )
    return check("import:" + module, "import", "pass", name, detail=detail, **fields)


_DJANGO_UNCONFIGURED = re.compile(
    r"ImproperlyConfigured|AppRegistryNotReady|Apps aren't loaded|INSTALLED_APPS|"
    r"settings are not configured|DJANGO_SETTINGS_MODULE"
)


def django_apps(installed, job):
    """INSTALLED_APPS for importing `job`'s module under a minimal Django configuration: the
    contrib apps, and the module's own packages that are apps (have models or an AppConfig)."""
    apps = [
        "django.contrib.contenttypes",
        "django.contrib.auth",
        "django.contrib.sessions",
        "django.contrib.messages",
        "django.contrib.staticfiles",
        "django.contrib.admin",
    ]
    dist = installed.get(job["dist"])
    files = (
        {"/".join(f.parts) for f in (dist.files or [])} if dist is not None else set()
    )
    parts = job["module"].split(".")
    for i in range(1, len(parts) + 1):
        package = "/".join(parts[:i])
        if {
            package + "/models.py",
            package + "/apps.py",
            package + "/models/__init__.py",
        } & files:
            apps.append(".".join(parts[:i]))
    return apps


def siblings(installed, job):
    """The other modules of `job`'s package (from its dist's RECORD), for a module that cannot be
    imported first: `django.db.backends.base.operations` is a circular import unless
    `django.db.backends.base.base` came before it, as it does in real use."""
    dist = installed.get(job["dist"])
    package = job["module"].split(".")[:-1]
    out = set()
    for f in (dist.files or []) if dist is not None else []:
        parts = list(f.parts)
        if parts[:-1] == package and _module_name(parts[-1]) not in (
            None,
            "__init__",
            job["module"].split(".")[-1],
        ):
            out.add(".".join(package + [_module_name(parts[-1])]))
    return sorted(m for m in out if all(p.isidentifier() for p in m.split(".")))


def retry_circular(installed, job, result, timeout):
    """A submodule whose import fails as a circular import of itself, imported again after the
    other modules of its package: that result, marked `after_siblings`."""
    text = result.get("text") or result.get("error") or ""
    if (
        result["ok"]
        or "partially initialized module '%s'" % job["module"] not in text
        or "." not in job["module"]
    ):
        return result
    with timed("retried after its siblings (circular import)"):
        again = probe_import(job["module"], timeout, first=siblings(installed, job))
    again["after_siblings"] = True
    return again


def retry_under_django(installed, job, result, timeout):
    """A module that failed because Django has no settings, imported again under a minimal
    configuration: its result then, marked `django` (passed) or `django_skip` (still needs a
    project's settings)."""
    if (
        result["ok"]
        or installed.get("django") is None
        or not _DJANGO_UNCONFIGURED.search(
            result.get("text") or result.get("error") or ""
        )
    ):
        return result
    with timed("retried under a minimal Django configuration"):
        again = probe_import(
            job["module"], timeout, django_apps=django_apps(installed, job)
        )
    again["django"] = True
    if not again["ok"] and _DJANGO_UNCONFIGURED.search(
        again.get("text") or again.get("error") or ""
    ):
        again["django_skip"] = True
    return again


# Modules one forked child imports in turn: a fork, and the imports siblings share, paid once.
BATCH = 32
# Seconds kept back at the end of `--all`'s budget for the deep imports in flight: the median
# length of the last RESERVE_RECENT deep batches, at least RESERVE_MIN, at most RESERVE_CAP. The
# first deep imports of a dist are its slow ones: keeping back the slowest so far (up to 5 s) or
# the mean (up to 3 s) cut the sample on the H200 venv from about 200 modules to 40-50.
RESERVE_MIN, RESERVE_CAP, RESERVE_RECENT = 1.0, 3.0, 32
# Seconds before the end of `--all`'s budget at which the deep imports still running are stopped
# (left out, not failed): what follows them, the report written, the private compile caches
# removed, the report read and printed, fits in it (0.7-0.8 s on the 199-dist GPU venv, load 11).
BUDGET_END = 1.0


def batches(jobs, size, workers=1):
    """`jobs` (sorted: siblings next to each other) cut into runs of at most `size` of one dist,
    and of at most 1/`workers` of that dist's jobs, so that a dist's modules spread over every
    worker rather than queue in one child. The deep imports of `--all` go one by one: the budget
    is checked before each."""
    per_dist = {}
    for job in jobs:
        if not job["budgeted"]:
            per_dist[job["dist"]] = per_dist.get(job["dist"], 0) + 1
    out = []
    for job in jobs:
        last = out[-1] if out else None
        cap = min(size, -(-per_dist.get(job["dist"], 1) // max(1, workers)))
        if (
            last
            and len(last) < cap
            and not job["budgeted"]
            and not last[0]["budgeted"]
            and last[0]["dist"] == job["dist"]
        ):
            last.append(job)
        else:
            out.append([job])
    return out


def gated(planned, fork):
    """`planned` batches as (batch, learn_all, gate) in the order to run them. A dist with three
    batches or more opens with one (`learn_all`: the warm parent imports its modules, torch and
    the dist's own core, before it forks its child, and learns all that child imported) that its
    other batches wait for (`gate`), so that they start warm instead of each importing the same
    stack cold side by side."""
    count = {}
    for b in planned:
        if not b[0]["budgeted"]:
            count[b[0]["dist"]] = count.get(b[0]["dist"], 0) + 1
    gates, first, then = {}, [], []
    for b in planned:
        dist = b[0]["dist"]
        if (
            fork
            and count.get(dist, 0) >= 3
            and dist not in gates
            and not b[0]["budgeted"]
        ):
            gates[dist] = threading.Event()
            first.append((b, True, gates[dist]))
        else:
            then.append((b, False, gates.get(dist)))
    return first + then


def first_in_dist(job):
    """Where a job goes among its dist's: its top-level modules first, then the deep modules that
    two or more of the others import (planner's `fan_in`), most imported first, then the rest;
    so the dist's first batch, which the warm parent learns before its other batches fork, holds
    what they import. Within a rank, by name: siblings, which share imports, stay together."""
    if not job["deep"]:
        return (0, 0)
    return (1, -job["fan_in"]) if job["fan_in"] >= 2 else (2, 0)


def check_imports(
    installed,
    timeout,
    jobs_count,
    baseline_mode,
    say,
    fork=True,
    budget=None,
    batch=BATCH,
    known=None,
    since=None,
    only=None,
):
    """Every import job, through warm fork servers; deep imports of `--all` only start while
    `budget` seconds last, counted from `since` (a `time.monotonic()`; the imports' start when
    None), and those still running BUDGET_END seconds before its end are stopped; `known`:
    {module: error} of the baseline's failed imports; `only`: the check names to run (None: all).
    Returns (checks, what the budget left out or None, how the imports ran)."""
    with timed("reading the environment (import jobs)"):
        jobs, out = import_jobs(installed, baseline_mode)
        if only is not None:
            jobs = [j for j in jobs if "import:" + j["module"] in only]
            out = [c for c in out if c["name"] in only]
        jobs.sort(
            key=lambda j: (
                j["budgeted"] and budget is not None,
                j["dist"],
                first_in_dist(j),
                j["module"],
            )
        )

    def index():
        with timed("indexing every RECORD (beside the first imports)"):
            installed.owners(sys.executable)
            installed.top_names()

    # The RECORD index is built while the first children import; judging a result waits for it.
    threading.Thread(target=index, daemon=True).start()
    start = time.monotonic()
    counted_from = start if since is None else since
    stop_at = None if budget is None else counted_from + budget - BUDGET_END
    if since is not None:
        profiled("budget spent before the imports", start - since)
    importer = Importer(installed, timeout, fork, known, stop_at)
    left_out, stopped = [], []

    # The budget bounds the whole run, so a deep batch starts only while one as long as the
    # recent ones (their median, RESERVE_MIN to RESERVE_CAP seconds) would still end within it.
    took = collections.deque(maxlen=RESERVE_RECENT)

    def one(batch, learn_all, gate):
        if learn_all:
            try:
                return importer.run_batch(batch, learn_all)
            finally:
                gate.set()
        if gate is not None:
            gate.wait()
        if not batch[0]["budgeted"] or budget is None:
            return importer.run_batch(batch)
        began = time.monotonic()
        recent = sorted(took)[len(took) // 2] if took else RESERVE_MIN
        if began - counted_from > budget - min(max(recent, RESERVE_MIN), RESERVE_CAP):
            left_out.extend(job["module"] for job in batch)
            return []
        try:
            return importer.run_batch(batch)
        finally:
            took.append(time.monotonic() - began)

    try:
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, jobs_count)
        ) as pool:
            futures = {
                pool.submit(one, *task): task[0]
                for task in gated(batches(jobs, batch, jobs_count), importer.fork)
            }
            for future in concurrent.futures.as_completed(futures):
                for job, result in zip(futures[future], future.result()):
                    if result.get("stopped"):
                        stopped.append(job["module"])
                        continue
                    with timed("judging results"):
                        entry = judge_import(installed, job, result)
                    say(entry)
                    out.append(entry)
    finally:
        importer.close()
    profiled("imports (wall)", time.monotonic() - start)
    spent = None
    if budget is not None:
        spent = {
            "seconds": budget,
            "deep_imported": sum(1 for j in jobs if j["budgeted"])
            - len(left_out)
            - len(stopped),
            "deep_left": len(left_out) + len(stopped),
            "deep_stopped": len(stopped),
            "left_out": sorted(left_out + stopped)[:50],
        }
    return out, spent, dict(importer.counts(), not_forked=importer.notes)


def check_names(installed, timeout, workers, say):
    """Each name a risk factor cites as missing that is no module (`from lib import helper` in a
    function, which importing the importer never runs): the module imported in a fresh
    interpreter, then the name looked up with getattr, reported under the importer with the
    citation's file and line."""
    jobs = [(t, n) for t in SPEC["dists"] for n in t.get("names") or []]

    def one(job):
        target, cited = job
        module, name = cited["module"], cited["name"]
        fields = {
            "why": target["why"],
            "via": target.get("via"),
            "uses": cited["imports"],
            "cited": True,
            "evidence": "%s (%s, line %d) imports `%s` from `%s`"
            % (target["name"], cited["file"], cited["line"], name, module),
        }
        label = "import:%s.%s" % (module, name)
        if installed.get(target["name"]) is None:
            return check(
                label,
                "import",
                "skip",
                target["name"],
                detail="not installed",
                **fields,
            )
        result = probe_import(module, timeout, name=name)
        status = "pass" if result["ok"] else "fail"
        return check(
            label,
            "import",
            status,
            target["name"],
            error=None if result["ok"] else result["error"],
            s=result.get("s"),
            file=result.get("file"),
            **fields,
        )

    out = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for entry in pool.map(one, jobs):
            say(entry)
            out.append(entry)
    return out


def needed(module, name, attribute, timeout):
    """Whether what a function needs is there, as the function would reach it: `import M`
    (`module` itself); `from M import N` (`N` looked up, else the submodule `M.N` imported);
    a dotted use `M.a` after `import M` (`module` `M.a` imported, else `a` looked up in `M`, which
    may bind it without shipping the module). The probe's result; where neither passes, the
    first probe's error (`No module named 'openai.error'`)."""
    if name:
        first = probe_import(module, timeout, name=name)
        again = (module + "." + name,)
    elif attribute and "." in module:
        first = probe_import(module, timeout)
        parent, last = module.rsplit(".", 1)
        again = (parent, last)
    else:
        return probe_import(module, timeout)
    if first["ok"]:
        return first
    if len(again) == 1:
        second = probe_import(again[0], timeout)
    else:
        second = probe_import(again[0], timeout, name=again[1])
    return second if second["ok"] else first


def call_time_label(claim):
    """`call-time:module.name` (or `call-time:module`): a call-time claim's check name."""
    name = claim.get("name")
    return "call-time:%s" % (
        "%s.%s" % (claim["module"], name) if name else claim["module"]
    )


def check_call_time(installed, timeout, workers, say, before):
    """Each call-time claim of the plan (a kept dist's function imports or uses a module or name
    of a changed dist that the planned release lacks): what the function needs, checked without
    running it (the module imported in a fresh interpreter, then the name looked up), under the
    importing dist with its file, line and function. `before`: the baseline run, before the
    change. After the change a failure is the claimed break; a pass says the claim was wrong."""

    def one(claim):
        module, name = claim["module"], claim.get("name")
        where = "%s line %d%s" % (
            claim["file"],
            claim["line"],
            ", in %s" % claim["function"] if claim.get("function") else "",
        )
        if name and claim.get("attribute"):
            needs = "uses %s of %s" % (name, module)
        elif name:
            needs = "imports %s from %s" % (name, module)
        else:
            needs = "%s %s" % ("uses" if claim.get("attribute") else "imports", module)
        more = claim.get("more") or 0
        fields = {
            "uses": claim["imports"],
            "cited": True,
            "evidence": "%s %s (%s) %s%s"
            % (
                claim["dist"],
                claim["version"],
                where,
                needs,
                " (and %d more use(s) of it)" % more if more else "",
            ),
        }
        label = call_time_label(claim)
        if installed.get(claim["dist"]) is None:
            return check(
                label,
                "call-time",
                "skip",
                claim["dist"],
                detail="not installed",
                **fields,
            )
        result = needed(module, name, claim.get("attribute"), timeout)
        if result["ok"]:
            detail = (
                "what the function needs is there (the function was not run)"
                if before
                else "the plan's call-time claim does not hold: %s, %s, and that is "
                "still there (the function was not run)" % (where, needs)
            )
            return check(
                label,
                "call-time",
                "pass",
                claim["dist"],
                detail=detail,
                s=result.get("s"),
                **fields,
            )
        return check(
            label,
            "call-time",
            "fail",
            claim["dist"],
            error="%s, %s: %s (the function was not run; what it needs is gone)"
            % (where, needs, result["error"]),
            s=result.get("s"),
            **fields,
        )

    out = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for entry in pool.map(one, SPEC.get("call_time") or []):
            say(entry)
            out.append(entry)
    return out


_BROKEN = re.compile(
    r"^(?P<dep>\S+) (?P<depver>\S+) has requirement (?P<req>.+), but you have (?P<pkg>\S+) (?P<ver>\S+)\.$"
)


def _accepted(line):
    m = _BROKEN.match(line)
    if not m:
        return False
    return any(
        canonical_name(m.group("dep")) == o["dependent"]
        and canonical_version(m.group("depver"))
        == canonical_version(o["dependent_version"])
        and canonical_name(m.group("pkg")) == o["package"]
        and canonical_version(m.group("ver")) == canonical_version(o["version"])
        for o in SPEC["overrides"]
    )


# `uv pip check`'s form: "The package `flask` requires `click>=7.1.2`, but `7.0` is installed".
_UV_BROKEN = re.compile(
    r"^The package `(?P<dep>[^`]+)` requires `(?P<req>[A-Za-z0-9._-]+)[^`]*`, "
    r"but `(?P<ver>[^`]+)` is installed$"
)


def _accepted_uv(line):
    m = _UV_BROKEN.match(line)
    if not m:
        return False
    return any(
        canonical_name(m.group("dep")) == o["dependent"]
        and canonical_name(m.group("req")) == o["package"]
        and canonical_version(m.group("ver")) == canonical_version(o["version"])
        for o in SPEC["overrides"]
    )


def pip_check_command():
    """`pip check` of this interpreter: its own pip, else `uv pip check --python` (a venv made by
    uv has no pip); (argv, problem lines' filter, accepted-override test), or None."""
    if importlib.util.find_spec("pip") is not None:
        return (
            [sys.executable, "-m", "pip", "check", "--disable-pip-version-check"],
            lambda l: not l.startswith("No broken requirements"),
            _accepted,
        )
    uv = shutil.which("uv")
    if uv is not None:
        return (
            [uv, "pip", "check", "--python", sys.executable],
            lambda l: l.startswith("The package "),
            _accepted_uv,
        )
    return None


def check_pip(timeout):
    command = pip_check_command()
    if command is None:
        return check(
            "pip-check",
            "pip-check",
            "skip",
            detail="pip is not installed in this environment and uv is not on PATH",
        )
    argv, problem, accepted_by = command
    # Beside the imports, which the cores are for: the first of them is what every other waits on.
    code, out, err, seconds = run_child(argv, timeout, background=True)
    if code is None:
        return check(
            "pip-check",
            "pip-check",
            "fail",
            s=seconds,
            error="timed out after %gs" % timeout,
        )
    lines = [l.strip() for l in out.splitlines() if l.strip() and problem(l.strip())]
    accepted = [l for l in lines if accepted_by(l)]
    broken = [l for l in lines if l not in accepted]
    if code != 0 and not lines:
        broken = [last_line(err) or "pip check exited %d" % code]
    return check(
        "pip-check",
        "pip-check",
        "fail" if broken else "pass",
        s=seconds,
        broken=broken,
        accepted=accepted,
        error="; ".join(broken) if broken else None,
        detail=("%d accepted override(s)" % len(accepted))
        if accepted and not broken
        else None,
    )


CUDA_PROBE = r"""
import ctypes, json
for lib in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
    try:
        cuda = ctypes.CDLL(lib)
    except OSError:
        continue
    rc = cuda.cuInit(0)
    if rc != 0:
        print(json.dumps([0, "the CUDA driver did not initialize (cuInit returned %d)" % rc])); break
    n = ctypes.c_int(0)
    cuda.cuDeviceGetCount(ctypes.byref(n))
    print(json.dumps([n.value, "%d CUDA device(s) (driver %s)" % (n.value, lib)])); break
else:
    print(json.dumps([0, "no CUDA driver (libcuda) on this machine"]))
"""


def cuda_devices():
    """How many CUDA devices the driver sees (asked in a child process: a broken driver may hang)."""
    code, out, err, _ = run_child([sys.executable, "-c", CUDA_PROBE], 60)
    try:
        count, detail = json.loads(last_line(out))
        return {"devices": count, "detail": detail}
    except (ValueError, TypeError):
        return {
            "devices": 0,
            "detail": "the CUDA probe failed: " + (last_line(err) or "no answer"),
        }


CUDA_LIBS_PROBE = r"""
import json, re
import torch
try:
    if torch.cuda.is_available():
        torch.cuda.init()
except Exception:
    pass
wanted = re.compile(r"^lib(cudart|cublas|cublasLt|nccl|cudnn\w*|cuda)(-[0-9a-f]+)?\.so(\.[0-9.]+)?$")
seen = []
with open("/proc/self/maps") as f:
    for line in f:
        parts = line.split(None, 5)
        path = parts[5].strip() if len(parts) == 6 else ""
        if path.startswith("/") and wanted.match(path.rsplit("/", 1)[-1]) and path not in seen:
            seen.append(path)
print(json.dumps(seen))
"""


def cuda_libraries(installed, say):
    """Where an `import torch` (and CUDA's start, where there is a device) loaded libcudart,
    libcublas, libnccl, libcudnn and libcuda from (/proc/self/maps of a child): each library is
    `venv` (under this environment's site-packages: the nvidia-* wheels, torch's own), `driver`
    (libcuda, and what lies in libcuda's folder) or `outside` (another toolkit, LD_LIBRARY_PATH),
    which is flagged. None when torch is not installed."""
    if installed.version("torch") is None:
        return None
    if not os.path.exists("/proc/self/maps"):
        return {
            "loaded": [],
            "outside": [],
            "detail": "no /proc/self/maps on this system",
        }
    code, out, err, seconds = run_child([sys.executable, "-c", CUDA_LIBS_PROBE], 300)
    try:
        paths = json.loads(last_line(out))
    except (ValueError, TypeError):
        why = "timed out" if code is None else (last_line(err) or "no answer")
        return {
            "loaded": [],
            "outside": [],
            "s": seconds,
            "detail": "import torch failed: " + why,
        }
    sites = {
        os.path.realpath(p)
        for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])
    }
    drivers = {
        os.path.dirname(p)
        for p in paths
        if os.path.basename(p).startswith("libcuda.so")
    }
    loaded = []
    for path in paths:
        real = os.path.realpath(path)
        if any(real.startswith(site + os.sep) for site in sites):
            where = "venv"
        elif os.path.dirname(path) in drivers:
            where = "driver"
        else:
            where = "outside"
        loaded.append({"library": os.path.basename(path), "path": path, "from": where})
    outside = [l["path"] for l in loaded if l["from"] == "outside"]
    for path in outside:
        if say:
            say(
                {
                    "status": "warn",
                    "name": "cuda-library",
                    "error": "%s loaded from outside the venv's nvidia-* wheels and the driver's folder"
                    % path,
                }
            )
    detail = "%d CUDA librar%s loaded by import torch" % (
        len(loaded),
        "y" if len(loaded) == 1 else "ies",
    )
    return {"loaded": loaded, "outside": outside, "s": seconds, "detail": detail}


def _matches(pattern, name):
    head, star, tail = pattern.partition("*")
    if not star:
        return pattern == name
    return (
        len(name) >= len(head) + len(tail)
        and name.startswith(head)
        and name.endswith(tail)
    )


def run_smoke(installed, smoke, cuda, tmp):
    name = "smoke:" + smoke["name"]
    fields = {"why": smoke.get("why"), "hardware": smoke["hardware"]}
    present = sorted(n for n in installed.dists if _matches(smoke["package"], n))
    if not present:
        return check(
            name,
            "smoke",
            "skip",
            smoke["package"],
            detail="%s is not installed" % smoke["package"],
            **fields,
        )
    package = present[0]
    if smoke["hardware"] == "cuda" and not cuda["devices"]:
        return check(
            name,
            "smoke",
            "skip",
            package,
            detail="needs a CUDA device: " + cuda["detail"],
            **fields,
        )
    # Prefixed: a check's folder comes first on its sys.path, and a file named as a module it
    # imports (`langchain_openai.py`) would be imported in its place.
    path = os.path.join(
        tmp, "planner_smoke_" + re.sub(r"[^A-Za-z0-9_]", "_", smoke["name"]) + ".py"
    )
    with open(path, "w") as f:
        f.write(smoke["code"])
    code, out, err, seconds = run_child([sys.executable, path], smoke["timeout"])
    fields["s"] = seconds
    if code is None:
        return check(
            name,
            "smoke",
            "fail",
            package,
            error="timed out after %gs" % smoke["timeout"],
            **fields,
        )
    if code == 77:
        return check(
            name,
            "smoke",
            "skip",
            package,
            detail=last_line(out) or "skipped by the check",
            **fields,
        )
    if code != 0:
        why = ("killed by signal %d" % -code) if code < 0 else ("exit %d" % code)
        return check(
            name,
            "smoke",
            "fail",
            package,
            error=last_line(err) or last_line(out) or why,
            **fields,
        )
    return check(
        name, "smoke", "pass", package, detail=last_line(out) or None, **fields
    )


def run_test(command, timeout):
    """The user's own check (`--test CMD`), run by the shell with the environment's bin/ first on
    PATH: exit 0 passes."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    start = time.monotonic()
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.communicate()
        return check(
            "test:" + command,
            "test",
            "fail",
            s=round(time.monotonic() - start, 2),
            error="timed out after %gs" % timeout,
        )
    seconds = round(time.monotonic() - start, 2)
    if proc.returncode != 0:
        why = (
            ("killed by signal %d" % -proc.returncode)
            if proc.returncode < 0
            else ("exit %d" % proc.returncode)
        )
        tail = last_line(err) or last_line(out)
        return check(
            "test:" + command,
            "test",
            "fail",
            s=seconds,
            error=why + (": " + tail if tail else ""),
        )
    return check(
        "test:" + command, "test", "pass", s=seconds, detail=last_line(out) or None
    )


def check_smoke(installed, say):
    """Every selected smoke test, at most 4 at once (they run beside the imports), the longest
    allowed first (torch.compile and flex_attention: 600 s, 26 s from empty caches on an H200),
    so that they overlap the imports instead of starting after the short ones."""
    if not SPEC["smoke"]:
        return [], None
    cuda = (
        cuda_devices() if any(s["hardware"] == "cuda" for s in SPEC["smoke"]) else None
    )
    out = []
    with tempfile.TemporaryDirectory(prefix="planner-verify-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            futures = [
                pool.submit(
                    run_smoke,
                    installed,
                    smoke,
                    cuda or {"devices": 0, "detail": ""},
                    tmp,
                )
                for smoke in sorted(SPEC["smoke"], key=lambda s: -s["timeout"])
            ]
            for future in futures:
                entry = future.result()
                say(entry)
                out.append(entry)
    return out, cuda
