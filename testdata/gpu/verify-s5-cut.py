# verify-s5-cut.py SRC PARTS_DIR OUT.py: a verify.py from the template parts in PARTS_DIR and a SPEC,
# its deep modules cut to those the dists installed here ship. SRC: a verify.py (its SPEC is read) or
# the spec itself as JSON (verify-s5-tf.spec: what planner wrote for the local transformers
# venv's plan `numpy<2.4`; the runs read it from such a verify.py, tf-orig.py).
import importlib.metadata
import json
import sys

src, parts, out = sys.argv[1:4]
if not src.endswith(".py"):
    spec = json.load(open(src))
else:
    line = next(l for l in open(src) if l.startswith("SPEC = json.loads("))
    spec = json.loads(
        json.loads(line[len("SPEC = json.loads(") :].rstrip().rstrip(")"))
    )
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
t = "".join(
    open("%s/%s.py" % (parts, f)).read()
    for f in ["header", "imports", "forks", "checks", "main"]
)
open(out, "w").write(t.replace("__SPEC_JSON__", json.dumps(json.dumps(spec))))
