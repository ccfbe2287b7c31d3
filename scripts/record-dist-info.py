#!/usr/bin/env python3
"""Record the real installed metadata of released wheels as `*.dist-info` folders.

For testdata venvs: writes `<site-packages>/<name>-<version>.dist-info/` with the wheel's own
METADATA and WHEEL, a top_level.txt derived from the wheel's file list, INSTALLER, and
REQUESTED / direct_url.json when asked. Nothing is installed and no package code is copied.

The metadata comes from the index (PEP 691 JSON): the PEP 658 `.metadata` file when the index
has one, else HTTP range reads of the wheel's zip central directory and of the METADATA member
(a few kilobytes, even for a multi-gigabyte wheel). Standard library only.

usage: record-dist-info.py SITE_PACKAGES SPEC [SPEC ...]
  SPEC is NAME==VERSION with optional comma-separated options:
    ,requested            write REQUESTED
    ,installer=NAME       INSTALLER content (default: pip)
    ,vcs=URL@COMMIT       write direct_url.json with vcs_info (git)
    ,local=LABEL          rewrite Version to VERSION+LABEL (a local build of the same release)
  --index-url URL         default: $PIP_INDEX_URL or the public index
  --platform-tag TAG      preferred wheel platform (default: manylinux x86_64)
"""

import io
import json
import os
import re
import sys
import urllib.request
import zipfile

DEFAULT_INDEX = "https://pypi.org/simple"
UA = {"User-Agent": "planner-record-dist-info/1"}


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def get(url, headers=None):
    request = urllib.request.Request(url, headers={**UA, **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


class RangeFile(io.RawIOBase):
    """A seekable read-only file over HTTP range requests, for zipfile."""

    def __init__(self, url):
        self.url = url
        request = urllib.request.Request(url, method="HEAD", headers=UA)
        with urllib.request.urlopen(request, timeout=60) as response:
            self.size = int(response.headers["Content-Length"])
        self.pos = 0

    def seekable(self):
        return True

    def readable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=0):
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def read(self, n=-1):
        if n is None or n < 0:
            n = self.size - self.pos
        if n == 0 or self.pos >= self.size:
            return b""
        end = min(self.pos + n, self.size) - 1
        data = get(self.url, {"Range": "bytes=%d-%d" % (self.pos, end)})
        self.pos += len(data)
        return data

    def readinto(self, buffer):
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def pick_wheel(files, version, platform_tag):
    wheels = []
    for f in files:
        name = f["filename"]
        if not name.endswith(".whl") or f.get("yanked"):
            continue
        parts = name[:-4].split("-")
        if parts[1] != version:
            continue
        tags = parts[-3:]
        score = 3
        if tags[2] == "any":
            score = 0
        elif platform_tag in tags[2] and (
            "cp312" in tags[0] or tags[0].startswith("py3")
        ):
            score = 1
        elif platform_tag in tags[2]:
            score = 2
        wheels.append((score, name, f))
    if not wheels:
        raise SystemExit("no wheel for version %s" % version)
    wheels.sort(key=lambda w: (w[0], w[1]))
    return wheels[0][2]


def top_level(names):
    out = set()
    for path in names:
        first, _, rest = path.partition("/")
        if first.endswith((".dist-info", ".data")) or not first:
            continue
        if rest:
            out.add(first)
        elif first.endswith(".py"):
            out.add(first[:-3])
    return sorted(out)


def record(site_packages, spec, index_url, platform_tag):
    base, *options = spec.split(",")
    name, version = base.split("==")
    opts = dict(o.split("=", 1) if "=" in o else (o, "") for o in options)
    page = json.loads(
        get(
            "%s/%s/" % (index_url.rstrip("/"), normalize(name)),
            {"Accept": "application/vnd.pypi.simple.v1+json"},
        )
    )
    wheel = pick_wheel(page["files"], version, platform_tag)
    url = wheel["url"].split("#")[0]
    zf = zipfile.ZipFile(RangeFile(url))
    names = zf.namelist()
    dist_info = [n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA")][0]
    if wheel.get("core-metadata") or wheel.get("data-dist-info-metadata"):
        metadata = get(url + ".metadata")
    else:
        metadata = zf.read(dist_info + "/METADATA")
    wheel_file = zf.read(dist_info + "/WHEEL")
    text = metadata.decode("utf-8")
    folder_version = version
    if "local" in opts:
        folder_version = "%s+%s" % (version, opts["local"])
        text = re.sub(r"(?m)^Version: .*$", "Version: " + folder_version, text, count=1)
    dist_name = dist_info[: -len(".dist-info")].rsplit("-", 1)[0]
    target = os.path.join(
        site_packages, "%s-%s.dist-info" % (dist_name, folder_version)
    )
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "METADATA"), "w", encoding="utf-8", newline="") as f:
        f.write(text)
    with open(os.path.join(target, "WHEEL"), "wb") as f:
        f.write(wheel_file)
    with open(os.path.join(target, "INSTALLER"), "w") as f:
        f.write(opts.get("installer", "pip") + "\n")
    with open(os.path.join(target, "top_level.txt"), "w") as f:
        f.write("".join(n + "\n" for n in top_level(names)))
    if "requested" in opts:
        open(os.path.join(target, "REQUESTED"), "w").close()
    if "vcs" in opts:
        repo, commit = opts["vcs"].rsplit("@", 1)
        direct = {"url": repo, "vcs_info": {"vcs": "git", "commit_id": commit}}
        with open(os.path.join(target, "direct_url.json"), "w") as f:
            json.dump(direct, f)
    print("%s  (from %s)" % (target, wheel["filename"]))


def main(argv):
    index_url = os.environ.get("PIP_INDEX_URL", DEFAULT_INDEX)
    platform_tag = "manylinux"
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--index-url":
            index_url = argv[i + 1]
            i += 2
        elif argv[i] == "--platform-tag":
            platform_tag = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for spec in args[1:]:
        record(args[0], spec, index_url, platform_tag)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
