# Smoke test: langchain calls an OpenAI model for real, against a local server that answers as
# the OpenAI API does (completions and chat completions; no network, a dummy key): langchain and
# the openai client must agree on the client's interface. langchain 0.0.300 under openai 1.x
# imports fine and fails here, at the first call (it reaches for `openai.Completion` and
# `openai.error`, which openai 1.0 removed).
import http.server
import importlib.util
import json
import sys
import threading
from importlib.metadata import PackageNotFoundError, version

if importlib.util.find_spec("openai") is None or (
    importlib.util.find_spec("langchain_openai") is None
    and importlib.util.find_spec("langchain") is None
):
    print("needs openai and langchain (or langchain-openai)")
    sys.exit(77)


def version_of(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        common = {
            "id": "x",
            "created": 0,
            "model": "smoke",
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        if self.path.endswith("/chat/completions"):
            body = dict(
                common,
                object="chat.completion",
                choices=[
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "pong"},
                    }
                ],
            )
        else:
            body = dict(
                common,
                object="text_completion",
                choices=[
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "text": "pong",
                        "logprobs": None,
                    }
                ],
            )
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = "http://127.0.0.1:%d/v1" % server.server_address[1]
try:
    try:
        from langchain_openai import OpenAI  # langchain 0.1 and later

        llm = OpenAI(api_key="sk-planner-smoke", base_url=base, max_retries=0)
        answer = llm.invoke("ping")
    except ImportError:
        from langchain.llms import OpenAI  # langchain 0.0.x

        llm = OpenAI(
            openai_api_key="sk-planner-smoke", openai_api_base=base, max_retries=0
        )
        answer = llm("ping")
finally:
    server.shutdown()
assert answer.strip() == "pong", "the model answered %r" % (answer,)
print(
    "langchain %s (langchain-openai %s) with openai %s: a completion through the client"
    % (version_of("langchain"), version_of("langchain-openai"), version("openai"))
)
