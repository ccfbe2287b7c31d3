#!/usr/bin/env python3
"""Build testdata/venvs/canonical: the field's canonical incident stack with real metadata.

torch 2.11.0+cu130 (the shared H200 fixture's torch METADATA with the cu130 local label: the
cu130 build declares the same requirements), triton 3.6.0, flash-linear-attention 0.5.1
installed from a git commit (direct_url.json with vcs_info), transformers 5.8.0, and their
runtime dependency closure for CPython 3.12 on x86_64 Linux (extras followed where a
requirement asks for them). Every dist-info is copied from testdata/fixtures/h200-venv when
the version there satisfies every requirement on it, else recorded from the index with
scripts/record-dist-info.py. Needs pip (for its vendored `packaging`) and the index.

usage: scripts/build-canonical-venv.py [OUT_VENV]   (default testdata/venvs/canonical)
"""

import os
import re
import shutil
import subprocess
import sys

from pip._vendor.packaging.markers import Marker  # noqa: F401 - imported for the side effect check
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.version import Version

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
H200 = os.path.join(
    REPO, "testdata", "fixtures", "h200-venv", "lib", "python3.12", "site-packages"
)
FLA_COMMIT = "0c5dc3f0a57e8d25e9e8e4d1b5c2a7f3e6b9d104"
ENV = {
    "implementation_name": "cpython",
    "implementation_version": "3.12.3",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_python_implementation": "CPython",
    "platform_release": "6.8.0",
    "platform_system": "Linux",
    "platform_version": "",
    "python_full_version": "3.12.3",
    "python_version": "3.12",
    "sys_platform": "linux",
}
# name -> (version, record options) for the roots; the rest of the closure is derived.
ROOTS = {
    "torch": "2.11.0+cu130",
    "triton": "3.6.0",
    "flash-linear-attention": "0.5.1",
    "transformers": "5.8.0",
}
# Closure members the H200 fixture lacks at a fitting version, recorded from the index.
PINS = {
    "fla-core": "0.5.1",
}


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def headers(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                break
            if line[0] in " \t":
                continue
            if ":" in line:
                k, v = line.split(":", 1)
                out.append((k.strip().lower(), v.strip()))
    return out


def h200_dists():
    out = {}
    for entry in os.listdir(H200):
        if entry.endswith(".dist-info"):
            h = dict(headers(os.path.join(H200, entry, "METADATA")))
            out[normalize(h["name"])] = (
                Version(h["version"]),
                os.path.join(H200, entry),
            )
    return out


def requirements(metadata_path, extras):
    for key, value in headers(metadata_path):
        if key != "requires-dist":
            continue
        req = Requirement(value)
        if req.marker is None:
            yield req
            continue
        for extra in [""] + sorted(extras):
            if req.marker.evaluate(dict(ENV, extra=extra)):
                yield req
                break


def main(argv):
    out = os.path.abspath(
        argv[0] if argv else os.path.join(REPO, "testdata", "venvs", "canonical")
    )
    site = os.path.join(out, "lib", "python3.12", "site-packages")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(site)
    with open(os.path.join(out, "pyvenv.cfg"), "w") as f:
        f.write(
            "home = /usr/bin\nimplementation = CPython\nversion_info = 3.12.3\n"
            "include-system-site-packages = false\nprompt = canonical\n"
        )
    h200 = h200_dists()
    installed = {}  # name -> metadata path
    extras = {}  # name -> set of extras asked for
    specs = {}  # name -> list of specifiers
    queue = list(ROOTS)
    for name in ROOTS:
        specs[name] = []
    while queue:
        name = queue.pop(0)
        if name not in installed:
            place(name, site, h200, specs, installed)
        for req in requirements(installed[name], extras.get(name, set())):
            dep = normalize(req.name)
            new_extras = set(req.extras) - extras.get(dep, set())
            extras.setdefault(dep, set()).update(req.extras)
            specs.setdefault(dep, []).append(req.specifier)
            if dep not in installed and dep not in queue:
                queue.append(dep)
            elif new_extras and dep in installed:
                queue.append(dep)
    # Verify every collected specifier holds for what was placed.
    for name, path in installed.items():
        version = Version(dict(headers(path))["version"])
        for spec in specs.get(name, []):
            assert spec.contains(version, prereleases=True), (name, version, spec)
    print("%d dists in %s" % (len(installed), site))


def newest_fitting(name, specifiers):
    """The newest final release on the index with a wheel that fits every specifier."""
    import json
    import urllib.request

    request = urllib.request.Request(
        "https://pypi.org/simple/%s/" % name,
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        page = json.load(response)
    versions = set()
    for f in page["files"]:
        if f["filename"].endswith(".whl") and not f.get("yanked"):
            try:
                versions.add(Version(f["filename"].split("-")[1]))
            except Exception:  # noqa: BLE001 - skip unparsable file names
                pass
    fitting = [
        v
        for v in versions
        if not v.is_prerelease and all(s.contains(v) for s in specifiers)
    ]
    if not fitting:
        raise SystemExit(
            "%s: nothing on the index fits %s" % (name, [str(s) for s in specifiers])
        )
    return str(max(fitting))


def place(name, site, h200, specs, installed):
    version = ROOTS.get(name) or PINS.get(name)
    if name == "torch":
        source = h200["torch"][1]
        target = os.path.join(site, "torch-2.11.0+cu130.dist-info")
        shutil.copytree(source, target)
        meta = os.path.join(target, "METADATA")
        text = open(meta, encoding="utf-8").read()
        text = re.sub(r"(?m)^Version: .*$", "Version: 2.11.0+cu130", text, count=1)
        open(meta, "w", encoding="utf-8").write(text)
        installed[name] = meta
        return
    if name in h200 and (version is None or str(h200[name][0]) == version):
        have = h200[name][0]
        if all(s.contains(have, prereleases=True) for s in specs.get(name, [])):
            target = os.path.join(site, os.path.basename(h200[name][1]))
            shutil.copytree(h200[name][1], target)
            installed[name] = os.path.join(target, "METADATA")
            return
    if version is None:
        version = newest_fitting(name, specs.get(name, []))
        print(
            "%s: the H200 fixture has no fitting version; recording %s"
            % (name, version)
        )
    spec = "%s==%s" % (name, version)
    if name in ("flash-linear-attention", "transformers"):
        spec += ",requested"
    if name == "flash-linear-attention":
        spec += ",vcs=https://github.com/fla-org/flash-linear-attention@" + FLA_COMMIT
    before = set(os.listdir(site))
    subprocess.run(
        [sys.executable, os.path.join(HERE, "record-dist-info.py"), site, spec],
        check=True,
    )
    (new,) = set(os.listdir(site)) - before
    installed[name] = os.path.join(site, new, "METADATA")


if __name__ == "__main__":
    main(sys.argv[1:])
