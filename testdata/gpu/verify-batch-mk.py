# mk.py PARTS_DIR SPEC.json OUT.py: a verify script from template parts and a spec whose deep
# modules are cut to those the installed dists ship.
import importlib.metadata
import json
import sys

parts, spec_path, out = sys.argv[1:4]
t = "".join(
    open("%s/%s.py" % (parts, f)).read()
    for f in ["header", "imports", "forks", "checks", "main"]
)
spec = json.load(open(spec_path))
for d in spec["dists"]:
    try:
        files = importlib.metadata.distribution(d["name"]).files or []
    except importlib.metadata.PackageNotFoundError:
        continue
    mods = set()
    for f in files:
        p = list(f.parts)
        if p[-1] == "__init__.py":
            mods.add(".".join(p[:-1]))
        elif p[-1].endswith(".py"):
            mods.add(".".join(p[:-1] + [p[-1][:-3]]))
    d["deep"] = [x for x in d.get("deep", []) if x["module"] in mods]
    print(d["name"], len(d["deep"]), "deep modules kept", file=sys.stderr)
open(out, "w").write(t.replace("__SPEC_JSON__", json.dumps(json.dumps(spec))))
