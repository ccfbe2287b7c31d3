"""Hash a whole tree: every path, its mode, mtime (ns), size, and the bytes or link target."""

import hashlib
import os
import sys

root = sys.argv[1]
h = hashlib.sha256()
count = 0
for d, dirs, files in os.walk(root):
    dirs.sort()
    for n in sorted(dirs + files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        h.update(
            f"{os.path.relpath(p, root)}\0{st.st_mode}\0{st.st_mtime_ns}\0{st.st_size}\0".encode()
        )
        count += 1
        if os.path.islink(p):
            h.update(os.readlink(p).encode())
        elif os.path.isfile(p):
            with open(p, "rb") as f:
                h.update(hashlib.file_digest(f, "sha256").digest())
print(h.hexdigest(), count, "entries")
