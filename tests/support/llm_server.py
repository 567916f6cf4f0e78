"""A real OpenAI-compatible chat-completions server for tests: ``http.server`` in a thread,
answering ``POST /v1/chat/completions`` with a real (tiny) causal LM from a folder, greedy, with
per-token ``logprobs``/``top_logprobs`` and ``usage`` as OpenAI's API returns them. Without a
model folder it answers a fixed well-formed completion ("yes", or for a reasoning budget
"...</think> true") instead, for tests of the client rather than of scores.

It checks the Bearer key when given one, counts the requests it answers, can fail the next N
requests with 503 (to prove retries), and keeps its own log lines (to prove the key is not in them).

``mode`` makes it misbehave, after ``good_first`` good answers (MODES says how); a hanging
request is let go when the server stops.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODES = {
    "ok": "a well-formed chat completion",
    "error": 'HTTP 200 with {"error": {...}} (as some servers answer an unknown model)',
    "list": "HTTP 200 with a JSON list",
    "usage-string": "a completion whose usage is a string",
    "not-json": "HTTP 200 with an HTML page",
    "no-logprobs": "a completion without logprobs (a server that does not return them)",
    "no-verdict": "a completion whose reasoning never reaches </think> (budget spent)",
    "echo-auth-500": "HTTP 500 whose body echoes the request's headers, Authorization included",
    "hang": "never answers (until the server stops)",
    "huge": "a well-formed completion followed by HUGE_PADDING bytes of JSON whitespace",
    "drip": "sends its answer a byte every DRIP_SECONDS, status line first, and closes after DRIP_BYTES bytes "
    "(no socket read ever waits a whole second, so only a limit on the whole exchange ends it)",
}
DRIP_SECONDS, DRIP_BYTES = 0.25, 80
HUGE_PADDING = 3 << 20


class TinyChatServer:
    def __init__(self, model_dir: str | Path | None = None, key: str = "", mode: str = "ok"):
        self.tokenizer = self.model = self._torch = None
        if model_dir is not None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
            self.model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
            self._torch = torch
        self.key, self.requests, self.fail_next, self.log = key, 0, 0, []
        self.mode, self.good_first, self.hung = mode, 0, 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt, *args):  # into server.log, not stderr
                server.log.append(fmt % args)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                server.log.append(f"headers {dict(self.headers)}")  # what a careless server logs
                if server.key and self.headers.get("Authorization") != f"Bearer {server.key}":
                    return self._send(401, {"error": {"message": "invalid api key"}})
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                with server._lock:
                    if server.fail_next:
                        server.fail_next -= 1
                        return self._send(503, {"error": {"message": "busy"}})
                    server.requests += 1
                    mode = "ok" if server.requests <= server.good_first else server.mode
                    if mode == "hang":
                        server.hung += 1
                    else:
                        answer = server.answer(mode, body, dict(self.headers))
                if mode == "hang":
                    server._stopping.wait()  # no answer, not even a status line
                    return
                if mode == "drip":
                    return self._drip(json.dumps(answer).encode())
                if mode == "not-json":
                    return self._send(200, b"<html><body>Welcome to nginx!</body></html>", "text/html")
                if mode == "huge":
                    return self._send(200, json.dumps(answer).encode() + b" " * HUGE_PADDING)
                self._send(500 if mode == "echo-auth-500" else 200, answer)

            def _drip(self, data: bytes) -> None:
                head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                for byte in (head.encode() + data)[:DRIP_BYTES]:
                    if server._stopping.wait(DRIP_SECONDS):
                        return
                    self.wfile.write(bytes([byte]))
                self.close_connection = True

            def _send(self, code, payload, content_type="application/json"):
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "TinyChatServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()  # hanging requests end (unanswered)
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()

    def answer(self, mode: str, body: dict, headers: dict) -> object:
        """What the server sends for ``mode`` (see MODES); "not-json" and "hang" are the handler's."""
        if mode == "error":
            return {"error": {"message": f"The model '{body.get('model')}' does not exist", "code": 404}}
        if mode == "echo-auth-500":
            auth = headers.get("Authorization", "")
            return {"error": {"message": f"internal error with Authorization: {auth} (headers {headers})"}}
        answer = self.complete(body) if self.model is not None else self.canned(body, mode)
        if mode == "list":
            return [answer]
        if mode == "usage-string":
            answer["usage"] = "12 prompt tokens, 1 completion token"
        if mode == "no-logprobs":
            answer["choices"][0]["logprobs"] = None
        return answer

    @staticmethod
    def canned(body: dict, mode: str = "ok") -> dict:
        """A well-formed completion without a model: "yes" first (P(yes) = 0.8 against "no"), or
        with room to reason, "thinking</think> true" ("no-verdict": the reasoning never closes)."""

        def entry(token: str, logprob: float, other: str, other_logprob: float) -> dict:
            tops = [{"token": token, "logprob": logprob}, {"token": other, "logprob": other_logprob}]
            return {"token": token, "logprob": logprob, "top_logprobs": tops}

        if int(body.get("max_tokens") or 1) == 1:
            entries = [entry("yes", -0.2231, "no", -1.6094)]
        elif mode == "no-verdict":
            entries = [entry("thinking", -0.1, "hmm", -2.3)] * int(body["max_tokens"])
        else:
            entries = [entry("thinking", -0.1, "hmm", -2.3), entry("</think>", -0.1, ".", -2.3)]
            entries.append(entry(" true", -0.2231, " false", -1.6094))
        text = "".join(e["token"] for e in entries)
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "length",
            "logprobs": {"content": entries} if body.get("logprobs") else None,
        }
        usage = {"prompt_tokens": 10, "completion_tokens": len(entries), "total_tokens": 10 + len(entries)}
        return {
            "id": "canned",
            "object": "chat.completion",
            "model": body.get("model", ""),
            "choices": [choice],
            "usage": usage,
        }

    def complete(self, body: dict) -> dict:
        torch, tok = self._torch, self.tokenizer
        prompt = tok.apply_chat_template(body["messages"], tokenize=False, add_generation_prompt=True)
        ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
        n_prompt, top_n = ids.shape[1], int(body.get("top_logprobs") or 0)
        entries, out = [], []
        for _ in range(int(body.get("max_tokens") or 16)):
            with torch.inference_mode():
                logp = torch.log_softmax(self.model(input_ids=ids).logits[0, -1].float(), dim=-1)
            best = int(logp.argmax())
            top = torch.topk(logp, top_n).indices.tolist() if top_n else []
            entries.append(
                {
                    "token": tok.decode([best]),
                    "logprob": float(logp[best]),
                    "top_logprobs": [{"token": tok.decode([i]), "logprob": float(logp[i])} for i in top],
                }
            )
            out.append(best)
            ids = torch.cat([ids, torch.tensor([[best]])], dim=1)
            if best == tok.eos_token_id:
                break
        message = {"role": "assistant", "content": tok.decode(out, skip_special_tokens=True)}
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": "length",
            "logprobs": {"content": entries} if body.get("logprobs") else None,
        }
        return {
            "id": "tiny",
            "object": "chat.completion",
            "model": body.get("model", ""),
            "choices": [choice],
            "usage": {"prompt_tokens": n_prompt, "completion_tokens": len(out), "total_tokens": n_prompt + len(out)},
        }
