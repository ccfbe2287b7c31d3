"""Build a tiny simple index (testdata/index layout) of real, installable wheels.

Usage: python3 propose_index.py ROOT [RELEASES_JSON]
Projects: target 1.0/2.0, blocker 1.0 (target==1.0) / 2.0 (target==2.0), bystander 1.0
(target>=1.0); or RELEASES_JSON, a list of [name, version, [requirement, ...]]. Each wheel holds
one module named after the project.
"""

import base64
import hashlib
import io
import json
import os
import sys
import zipfile

RELEASES = [
    ("target", "1.0", []),
    ("target", "2.0", []),
    ("blocker", "1.0", ["target==1.0"]),
    ("blocker", "2.0", ["target==2.0"]),
    ("bystander", "1.0", ["target>=1.0"]),
]


def wheel(name, version, requires):
    dist = "%s-%s" % (name, version)
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    metadata += "".join("Requires-Dist: %s\n" % r for r in requires)
    files = {
        "%s.py" % name: "VERSION = %r\n" % version,
        "%s.dist-info/METADATA" % dist: metadata,
        "%s.dist-info/WHEEL"
        % dist: "Wheel-Version: 1.0\nGenerator: planner-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        "%s.dist-info/top_level.txt" % dist: name + "\n",
    }
    record = []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path, text in files.items():
            data = text.encode()
            zf.writestr(path, data)
            digest = (
                base64.urlsafe_b64encode(hashlib.sha256(data).digest())
                .rstrip(b"=")
                .decode()
            )
            record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
        record.append("%s.dist-info/RECORD,," % dist)
        zf.writestr("%s.dist-info/RECORD" % dist, "\n".join(record) + "\n")
    return buf.getvalue(), metadata.encode()


def main(root, releases=RELEASES):
    pages = {}
    for sub in ("simple", "files", "wheels"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    for name, version, requires in releases:
        data, metadata = wheel(name, version, requires)
        filename = "%s-%s-py3-none-any.whl" % (name, version)
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
                "upload-time": "2025-01-01T00:00:00Z",
            }
        )
    for name, files in pages.items():
        os.makedirs(os.path.join(root, "simple", name), exist_ok=True)
        page = {
            "meta": {"api-version": "1.1"},
            "name": name,
            "versions": sorted({f["filename"].split("-")[1] for f in files}),
            "files": files,
        }
        with open(os.path.join(root, "simple", name, "index.json"), "w") as f:
            json.dump(page, f)
        links = "".join(
            '<a href="%s#sha256=%s" data-requires-python="&gt;=3.8" data-core-metadata="sha256=%s">%s</a>\n'
            % (
                f["url"],
                f["hashes"]["sha256"],
                f["core-metadata"]["sha256"],
                f["filename"],
            )
            for f in files
        )
        with open(os.path.join(root, "simple", name, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n%s</body></html>\n" % links)


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else RELEASES)
