#!/usr/bin/env python3
"""Every `--format json` document planner writes on the README's data validates against its
schema in docs/schemas (python-jsonschema, the registry built from the schemas' own `$id`s, as
scripts/check-schema-refs.py builds it), and has no key its schema does not declare.

Usage: scripts/check-json-outputs.py [PLANNER]   (default: target/debug/planner; exit 0 = every
document validates, 1 = a document that does not, a command that wrote no JSON, or a schema
missing, 2 = jsonschema/referencing not installed: `pip install jsonschema`)

Offline, on testdata only (a few seconds with a debug build): the canonical venv (torch
2.11.0+cu130) and the recorded index of the README's first command, the h200 fixture venv and
the broken venv beside them. Each command's stdout, and
the files the command writes (`propose --out-dir`'s proposal.json and plan.json files,
`snapshot --out`), is one document: its `schema` names the file (`planner-NAME/N` ->
docs/schemas/NAME.json). A command that fails writes an error document (error.json), which is
checked the same way: `verify` on the canonical venv, which has no interpreter, is one. stdout
must be one document: a second one after it (an error document after a report) is a problem.
`try` and `bisect` need a venv with a working interpreter; their documents, and every other
document a test reads, are checked by the integration tests (`tests/it/common/schema.rs`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

VENV = "testdata/venvs/canonical"
FORCED = "testdata/venvs/canonical-forced"
INDEX = "testdata/index/simple"
H200 = "testdata/fixtures/h200-venv"
# Never asked: `--offline` reads the (empty) cache only.
NO_INDEX = "http://127.0.0.1:9/simple/"
TARGET = ["--python-version", "3.12", "--python-platform", "x86_64-manylinux_2_28"]


def commands(tmp: Path) -> list[tuple[list[str], list[Path]]]:
    """Each command (planner's arguments) with the files it writes that are documents too."""
    review = review_repo(tmp / "repo")
    offline = ["--index-url", INDEX, "--offline"]
    json_out = ["--format", "json"]
    return [
        (["inventory", "--venv", VENV, *json_out], []),
        (["check", "--venv", VENV, *json_out], []),
        (["check", "--venv", "testdata/venvs/broken", *json_out], []),
        (["outdated", "--venv", VENV, *offline, *json_out], []),
        (["outdated", "--venv", H200, *offline, *TARGET[2:], *json_out], []),
        # Every project page missing from an empty cache: each package under `errors`.
        (
            [
                "outdated",
                "--venv",
                VENV,
                "--index-url",
                NO_INDEX,
                "--offline",
                *json_out,
            ],
            [],
        ),
        (["resolve", "torch==2.11.0", *offline, *TARGET, *json_out], []),
        (["resolve", "torch==2.11.0", *offline, *json_out], []),
        (
            [
                "propose",
                "triton==3.7.0",
                "--allow-override",
                "--venv",
                VENV,
                *offline,
                "--out-dir",
                str(tmp / "plans"),
                *json_out,
            ],
            [tmp / "plans/proposal.json", tmp / "plans/plans/*/plan.json"],
        ),
        # A plan with evidence it could not read (no wheel in the local index): `unchecked`.
        (
            [
                "propose",
                "jinja2==2.11.3",
                "--allow-override",
                "--venv",
                H200,
                *offline,
                *json_out,
            ],
            [],
        ),
        (["diff", VENV, FORCED, *json_out], []),
        (["diff", VENV, "--since", "2020-01-01", *json_out], []),
        (
            [
                "review",
                str(review),
                "--base",
                "HEAD~1",
                "--venv",
                VENV,
                *offline,
                *json_out,
            ],
            [],
        ),
        (["verify", "--all", "--venv", VENV, *json_out], []),
        (
            ["snapshot", "--venv", VENV, "--out", str(tmp / "snapshot.json")],
            [tmp / "snapshot.json"],
        ),
    ]


def review_repo(repo: Path) -> Path:
    """A git repository whose last commit forces triton 3.7.0 beside torch 2.11.0."""
    repo.mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (repo / "requirements.txt").write_text("torch==2.11.0\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    (repo / "requirements.txt").write_text("torch==2.11.0\ntriton==3.7.0\n")
    subprocess.run([*git, "commit", "-q", "-am", "force triton"], check=True)
    return repo


def closed(node):
    """`node` (a schema) with every object that lists its `properties` closed to others: the
    published schemas stay open (keys may be added within a version), but a key planner writes
    that its schema never declares is a key the docs do not describe."""
    if isinstance(node, dict):
        keys = set(node)
        if (
            "properties" in keys
            and not {"additionalProperties", "unevaluatedProperties"} & keys
        ):
            node = dict(node, unevaluatedProperties=False)
        return {key: closed(value) for key, value in node.items()}
    if isinstance(node, list):
        return [closed(value) for value in node]
    return node


def main() -> int:
    try:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
    except ImportError:
        print("check-json-outputs: needs `pip install jsonschema`", file=sys.stderr)
        return 2
    planner = Path(
        sys.argv[1] if len(sys.argv) > 1 else "target/debug/planner"
    ).resolve()
    schemas = {
        p.stem: closed(json.loads(p.read_text()))
        for p in sorted(Path("docs/schemas").glob("*.json"))
    }
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    problems, checked = [], []

    def check(what: str, text: str) -> None:
        try:
            doc = json.loads(text)
            name = doc["schema"].split("/")[0][len("planner-") :]
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            problems.append(f"{what}: not a planner document ({err}): {text[:200]!r}")
            return
        if name not in schemas:
            problems.append(f"{what}: no docs/schemas/{name}.json for {doc['schema']}")
            return
        validator = Draft202012Validator(
            schemas[name],
            registry=registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for err in errors[:5]:
            path = "/".join(str(p) for p in err.absolute_path)
            problems.append(f"{what} ({name}.json) at /{path}: {err.message[:300]}")
        checked.append(f"{what} ({name})")

    with tempfile.TemporaryDirectory(prefix="planner-json-outputs-") as tmp:
        tmp = Path(tmp)
        env = {
            "PLANNER_CACHE_DIR": str(tmp / "cache"),
            "NO_COLOR": "1",
            "PATH": "/usr/bin:/bin",
        }
        for args, files in commands(tmp):
            what = " ".join(a.replace(str(tmp), "$TMP") for a in args)
            run = subprocess.run(
                [str(planner), *args],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
            if run.stdout.strip():
                check(f"{what} [exit {run.returncode}]", run.stdout)
            elif not files:
                problems.append(
                    f"{what}: exit {run.returncode}, no JSON: {run.stderr[-300:]}"
                )
            for pattern in files:
                found = sorted(tmp.glob(str(pattern.relative_to(tmp))))
                if not found:
                    problems.append(f"{what}: wrote no {pattern.relative_to(tmp)}")
                for path in found:
                    check(f"{what} -> {path.relative_to(tmp)}", path.read_text())
    print(
        f"json outputs: {len(checked)} documents checked, {len(problems)} problem(s)\n  "
        + "\n  ".join(checked)
    )
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
