"""The endpoint back end: any OpenAI-compatible chat-completions server (OpenAI, vLLM,
llama.cpp's server, Ollama), given a base URL and a model name.

* The API key is read from an environment variable named by an option, sent in the
  Authorization header and nowhere else: never in a request body, a cache key, a run, a log
  line or an error message.
* Every response is cached on disk (the score cache's ``texts`` table, keyed by a hash of the
  URL and the request body), so a re-run costs no request; ``usage`` counts cache hits.
* Requests run concurrently (``concurrency`` threads) with retries and exponential backoff on
  429, 5xx and connection errors.
* ``max_calls`` stops a run before it makes more requests than that (what was answered stays
  cached, a re-run goes on from there); ``dry_run`` says how many requests a run would make.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from negviz.errors import NegvizError

RESPONSES_NS = "endpoint-responses"
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class BudgetReached(NegvizError):
    """The run would need more requests than ``max_calls`` allows."""


class DryRun(NegvizError):
    """A dry run stops here and says how many requests the run would make."""


class EndpointError(NegvizError):
    """The server refused or failed (after retries)."""


@dataclass
class Usage:
    requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    wall_seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def as_dict(self) -> dict[str, Any]:
        total = self.requests + self.cache_hits
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "cache_hit_rate": round(self.cache_hits / total, 4) if total else None,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "wall_seconds": round(self.wall_seconds, 3),
        }


def request_key(base_url: str, body: dict[str, Any]) -> str:
    """The cache key of a request: URL and body, never the key or any header."""
    return hashlib.sha256(json.dumps({"url": base_url, **body}, sort_keys=True).encode()).hexdigest()


class Endpoint:
    def __init__(
        self,
        base_url: str,
        model: str,
        key_env: str = "OPENAI_API_KEY",
        cache=None,
        concurrency: int = 4,
        max_calls: int = 0,
        dry_run: bool = False,
        retries: int = 5,
        timeout: float = 300.0,
        backoff: float = 0.5,
    ):
        if not base_url:
            raise NegvizError("the endpoint back end needs base_url=..., e.g. http://localhost:8000/v1")
        if not model:
            raise NegvizError("the endpoint back end needs api_model=<the model name the server knows>")
        self.base_url, self.model, self.key_env = base_url.rstrip("/"), model, key_env
        self.cache, self.concurrency, self.max_calls = cache, max(1, concurrency), max_calls
        self.dry_run, self.retries, self.timeout, self.backoff = dry_run, retries, timeout, backoff
        self.usage = Usage()

    # -- one request
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.key_env, "") if self.key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        data = json.dumps(body).encode()
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(url, data=data, headers=self._headers(), method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read())
            except urllib.error.HTTPError as exc:
                if exc.code in (401, 403):
                    raise EndpointError(
                        f"{url} refused the request ({exc.code}); put the API key in the environment "
                        f"variable {self.key_env} (option api_key_env names another variable)"
                    ) from None
                if exc.code not in RETRY_STATUS or attempt == self.retries:
                    detail = exc.read()[:300].decode(errors="replace")
                    raise EndpointError(f"{url} answered {exc.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.retries:
                    reason = getattr(exc, "reason", exc)
                    raise EndpointError(f"cannot reach {url} ({reason}); is the server running?") from None
            time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable")

    # -- many requests
    def complete(self, bodies: list[dict[str, Any]], report: Callable[[int], None] = lambda n: None) -> list[dict]:
        """Responses to chat-completion request bodies (``model`` is filled in), in order."""
        start = time.perf_counter()
        bodies = [{"model": self.model, **b} for b in bodies]
        keys = [request_key(self.base_url, b) for b in bodies]
        cached = {
            k: json.loads(v) for k, v in (self.cache.get_texts(RESPONSES_NS, set(keys)) if self.cache else {}).items()
        }
        todo = list(dict.fromkeys(k for k in keys if k not in cached))
        by_key = dict(zip(keys, bodies))
        with self.usage.lock:
            self.usage.cache_hits += len(keys) - len(todo)
        if self.dry_run:
            raise DryRun(
                f"dry run: this run would send {len(todo)} requests to {self.base_url} "
                f"({len(keys) - len(todo)} of {len(keys)} are answered from the cache)"
            )
        allowed = todo
        if self.max_calls:
            left = max(0, self.max_calls - self.usage.requests)
            allowed = todo[:left]
        done = [0]

        def one(key: str) -> None:
            response = self._post(by_key[key])
            if self.cache:
                self.cache.put_texts(RESPONSES_NS, {key: json.dumps(response)})
            usage = response.get("usage") or {}
            with self.usage.lock:
                self.usage.requests += 1
                self.usage.tokens_in += int(usage.get("prompt_tokens") or 0)
                self.usage.tokens_out += int(usage.get("completion_tokens") or 0)
                cached[key] = response
                done[0] += 1
                report(len(keys) - len(todo) + done[0])

        try:
            with ThreadPoolExecutor(self.concurrency) as pool:
                list(pool.map(one, allowed))
        finally:
            self.usage.wall_seconds += time.perf_counter() - start
        if len(allowed) < len(todo):
            raise BudgetReached(
                f"stopped at the budget of {self.max_calls} requests (max_calls); {len(todo) - len(allowed)} "
                "requests were not sent. The answers so far are cached: run again with a larger max_calls "
                "to go on from here."
            )
        return [cached[k] for k in keys]


def content(response: dict[str, Any]) -> str:
    return ((response.get("choices") or [{}])[0].get("message") or {}).get("content") or ""


def token_logprobs(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-token entries of ``choices[0].logprobs.content`` (token, logprob, top_logprobs)."""
    return (((response.get("choices") or [{}])[0].get("logprobs")) or {}).get("content") or []
