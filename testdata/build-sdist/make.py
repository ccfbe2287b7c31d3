"""Write the loopback index of the `--allow-build` tests (`tests/it/propose_allow_build.rs`):
`index/simple/<name>/index.html` and `index/wheels/<file>` (the server serves whole files from
`wheels/`, sdists too).

- `inbuild-1.0.tar.gz`: a real sdist whose build needs nothing from an index: an in-tree PEP 517
  backend (`[build-system] requires = []`, `build-backend = "backend"`, `backend-path = ["."]`).
  Its PKG-INFO is Metadata-Version 2.1 with no Requires-Dist, so a static read cannot trust it
  (PEP 643); the metadata its backend prepares says `Requires-Dist: depa>=2`.
- `depa-1.0` and `depa-2.0`: pure-Python wheels.
- `heavybuild-1.0.tar.gz`: the same sdist named `heavybuild`, whose `pyproject.toml` requires
  `bigdep` to build; `bigdep`'s page (PEP 691 JSON, `index.json`) lists one wheel of 600 MiB
  (not served: only its listed size is read), so the build is refused before it starts.

Usage: python3 testdata/build-sdist/make.py (writes next to itself; byte-for-byte repeatable).
"""

import hashlib
import io
import json
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MTIME = 1735689600

PKG_INFO = "Metadata-Version: 2.1\nName: %s\nVersion: 1.0\nSummary: built for its requirements\n"

PYPROJECT = """[build-system]
requires = [%s]
build-backend = "backend"
backend-path = ["."]
"""

BACKEND = b'''"""An in-tree PEP 517 backend: metadata and a pure-Python wheel, with nothing to install."""

import base64
import hashlib
import os
import zipfile

NAME, VERSION = "@NAME@", "1.0"
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = (
    "Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\nRequires-Dist: depa>=2\\n" % (NAME, VERSION)
)
WHEEL = "Wheel-Version: 1.0\\nGenerator: backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(METADATA)
    with open(os.path.join(path, "WHEEL"), "w") as f:
        f.write(WHEEL)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    files = {
        NAME + "/__init__.py": "VALUE = 1\\n",
        DIST_INFO + "/METADATA": METADATA,
        DIST_INFO + "/WHEEL": WHEEL,
    }
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as zf:
        for path, text in files.items():
            data = text.encode()
            zf.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append("%s,sha256=%s,%d" % (path, digest.decode(), len(data)))
        record.append(DIST_INFO + "/RECORD,,")
        zf.writestr(DIST_INFO + "/RECORD", "\\n".join(record) + "\\n")
    return name
'''


def sdist(name="inbuild", requires=""):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        members = [
            ("PKG-INFO", (PKG_INFO % name).encode()),
            ("pyproject.toml", (PYPROJECT % requires).encode()),
            ("backend.py", BACKEND.replace(b"@NAME@", name.encode())),
            (name + "/__init__.py", b"VALUE = 1\n"),
        ]
        for path, data in members:
            info = tarfile.TarInfo("%s-1.0/%s" % (name, path))
            info.size = len(data)
            info.mtime = MTIME
            tf.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    out = io.BytesIO()
    import gzip

    with gzip.GzipFile(fileobj=out, mode="wb", mtime=MTIME, filename="") as gz:
        gz.write(raw)
    return "%s-1.0.tar.gz" % name, out.getvalue()


def wheel(name, version):
    dist = "%s-%s" % (name, version)
    files = {
        "%s/__init__.py" % name: "VERSION = %r\n" % version,
        "%s.dist-info/METADATA" % dist: "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
        % (name, version),
        "%s.dist-info/WHEEL" % dist: "Wheel-Version: 1.0\nGenerator: make.py\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
        "%s.dist-info/RECORD" % dist: "",
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path, text in files.items():
            info = zipfile.ZipInfo(path, date_time=(2025, 1, 1, 0, 0, 0))
            zf.writestr(info, text)
    return "%s-py3-none-any.whl" % dist, buf.getvalue()


def main():
    root = os.path.join(HERE, "index")
    projects = {
        "inbuild": [sdist()],
        "depa": [wheel("depa", "1.0"), wheel("depa", "2.0")],
        "heavybuild": [sdist("heavybuild", '"bigdep"')],
    }
    for project, files in projects.items():
        os.makedirs(os.path.join(root, "simple", project), exist_ok=True)
        os.makedirs(os.path.join(root, "wheels"), exist_ok=True)
        links = []
        for name, data in files:
            with open(os.path.join(root, "wheels", name), "wb") as f:
                f.write(data)
            sha = hashlib.sha256(data).hexdigest()
            links.append(
                '<a href="../../files/%s#sha256=%s">%s</a>' % (name, sha, name)
            )
        page = "<html><body>\n%s\n</body></html>\n" % "\n".join(links)
        with open(os.path.join(root, "simple", project, "index.html"), "w") as f:
            f.write(page)

    # bigdep: listed only (PEP 691 JSON with the size), never served.
    big = "bigdep-1.0-py3-none-any.whl"
    page = {
        "meta": {"api-version": "1.1"},
        "name": "bigdep",
        "versions": ["1.0"],
        "files": [
            {
                "filename": big,
                "url": "../../files/" + big,
                "hashes": {"sha256": "0" * 64},
                "size": 600 * 1024 * 1024,
            }
        ],
    }
    os.makedirs(os.path.join(root, "simple", "bigdep"), exist_ok=True)
    with open(os.path.join(root, "simple", "bigdep", "index.json"), "w") as f:
        json.dump(page, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
