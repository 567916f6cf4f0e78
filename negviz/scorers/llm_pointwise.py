"""Pointwise generative rerankers: a causal LM is asked whether a document answers a query;
the score is log P(true) against P(false) at the answer position (negviz.scorers.llm.prompts).

Two back ends (option ``backend``): ``transformers`` (a Hub id, a local folder or a GGUF file,
negviz.scorers.llm.local) and ``endpoint`` (any OpenAI-compatible chat server, negviz.scorers.llm.endpoint;
the answer's top log-probabilities are read from the response). A template that reasons first
(Rank1) generates up to ``max_reasoning_tokens`` of reasoning per pair, kept with the run
(``reasoning_for``) so the inspector can show why a verdict was given.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

from negviz.core.device import LARGE_MODEL_PRECISION
from negviz.core.options import Option
from negviz.core.schema import text_hash
from negviz.scorers.base import Progress, Scorer, no_progress
from negviz.scorers.llm.prompts import TEMPLATE_NAMES, TEMPLATES, Template, true_log_prob

BACKENDS = ("transformers", "endpoint")
TOP_LOGPROBS = 20  # the most OpenAI's API returns; a missing answer word counts at the lowest listed

ENDPOINT_OPTIONS = (
    Option("base_url", str, "", "endpoint back end: the server's OpenAI-compatible base URL (…/v1)"),
    Option("api_model", str, "", "endpoint back end: the model name the server knows (default: the model's name)"),
    Option("api_key_env", str, "OPENAI_API_KEY", "endpoint back end: the environment variable holding the API key"),
    Option("concurrency", int, 4, "endpoint back end: requests in flight at once", ge=1, le=64),
    Option(
        "max_calls", int, 0, "endpoint back end: stop before more requests than this (0: no limit)", ge=0, le=10_000_000
    ),
    Option("dry_run", bool, False, "endpoint back end: only say how many requests the run would make"),
    Option(
        "timeout",
        float,
        120.0,
        "endpoint back end: seconds to wait for one answer before asking again (a slow server answering "
        "past it is asked twice); a request gives up after timeout x (retries + 1) seconds, which the "
        "error then states",
        ge=1.0,
        le=3600.0,
    ),
    Option(
        "retries",
        int,
        3,
        "endpoint back end: times a request is asked again after a timeout, 429, 5xx or lost connection "
        "(with backoff 0.5 s, 1 s, 2 s, ...); a hanging server fails the run after timeout x (retries + 1) s",
        ge=0,
        le=10,
    ),
)


class GenerativeScorer(Scorer):
    """What both generative families share: back end choice, endpoint client, usage figures."""

    cuda_precision: ClassVar[str] = LARGE_MODEL_PRECISION  # a 7B-32B model in fp32 fits no GPU

    heavy = True
    checkpoint_every = 32  # seconds of work per pair on a CPU: a killed run keeps what it finished
    run_options = ("api_key_env", "concurrency", "max_calls", "dry_run", "timeout", "retries")  # change no score

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._endpoint: Any = None  # the endpoint client, made on first use (negviz.scorers.llm.endpoint)
        self._pairs_seen = 0  # pairs asked for, for run_provenance
        self._pairs_cached = 0  # of those, pairs the score cache answered
        self._reasoning: dict[str, str] = {}  # kept texts by pair key (text_hash(q) + text_hash(d))

    @classmethod
    def needs_files(cls, options: dict[str, Any]) -> bool:
        return options.get("backend", "transformers") != "endpoint"

    @property
    def half_precision(self) -> bool:
        """An endpoint runs elsewhere, at its server's precision: never this machine's fp16."""
        return self.needs_files(self.options) and super().half_precision

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """As for every family, and a base_url with user info (``http://user:key@host/v1``) is
        refused before anything runs: the spec, base_url with it, is stored with the run."""
        from negviz.core.errors import OptionError
        from negviz.scorers.llm.endpoint import has_user_info, user_info_message

        typed = super().check_options(options)
        if typed.get("base_url") and has_user_info(typed["base_url"]):
            key_env = typed.get("api_key_env", cls.default_options.get("api_key_env", ""))
            raise OptionError(f"option {user_info_message(typed['base_url'], key_env)}")
        return typed

    @property
    def scoring_options(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(k for k in self.options if k not in self.run_options)

    @property
    def endpoint(self):
        from negviz.scorers.llm.endpoint import Endpoint

        if self._endpoint is None:
            o = self.options
            self._endpoint = Endpoint(
                o["base_url"],
                o["api_model"] or self.spec.name,
                o["api_key_env"],
                self.cache,
                o["concurrency"],
                o["max_calls"],
                o["dry_run"],
                retries=o["retries"],
                timeout=o["timeout"],
            )
        return self._endpoint

    def _load(self) -> Any:
        if self.options["backend"] == "endpoint":
            return self.endpoint
        return self._load_local()

    def _load_local(self) -> Any:
        raise NotImplementedError

    def score(self, queries: Sequence[str], docs: Sequence[str], progress: Progress = no_progress) -> np.ndarray:
        before = self.encoded
        out = super().score(queries, docs, progress)
        unique = len({(q, d) for q, d in zip(queries, docs)})
        self._pairs_seen += unique
        self._pairs_cached += unique - (self.encoded - before)
        return out

    # -- the text behind a verdict (Rank1's reasoning, RankGPT's permutation), kept with the scores
    keeps_text: bool = False

    @property
    def reasoning_namespace(self) -> str:
        return "reasoning-" + self.score_namespace

    def _keep_texts(self, queries: Sequence[str], docs: Sequence[str], texts: Sequence[str]) -> None:
        kept = {text_hash(q) + text_hash(d): t for q, d, t in zip(queries, docs, texts)}
        self._reasoning = {**self._reasoning, **kept}
        if self.cache:
            self.cache.put_texts(self.reasoning_namespace, kept)

    def reasoning_for(self, queries: Sequence[str], docs: Sequence[str]) -> list[str] | None:
        """The kept text of each pair ("" where none is known); None when this spec keeps none."""
        if not self.keeps_text:
            return None
        keys = [text_hash(q) + text_hash(d) for q, d in zip(queries, docs)]
        known = dict(self._reasoning)
        missing = [k for k in set(keys) if k not in known]
        if missing and self.cache:
            known.update(self.cache.get_texts(self.reasoning_namespace, missing))
        return [known.get(k, "") for k in keys]

    def run_provenance(self) -> dict[str, Any]:
        """Figures a stored run keeps: pairs answered from the score cache, and for the endpoint
        back end its requests, tokens and wall time (never the key)."""
        out: dict[str, Any] = {
            "backend": self.options["backend"],
            "pairs": self._pairs_seen,
            "pairs_from_score_cache": self._pairs_cached,
        }
        if self.options["backend"] == "endpoint" and self._endpoint is not None:
            out["endpoint"] = {"base_url": self._endpoint.where, **self._endpoint.usage.as_dict()}
        elif self.loaded and hasattr(self._model, "prefix_ids"):  # local: the template prefix read from its KV cache
            out["prefix_tokens"] = len(self._model.prefix_ids)
            out["prefix_tokens_reused"] = self._model.prefix_tokens_reused
        return out


class LLMPointwise(GenerativeScorer):
    family = "llm-pointwise"
    declared_options = (
        Option("template", str, "yes-no", "prompt template (negviz.scorers.llm.prompts)", choices=TEMPLATE_NAMES),
        Option("backend", str, "transformers", "where the model runs", choices=BACKENDS),
        Option(
            "max_reasoning_tokens", int, 256, "token budget of the reasoning (reasoning templates)", ge=1, le=32_768
        ),
        Option(
            "gguf_file", str, "", "transformers back end: the GGUF file in the model folder (default: the only one)"
        ),
        *ENDPOINT_OPTIONS,
    )

    @property
    def template(self) -> Template:
        return TEMPLATES[self.options["template"]]

    def _load_local(self) -> Any:
        from negviz.scorers.llm.local import LocalLM

        return LocalLM(self.source, self.device, self.template, self.options["gguf_file"], self.name)

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        report = lambda done: progress(done, len(queries), "scoring")  # noqa: E731
        if self.options["backend"] == "endpoint":
            scores, reasons = self._score_endpoint(queries, docs, report)
        else:
            scores, reasons = self.model.score_pairs(
                queries, docs, self.batch_size, self.options["max_reasoning_tokens"], report
            )
        if self.keeps_text:
            self._keep_texts(queries, docs, reasons)
        return scores

    def _score_endpoint(self, queries, docs, report) -> tuple[np.ndarray, list[str]]:
        from negviz.scorers.llm.endpoint import content, token_logprobs

        t = self.template
        budget = self.options["max_reasoning_tokens"] + 8 if t.reasons else 1
        bodies = [
            {
                "messages": t.messages(q, d) if t.chat else [{"role": "user", "content": t.raw(q, d)}],
                "max_tokens": budget,
                "temperature": 0,
                "logprobs": True,
                "top_logprobs": TOP_LOGPROBS,
            }
            for q, d in zip(queries, docs)
        ]
        responses = self.model.complete(bodies, report)
        trues, falses = (tuple(w.strip().lower() for w in ws) for ws in t.answer_words())
        scores, reasons, unanswered = [], [], 0
        for response in responses:
            entry = answer_entry(token_logprobs(response), t, trues + falses)
            if entry is None:  # no verdict in the answer: no score, never a placeholder one
                unanswered += 1
                continue
            scores.append(answer_log_prob(entry, trues, falses))
            reasons.append(content(response).split(t.think_end, 1)[0].strip() if t.reasons else "")
        if unanswered:
            from negviz.scorers.llm.endpoint import EndpointError

            words = f"'{t.think_end} {t.true_word}|{t.false_word}'"
            raise EndpointError(
                f"{unanswered} of {len(responses)} answers from {self.model.where} gave no verdict ({words}) "
                f"within max_tokens={budget}; no run was stored: raise max_reasoning_tokens "
                f"(now {self.options['max_reasoning_tokens']}) so the reasoning ends before the budget does"
            )
        return np.array(scores, dtype=np.float64), reasons

    @property
    def keeps_text(self) -> bool:
        return self.template.reasons


def answer_entry(entries: list[dict], template: Template, words: tuple[str, ...]) -> dict | None:
    """The token entry at the answer position: the first token, or (reasoning templates) the first
    answer word after the closing tag. None when the answer never came (budget spent)."""
    if not template.reasons:
        return entries[0] if entries else None
    text = ""
    for entry in entries:
        if template.think_end in text and entry.get("token", "").strip().lower() in words:
            return entry
        text += entry.get("token", "")
    return None


def answer_log_prob(entry: dict, trues: tuple[str, ...], falses: tuple[str, ...]) -> float:
    """log P(true) from one token's top log-probabilities; a word the server did not list
    counts at the lowest listed log-probability (an upper bound on its probability)."""
    tops = {t["token"]: t["logprob"] for t in entry.get("top_logprobs") or []}
    tops.setdefault(entry.get("token", ""), entry.get("logprob", 0.0))
    floor = min(tops.values())
    t = [lp for tok, lp in tops.items() if tok.strip().lower() in trues]
    f = [lp for tok, lp in tops.items() if tok.strip().lower() in falses]
    return true_log_prob(t or [floor], f or [floor])
