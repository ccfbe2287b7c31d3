# rank.py SPEC OUT: the spec with each deep module's "fanin": how many of its dist's other selected
# modules import it (module-level or not; relative imports resolved), read with ast from the
# installed sources (prototype of ordering a dist's first batch by what the rest import).
import ast
import importlib.metadata
import json
import sys

spec = json.load(open(sys.argv[1]))
for d in spec["dists"]:
    deep = d.get("deep", [])
    if not deep:
        continue
    dist = importlib.metadata.distribution(d["name"])
    paths = {}
    for f in dist.files or []:
        p = list(f.parts)
        if p[-1] == "__init__.py":
            paths[".".join(p[:-1])] = (dist.locate_file(f), True)
        elif p[-1].endswith(".py"):
            paths[".".join(p[:-1] + [p[-1][:-3]])] = (dist.locate_file(f), False)
    selected = {x["module"] for x in deep} | {d["name"]}
    fanin = {m: 0 for m in selected}
    for m in selected:
        if m not in paths:
            continue
        path, is_pkg = paths[m]
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
        except (OSError, SyntaxError, ValueError):
            continue
        package = m if is_pkg else m.rpartition(".")[0]
        hit = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                hit.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                hit.add(mod)
                hit.update(mod + "." + a.name for a in node.names)
        for h in hit:
            if h in fanin and h != m:
                fanin[h] += 1
    for x in deep:
        x["fanin"] = fanin.get(x["module"], 0)
    top = sorted(deep, key=lambda x: -x["fanin"])[:20]
    print(d["name"], [(x["module"], x["fanin"]) for x in top], file=sys.stderr)
json.dump(spec, open(sys.argv[2], "w"))
