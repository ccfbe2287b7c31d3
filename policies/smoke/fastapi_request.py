# Smoke test: a FastAPI app answers a request: a pydantic body is validated (200) and rejected
# (422). Through `fastapi.testclient.TestClient` when its optional httpx is installed, else by
# calling the ASGI app directly (the same path a server takes).
import asyncio
import json
from importlib.metadata import version

from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()


class Item(BaseModel):
    name: str
    price: float


@app.post("/items")
def create(item: Item):
    return {"name": item.name, "total": item.price * 2}


def call_asgi(body):
    """POST /items through the ASGI interface; returns (status, JSON body)."""
    sent, out = [False], {"status": None, "body": b""}

    async def receive():
        if sent[0]:
            return {"type": "http.disconnect"}
        sent[0] = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/items",
        "raw_path": b"/items",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), (b"host", b"testserver")],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }
    asyncio.run(app(scope, receive, send))
    return out["status"], json.loads(out["body"] or b"null")


try:
    from fastapi.testclient import TestClient

    client = TestClient(app)

    def post(body):
        r = client.post(
            "/items", content=body, headers={"content-type": "application/json"}
        )
        return r.status_code, r.json()

    how = "TestClient"
except (ImportError, RuntimeError):
    post, how = call_asgi, "the ASGI app"

status, body = post(b'{"name": "x", "price": 2.5}')
assert (status, body) == (200, {"name": "x", "total": 5.0}), (status, body)
status, body = post(b'{"name": "x"}')
assert status == 422, "a body without price answered %s: %r" % (status, body)
print(
    "FastAPI %s, pydantic %s, Starlette %s: a request through %s validated and rejected"
    % (version("fastapi"), version("pydantic"), version("starlette"), how)
)
