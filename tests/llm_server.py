"""A real OpenAI-compatible chat-completions server for tests: ``http.server`` in a thread,
answering ``POST /v1/chat/completions`` with a real (tiny) causal LM from a folder, greedy, with
per-token ``logprobs``/``top_logprobs`` and ``usage`` as OpenAI's API returns them.

It checks the Bearer key when given one, counts the requests it answers, can fail the next N
requests with 503 (to prove retries), and keeps its own log lines (to prove the key is not in them).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class TinyChatServer:
    def __init__(self, model_dir: str | Path, key: str = ""):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
        self.key, self.requests, self.fail_next, self.log = key, 0, 0, []
        self._lock = threading.Lock()
        self._torch = torch
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
                    answer = server.complete(body)
                self._send(200, answer)

            def _send(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
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
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()

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
