#!/usr/bin/env python3
"""Writes the sdists that crates/planner-pypi/src/sdist.rs reads in its tests, with Python's own
`tarfile`.

    python3 testdata/sdist/make.py        (rewrites testdata/sdist/*.tar.gz; needs nothing else)

- pax.tar.gz: `format=tarfile.PAX_FORMAT`, a top folder whose name is over 100 bytes and not
  ASCII, so PKG-INFO's path lives only in its pax header (what Python's sdist builders write
  for such names). PKG-INFO's size is in the pax header too (`size=`), and its ustar size field
  is zeroed, as a tar writer may do when the size needs pax: a reader that skips pax sizes
  reads an empty PKG-INFO and loses its place in the stream.
- base256.tar.gz: `format=tarfile.GNU_FORMAT`, setup.py's and PKG-INFO's size fields rewritten
  in the GNU base-256 form (the form GNU tar uses for members over 8 GiB).
- gnu-longname.tar.gz: `format=tarfile.GNU_FORMAT` with a top folder over 100 bytes: PKG-INFO's
  path comes in a GNU long-name (`L`) entry before it.
"""

import gzip
import io
import os
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
META = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nSummary: a pax sdist\n"
SETUP = b"from setuptools import setup\nsetup()\n"
LONG_TOP = "demo-" + "\u00e9" * 10 + "-" + "x" * 90 + "-1.0"
ASCII_LONG_TOP = "demo-" + "y" * 100 + "-1.0"


def build(top: str, fmt: int, pax_size: bool) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as tar:
        for name, data in [("setup.py", SETUP), ("PKG-INFO", META)]:
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            info.mtime = 1_700_000_000
            if pax_size:
                info.pax_headers = {"size": str(len(data))}
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def headers(raw: bytearray):
    """Offsets of the member headers (ustar magic) in an uncompressed tar."""
    at = 0
    while at + 512 <= len(raw) and any(raw[at : at + 512]):
        size_field = bytes(raw[at + 124 : at + 136])
        if size_field[0] & 0x80:
            size = int.from_bytes(size_field[1:], "big")
        else:
            size = int(size_field.rstrip(b"\0 ") or b"0", 8)
        yield at, raw[at + 156]
        at += 512 + (size + 511) // 512 * 512


def set_size(raw: bytearray, at: int, field: bytes) -> None:
    raw[at + 124 : at + 136] = field
    raw[at + 148 : at + 156] = b" " * 8
    raw[at + 148 : at + 156] = b"%06o\0 " % sum(raw[at : at + 512])


def pax() -> bytes:
    raw = bytearray(build(LONG_TOP, tarfile.PAX_FORMAT, pax_size=True))
    members = [at for at, kind in headers(raw) if kind == ord("0")]
    # Zero PKG-INFO's ustar size (the last member), now that the walk above is done.
    set_size(raw, members[-1], b"0" * 11 + b"\0")
    return bytes(raw)


def base256() -> bytes:
    raw = bytearray(build("demo-1.0", tarfile.GNU_FORMAT, pax_size=False))
    for at, kind in list(headers(raw)):
        if kind == ord("0"):
            size = int(bytes(raw[at + 124 : at + 135]), 8)
            set_size(raw, at, b"\x80" + size.to_bytes(11, "big"))
    return bytes(raw)


def gnu_longname() -> bytes:
    return build(ASCII_LONG_TOP, tarfile.GNU_FORMAT, pax_size=False)


def write(name: str, raw: bytes) -> None:
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(gzip.compress(raw, mtime=0))


if __name__ == "__main__":
    write("pax.tar.gz", pax())
    write("base256.tar.gz", base256())
    write("gnu-longname.tar.gz", gnu_longname())
