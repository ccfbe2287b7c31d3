# ---- before and after, the report ---------------------------------------------------------------


def compare(checks, baseline, top_names):
    """Mark each failure as a regression (it did not fail before) or pre-existing. `top_names`:
    the top-level names installed now."""
    before = {c["name"]: c for c in baseline.get("checks", [])}
    for entry in checks:
        old = before.get(entry["name"])
        entry["before"] = old["status"] if old else None
        if (
            entry["status"] == "fail"
            and entry["kind"] == "import"
            and old
            and old["status"] == "skip"
            and old.get("missing")
            and old["missing"] not in top_names
        ):
            # Skipped before for an optional module that is still not installed: it cannot import
            # here either way, whatever it fails on now (docutils 0.20's recommonmark wrapper).
            entry["status"], entry["missing"] = "skip", old["missing"]
            entry["detail"] = (
                "still needs the optional `%s`, which is not installed (skipped before the change "
                "for it too); now: %s" % (old["missing"], entry.pop("error", ""))
            )
            continue
        if entry["kind"] == "pip-check" and old and entry["status"] == "fail":
            known = set(old.get("broken", []))
            entry["pre_existing"] = [l for l in entry.get("broken", []) if l in known]
            entry["broken"] = [l for l in entry.get("broken", []) if l not in known]
            entry["regression"] = bool(entry["broken"])
            if not entry["broken"]:
                entry["error"] = "; ".join(entry["pre_existing"])
        elif entry["status"] == "fail":
            # A version that has not landed is the plan's failure, whatever the baseline says.
            entry["regression"] = entry["kind"] == "version" or not (
                old and old["status"] == "fail"
            )
        elif (
            entry["status"] == "skip"
            and entry.get("missing")
            and old
            and old["status"] == "pass"
            and (
                entry["missing"] in baseline.get("top_names", [entry["missing"]])
                or entry.get("extra_in_use")
            )
        ):
            # It imported before and cannot now: the change took away the module it misses, or
            # newly needs one of an extra in use (kombu 5.7's redis transport imports `packaging`,
            # declared only under its `redis` extra, with redis installed). A module that guarded
            # an optional import nothing here provides and now makes it is no regression (celery
            # 5.6's Azure backend, azure not installed): it could not be used before either.
            entry["status"], entry["regression"] = "fail", True
            entry["error"] = "imported before the change; now %s" % entry.pop("detail")


def summarize(checks, mode):
    failed = [c for c in checks if c["status"] == "fail"]
    regressions = [c for c in failed if c.get("regression")]
    summary = {
        "checks": len(checks),
        "passed": sum(c["status"] == "pass" for c in checks),
        "failed": len(failed),
        "skipped": sum(c["status"] == "skip" for c in checks),
    }
    if mode == "compare":
        summary["regressions"] = len(regressions)
        summary["pre_existing"] = len(failed) - len(regressions)
        ok = not regressions
    else:
        ok = not failed
    listed = [
        {
            "check": c["name"],
            "package": c.get("package"),
            "error": c.get("error") or "failed",
            **({"regression": bool(c.get("regression"))} if mode == "compare" else {}),
        }
        for c in failed
    ]
    return ok, summary, listed


HERE = os.path.dirname(os.path.abspath(__file__))


def automatic_baseline(installed, path):
    """ "record" when the plan's changes are not installed yet (every changed dist still at its
    version before the plan): this run becomes the baseline; "compare" when a baseline recorded
    so exists; None otherwise (or without a plan)."""
    if not SPEC["expect"]:
        return None
    before = all(
        (installed.version(e["name"]) is None)
        if e.get("from") is None
        else (
            installed.version(e["name"]) is not None
            and canonical_version(installed.version(e["name"]))
            == canonical_version(e["from"])
        )
        for e in SPEC["expect"]
    )
    if before:
        return "record"
    return "compare" if os.path.exists(path) else None


def timed_call(phase, function, *args):
    with timed(phase):
        return function(*args)


def write_atomic(path, text):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# The compile caches a check can warm (inductor's, Triton's, JAX's, CuPy's, torch C++ extensions',
# numba's): each points at a folder of its own under one fresh temp folder per run, removed
# afterwards, so that a kernel compiled by the baseline (or by any earlier run) never lets the run
# after a change pass without compiling: torch.compile(flex_attention) under Jinja2 2.11.3 fails
# only when inductor compiles from scratch. FORCED: set as they are.
CACHE_DIRS = (
    "TORCHINDUCTOR_CACHE_DIR",
    "TRITON_CACHE_DIR",
    "JAX_COMPILATION_CACHE_DIR",
    "CUPY_CACHE_DIR",
    "TORCH_EXTENSIONS_DIR",
    "NUMBA_CACHE_DIR",
)
CACHE_FORCED = {
    "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1",
    "JAX_ENABLE_COMPILATION_CACHE": "false",
}
# Inductor compiles in the checks' own process rather than in a pool of workers, unless the user
# set this: from empty caches the pool's start (each worker imports torch) costs more than it
# saves on the smoke tests' few kernels (H100, 16 cores, alone: torch.compile 29.2 and 22.3 s ->
# 15.8 and 13.7 s, flex_attention 22.2 and 24.5 s -> 16.8 and 18.0 s). Inductor generates the
# same code either way (its Jinja templates are rendered in the main process in both); only where
# Triton compiles it differs.
COMPILE_SERIAL = ("TORCHINDUCTOR_COMPILE_THREADS", "1")


def private_caches(warm):
    """Point every compile cache of this run and its children at fresh empty folders (unless
    `warm`: --warm-caches keeps the user's). Returns the report's `caches` and the folder to
    remove at the end (None)."""
    if warm:
        return {
            "private": False,
            "variables": {
                k: os.environ.get(k) for k in CACHE_DIRS + tuple(CACHE_FORCED)
            },
        }, None
    root = tempfile.mkdtemp(prefix="planner-verify-caches-")
    variables = {}
    for name in CACHE_DIRS:
        path = os.path.join(root, name.lower())
        os.mkdir(path)
        variables[name] = os.environ[name] = path
    for name, value in CACHE_FORCED.items():
        variables[name] = os.environ[name] = value
    name, value = COMPILE_SERIAL
    variables[name] = os.environ.setdefault(name, value)
    return {"private": True, "root": root, "variables": variables}, root


def main():
    parser = argparse.ArgumentParser(
        description="Verify that an environment still works."
    )
    parser.add_argument("--report", help="also write the JSON report to this file")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument(
        "--baseline",
        metavar="FILE",
        help="record the checks before the plan is applied",
    )
    modes.add_argument(
        "--compare", metavar="FILE", help="compare with a baseline recorded earlier"
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per import"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="imports run at once [all cores]"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="with --all: seconds (from --budget-from) the imports below the top level may "
        "take [%s]" % SPEC.get("budget"),
    )
    parser.add_argument(
        "--budget-from",
        type=float,
        default=None,
        help="when the budget started, in seconds since the epoch [this script's start]",
    )
    parser.add_argument(
        "--no-fork",
        action="store_true",
        help="import each module in a fresh interpreter, not forked from a warm parent",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=BATCH,
        metavar="N",
        help="modules one forked child imports in turn; a failure is imported again alone "
        "[%(default)s]; 1: one module per child",
    )
    parser.add_argument(
        "--no-imports", action="store_true", help="skip the import checks"
    )
    parser.add_argument(
        "--no-smoke", "--no-gpu", action="store_true", help="skip the smoke tests"
    )
    parser.add_argument(
        "--test",
        action="append",
        default=[],
        metavar="CMD",
        help="your own check, run by the shell before and after (repeatable): a command that "
        "passed in the baseline and fails now is a regression",
    )
    parser.add_argument(
        "--test-timeout",
        type=float,
        default=3600,
        help="seconds per --test command [3600]",
    )
    parser.add_argument(
        "--baseline-file",
        metavar="FILE",
        default=os.path.join(HERE, "verify-baseline.json"),
        help="where a run before the change records the baseline automatically, and where a run "
        "after it finds it [verify-baseline.json next to this script]",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="no automatic baseline: do not record one before the change, nor compare with one after",
    )
    parser.add_argument(
        "--warm-caches",
        action="store_true",
        help="keep the compile caches of this environment (inductor, Triton, JAX, CuPy); by "
        "default every run compiles into fresh empty ones, removed afterwards, so that a "
        "kernel compiled before cannot hide a break",
    )
    parser.add_argument(
        "--checks-from",
        metavar="REPORT",
        help="with --compare: run nothing; compare the checks of REPORT (a --plain run after the "
        "change) with the baseline (planner try runs the two side by side in two copies)",
    )
    parser.add_argument(
        "--only",
        metavar="FILE",
        help="with --baseline: run only the checks FILE names (a JSON list of check names; "
        "planner try records a baseline only for the checks that did not pass after the change)",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing on stderr")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="add where the time went (seconds per phase) to the report as `profile`; "
        "also PLANNER_VERIFY_PROFILE=1 in the environment",
    )
    args = parser.parse_args()
    if args.checks_from:
        if not args.compare:
            parser.error("--checks-from needs --compare FILE")
        return compare_report(args)
    if args.only:
        if not args.baseline:
            parser.error("--only needs --baseline FILE")
        with open(args.only) as f:
            args.only = set(json.load(f))
        restrict(args.only)
    caches, cache_root = private_caches(args.warm_caches)
    try:
        return run_checks(args, caches)
    finally:
        if cache_root:
            shutil.rmtree(cache_root, ignore_errors=True)


def restrict(only):
    """SPEC cut down to the checks named in `only` (a set): its smoke tests, `pip check`, cited
    names and call-time claims; the imports are cut in check_imports."""
    SPEC["smoke"] = [s for s in SPEC["smoke"] if "smoke:" + s["name"] in only]
    SPEC["pip_check"] = SPEC["pip_check"] and "pip-check" in only
    for target in SPEC["dists"]:
        target["names"] = [
            n
            for n in target.get("names") or []
            if "import:%s.%s" % (n["module"], n["name"]) in only
        ]
    SPEC["call_time"] = [
        c for c in SPEC.get("call_time") or [] if call_time_label(c) in only
    ]


def compare_report(args):
    """The report of a `--plain` run after the change (`--checks-from`) compared with the
    baseline (`--compare`), nothing run again: written to `--report`, printed; the exit status."""
    with open(args.checks_from) as f:
        result = json.load(f)
    with open(args.compare) as f:
        baseline = json.load(f)
    checks = result["checks"]
    compare(checks, baseline, set(result.get("top_names") or []))
    ok, summary, failed = summarize(checks, "compare")
    result.update(
        mode="compare",
        baseline={
            "file": os.path.abspath(args.compare),
            "recorded": False,
            "compared": True,
            "automatic": False,
        },
        uncompared=[],
        ok=ok,
        summary=summary,
        failed=failed,
    )
    text = json.dumps(json_safe(result), indent=1) + "\n"
    if args.report:
        write_atomic(args.report, text)
    if not args.quiet:
        sys.stderr.write(
            "%d passed, %d failed, %d skipped, %d regression(s), %d failing before\n"
            % (
                summary["passed"],
                summary["failed"],
                summary["skipped"],
                summary["regressions"],
                summary["pre_existing"],
            )
        )
    sys.stdout.write(text)
    return 0 if ok else 1


def run_checks(args, caches):
    """Every check `args` asks for, the report written and printed; the exit status."""
    installed = Installed()
    auto = (
        None
        if args.baseline or args.compare or args.plain
        else automatic_baseline(installed, args.baseline_file)
    )
    if auto == "compare":
        args.compare = args.baseline_file
    mode = "baseline" if args.baseline else "compare" if args.compare else "check"
    baseline = None
    if args.compare:
        with open(args.compare) as f:
            baseline = json.load(f)

    def say(entry):
        if not args.quiet and entry["status"] != "pass":
            text = entry.get("error") or entry.get("detail") or ""
            word = {"fail": "FAIL", "warn": "warning:"}.get(entry["status"], "skip")
            sys.stderr.write(
                "%s %s%s\n" % (word, entry["name"], ": " + text if text else "")
            )

    start = time.monotonic()
    profiling = args.profile or os.environ.get("PLANNER_VERIFY_PROFILE", "") not in (
        "",
        "0",
    )
    checks = [] if mode == "baseline" else check_versions(installed)
    for entry in checks:
        say(entry)
    # The smoke tests run beside the imports (the GPU ones mostly wait on the device).
    # So does `pip check` (it reads metadata only).
    smoke_pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    smoke_future = (
        None
        if args.no_smoke
        else smoke_pool.submit(timed_call, "smoke tests", check_smoke, installed, say)
    )
    pip_future = (
        smoke_pool.submit(timed_call, "pip check", check_pip, 300)
        if SPEC["pip_check"]
        else None
    )
    libs_future = (
        None
        if args.no_smoke or args.only is not None
        else smoke_pool.submit(
            timed_call, "CUDA libraries", cuda_libraries, installed, say
        )
    )
    budget, fork_notes = None, {}
    if not args.no_imports:
        cores = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1)
        )
        timeout = args.timeout or SPEC["import_timeout"]
        seconds = args.budget if args.budget is not None else SPEC.get("budget")
        # A failure the baseline recorded with the same error needs no confirming: pre-existing.
        known = {
            c["name"].split(":", 1)[1]: c.get("error")
            for c in (baseline or {}).get("checks", [])
            if c.get("kind") == "import" and c.get("status") == "fail"
        }
        imports, budget, fork_notes = check_imports(
            installed,
            timeout,
            args.jobs or cores,
            mode == "baseline",
            say,
            fork=not args.no_fork,
            budget=seconds,
            batch=max(1, args.batch),
            known=known,
            since=budget_start(start, args.budget_from),
            only=args.only,
        )
        checks += imports
        checks += timed_call(
            "cited names", check_names, installed, timeout, args.jobs or cores, say
        )
        checks += timed_call(
            "call-time claims",
            check_call_time,
            installed,
            timeout,
            args.jobs or cores,
            say,
            mode == "baseline",
        )
    if pip_future is not None:
        entry = pip_future.result()
        say(entry)
        checks.append(entry)
    cuda = None
    if smoke_future is not None:
        smoke, cuda = smoke_future.result()
        checks += smoke
    cuda_libs = libs_future.result() if libs_future is not None else None
    smoke_pool.shutdown()
    for command in args.test:
        entry = timed_call("--test commands", run_test, command, args.test_timeout)
        say(entry)
        checks.append(entry)
    order = {
        "version": 0,
        "import": 1,
        "call-time": 2,
        "pip-check": 3,
        "smoke": 4,
        "test": 5,
    }
    checks.sort(key=lambda c: (order[c["kind"]], c["name"]))
    if baseline is not None:
        compare(checks, baseline, installed.top_names())
    ok, summary, failed = summarize(checks, mode)
    result = {
        "schema": "planner-verify/2",
        "mode": mode,
        "baseline": {
            "file": os.path.abspath(args.baseline_file),
            "recorded": auto == "record",
            "compared": mode == "compare",
            "automatic": auto is not None,
        }
        if auto or args.compare
        else None,
        "uncompared": [
            c["check"] for c in failed if c["check"].split(":")[0] != "version"
        ]
        if mode == "check" and auto != "record"
        else [],
        "only": None if args.only is None else len(args.only),
        "plan": SPEC["plan"],
        "all": SPEC["all"],
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "site_packages": sorted(
            {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        ),
        "cuda": cuda,
        "caches": caches,
        "cuda_libraries": cuda_libs,
        "budget": budget,
        "fork": dict(
            {"not_forked": {}},
            used=not args.no_fork and hasattr(os, "fork"),
            **fork_notes,
        ),
        "seconds": round(time.monotonic() - start, 2),
        "ok": ok,
        "summary": summary,
        "failed": failed,
        "checks": checks,
        "top_names": sorted(n for n in installed.top_names() if n),
    }
    if profiling:
        result["profile"] = profile_report(time.monotonic() - start)
    text = json.dumps(json_safe(result), indent=1) + "\n"
    for path in (
        args.baseline,
        args.report,
        args.baseline_file if auto == "record" else None,
    ):
        if path:
            try:
                write_atomic(path, text)
            except OSError as exc:
                if path != args.baseline_file or args.baseline:
                    raise
                sys.stderr.write(
                    "verify.py: cannot record the baseline in %s: %s\n" % (path, exc)
                )
    if not args.quiet:
        extra = (
            ", %d regression(s), %d failing before"
            % (summary["regressions"], summary["pre_existing"])
            if mode == "compare"
            else ""
        )
        sys.stderr.write(
            "%d passed, %d failed, %d skipped%s (%.1fs)\n"
            % (
                summary["passed"],
                summary["failed"],
                summary["skipped"],
                extra,
                result["seconds"],
            )
        )
        if auto == "record":
            sys.stderr.write(
                "the plan's changes are not installed yet: this run is recorded as the baseline in %s; "
                "apply the plan, then run verify.py again to compare\n"
                % args.baseline_file
            )
        elif auto == "compare":
            sys.stderr.write(
                "compared with the baseline recorded before the change (%s)\n"
                % args.baseline_file
            )
        elif result["uncompared"]:
            sys.stderr.write(
                "%d failure(s) could not be compared with a baseline (none was recorded before the "
                "change: run verify.py before applying the plan, or --baseline FILE): they may have "
                "failed before too\n" % len(result["uncompared"])
            )
    sys.stdout.write(text)
    return 0 if ok or mode == "baseline" else 1


def budget_start(start, epoch):
    """The budget's start as a `time.monotonic()`: `epoch` (seconds since the epoch, the command
    that ran this script started then) read against this clock, else `start`, also when `epoch`
    is in the future or more than an hour back (the clock was set meanwhile)."""
    if epoch is None:
        return start
    ago = time.time() - epoch
    return time.monotonic() - ago if 0 <= ago <= 3600 else start


def json_safe(value):
    """`value` with each string's undecodable bytes (a path that is not UTF-8, which Python holds as
    lone surrogates) written as `\\xNN` text: a lone surrogate would make the report invalid JSON."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            try:
                return value.encode("utf-8", "surrogateescape").decode(
                    "utf-8", "backslashreplace"
                )
            except UnicodeEncodeError:
                return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # the script itself failed, not a check
        sys.stderr.write("verify.py failed: %r\n" % (exc,))
        sys.exit(2)
