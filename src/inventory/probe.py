#!/usr/bin/env python3
"""Report the facts the planner needs about this Python environment, as JSON on stdout.

Two modes, one code path for the interpreter facts, so both always agree:

  python3 this.py --probe         markers, wheel tags, site-packages, prefix, version
  python3 this.py [--out FILE]    a full planner snapshot: the above plus every installed
                                  distribution's metadata (what `planner snapshot --out` writes)

Standard library only, Python 3.8+. Reads, never writes, the environment. Wheel tags come
from pip's vendored `packaging` (or `packaging`) when importable, else from a generator that
follows packaging.tags.sys_tags() for CPython.
"""

import base64
import csv
import datetime
import hashlib
import io
import json
import os
import platform
import re
import stat
import subprocess
import sys
import sysconfig

SNAPSHOT_SCHEMA = "planner-snapshot/1"
# Only these core metadata fields are kept; multi-use fields become lists (PEP 566 JSON keys).
SINGLE_FIELDS = ("metadata-version", "name", "version", "summary", "requires-python")
MULTI_FIELDS = ("requires-dist", "provides-extra", "dynamic")


def marker_environment():
    """The PEP 508 marker environment, as packaging.markers.default_environment() has it."""
    impl = sys.implementation
    iver = "{0.major}.{0.minor}.{0.micro}".format(impl.version)
    if impl.version.releaselevel != "final":
        iver += impl.version.releaselevel[0] + str(impl.version.serial)
    return {
        "implementation_name": impl.name,
        "implementation_version": iver,
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_python_implementation": platform.python_implementation(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    }


def packaging_tags():
    """sys_tags() from pip's vendored packaging or from packaging, else None."""
    for module in ("pip._vendor.packaging.tags", "packaging.tags"):
        try:
            tags = __import__(module, fromlist=["sys_tags"])
            return [str(tag) for tag in tags.sys_tags()], module
        except Exception:  # noqa: BLE001 - any failure means: try the next source
            continue
    return None, None


def _glibc_version():
    try:
        name, version = platform.libc_ver()
        if name == "glibc":
            major, minor = version.split(".")[:2]
            return int(major), int(minor)
    except Exception:  # noqa: BLE001
        pass
    return None


def fallback_platforms():
    """Platform tags best first, for CPython on Linux, macOS and Windows."""
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    machine = platform.machine().lower()
    if sys.platform.startswith("linux"):
        arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
        out = []
        glibc = _glibc_version()
        if glibc is not None:
            floor = 4 if arch in ("x86_64", "i686") else 16
            legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
            for minor in range(glibc[1], floor, -1):
                out.append("manylinux_2_%d_%s" % (minor, arch))
                if minor in legacy:
                    out.append("%s_%s" % (legacy[minor], arch))
        out.append("linux_" + arch)
        return out
    if sys.platform == "darwin":
        release = platform.mac_ver()[0] or "11.0"
        major, minor = (int(x) for x in (release.split(".") + ["0"])[:2])
        arch = "arm64" if machine == "arm64" else "x86_64"
        formats = (
            [arch, "universal2"]
            if arch == "arm64"
            else [arch, "intel", "fat64", "fat32", "universal2", "universal"]
        )
        out = []
        if major >= 11:
            for m in range(major, 10, -1):
                out.extend("macosx_%d_0_%s" % (m, f) for f in formats)
            for m in range(16, 3, -1):
                out.extend(
                    "macosx_10_%d_%s" % (m, f)
                    for f in (formats if arch == "x86_64" else ["universal2"])
                )
        else:
            for m in range(minor, -1, -1):
                out.extend("macosx_10_%d_%s" % (m, f) for f in formats)
        return out
    return [plat]


def fallback_tags():
    """packaging.tags.sys_tags() order for CPython: cpXY-cpXY, abi3, none, older abi3, then
    the pyXY-none tags and the -any tags."""
    major, minor = sys.version_info[:2]
    platforms = fallback_platforms()
    cp = "cp%d%d" % (major, minor)
    out = []
    out += ["%s-%s-%s" % (cp, cp, p) for p in platforms]
    out += ["%s-abi3-%s" % (cp, p) for p in platforms]
    out += ["%s-none-%s" % (cp, p) for p in platforms]
    for m in range(minor - 1, 1, -1):
        out += ["cp%d%d-abi3-%s" % (major, m, p) for p in platforms]
    pys = ["py%d%d" % (major, minor), "py%d" % major] + [
        "py%d%d" % (major, m) for m in range(minor - 1, -1, -1)
    ]
    for py in pys:
        out += ["%s-none-%s" % (py, p) for p in platforms]
    out.append("%s-none-any" % cp)
    out += ["%s-none-any" % py for py in pys]
    return out


def site_packages():
    """The folders distributions are installed into, in sys.path priority, deduplicated."""
    paths = []
    try:
        import site

        paths.extend(site.getsitepackages())
    except Exception:  # noqa: BLE001 - old virtualenv's site.py lacks it
        pass
    for key in ("purelib", "platlib"):
        paths.append(sysconfig.get_paths()[key])
    out = []
    seen = set()
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(path) and real not in seen:
            seen.add(real)
            out.append(os.path.abspath(path))
    return out


def pth_paths(sites):
    """The folders on sys.path inside a site-packages folder: what its .pth files put there."""
    out = []
    for entry in sys.path:
        path = os.path.abspath(entry or ".")
        inside = any(path.startswith(os.path.join(site, "")) for site in sites)
        if inside and os.path.isdir(path) and path not in out:
            out.append(path)
    return out


def externally_managed():
    """The PEP 668 EXTERNALLY-MANAGED file that applies, as pip finds it, else None.

    A virtual environment is never externally managed; otherwise the marker is the file of that
    name in the standard library folder.
    """
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        return None
    try:
        marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
    except Exception:  # noqa: BLE001 - a broken sysconfig means: not known to be managed
        return None
    return os.path.abspath(marker) if os.path.isfile(marker) else None


def probe():
    tags, source = packaging_tags()
    sites = site_packages()
    return {
        "python_version": platform.python_version(),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "site_packages": sites,
        "pth_paths": pth_paths(sites),
        "markers": marker_environment(),
        "tags": tags if tags is not None else fallback_tags(),
        "tags_source": source or "fallback",
        "externally_managed": externally_managed(),
    }


# ---- snapshot mode: every installed distribution ----


def parse_headers(text):
    """RFC 822-style headers: stop at the first blank line, unfold continuation lines."""
    headers = []
    for line in text.split("\n"):
        if line.endswith("\r"):
            line = line[:-1]
        if line == "":
            break
        if line[0] in " \t":
            if headers:
                headers[-1][1] += "\n" + line.strip()
            continue
        if ":" in line:
            field, value = line.split(":", 1)
            headers.append([field.strip(), value.strip()])
    return headers


def metadata_fields(text):
    out = {}
    for field, value in parse_headers(text):
        key = field.lower()
        if key in SINGLE_FIELDS and key not in out:
            out[key.replace("-", "_")] = value
        elif key in MULTI_FIELDS:
            out.setdefault(key.replace("-", "_"), []).append(value)
    return out


def read_text(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def top_level(folder):
    text = read_text(os.path.join(folder, "top_level.txt"))
    if text is not None:
        return sorted({line.strip() for line in text.splitlines() if line.strip()})
    record = read_text(os.path.join(folder, "RECORD"))
    names = set()
    if record is not None:
        for line in record.splitlines():
            path = line.split(",", 1)[0].strip('"')
            first = path.split("/", 1)[0]
            if not first or first.endswith((".dist-info", ".data")) or first == "..":
                continue
            if "/" in path:
                names.add(first)
            elif first.endswith(".py"):
                names.add(first[:-3])
    return sorted(names)


# Files hashed against RECORD; others are compared by size (src/inventory/integrity.rs).
SOURCE_SUFFIXES = (
    ".py",
    ".pyi",
    ".pth",
    ".pyx",
    ".pxd",
    ".txt",
    ".json",
    ".toml",
    ".cfg",
    ".ini",
    ".yaml",
    ".yml",
)


# An edited text file's lines are hashed up to this size; an unowned file is hashed up to the
# other (src/inventory/integrity.rs, src/inventory/unowned.rs).
MAX_LINES_BYTES = 1 << 20
MAX_UNOWNED_HASHED = 64 << 20


def line_hashes(data):
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [hashlib.sha256(line).hexdigest()[:12] for line in lines]


def record_inside(path):
    return not (path.startswith(("/", "\\")) or ".." in re.split(r"[/\\]", path))


def sha256_of(path):
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
    except OSError:
        return None
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")


def check_row(site, row):
    """None: not checkable; True: as installed; or the change (as integrity.rs writes it)."""
    path, hashed = row[0], row[1] if len(row) > 1 else ""
    algorithm, _, digest = hashed.partition("=")
    if algorithm != "sha256" or not digest or not record_inside(path):
        return None, False
    try:
        recorded = int(row[2].strip()) if len(row) > 2 else None
    except ValueError:
        recorded = None
    change = {
        "path": path,
        "state": "missing",
        "recorded_size": recorded,
        "size": None,
        "sha256": None,
        "modified": None,
    }
    try:
        st = os.lstat(os.path.join(site, path))
    except FileNotFoundError:
        return change, False
    except OSError:
        return None, False
    if not os.path.isfile(os.path.join(site, path)) or os.path.islink(
        os.path.join(site, path)
    ):
        return None, False
    hash_it = path.endswith(SOURCE_SUFFIXES)
    differs = recorded is not None and recorded != st.st_size
    if not hash_it and not differs:
        return True, False
    sha = sha256_of(os.path.join(site, path)) if hash_it else None
    if sha == digest and not differs:
        return True, True
    change.update(state="edited", size=st.st_size, sha256=sha, modified=mtime(st))
    if hash_it and st.st_size <= MAX_LINES_BYTES:
        try:
            with open(os.path.join(site, path), "rb") as handle:
                change["line_hashes"] = line_hashes(handle.read(MAX_LINES_BYTES + 1))
        except OSError:
            pass
    return change, sha is not None


def mtime(st):
    when = datetime.datetime.fromtimestamp(int(st.st_mtime), datetime.timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def package_folder(path):
    top, sep, _ = path.partition("/")
    if (
        not sep
        or top in ("", ".", "__pycache__")
        or top.endswith((".dist-info", ".data", ".egg-info"))
    ):
        return None
    return top


def normalize_rel(path):
    parts = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or None


def walk_files(folder, rel):
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            entry.name.encode("utf-8")
        except UnicodeEncodeError:
            continue
        path = rel + "/" + entry.name
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                yield from walk_files(entry.path, path)
        elif not entry.name.endswith((".pyc", ".pyo")):
            yield entry.path, path


def describe_unowned(full, path):
    try:
        st = os.lstat(full)
    except OSError:
        return None
    regular = stat.S_ISREG(st.st_mode)
    sha = sha256_of(full) if regular and st.st_size <= MAX_UNOWNED_HASHED else None
    return {
        "path": path,
        "size": st.st_size if regular else None,
        "sha256": sha,
        "modified": mtime(st),
    }


def unowned_in_site(site, entries):
    """Dist-info folder name -> the files in its package folders no RECORD (or an egg-info's
    installed-files.txt) of this site owns, as src/inventory/unowned.rs finds them."""
    owned, dir_owners, tops, found = set(), {}, {}, {}
    for entry in entries:
        if entry.endswith(".dist-info"):
            text = read_text(os.path.join(site, entry, "RECORD"))
            if text is None:
                continue
            found[entry] = []
            for row in csv.reader(io.StringIO(text)):
                if not row or not row[0] or not record_inside(row[0]):
                    continue
                owned.add(row[0])
                if "/" in row[0]:
                    dir_owners.setdefault(row[0].rsplit("/", 1)[0], set()).add(entry)
                    top = package_folder(row[0])
                    if top is not None:
                        tops.setdefault(top, set()).add(entry)
        elif entry.endswith(".egg-info") and os.path.isdir(os.path.join(site, entry)):
            text = read_text(os.path.join(site, entry, "installed-files.txt")) or ""
            for line in text.splitlines():
                path = (
                    normalize_rel(entry + "/" + line.strip()) if line.strip() else None
                )
                if path is not None:
                    owned.add(path)
    for top in sorted(tops):
        base = os.path.join(site, top)
        if os.path.islink(base) or not os.path.isdir(base):
            continue
        for full, path in walk_files(base, top):
            if path in owned:
                continue
            owner, rest = None, path
            while "/" in rest:
                parent = rest.rsplit("/", 1)[0]
                if parent in dir_owners:
                    owner = min(dir_owners[parent])
                    break
                if parent == top:
                    break
                rest = parent
            file = describe_unowned(full, path)
            if file is not None:
                found[owner or min(tops[top])].append(file)
    for files in found.values():
        files.sort(key=lambda f: f["path"])
    return found


def file_check(folder, unowned):
    """A dist's files against its RECORD: edited and missing files, and what was checked how."""
    text = read_text(os.path.join(folder, "RECORD"))
    if text is None:
        return None
    site = os.path.dirname(folder)
    out = {"changes": [], "hashed": 0, "size_only": 0, "unchecked": 0}
    for row in csv.reader(io.StringIO(text)):
        if not row or not row[0]:
            continue
        result, hashed = check_row(site, row)
        if result is None:
            out["unchecked"] += 1
            continue
        if hashed:
            out["hashed"] += 1
        elif result is True or result["state"] == "edited":
            out["size_only"] += 1
        if result is not True:
            out["changes"].append(result)
    out["changes"].sort(key=lambda c: c["path"])
    out["unowned"] = unowned.get(os.path.basename(folder), [])
    return out


def read_dist(folder, entry, unowned):
    path = os.path.join(folder, entry)
    if entry.endswith(".dist-info"):
        fmt, meta = "dist-info", os.path.join(path, "METADATA")
    elif os.path.isdir(path):
        fmt, meta = "egg-info", os.path.join(path, "PKG-INFO")
    else:
        fmt, meta = "egg-info", path
    text = read_text(meta)
    if text is None:
        return None
    fields = metadata_fields(text)
    if "name" not in fields or "version" not in fields:
        return None
    dist = {"path": path, "format": fmt, "metadata": fields}
    if fmt == "dist-info":
        installer = read_text(os.path.join(path, "INSTALLER"))
        dist["installer"] = (
            installer.strip() if installer is not None and installer.strip() else None
        )
        dist["requested"] = os.path.exists(os.path.join(path, "REQUESTED"))
        direct = read_text(os.path.join(path, "direct_url.json"))
        try:
            dist["direct_url"] = json.loads(direct) if direct is not None else None
        except ValueError:
            dist["direct_url"] = None
        dist["top_level"] = top_level(path)
        files = file_check(path, unowned)
        if files is not None:
            dist["files"] = files
    else:
        dist["installer"] = None
        dist["requested"] = False
        dist["direct_url"] = None
        dist["top_level"] = top_level(path) if os.path.isdir(path) else []
        if os.path.isdir(path):
            requires = read_text(os.path.join(path, "requires.txt"))
            if requires is not None:
                dist["egg_requires"] = requires
    return dist


# The runtime context around the versions, as planner's runtime reader collects it.
RUNTIME_PREFIXES = (
    "CUDA_",
    "TORCH_",
    "TORCHINDUCTOR_",
    "TRITON_",
    "PYTORCH_",
    "XLA_",
    "JAX_",
    "NCCL_",
    "NVIDIA_",
    "PIP_",
    "UV_",
)
RUNTIME_NAMES = ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH")
SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")


def find_on_path(name):
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def runtime_gpu():
    driver = None
    text = read_text("/proc/driver/nvidia/version")
    for token in (text or "").split():
        parts = token.split(".")
        if len(parts) >= 2 and all(p.isdigit() for p in parts):
            driver = token
            break
    devices = []
    smi = find_on_path("nvidia-smi")
    if smi is not None:
        import subprocess

        try:
            out = subprocess.run(
                [
                    smi,
                    "--query-gpu=name,compute_cap,driver_version",
                    "--format=csv,noheader",
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            for line in out.stdout.decode("utf-8", "replace").splitlines():
                fields = [f.strip() for f in line.split(",")]
                if len(fields) == 3:
                    devices.append(
                        "%s (compute capability %s)" % (fields[0], fields[1])
                    )
                    driver = driver or fields[2]
        except (OSError, subprocess.CalledProcessError):
            pass
    if driver is None:
        note = "none: no NVIDIA driver (/proc/driver/nvidia/version) and no nvidia-smi"
    elif not devices:
        note = "driver from /proc/driver/nvidia/version; nvidia-smi listed no GPU"
    else:
        note = "driver and GPUs from /proc/driver/nvidia/version and nvidia-smi"
    return {"driver": driver, "devices": devices, "note": note}


def toolkit_version(folder):
    text = read_text(os.path.join(folder, "version.json"))
    if text is not None:
        try:
            version = json.loads(text)["cuda"]["version"]
            return version if isinstance(version, str) else None
        except (ValueError, KeyError, TypeError):
            return None
    text = read_text(os.path.join(folder, "version.txt"))
    if text is not None:
        words = text.split()
        return words[-1] if words else None
    return nvcc_version(os.path.join(folder, "bin", "nvcc"))


def nvcc_version(nvcc):
    if not os.path.isfile(nvcc):
        return None
    try:
        out = subprocess.run(
            [nvcc, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    lines = [
        l for l in out.stdout.decode("utf-8", "replace").splitlines() if "release " in l
    ]
    if not lines:
        return None
    line = lines[-1]
    for word in re.split(r"[, ]", line):
        if word.startswith("V") and word[1:2].isdigit():
            return word[1:]
    return line.split("release ", 1)[1].split(",")[0].strip()


def runtime_toolkits():
    found = {}
    try:
        for name in os.listdir("/usr/local"):
            path = os.path.join("/usr/local", name)
            if name.startswith("cuda") and os.path.isdir(path):
                found.setdefault(path, []).append("/usr/local/cuda*")
    except OSError:
        pass
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            found.setdefault(os.environ[var], []).append(var)
    nvcc = find_on_path("nvcc")
    if nvcc is not None:
        found.setdefault(os.path.dirname(os.path.dirname(nvcc)), []).append(
            "nvcc on PATH"
        )
    return [
        {"path": path, "version": toolkit_version(path), "found_by": by}
        for path, by in sorted(found.items())
    ]


def masked(name, value):
    if any(word in name.upper() for word in SECRET_WORDS):
        return "****"
    return re.sub(r"://[^/?#\s\"'<>]*@", "://****@", value)


def runtime_variables():
    return {
        name: masked(name, value)
        for name, value in sorted(os.environ.items())
        if name in RUNTIME_NAMES or name.startswith(RUNTIME_PREFIXES)
    }


def runtime_cache(kind, path):
    cache = {
        "kind": kind,
        "path": path,
        "exists": os.path.isdir(path),
        "entries": 0,
        "bytes": 0,
        "newest_write": None,
        "writers": [],
    }
    newest, writers, reads = None, set(), 0
    for root, dirs, names in os.walk(path):
        for name in names:
            file = os.path.join(root, name)
            if os.path.islink(file):
                continue
            try:
                st = os.stat(file)
            except OSError:
                continue
            cache["entries"] += 1
            cache["bytes"] += st.st_size
            newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
            if name.endswith(".json") and reads < 200:
                reads += 1
                try:
                    version = json.loads(read_text(file) or "")["triton_version"]
                    if isinstance(version, str):
                        writers.add("triton " + version)
                except (ValueError, KeyError, TypeError):
                    pass
    if newest is not None:
        when = datetime.datetime.fromtimestamp(int(newest), datetime.timezone.utc)
        cache["newest_write"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    cache["writers"] = sorted(writers)
    return cache


def runtime_caches():
    env = os.environ
    home = env.get("HOME")
    user = next(
        (env[v] for v in ("LOGNAME", "USER", "LNAME", "USERNAME") if env.get(v)), None
    )
    tmp = env.get("TMPDIR") or "/tmp"
    folders = [
        (
            "inductor",
            env.get("TORCHINDUCTOR_CACHE_DIR")
            or (os.path.join(tmp, "torchinductor_" + user) if user else None),
        ),
        (
            "triton",
            env.get("TRITON_CACHE_DIR")
            or (os.path.join(home, ".triton/cache") if home else None),
        ),
        (
            "jax",
            env.get("JAX_COMPILATION_CACHE_DIR")
            or (os.path.join(home, ".cache/jax") if home else None),
        ),
        (
            "cupy",
            env.get("CUPY_CACHE_DIR")
            or (os.path.join(home, ".cupy/kernel_cache") if home else None),
        ),
    ]
    return [runtime_cache(kind, path) for kind, path in folders if path]


def runtime():
    return {
        "gpu": runtime_gpu(),
        "cuda_toolkits": runtime_toolkits(),
        "variables": runtime_variables(),
        "caches": runtime_caches(),
    }


def snapshot():
    facts = probe()
    dists = []
    unreadable = []
    for folder in facts["site_packages"]:
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            continue
        unowned = unowned_in_site(folder, entries)
        for entry in entries:
            if not (entry.endswith(".dist-info") or entry.endswith(".egg-info")):
                continue
            dist = read_dist(folder, entry, unowned)
            if dist is None:
                unreadable.append(os.path.join(folder, entry))
            else:
                dists.append(dist)
    dists.sort(key=lambda d: (normalize(d["metadata"]["name"]), d["path"]))
    facts.pop("tags_source", None)
    return {
        "schema": SNAPSHOT_SCHEMA,
        "python_version": facts["python_version"],
        "prefix": facts["prefix"],
        "site_packages": facts["site_packages"],
        "markers": facts["markers"],
        "tags": facts["tags"],
        "dists": dists,
        "unreadable": sorted(unreadable),
        "runtime": runtime(),
    }


def main(argv):
    if "--probe" in argv:
        json.dump(probe(), sys.stdout)
        return 0
    data = json.dumps(snapshot(), indent=2, sort_keys=False) + "\n"
    if "--out" in argv:
        target = argv[argv.index("--out") + 1]
        tmp = "%s.tmp%d" % (target, os.getpid())
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(data)
        os.replace(tmp, target)
    else:
        sys.stdout.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
