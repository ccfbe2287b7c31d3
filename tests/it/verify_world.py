"""Build a tiny simple index (testdata/index layout) of real, installable wheels for the verify
tests: real wheels given as files, plus wheels made here from a JSON list.

Usage: python3 verify_world.py ROOT SPEC.json [WHEEL...]
SPEC.json: [{"name", "version", "requires": [...], "files": {"path/in/wheel.py": "source"},
             "upload_time": "2025-01-01T00:00:00Z" (the default),
             "sdist_only": true (the index lists only an sdist of this release, as for a release
             published before its project made wheels; its wheel goes to ROOT/local-wheels/, for
             a test to install as a build of that sdist would be installed)}]
"""

import base64
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import zipfile

DEFAULT_UPLOAD_TIME = "2025-01-01T00:00:00Z"


def make_wheel(name, version, requires, files):
    dist = "%s-%s" % (re.sub(r"[-.]+", "_", name), version)
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    metadata += "".join("Requires-Dist: %s\n" % r for r in requires)
    files = dict(files)
    files["%s.dist-info/METADATA" % dist] = metadata
    files["%s.dist-info/WHEEL" % dist] = (
        "Wheel-Version: 1.0\nGenerator: planner-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path, text in files.items():
            # a compiled stand-in comes as {"base64": ...}, text as itself
            data = (
                text.encode()
                if isinstance(text, str)
                else base64.b64decode(text["base64"])
            )
            zf.writestr(path, data)
            digest = (
                base64.urlsafe_b64encode(hashlib.sha256(data).digest())
                .rstrip(b"=")
                .decode()
            )
            record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
        record.append("%s.dist-info/RECORD,," % dist)
        zf.writestr("%s.dist-info/RECORD" % dist, "\n".join(record) + "\n")
    return "%s-py3-none-any.whl" % dist, buf.getvalue()


def make_sdist(name, version, metadata):
    """A source archive as a release made before wheels: `NAME-VERSION/PKG-INFO` and a
    `setup.py` (never run: the tests install its wheel, as a build of it would)."""
    stem = "%s-%s" % (name, version)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        members = {
            "PKG-INFO": metadata,
            "setup.py": b"from setuptools import setup\nsetup()\n",
        }
        for path, data in members.items():
            info = tarfile.TarInfo("%s/%s" % (stem, path))
            info.size = len(data)
            info.mtime = 1735689600
            tf.addfile(info, io.BytesIO(data))
    return "%s.tar.gz" % stem, buf.getvalue()


def wheel_metadata(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        path = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(path)


def main(root, spec_path, real):
    for sub in ("simple", "files", "wheels"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    wheels = []
    for path in real:
        with open(path, "rb") as f:
            wheels.append((os.path.basename(path), f.read(), DEFAULT_UPLOAD_TIME))
    sdists = []
    with open(spec_path) as f:
        for w in json.load(f):
            wheel = make_wheel(
                w["name"], w["version"], w.get("requires", []), w.get("files", {})
            )
            uploaded = w.get("upload_time", DEFAULT_UPLOAD_TIME)
            if w.get("sdist_only"):
                local = os.path.join(root, "local-wheels")
                os.makedirs(local, exist_ok=True)
                with open(os.path.join(local, wheel[0]), "wb") as out:
                    out.write(wheel[1])
                sdists.append(
                    (w["name"], w["version"], wheel_metadata(wheel[1]), uploaded)
                )
            else:
                wheels.append(wheel + (uploaded,))
    pages = {}
    for name, version, metadata, upload_time in sdists:
        filename, data = make_sdist(name, version, metadata)
        with open(os.path.join(root, "wheels", filename), "wb") as f:
            f.write(data)
        pages.setdefault(normalize(name), []).append(
            {
                "filename": filename,
                "url": "../../files/" + filename,
                "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
                "requires-python": ">=3.8",
                "yanked": False,
                "size": len(data),
                "upload-time": upload_time,
            }
        )
    for filename, data, upload_time in wheels:
        metadata = wheel_metadata(data)
        name = re.sub(
            r"[-_.]+",
            "-",
            re.search(rb"^Name: (.+)$", metadata, re.M).group(1).decode().strip(),
        ).lower()
        with open(os.path.join(root, "wheels", filename), "wb") as f:
            f.write(data)
        with open(os.path.join(root, "files", filename + ".metadata"), "wb") as f:
            f.write(metadata)
        pages.setdefault(name, []).append(
            {
                "filename": filename,
                "url": "../../files/" + filename,
                "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
                "requires-python": ">=3.8",
                "core-metadata": {"sha256": hashlib.sha256(metadata).hexdigest()},
                "yanked": False,
                "size": len(data),
                "upload-time": upload_time,
            }
        )
    for name, files in pages.items():
        os.makedirs(os.path.join(root, "simple", name), exist_ok=True)
        page = {
            "meta": {"api-version": "1.1"},
            "name": name,
            "versions": sorted(
                {f["filename"].split("-")[1].removesuffix(".tar.gz") for f in files}
            ),
            "files": files,
        }
        with open(os.path.join(root, "simple", name, "index.json"), "w") as f:
            json.dump(page, f)
        links = "".join(
            '<a href="%s#sha256=%s" data-requires-python="&gt;=3.8"%s>%s</a>\n'
            % (
                f["url"],
                f["hashes"]["sha256"],
                ' data-core-metadata="sha256=%s"' % f["core-metadata"]["sha256"]
                if "core-metadata" in f
                else "",
                f["filename"],
            )
            for f in files
        )
        with open(os.path.join(root, "simple", name, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n%s</body></html>\n" % links)


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
