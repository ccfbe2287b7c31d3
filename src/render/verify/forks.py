
# ---- imports forked from a warm parent, one parent per dist ----------------------------------------
#
# A fresh interpreter per module imports torch or pandas again for every submodule. Instead, each
# dist gets a server: a fresh interpreter that first imports the dist's top-level modules and the
# top-level modules of the dists it requires (its heavy common imports), then forks one child per
# module to import. A child is its own process group, killed whole on timeout, and reports like a
# fresh probe. A server whose warm imports initialized CUDA (cuInit ran: a forked child could not
# use it) or started threads is not forked from: its modules are imported in fresh
# interpreters, as they are with --no-fork, where fork() is missing, or when a server dies.

SERVER = IMPORT_ONE + r'''
import os, select, signal, time
out = os.dup(1)
os.dup2(2, 1)
warm = json.loads(sys.argv[1])
failed = {}
for name in warm:
    try:
        importlib.import_module(name)
    except BaseException as exc:
        failed[name] = (traceback.format_exception_only(type(exc), exc) or [""])[-1].strip()[:300]
tainted = None
try:
    with open("/proc/self/maps") as maps:
        mapped = [l.split()[-1] for l in maps if "libcuda.so" in l]
except OSError:
    mapped = []
if mapped:
    # Loaded (torch maps it at import) is not initialized: cuDeviceGetCount answers
    # CUDA_ERROR_NOT_INITIALIZED (3) until cuInit ran, and a forked child may still init CUDA.
    import ctypes
    try:
        count = ctypes.c_int(0)
        if ctypes.CDLL(mapped[0]).cuDeviceGetCount(ctypes.byref(count)) != 3:
            tainted = "its warm imports initialized the CUDA driver"
    except (OSError, AttributeError):
        tainted = "its warm imports loaded a CUDA driver that cannot be asked"
if tainted is None and "threading" in sys.modules and sys.modules["threading"].active_count() > 1:
    tainted = "its warm imports started threads"

def send(message):
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(out, data):]

send({"ready": True, "tainted": tainted, "warm_failed": failed})
if tainted:
    sys.exit(0)

def child(name, result_w, noise_w):
    os.close(out)
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(noise_w, 1)
    os.dup2(noise_w, 2)
    result = import_one(name)
    data = (json.dumps(result) + "\n").encode()
    while data:
        data = data[os.write(result_w, data):]
    os._exit(0)

running = {}  # result fd -> [id, pid, noise fd, deadline, result bytes, noise bytes, start]
pending = b""

def finish(fd, timed_out=False):
    rid, pid, noise, deadline, got, chatter, start = running.pop(fd)
    seconds = round(time.monotonic() - start, 2)
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
    if timed_out:
        send({"id": rid, "timeout": True, "s": seconds})
        return
    try:
        result = json.loads(got.decode(errors="replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        why = ("killed by signal %d" % os.WTERMSIG(status)) if os.WIFSIGNALED(status) else (
            "exit %d" % os.WEXITSTATUS(status))
        words = [l.strip() for l in chatter.decode(errors="replace").splitlines() if l.strip()]
        result = {"ok": False, "error": "%s: %s" % (why, words[-1][:600] if words else "no output")}
    result["id"], result["s"] = rid, seconds
    send(result)

while True:
    now = time.monotonic()
    wait = min([r[3] for r in running.values()], default=now + 60) - now
    fds = [0] + list(running) + [r[2] for r in running.values()]
    ready, _, _ = select.select(fds, [], [], max(0.0, min(wait, 60)))
    for fd in ready:
        if fd == 0:
            data = os.read(0, 65536)
            if not data:
                for rfd in list(running):
                    finish(rfd, timed_out=True)
                sys.exit(0)
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                result_r, result_w = os.pipe()
                noise_r, noise_w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(result_r)
                    os.close(noise_r)
                    child(request["module"], result_w, noise_w)
                os.close(result_w)
                os.close(noise_w)
                start = time.monotonic()
                running[result_r] = [request["id"], pid, noise_r, start + request["timeout"], b"", b"", start]
            continue
        owner = next((k for k, r in running.items() if fd in (k, r[2])), None)
        if owner is None:
            continue
        data = os.read(fd, 65536)
        if fd == owner:
            running[owner][4] += data
            if not data or running[owner][4].endswith(b"\n"):
                finish(owner)
        elif data:
            running[owner][5] = (running[owner][5] + data)[-4096:]
    now = time.monotonic()
    for rfd in [k for k, r in running.items() if r[3] <= now]:
        finish(rfd, timed_out=True)
'''


class ForkServer:
    """One warm parent: `run(module, timeout)` answers like `probe_import`, or None when this
    server cannot (not ready in time, tainted, dead): the caller then imports it fresh."""

    def __init__(self, warm, timeout):
        self.lock = threading.Lock()
        self.waiting = {}
        self.next_id = 0
        self.ready = threading.Event()
        self.usable = False
        self.note = None
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, json.dumps(warm)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(timeout):
            self.note = "its warm imports took more than %gs" % timeout
            self.close()

    def _read(self):
        for line in self.proc.stdout:
            message = json.loads(line)
            if "ready" in message:
                self.usable = not message["tainted"]
                self.note = message["tainted"]
                self.ready.set()
                continue
            with self.lock:
                slot = self.waiting.pop(message.pop("id"), None)
            if slot is not None:
                slot[1] = message
                slot[0].set()
        with self.lock:
            self.usable = False
            for slot in self.waiting.values():
                slot[0].set()
            self.waiting.clear()
        self.ready.set()

    def run(self, module, timeout):
        with self.lock:
            if not self.usable:
                return None
            self.next_id += 1
            rid = self.next_id
            slot = self.waiting[rid] = [threading.Event(), None]
            try:
                self.proc.stdin.write((json.dumps({"id": rid, "module": module, "timeout": timeout}) + "\n").encode())
                self.proc.stdin.flush()
            except OSError:
                self.waiting.pop(rid, None)
                self.usable = False
                return None
        slot[0].wait()
        result = slot[1]
        if result is None:
            return None
        if result.pop("timeout", False):
            return {"ok": False, "s": result["s"], "error": "timed out after %gs (the import hangs)" % timeout}
        return result

    def close(self):
        with self.lock:
            self.usable = False
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()


def warm_imports(installed, dist_name, jobs):
    """A dist's top-level modules (those imported here) and the top-level modules of the
    installed dists it requires unconditionally: what its submodules import again and again."""
    warm = [j["module"] for j in jobs if "." not in j["module"]]
    dist = installed.get(dist_name)
    for text in (dist.requires or []) if dist is not None else []:
        name, _, marker = text.partition(";")
        if "extra" in marker:
            continue
        required = installed.get(re.split(r"[\s\[<>=!~(]", name.strip(), 1)[0])
        if required is None:
            continue
        for module, _ in dist_modules(required, False):
            if "." not in module and module not in warm:
                warm.append(module)
    return warm


class Importer:
    """Imports modules grouped by dist, through one ForkServer per dist (at most about `cores`
    alive: jobs come in dist order), else in fresh interpreters."""

    def __init__(self, installed, jobs, timeout, fork):
        self.installed, self.timeout = installed, timeout
        self.fork = fork and hasattr(os, "fork") and sys.platform != "win32"
        # One server per dist and phase (the budgeted imports of --all run after all others: a
        # server kept for them would stay alive, torch loaded, through the whole first phase).
        self.left = {}
        for job in jobs:
            self.left[self._key(job)] = self.left.get(self._key(job), 0) + 1
        self.by_dist = {}
        for job in jobs:
            self.by_dist.setdefault(job["dist"], []).append(job)
        self.servers = {}
        self.lock = threading.Lock()
        self.notes = {}

    @staticmethod
    def _key(job):
        return (job["dist"], job.get("budgeted", False))

    def _server(self, job):
        dist = job["dist"]
        with self.lock:
            entry = self.servers.get(self._key(job))
            if entry is None:
                entry = self.servers[self._key(job)] = [threading.Lock(), None]
        with entry[0]:
            if entry[1] is None:
                entry[1] = ForkServer(warm_imports(self.installed, dist, self.by_dist[dist]), self.timeout)
                if entry[1].note:
                    self.notes[dist] = entry[1].note
            return entry[1]

    def run(self, job):
        result = None
        if self.fork:
            result = self._server(job).run(job["module"], self.timeout)
        if result is None:
            result = probe_import(job["module"], self.timeout)
        result = retry_under_django(self.installed, job, result, self.timeout)
        result = retry_circular(self.installed, job, result, self.timeout)
        self.skipped(job)
        return result

    def skipped(self, job):
        """`job` is done (or will not run): its dist's server closes after its last one."""
        with self.lock:
            self.left[self._key(job)] -= 1
            done = self.left[self._key(job)] == 0
            entry = self.servers.get(self._key(job)) if done else None
        if entry is not None and entry[1] is not None:
            entry[1].close()

    def close(self):
        for entry in self.servers.values():
            if entry[1] is not None:
                entry[1].close()
