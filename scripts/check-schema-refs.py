#!/usr/bin/env python3
"""Every `$ref` in docs/schemas resolves in a standard validator (python-jsonschema with its
`referencing` registry) from the schemas' own `$id`s, with no hand-built mapping of file names.

Usage: scripts/check-schema-refs.py [SCHEMA_DIR]   (default: docs/schemas; exit 0 = all resolve,
1 = a schema without `$id`, an `$ref` that does not resolve or a schema that is not valid 2020-12,
2 = jsonschema/referencing not installed: `pip install jsonschema`)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def refs(node, out):
    """Every `$ref` value under `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out.append(value)
            else:
                refs(value, out)
    elif isinstance(node, list):
        for value in node:
            refs(value, out)
    return out


def main() -> int:
    try:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
    except ImportError:
        print("check-schema-refs: needs `pip install jsonschema`", file=sys.stderr)
        return 2
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas")
    schemas = {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}
    problems = [f"{name}: no $id" for name, s in schemas.items() if "$id" not in s]
    if problems:
        print("\n".join(problems))
        return 1
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    checked = 0
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)
        resolver = registry.resolver(base_uri=schema["$id"])
        for ref in refs(schema, []):
            try:
                resolver.lookup(ref)
                checked += 1
            except Exception as err:  # noqa: BLE001 - reported, not hidden
                problems.append(f"{name}: $ref {ref!r} does not resolve: {err}")
    print(
        f"schema refs: {len(schemas)} schemas, {checked} $refs resolved, {len(problems)} problem(s)"
    )
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
