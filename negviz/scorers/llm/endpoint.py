"""The endpoint back end: any OpenAI-compatible chat-completions server (OpenAI, vLLM,
llama.cpp's server, Ollama), given a base URL and a model name.

* The API key is read from an environment variable named by an option, sent in the
  Authorization header and nowhere else: never in a request body, a cache key, a run, a log
  line or an error message. A base URL with user info (``http://user:key@host/v1``) is refused,
  since the URL is part of the model spec a run is stored with; whatever a server echoes back
  (an error body, an answer) has the key and any ``Bearer``/``Basic`` credential redacted.
* Only a well-formed chat completion is an answer: an object with ``choices[0].message``, a
  ``usage`` object if any, and ``choices[0].logprobs.content`` when log-probabilities were asked
  for. Anything else (HTTP 200 with ``{"error": ...}``, a JSON list, a body that is not JSON) stops
  the run with a one-line EndpointError naming the server, and is never cached.
* Every answer is cached on disk (the score cache's ``texts`` table, keyed by a hash of the
  URL and the request body), so a re-run costs no request; ``usage`` counts cache hits. A cached
  answer that is not well-formed (an older version cached error answers) is asked again.
* Requests run concurrently (``concurrency`` threads) with ``retries`` retries and exponential
  backoff on 429, 5xx, connection errors and timeouts. A request gives up after ``timeout`` x
  (``retries`` + 1) seconds of waiting (plus the backoff between attempts), and the first request
  that gives up stops the run: requests not yet sent are dropped, those in flight are not retried.
  ``timeout`` bounds each attempt whole (connecting, headers and body), not each socket read, so a
  server that sends a byte a second still gives up on time.
* ``max_calls`` stops a run before it makes more requests than that (what was answered stays
  cached, a re-run goes on from there); ``dry_run`` says how many requests a run would make.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable

from negviz.core.errors import NegvizError
from negviz.core.limits import MAX_ANSWER_BYTES
from negviz.language.text.words import counted

RESPONSES_NS = "endpoint-responses"
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
REDACTED = "[redacted]"
NO_LOGPROBS = "no log-probabilities (choices[0].logprobs.content), though the request asked for them"
SNIPPET = 160  # characters of a server's own words quoted in a message
_CREDENTIAL = re.compile(
    r"\b(Bearer)(\s+)(?!\[redacted\])[^\s\"',;}\]]+", re.IGNORECASE
)  # as an echoed header shows it
_MIN_KEY_IN_ANSWERS = 8  # a shorter key is redacted from messages only, not from answer texts


class BudgetReached(NegvizError):
    """The run would need more requests than ``max_calls`` allows."""


class DryRun(NegvizError):
    """A dry run stops here and says how many requests the run would make."""


class EndpointError(NegvizError):
    """The server refused, failed (after retries), hung, or answered something that is not a
    chat completion. The message names the server (never its credentials) and says what to do."""


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


def has_user_info(url: str) -> bool:
    """Whether a URL carries ``user[:password]@`` before its host."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
    except ValueError:
        return "@" in url
    return "@" in parts.netloc


def server_location(url: str) -> str:
    """``url`` as a message may show it: scheme, host, port and path, without user info, query
    or fragment (the user info is dropped, never shown in part)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
    except ValueError:
        return "the server at base_url"
    host = parts.netloc.rsplit("@", 1)[-1]
    if not host:
        return "the server at base_url"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def user_info_message(url: str, key_env: str) -> str:
    return (
        f"base_url for {server_location(url)} carries a user name or password (user@ before the host), which "
        "would be stored with the run's model spec: remove it from base_url and put the API key in the "
        f"environment variable {key_env or 'OPENAI_API_KEY'} (option api_key_env), which is sent as "
        "'Authorization: Bearer <key>' and stored nowhere"
    )


class Deadline:
    """One attempt's time limit over the whole exchange. A socket timeout bounds each read only, so a
    server that sends a byte a second never trips it; this shuts the attempt's socket when its time
    is up (the blocked read then ends) and says so in ``expired``."""

    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds
        self.expired = False
        self._timer: threading.Timer | None = None

    def left(self) -> float:
        return max(0.001, self.at - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        self._timer = threading.Timer(self.left(), self._expire, (sock,))
        self._timer.daemon = True
        self._timer.start()

    def _expire(self, sock: socket.socket) -> None:
        self.expired = True
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed: the attempt ended by itself
            pass

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def opener(self) -> urllib.request.OpenerDirector:
        """urllib's opener with its HTTP(S) connections watched by this deadline."""
        deadline = self

        class Watched:  # mixed into urllib's handlers: their connections connect within the time left
            def do_open(self, http_class, req, **kwargs):
                class Connection(http_class):
                    def connect(self) -> None:
                        self.timeout = min(self.timeout, deadline.left())
                        super().connect()
                        deadline.watch(self.sock)

                return super().do_open(Connection, req, **kwargs)

        class HTTP(Watched, urllib.request.HTTPHandler):
            pass

        class HTTPS(Watched, urllib.request.HTTPSHandler):
            pass

        return urllib.request.build_opener(HTTP, HTTPS)


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
        retries: int = 3,
        timeout: float = 120.0,
        backoff: float = 0.5,
    ):
        if not base_url:
            raise NegvizError("the endpoint back end needs base_url=..., e.g. http://localhost:8000/v1")
        if has_user_info(base_url):
            raise EndpointError(user_info_message(base_url, key_env))
        if urllib.parse.urlsplit(base_url.strip()).scheme not in ("http", "https"):
            raise EndpointError(
                f"base_url {server_location(base_url)!r} is not an http:// or https:// address; give the "
                "server's OpenAI-compatible base URL, e.g. http://localhost:8000/v1"
            )
        if not model:
            raise NegvizError("the endpoint back end needs api_model=<the model name the server knows>")
        if not timeout or timeout <= 0:
            raise NegvizError(f"the endpoint back end needs timeout > 0 seconds (got {timeout!r})")
        if retries < 0:
            raise NegvizError(f"the endpoint back end needs retries >= 0 (got {retries!r})")
        self.base_url, self.model, self.key_env = base_url.strip().rstrip("/"), model, key_env
        self.where = server_location(self.base_url)
        self.cache, self.concurrency, self.max_calls = cache, max(1, concurrency), max_calls
        self.dry_run, self.retries, self.timeout, self.backoff = dry_run, int(retries), float(timeout), backoff
        self.usage = Usage()

    @property
    def attempts(self) -> int:
        return self.retries + 1

    @property
    def bound_seconds(self) -> float:
        """How long one request may wait for answers before it gives up: timeout x attempts
        (the backoff between attempts, ``backoff`` x (2**retries - 1) seconds, comes on top)."""
        return self.timeout * self.attempts

    # -- secrets
    def _key(self) -> str:
        return os.environ.get(self.key_env, "") if self.key_env else ""

    def redact(self, text: str) -> str:
        """``text`` (anything a server sent back) with the API key and any credential redacted."""
        key = self._key()
        if key:
            text = text.replace(key, REDACTED)
        return _CREDENTIAL.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)

    def _quote(self, text: str) -> str:
        """A server's own words for a one-line message: redacted, on one line, cut short."""
        line = " ".join(self.redact(text).split())
        return line if len(line) <= SNIPPET else line[: SNIPPET - 1] + "…"

    def _scrub(self, response: Any) -> Any:
        """A well-formed answer with the key redacted from every text in it, wherever a server
        echoed it, before it is cached or read (a key of a few characters would garble answers
        and is left as is there; messages redact it all the same)."""
        key = self._key()
        if len(key) < _MIN_KEY_IN_ANSWERS:
            return response
        if isinstance(response, str):
            return response.replace(key, REDACTED)
        if isinstance(response, list):
            return [self._scrub(v) for v in response]
        if isinstance(response, dict):
            return {self._scrub(k): self._scrub(v) for k, v in response.items()}
        return response

    # -- one request
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _error_detail(self, exc: urllib.error.HTTPError) -> str:
        try:
            raw = exc.read()[:4000].decode(errors="replace")
        except Exception:  # noqa: BLE001 - a body that cannot be read says nothing more
            return ""
        try:
            data = json.loads(raw)
        except ValueError:
            return self._quote(raw)
        message = error_message(data) if isinstance(data, dict) else None
        return self._quote(message if message is not None else raw)

    def _post(self, body: dict[str, Any], stop: threading.Event | None = None) -> dict[str, Any] | None:
        """The server's answer to one request, checked (EndpointError if it is not a chat
        completion); None when ``stop`` was set (another request already failed the run)."""
        url = f"{self.base_url}/chat/completions"
        where = f"{self.where}/chat/completions"
        data = json.dumps(body).encode()
        timed_out = 0
        for attempt in range(self.attempts):
            if stop is not None and stop.is_set():
                return None
            last = attempt == self.retries
            req = urllib.request.Request(url, data=data, headers=self._headers(), method="POST")
            deadline = Deadline(self.timeout)
            try:
                with deadline.opener().open(req, timeout=self.timeout) as resp:
                    status, raw = resp.status, resp.read(MAX_ANSWER_BYTES + 1)
                if len(raw) > MAX_ANSWER_BYTES:
                    raise EndpointError(
                        f"{where} answered more than {MAX_ANSWER_BYTES:,} bytes, which no chat completion needs; "
                        "no run was stored: check that base_url is the server's OpenAI-compatible address"
                    )
                if deadline.expired:  # the socket was shut mid-body: what was read is cut short
                    raise TimeoutError
                return self._answer(raw, status, where, body)
            except urllib.error.HTTPError as exc:
                if exc.code in (401, 403):
                    raise EndpointError(
                        f"{where} refused the request ({exc.code}); put the API key in the environment "
                        f"variable {self.key_env} (option api_key_env names another variable)"
                    ) from None
                if exc.code not in RETRY_STATUS or last:
                    detail = self._error_detail(exc)
                    tries = f" (after {self.attempts} attempts)" if exc.code in RETRY_STATUS and self.retries else ""
                    raise EndpointError(
                        f"{where} answered HTTP {exc.code}{tries}: {detail or '(no details)'}; no run was "
                        "stored: fix what the server says (api_model names the model it serves) and run again"
                    ) from None
            except (OSError, http.client.HTTPException) as exc:  # timeouts, refused or lost connections
                reason = getattr(exc, "reason", exc)
                if deadline.expired or isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                    timed_out += 1
                    if last:
                        raise EndpointError(self._hang_message(where, timed_out)) from None
                elif last:
                    raise EndpointError(
                        f"cannot reach {where} ({self._quote(str(reason))}) after {counted(self.attempts, 'attempt')}; "
                        "is the server running, and is base_url its address?"
                    ) from None
            finally:
                deadline.cancel()
            delay = self.backoff * 2**attempt
            if stop is not None:
                stop.wait(delay)
            else:
                time.sleep(delay)
        raise AssertionError("unreachable")

    def _hang_message(self, where: str, timed_out: int) -> str:
        t = f"{self.timeout:g}"
        return (
            f"{where} gave no answer within {t} s ({timed_out} of {counted(self.attempts, 'attempt')} timed "
            f"out): a request gives up after timeout x attempts = {t} s x {self.attempts} = "
            f"{self.bound_seconds:g} s (options timeout={t}, retries={self.retries}); no run was stored: if the "
            "server is only slow, raise timeout; if it hangs, restart it"
        )

    def _answer(self, raw: bytes, status: int, where: str, body: dict[str, Any]) -> dict[str, Any]:
        """The parsed answer, or EndpointError saying what is wrong with it."""
        try:
            data = json.loads(raw)
        except ValueError:
            text = raw[:400].decode(errors="replace")
            raise EndpointError(
                f"{where} answered HTTP {status} with a body that is not JSON "
                f"({self._quote(text) or 'empty'!r}); no run was stored: check that base_url is the "
                "server's OpenAI-compatible address (it usually ends in /v1)"
            ) from None
        problem = answer_problem(data, body)
        if problem is not None:
            message = error_message(data) if isinstance(data, dict) else None
            if message is not None:
                raise EndpointError(
                    f"{where} answered HTTP {status} with an error instead of a completion: "
                    f"{self._quote(message) or '(no message)'}; no run was stored: fix what the server says "
                    "(api_model names the model it serves) and run again"
                )
            if problem == NO_LOGPROBS:
                raise EndpointError(
                    f"{where} answered with {problem}; no run was stored: llm-pointwise reads the answer's "
                    "top log-probabilities, so use a server that returns logprobs (OpenAI, vLLM) or the "
                    "llm-listwise family, which reads the answer text only"
                )
            raise EndpointError(
                f"{where} answered HTTP {status} with {problem}, not an OpenAI chat completion; no run was "
                "stored: check that base_url is an OpenAI-compatible server's address (it usually ends in /v1)"
            )
        return self._scrub(data)

    # -- many requests
    def complete(self, bodies: list[dict[str, Any]], report: Callable[[int], None] = lambda n: None) -> list[dict]:
        """Responses to chat-completion request bodies (``model`` is filled in), in order; each
        one a well-formed chat completion (EndpointError at the first that is not)."""
        start = time.perf_counter()
        bodies = [{"model": self.model, **b} for b in bodies]
        keys = [request_key(self.base_url, b) for b in bodies]
        by_key = dict(zip(keys, bodies))
        cached: dict[str, dict] = {}
        for k, v in (self.cache.get_texts(RESPONSES_NS, set(keys)) if self.cache else {}).items():
            try:
                answer = json.loads(v)
            except ValueError:
                continue
            if answer_problem(answer, by_key[k]) is None:  # a bad answer cached by an older version: ask again
                cached[k] = self._scrub(answer)
        todo = list(dict.fromkeys(k for k in keys if k not in cached))
        with self.usage.lock:
            self.usage.cache_hits += len(keys) - len(todo)
        if self.dry_run:
            raise DryRun(
                f"dry run: this run would send {len(todo)} requests to {self.where} "
                f"({len(keys) - len(todo)} of {len(keys)} are answered from the cache)"
            )
        allowed = todo
        if self.max_calls:
            left = max(0, self.max_calls - self.usage.requests)
            allowed = todo[:left]
        done = [0]
        stop = threading.Event()

        def one(key: str) -> None:
            if stop.is_set():
                return
            try:
                response = self._post(by_key[key], stop)
            except BaseException:
                stop.set()  # the run fails: requests still waiting are not sent, none is retried
                raise
            if response is None:
                return
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

        pool = ThreadPoolExecutor(self.concurrency)
        try:
            futures = [pool.submit(one, key) for key in allowed]
            finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in futures:
                if future in finished and future.exception() is not None:
                    raise future.exception()  # type: ignore[misc]
        finally:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            self.usage.wall_seconds += time.perf_counter() - start
        if len(allowed) < len(todo):
            raise BudgetReached(
                f"stopped at the budget of {self.max_calls} requests (max_calls); {len(todo) - len(allowed)} "
                "requests were not sent. The answers so far are cached: run again with a larger max_calls "
                "to go on from here."
            )
        return [cached[k] for k in keys]


def error_message(data: dict[str, Any]) -> str | None:
    """The message of an ``{"error": ...}`` answer (OpenAI's, vLLM's, Ollama's shapes), or None."""
    error = data.get("error")
    if error is None or error == "" or error is False:
        return None
    if isinstance(error, dict):
        for name in ("message", "msg", "detail", "type", "code"):
            if error.get(name):
                return str(error[name])
        return json.dumps(error)
    return str(error)


def _json_kind(value: Any, prefix: str = "") -> str:
    if isinstance(value, bool):
        return f"a {prefix}boolean"
    kind = {list: "list", str: "string", int: "number", float: "number"}.get(type(value))
    return f"a {prefix}{kind}" if kind else ("JSON null" if value is None else "a JSON value")


def _is_count(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def answer_problem(data: Any, body: dict[str, Any]) -> str | None:
    """What makes ``data`` not a chat completion answering ``body`` (a phrase), or None."""
    if not isinstance(data, dict):
        return f"{_json_kind(data, 'JSON ')} instead of an object"
    if error_message(data) is not None:
        return "an error"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "no choices (choices[0] missing)"
    message = choices[0].get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content") or "", str):
        return "no message text (choices[0].message.content missing)"
    usage = data.get("usage")
    if usage is not None:
        if not isinstance(usage, dict):
            return f"usage as {_json_kind(usage)} instead of an object of token counts"
        if not all(_is_count(usage.get(name)) for name in ("prompt_tokens", "completion_tokens")):
            return "usage token counts that are not whole numbers"
    if body.get("logprobs"):
        logprobs = choices[0].get("logprobs")
        entries = logprobs.get("content") if isinstance(logprobs, dict) else None
        if not isinstance(entries, list) or not entries:
            return NO_LOGPROBS
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
                return "a log-probability entry without its token"
            if not _is_number(entry.get("logprob")):
                return "a log-probability entry without its logprob"
            tops = entry.get("top_logprobs") or []
            if not isinstance(tops, list) or not all(
                isinstance(t, dict) and isinstance(t.get("token"), str) and _is_number(t.get("logprob")) for t in tops
            ):
                return "top_logprobs that are not (token, logprob) entries"
    return None


def content(response: dict[str, Any]) -> str:
    return ((response.get("choices") or [{}])[0].get("message") or {}).get("content") or ""


def token_logprobs(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-token entries of ``choices[0].logprobs.content`` (token, logprob, top_logprobs)."""
    return (((response.get("choices") or [{}])[0].get("logprobs")) or {}).get("content") or []
