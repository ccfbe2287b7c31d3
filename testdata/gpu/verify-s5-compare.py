# compare.py A.json B.json: the checks whose verdict (status) differs between two verify reports.
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
va = {
    c["name"]: (c["status"], c.get("error") or c.get("detail") or "")
    for c in a["checks"]
}
vb = {
    c["name"]: (c["status"], c.get("error") or c.get("detail") or "")
    for c in b["checks"]
}
both = set(va) & set(vb)
differ = sorted(n for n in both if va[n][0] != vb[n][0])
print(
    "verdicts: %d checks in both, %d only in one, %d differ"
    % (len(both), len(set(va) ^ set(vb)), len(differ))
)
for n in differ:
    print(
        "  %s: %s (%s) -> %s (%s)"
        % (n, va[n][0], va[n][1][:150], vb[n][0], vb[n][1][:150])
    )
for n in sorted(set(va) ^ set(vb))[:20]:
    print("  only in %s: %s" % ("first" if n in va else "second", n))
print(
    "failures in the second:",
    [(n, vb[n][1][:120]) for n in sorted(vb) if vb[n][0] == "fail"],
)
