#!/usr/bin/env python3
# Written by planner: verify that an environment still works, after a plan or any change.
#
# Standard library only; offline. Run it with the environment's own interpreter:
#
#   python verify.py [--report FILE] [--baseline FILE | --compare FILE] [--timeout S] [--jobs N]
#                    [--no-imports] [--no-smoke] [--warm-caches] [--quiet] [--profile]   (--help: all options)
#
# What it checks (the selection is the SPEC below, written by planner as data):
# - version:NAME    each planned change landed (importlib.metadata);
# - import:MODULE   every module of the dists to verify imports, each in its own child process with
#                   a timeout, in parallel; the module must resolve to a file that the dist's own
#                   RECORD lists, and no other installed dist may ship a different file there
#                   (a same-named module on PYTHONPATH, in the working directory, or from a second
#                   dist fails, naming both paths);
# - call-time:MODULE  what a kept dist's function needs from a changed dist (a plan's
#                   call-time claim: `import M`, or `from M import N`), checked without running the
#                   function; it fails after the plan where the planned release lacks it;
# - pip-check       `pip check` (`uv pip check` where the venv has no pip), accepting exactly
#                   the plan's overrides;
# - smoke:NAME      the policy's smoke tests (a CUDA check is "skip" without a CUDA device, never
#                   "pass").
# Every check runs with private, empty compile caches (inductor, Triton, JAX, CuPy: fresh folders
# per run, removed afterwards; `caches` in the report), so a kernel compiled before cannot hide a
# break; `--warm-caches` keeps the environment's own.
# `--baseline FILE` records the same checks before the plan is applied (versions excepted);
# `--compare FILE` afterwards reports regressions (passed before, failed now) apart from failures
# that were already there. Prints a JSON report (schema planner-verify/2, docs/verify.md); exits
# 0 when nothing failed (with --compare: nothing regressed), 1 when something did, 2 when the
# script itself could not run.
import argparse
import collections
import concurrent.futures
import csv
import ctypes
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import posixpath
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time

# What to verify, as one JSON literal (written by a JSON encoder; never interpolated into code).
SPEC = json.loads(__SPEC_JSON__)
