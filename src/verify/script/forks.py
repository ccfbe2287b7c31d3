# ---- imports forked from one warm parent ----------------------------------------------------------
#
# A fresh interpreter per module imports torch or pandas again for every submodule. Instead one
# server (a fresh interpreter) forks a child per module to import, and learns: it imports what two
# of its children imported successfully (the modules their imports added to sys.modules, each
# under its own name), so the next children start with torch, pandas or scipy.stats already done,
# whatever dist they belong to; a module only one child needed (a model's own code) is not imported
# twice. Before each fork its objects are frozen out of the garbage collector (gc.freeze()), so
# that a child's collections do not touch, and copy, the parent's pages. A failed import leaves nothing behind (Python drops it from
# sys.modules), so a break is imported again, and fails again, in every child that meets it. A
# child is its own process group, killed whole on timeout, and reports like a fresh probe. Nothing
# is learned from a child whose import started threads or initialized CUDA (a process in that
# state must not be forked from); if what the server learned does that anyway, it stops forking
# and the remaining modules are imported in fresh interpreters, as every module is with --no-fork,
# where fork() is missing, or when the server dies. A failure whose traceback runs through code of
# a module the child did not import itself (the warm parent had: a registry that refuses a second
# registration, a patched function), and a child that died, are imported again away from it: in a
# child of a second, pristine server (it learns nothing; it holds only the failing dist's required
# packages), else in a fresh interpreter (Importer says when), unless that same error was already
# confirmed so.

SERVER = (
    IMPORT_ONE
    + r"""
import gc, os, select, signal, sysconfig, time
# --pristine: a parent that never learns from its children; it imports only what requests name
# (`preload`), for confirming a failure away from what the learning parent accumulated.
PRISTINE = "--pristine" in sys.argv[1:]
# The protocol moves off fd 0 and 1: a learned import that reads stdin or prints cannot touch it.
inp, out = os.dup(0), os.dup(1)
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.dup2(2, 1)

def unforkable():
    # None, or why this process must not be forked from. libcuda mapped (torch maps it at import)
    # is not initialized: cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED (3) until cuInit ran.
    try:
        with open("/proc/self/maps") as maps:
            mapped = [l.split()[-1] for l in maps if "libcuda.so" in l]
    except OSError:
        mapped = []
    if mapped:
        import ctypes
        try:
            count = ctypes.c_int(0)
            if ctypes.CDLL(mapped[0]).cuDeviceGetCount(ctypes.byref(count)) != 3:
                return "initialized the CUDA driver"
        except (OSError, AttributeError):
            return "loaded a CUDA driver that cannot be asked"
    if "threading" in sys.modules and sys.modules["threading"].active_count() > 1:
        return "started threads"
    return None

def send(message):
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(out, data):]

def own_name(name):
    spec = getattr(sys.modules.get(name), "__spec__", None)
    return spec is not None and spec.name == name and name not in ("__main__", "__mp_main__")

def write_line(fd, message):
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]

def child(names, result_w, noise_w, learn_all):
    # Imports `names` in turn, a result line each, then an end line with what they added.
    os.close(out)
    os.close(inp)
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.dup2(noise_w, 1)
    os.dup2(noise_w, 2)
    before = set(sys.modules)
    inherited = {getattr(sys.modules.get(n), "__file__", None) for n in before}
    slowest = 0.0
    for name in names:
        begun = time.monotonic()
        result = import_one(name)
        result["s"] = round(time.monotonic() - begun, 2)
        slowest = max(slowest, result["s"])
        if not result["ok"]:
            # The standard library's code is in every traceback (a venv's platstdlib holds its
            # site-packages: those are not the standard library).
            paths = sysconfig.get_paths()
            stdlib = tuple(os.path.join(paths[k], "") for k in ("stdlib", "platstdlib"))
            site = tuple(os.path.join(paths[k], "") for k in ("purelib", "platlib"))
            result["via_parent"] = [f for f in result.pop("frames") if f in inherited
                                    and (f.startswith(site) or not f.startswith(stdlib))]
            # The installed top-level packages this child held: what a parent that confirms
            # the failure imports first (the child's own code it imports itself).
            result["tops"] = sorted(n for n, m in list(sys.modules.items())
                                    if "." not in n and not n.startswith("_")
                                    and str(getattr(m, "__file__", None) or "").startswith(site))
        write_line(result_w, result)
    end = {"end": True}
    # Learned only from imports that leave the process safe to fork and did not take long (the
    # first child of a group, which imports the group's heavy common imports, excepted).
    if (learn_all or slowest < 30) and unforkable() is None:
        end["learned"] = [n for n in list(sys.modules) if n not in before and own_name(n)]
    write_line(result_w, end)
    os._exit(0)

send({"ready": True})
attempted = set(sys.modules)
seen = {}  # module -> how many children imported it
learned = []
stats = {"forked": 0, "learned": 0, "learning_s": 0.0}
stopped = None  # why this server no longer forks

def warm(batch=None):
    # Imports what was learned (or, `batch` given, a first batch's modules, before its child is
    # forked: the child then finds them imported rather than importing them a second time).
    global stopped
    if batch is None:
        batch = learned[:]
        del learned[:]
    begun = time.monotonic()
    for name in batch:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
                stats["learned"] += 1
            except BaseException:
                pass
    stats["learning_s"] = round(stats["learning_s"] + time.monotonic() - begun, 2)
    gc.freeze()
    if batch and stopped is None:
        why = unforkable()
        if why:
            stopped = ("importing what a confirmation needs first " if PRISTINE
                       else "importing what earlier children imported ") + why

# result fd -> [id, pid, noise fd, deadline, result bytes, noise bytes, start, modules, timeout,
# learn_all: learn what this one child imported (the first child of a group the others wait for)]
running = {}
pending = b""
requests = []

def finish(fd, timed_out=False):
    rid, pid, noise, deadline, got, chatter, begun, modules, _, learn_all = running.pop(fd)
    seconds = round(time.monotonic() - begun, 2)
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = 0
    os.close(fd)
    os.close(noise)
    lines = []
    for line in got.decode(errors="replace").splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            pass
    end = lines.pop() if lines and lines[-1].get("end") else None
    for name in () if PRISTINE else (end or {}).get("learned", ()):
        if name not in attempted:
            seen[name] = seen.get(name, 0) + 1
            if seen[name] >= (1 if learn_all else 2):
                attempted.add(name)
                learned.append(name)
    if modules > 1:
        # A batch: the modules it did not answer for (a hang, a crash) are null; the caller
        # imports each of them alone.
        send({"id": rid, "results": lines + [None] * (modules - len(lines))})
        return
    if timed_out:
        send({"id": rid, "timeout": True, "s": seconds})
        return
    if lines:
        result = lines[0]
    else:
        why = ("killed by signal %d" % os.WTERMSIG(status)) if os.WIFSIGNALED(status) else (
            "exit %d" % os.WEXITSTATUS(status))
        words = [l.strip() for l in chatter.decode(errors="replace").splitlines() if l.strip()]
        result = {"ok": False, "error": "%s: %s" % (why, words[-1][:600] if words else "no output")}
    result["id"], result["s"] = rid, seconds
    send(result)

def start(request):
    if stopped:
        send({"id": request["id"], "fallback": stopped})
        return
    result_r, result_w = os.pipe()
    noise_r, noise_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(result_r)
        os.close(noise_r)
        child(request["modules"], result_w, noise_w, request.get("learn_all", False))
    os.close(result_w)
    os.close(noise_w)
    stats["forked"] += 1
    begun = time.monotonic()
    running[result_r] = [request["id"], pid, noise_r, begun + request["timeout"], b"", b"", begun,
                         len(request["modules"]), request["timeout"], request.get("learn_all", False)]

while True:
    if requests:
        for request in requests:
            for name in request.get("preload", ()):
                if name not in attempted:
                    attempted.add(name)
                    learned.append(name)
        warm()
        # A first batch (learn_all) is imported here first, then forked: its child and the other
        # batches of its dist start from what it imported. The other requests go first.
        ahead = [n for r in requests if r.get("learn_all") and not PRISTINE and not stopped
                 for n in r["modules"]]
        for request in requests:
            if not (ahead and request.get("learn_all")):
                start(request)
        if ahead:
            warm(ahead)
            for request in requests:
                if request.get("learn_all"):
                    start(request)
        del requests[:]
    now = time.monotonic()
    wait = min([r[3] for r in running.values()], default=now + 60) - now
    fds = [inp] + list(running) + [r[2] for r in running.values()]
    ready, _, _ = select.select(fds, [], [], max(0.0, min(wait, 60)))
    for fd in ready:
        if fd == inp:
            data = os.read(inp, 65536)
            if not data:
                for rfd in list(running):
                    finish(rfd, timed_out=True)
                send({"stats": stats})
                sys.exit(0)
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                requests.append(json.loads(line))
            continue
        owner = next((k for k, r in running.items() if fd in (k, r[2])), None)
        if owner is None:
            continue
        data = os.read(fd, 65536)
        if fd == owner:
            entry = running[owner]
            entry[4] += data
            if data.endswith(b"\n"):
                entry[3] = time.monotonic() + entry[8]  # each module has its own timeout
            if not data or entry[4].endswith(b"\n") and b'"end": true' in entry[4].rsplit(b"\n", 2)[-2]:
                finish(owner)
        elif data:
            running[owner][5] = (running[owner][5] + data)[-4096:]
    now = time.monotonic()
    for rfd in [k for k, r in running.items() if r[3] <= now]:
        # Overdue by the clock, but its answer may be waiting (this loop was busy warming).
        if not select.select([rfd], [], [], 0)[0]:
            finish(rfd, timed_out=True)
"""
)


# Why a server's answer was not waited for: the budget of `--all` ended first.
BUDGET_SPENT = "the budget ended first"
# The result of a deep import of `--all` stopped at the end of the budget.
STOPPED = {"ok": False, "stopped": True, "error": "stopped at the end of the budget"}


class ForkServer:
    """The warm parent: `run(module, timeout)` answers (result like `probe_import`, None), or
    (None, why) when it cannot (not started in time, stopped forking, dead): the caller then
    imports the module fresh. `pristine`: a parent that learns nothing from its children and
    imports only the `preload` its requests name."""

    def __init__(self, timeout, pristine=False):
        self.lock = threading.Lock()
        self.waiting = {}
        self.next_id = 0
        self.ready = threading.Event()
        self.usable = False
        self.note = None
        self.stats = {}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER] + (["--pristine"] if pristine else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.ready.wait(timeout):
            self.note = "the warm parent did not start within %gs" % timeout
            self.close()

    def _read(self):
        for line in self.proc.stdout:
            message = json.loads(line)
            if "ready" in message:
                self.usable = True
                self.ready.set()
                continue
            if "stats" in message:
                self.stats = message["stats"]
                continue
            with self.lock:
                slot = self.waiting.pop(message.pop("id"), None)
            if slot is not None:
                slot[1] = message
                slot[0].set()
        with self.lock:
            self.usable = False
            self.note = self.note or "the warm parent died"
            for slot in self.waiting.values():
                slot[0].set()
            self.waiting.clear()
        self.ready.set()

    def _ask(self, modules, timeout, preload=(), learn_all=False, wait=None):
        """The server's answer for one child importing `modules` in turn (after the server
        imported `preload`; with `learn_all` the server learns all the child imported), or
        (None, why): (None, BUDGET_SPENT) when `wait` seconds pass first (a deep import of
        `--all` at the end of the budget, whose server is still importing what it learned or
        what a confirmation needs: the server goes on, its late answer is dropped)."""
        with self.lock:
            if not self.usable:
                return None, self.note
            self.next_id += 1
            rid = self.next_id
            slot = self.waiting[rid] = [threading.Event(), None]
            try:
                request = {
                    "id": rid,
                    "modules": modules,
                    "timeout": timeout,
                    "preload": list(preload),
                    "learn_all": learn_all,
                }
                self.proc.stdin.write((json.dumps(request) + "\n").encode())
                self.proc.stdin.flush()
            except OSError:
                self.waiting.pop(rid, None)
                self.usable = False
                return None, "the warm parent died"
        # A child answers within `timeout` a module (the server kills it then); more means the
        # server itself hangs (a learned import that blocks there): it is given up, the rest run fresh.
        if wait is not None and not slot[0].wait(wait):
            return None, BUDGET_SPENT
        if not slot[0].wait(timeout * len(modules) + 120):
            self.note = "the warm parent stopped answering"
            self.kill()
            return None, self.note
        result = slot[1]
        if result is None:
            return None, self.note
        if "fallback" in result:
            return None, result["fallback"]
        return result, None

    def run_batch(self, modules, timeout, learn_all=False):
        """Results of one child importing `modules` in turn (null for those it did not answer
        for), or (None, why)."""
        answer, why = self._ask(modules, timeout, learn_all=learn_all)
        return (answer["results"], None) if answer else (None, why)

    def run(self, module, timeout, preload=(), wait=None):
        result, why = self._ask([module], timeout, preload, wait=wait)
        if result is None:
            return None, why
        if result.pop("timeout", False):
            return {
                "ok": False,
                "s": result["s"],
                "timeout": True,
                "error": "timed out after %gs (the import hangs)" % timeout,
            }, None
        return result, None

    def kill(self):
        with self.lock:
            self.usable = False
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass

    def close(self, wait=10):
        """Ends the server: its last line (the counts) read, `wait` seconds at most, then it is
        killed with its children."""
        with self.lock:
            self.usable = False
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        self.reader.join(
            wait
        )  # its last line (the counts) read before anyone asks for them


class Importer:
    """Imports modules through one learning ForkServer (started at the first job), else in fresh
    interpreters; `notes`: the dists some of whose modules were not forked, and why.

    A forked failure the learning parent may have caused (`_suspect`) is imported again in a child
    of a pristine parent: a second ForkServer that learns nothing and holds only the installed
    packages the failing dist requires (any extra, transitively) that the failing child held
    (torch, PIL), never the failing dist's own code. A failure there whose traceback does not run
    through what that parent imported is the verdict. A fresh interpreter decides only where the
    pristine verdict could depend on state too: it passed there (the two parents disagree), its
    traceback runs through the pristine parent's code, the child died or hung, or no pristine
    parent could be had. `known`: {module: error} of the imports that failed in the recorded
    baseline; a forked failure with that same error is not confirmed again (pre-existing either
    way). `stop_at`: a `time.monotonic()` at which every deep import of `--all` still running is
    stopped (killed, with its confirmation), answered STOPPED (`stopped`): left out, not
    failed."""

    def __init__(self, installed, timeout, fork, known=None, stop_at=None):
        self.installed, self.timeout = installed, timeout
        self.stop_at = stop_at
        self.fork = fork and hasattr(os, "fork") and sys.platform != "win32"
        self.server = None
        self.pristine = None
        self.lock = threading.Lock()
        self.notes = {}
        self.known = known or {}
        self.confirmed = (
            set()
        )  # errors seen failing in a pristine parent's child or fresh
        self.confirming = {}  # error -> Event: being confirmed by another worker now
        self.batched = 0  # passes answered by a batch
        self.alone = 0  # modules of a batch imported again alone
        self.tally = {
            "confirmed_pristine": 0,
            "confirmed_fresh": 0,
            "as_in_baseline": 0,
        }
        self.requires = {}  # dist -> top-level names of what it requires, transitively

    def _server(self, pristine=False):
        with self.lock:
            if pristine:
                if self.pristine is None:
                    self.pristine = ForkServer(self.timeout, pristine=True)
                return self.pristine
            if self.server is None:
                self.server = ForkServer(self.timeout)
            return self.server

    def run_batch(self, jobs, learn_all=False):
        """Results for `jobs`, imported one after another in one forked child. Each failure, and
        each module the child did not answer for, is imported again alone (`run`), so that no
        verdict depends on the modules imported before it in the batch, but a pass, and a failure
        on a module that is not installed at all (`absent`: no neighbour installs one).
        `learn_all`: the warm parent learns everything this child imported (the first batch of a
        dist whose other batches wait for it), not only what two children did."""
        if self.fork and len(jobs) > 1:
            with timed("batches (forked)"):
                got, why = self._server().run_batch(
                    [j["module"] for j in jobs], self.timeout, learn_all
                )
            if why:
                for job in jobs:
                    self.notes[job["dist"]] = why
            elif got:
                results = [
                    r if r and (r["ok"] or r.get("absent")) else None for r in got
                ]
                for r in results:
                    if r is not None:
                        r.pop("via_parent", None)
                        r.pop("tops", None)
                batch_errors = [r["error"] if r and not r["ok"] else None for r in got]
                with self.lock:
                    self.batched += sum(r is not None for r in results)
                    self.alone += sum(r is None for r in results)
                return [
                    self._alone(j, e) if r is None else self._retried(j, r)
                    for j, r, e in zip(jobs, results, batch_errors)
                ]
        return [self.run(j) for j in jobs]

    def _alone(self, job, batch_error):
        """A module that failed in a batch (or was not reached), imported alone: that result,
        marked `batch_failed` when it passes alone."""
        result = self.run(job)
        if result["ok"] and batch_error:
            result["batch_failed"] = batch_error
        return result

    def _limit(self, job):
        """Seconds the next import of `job` may take: the import timeout, or what is left until
        `stop_at` when that is less (a deep import of `--all`); at least 10 ms."""
        if self.stop_at is None or not job["budgeted"]:
            return self.timeout
        return max(0.01, min(self.timeout, self.stop_at - time.monotonic()))

    def run(self, job):
        """`job`'s module imported alone (forked, confirmed, retried): its result, or
        STOPPED when `stop_at` stopped it."""
        if not job["budgeted"] or self.stop_at is None:
            return self._run(job)
        if time.monotonic() >= self.stop_at:
            return dict(STOPPED)
        result = self._run(job)
        stopped = result.get("timeout") and time.monotonic() >= self.stop_at
        return dict(STOPPED) if stopped else result

    def _wait(self, job):
        """How long to wait for a server's answer on `job`: unbounded (None), or for a deep
        import of `--all` until `stop_at` (and a moment for the stopped child's answer)."""
        if self.stop_at is None or not job["budgeted"]:
            return None
        return max(0.0, self.stop_at - time.monotonic()) + 0.2

    def _run(self, job):
        result = None
        if self.fork:
            with timed("alone (forked)"):
                result, why = self._server().run(
                    job["module"], self._limit(job), wait=self._wait(job)
                )
            if why == BUDGET_SPENT:
                return dict(STOPPED)
            if why:
                self.notes[job["dist"]] = why
            elif (
                result
                and not result["ok"]
                and not result.get("timeout")
                and self._suspect(job, result)
            ):
                result = self._confirm(job, result)
        if result is None:
            with timed("fresh interpreters (not forked)"):
                result = probe_import(job["module"], self._limit(job))
        result.pop("via_parent", None)
        result.pop("tops", None)
        return self._retried(job, result)

    def _retried(self, job, result):
        """A failure that needs Django settings or is a circular import, imported again so."""
        result = retry_under_django(self.installed, job, result, self._limit(job))
        return retry_circular(self.installed, job, result, self._limit(job))

    def _suspect(self, job, result):
        """A forked failure the warm parent may have caused: its traceback runs through code the
        parent imported, or the child died (a crash) - and its error was neither seen failing
        away from the learning parent nor recorded for this module in the baseline."""
        suspect = result.pop("via_parent", None) or "text" not in result
        if not suspect:
            return False
        if self.known.get(job["module"]) == result["error"]:
            with self.lock:
                self.tally["as_in_baseline"] += 1
            return False
        while True:
            # The same error being confirmed by another worker: its answer, not a second confirmation.
            with self.lock:
                if result["error"] in self.confirmed:
                    return False
                pending = self.confirming.get(result["error"])
                if pending is None:
                    self.confirming[result["error"]] = threading.Event()
                    return True
            pending.wait()

    def _required_tops(self, name):
        """Top-level import names of every installed dist `name` requires (under any extra),
        transitively, `name`'s own excepted."""
        with self.lock:
            if name in self.requires:
                return self.requires[name]
        own = canonical_name(name)
        seen, todo, tops = {own}, [own], set()
        while todo:
            dist = self.installed.get(todo.pop())
            for dep in declared(dist) if dist is not None else ():
                if dep not in seen and self.installed.get(dep) is not None:
                    seen.add(dep)
                    todo.append(dep)
                    tops.update(dist_tops(self.installed.get(dep)))
        mine = self.installed.get(name)
        tops -= dist_tops(mine) if mine is not None else set()
        with self.lock:
            self.requires[name] = tops
        return tops

    def _confirm(self, job, forked):
        """A forked failure imported again away from the learning parent: in a pristine parent's
        child, else (see the class) fresh. That result, marked `fork_failed` when it passed."""
        try:
            return self._confirm_once(job, forked)
        finally:
            with self.lock:
                done = self.confirming.pop(forked["error"], None)
            if done is not None:
                done.set()

    def _confirm_once(self, job, forked):
        own = job["module"].split(".")[0]
        preload = [
            t
            for t in forked.pop("tops", ())
            if t != own and t in self._required_tops(job["dist"])
        ]
        with timed("confirmed in a pristine parent's child"):
            again, why = self._server(pristine=True).run(
                job["module"], self._limit(job), preload, wait=self._wait(job)
            )
        if why == BUDGET_SPENT:
            return dict(STOPPED)
        if again is not None:
            trusted = (
                not again["ok"]
                and not again.get("timeout")
                and "text" in again
                and not again.pop("via_parent", None)
            )
            again.pop("tops", None)
            if trusted:
                with self.lock:
                    self.confirmed.add(again["error"])
                    self.tally["confirmed_pristine"] += 1
                again["s"] = round(again.get("s", 0) + forked.get("s", 0), 2)
                return again
        with timed("confirmed in a fresh interpreter"):
            fresh = probe_import(job["module"], self._limit(job))
        if fresh["ok"]:
            fresh["fork_failed"] = forked["error"]
        else:
            with self.lock:
                self.confirmed.add(fresh["error"])
                self.tally["confirmed_fresh"] += 1
        fresh["s"] = round(
            fresh.get("s", 0) + forked.get("s", 0) + ((again or {}).get("s") or 0), 2
        )
        return fresh

    def close(self):
        """Ends both servers; once `stop_at` has passed, one still importing (what it learned,
        what a confirmation needs) is killed within a moment, not waited for."""
        wait = 10 if self.stop_at is None else max(0.2, self.stop_at - time.monotonic())
        for server in (self.server, self.pristine):
            if server is not None:
                server.close(min(wait, 10))

    def counts(self):
        """How the imports ran: children forked (by the learning parent and the pristine one),
        modules the warm parent learned, fresh interpreters, and how forked failures were confirmed."""
        stats = self.server.stats if self.server is not None else {}
        pristine = self.pristine.stats if self.pristine is not None else {}
        if stats.get("learning_s"):
            profiled(
                "warm parent importing what it learned",
                stats["learning_s"],
                stats.get("learned", 0),
            )
        if pristine.get("learning_s"):
            profiled(
                "pristine parent importing what confirmations need",
                pristine["learning_s"],
                pristine.get("learned", 0),
            )
        return dict(
            {
                "forked": stats.get("forked", 0),
                "learned": stats.get("learned", 0),
                "fresh": len(FRESH),
                "batched": self.batched,
                "again_alone": self.alone,
                "pristine_forked": pristine.get("forked", 0),
            },
            **self.tally,
        )
