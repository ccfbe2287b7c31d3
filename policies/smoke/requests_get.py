# Smoke test: requests fetches from a local HTTP server (GET with a query, a JSON body, a
# redirect, a Session with urllib3's Retry mounted): requests and urllib3 must agree on their
# interface, which `import requests` alone does not exercise. No network beyond the loopback.
import http.server
import json
import threading
from importlib.metadata import version

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/moved"):
            self.send_response(302)
            self.send_header("Location", "/data?x=1")
            self.end_headers()
            return
        body = json.dumps({"path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = "http://127.0.0.1:%d" % server.server_address[1]
try:
    r = requests.get(base + "/data", params={"x": 1}, timeout=10)
    assert r.status_code == 200 and r.json() == {"path": "/data?x=1"}, (
        r.status_code,
        r.text,
    )
    session = requests.Session()
    session.mount("http://", HTTPAdapter(max_retries=Retry(total=2, backoff_factor=0)))
    r = session.get(base + "/moved", timeout=10)
    assert r.history and r.json() == {"path": "/data?x=1"}, (r.history, r.text)
finally:
    server.shutdown()
print(
    "requests %s with urllib3 %s: GET, JSON, redirect, Session with Retry"
    % (version("requests"), version("urllib3"))
)
