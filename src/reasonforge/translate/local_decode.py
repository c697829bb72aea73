"""Decoding for the in-process model: a prompt cache kept in the context's memory, k samples of one prompt decoded
together, and the reply grammar checked on the sampled token first.

On two CPU cores a 0.5B model reads a prompt at ~130 tokens/s and writes ~25 tokens/s, and translation asks it
the same long prefixes again and again (the system prompt and worked example, the problem, the earlier steps).
Three things follow from that:
- **A prompt cache.** The context's memory holds up to `slots` evaluated prompts, each as one sequence of a single
  unified KV memory. A new prompt starts from the slot that shares its longest prefix (copying a sequence's cells
  shares them: nothing is recomputed) and evaluates only the tokens that differ.
- **k samples of one prompt.** The prompt is evaluated once; the k replies are decoded in lockstep, one batch of k
  tokens per position, each with its own sampler and seed (on a CPU a batch of k tokens costs little more than
  one token).
- **The grammar on the sampled token first.** Constraining the whole vocabulary (152k tokens for Qwen) with a GBNF
  grammar costs ~20 ms a token; the token sampled without it is checked alone, and the whole vocabulary is
  constrained only when the grammar refuses that token (llama.cpp's own sampler does the same). A greedy reply is
  the one full-vocabulary constraint would give: the unconstrained argmax, when the grammar allows it, is the
  constrained argmax.

Two more, smaller: a first attempt's head (its system prompt and worked examples) is kept on disk beside the model
(`keep_dir`, keyed by the model file, the runtime's version and the tokens) and loaded by the next process instead
of being read again; and tokens are drafted by prompt lookup (what followed the reply's last three tokens where they
occurred before), the drafts checked in the same batch as the token decoded, a draft the model does not write
costing only its place in the batch.

With the cache off (`prompt_cache=False`) every reply evaluates its whole prompt from an empty memory, one sample
after another, and nothing is kept on disk: the baseline `benchmarks/model_speed.py` compares against.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DecodeError", "Decoded", "Decoder", "Sampling"]

_TOP_K, _TOP_P, _MIN_P = 40, 0.95, 0.05  # llama.cpp's defaults for a sampled (temperature > 0) reply
_BATCH = 512
_DRAFT = 4  # drafted tokens checked with each decoded one: a batch of 5 costs about two single tokens on a CPU
_KEPT_FILES = 16  # prefixes kept on disk; the oldest go first
_KEEP_MIN = 64  # a shorter prefix is read faster than its file
_GRAMS = (3,)  # a draft follows a trigram seen before: shorter ones (", 5") draft wrongly too often


class DecodeError(Exception):
    """llama.cpp could not evaluate or decode (the memory is full, or a grammar does not parse)."""


class Deadline(Exception):
    """`stop_now` said stop: the reply is abandoned."""


@dataclass(frozen=True)
class Sampling:
    """How one sample is drawn: temperature 0 is greedy; a seed of None lets llama.cpp choose one."""

    temperature: float
    seed: int | None = None


@dataclass
class Decoded:
    """One sample's reply."""

    text: str
    tokens: int
    finish_reason: str  # "stop" (end of generation) or "length" (max_tokens reached)
    cached: int = 0  # prompt tokens the cache served: not evaluated for this reply


@dataclass
class _Slot:
    tokens: list[int] = field(default_factory=list)
    used: int = 0


class Decoder:
    """A llama.cpp context over a loaded model, with a prompt cache of `slots` sequences and room to decode up to
    `max_samples` replies of one prompt together. Not thread-safe: the backend serialises requests."""

    def __init__(self, llama: Any, *, context_tokens: int, threads: int, slots: int = 4, max_samples: int = 4,
                 prompt_cache: bool = True, draft_tokens: int = _DRAFT, keep_dir: Path | None = None) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self._llama = llama  # a `llama_cpp.Llama`: the model, its tokenizer and chat template
        self.context_tokens = context_tokens
        self.prompt_cache = prompt_cache
        self._slots = [_Slot() for _ in range(slots)]
        self._max_samples = max_samples
        self._draft_tokens = draft_tokens
        self._keep_dir = keep_dir if prompt_cache else None
        self._identity = f"{Path(llama.model_path).name}:{Path(llama.model_path).stat().st_size}:{llama_cpp.__version__}"
        self._clock = 0
        params = llama_cpp.llama_context_default_params()
        # One unified memory for the cached prompts and the samples being decoded: a copied sequence shares its
        # cells, so a cached prefix costs memory once however many sequences start from it.
        params.n_ctx = 2 * context_tokens
        params.n_batch = params.n_ubatch = _BATCH
        params.n_seq_max = slots + max_samples
        params.n_threads = params.n_threads_batch = threads
        params.kv_unified = True
        params.no_perf = True
        self._ctx = llama_cpp.llama_init_from_model(llama.model, params)
        if not self._ctx:
            raise DecodeError("llama.cpp could not create a context for the model")
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._vocab = llama_cpp.llama_model_get_vocab(llama.model)
        self._n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        self._batch = llama_cpp.llama_batch_init(_BATCH, 0, 1)
        # llama.cpp's token arrays over numpy buffers: the whole vocabulary, and the one token checked first
        self._candidates, self._array = self._token_array(self._n_vocab)
        self._one, self._one_array = self._token_array(1)
        self._ids = np.arange(self._n_vocab, dtype=np.intc)
        self._formatter = self._chat_formatter()

    def _token_array(self, size: int) -> tuple[np.recarray, Any]:
        data = np.recarray((size,), dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)],
                                                   align=True))
        array = self._lib.llama_token_data_array(data=data.ctypes.data_as(self._lib.llama_token_data_p), size=size,
                                                 selected=-1, sorted=False)
        return data, array

    def close(self) -> None:
        """Free the context and the batch (the model belongs to the `Llama` it came with)."""
        if self._ctx:
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(self._ctx)
            self._ctx = None

    def __del__(self) -> None:
        self.close()

    # ---- prompts --------------------------------------------------------------------------------
    def _chat_formatter(self) -> Any:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise DecodeError("the model file carries no chat template")
        eos, bos = self._llama.token_eos(), self._llama.token_bos()
        text = self._llama._model.token_get_text
        return Jinja2ChatFormatter(template=template, eos_token=text(eos) if eos >= 0 else "",
                                   bos_token=text(bos) if bos >= 0 else "", stop_token_ids=[eos])

    def chat_tokens(self, messages: Sequence[dict[str, str]]) -> list[int]:
        """The prompt tokens of a chat (the model's own template, the assistant's turn opened)."""
        formatted = self._formatter(messages=list(messages))
        return list(self._llama.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special,
                                         special=True))

    def prefix_length(self, messages: Sequence[dict[str, str]], tokens: Sequence[int]) -> int:
        """How many of a chat's prompt `tokens` its turns before the last one make (the system prompt, worked
        examples): what other requests start with too. 0 for a single turn or a short head."""
        if len(messages) < 2:
            return 0
        formatted = self._formatter(messages=list(messages[:-1]))
        head = self._llama.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special,
                                    special=True)
        shared = _common_prefix(head, tokens)  # the head opens an assistant turn where the prompt has the last one
        return shared if shared >= _KEEP_MIN else 0

    # ---- prefixes kept across processes ---------------------------------------------------------
    def _kept_path(self, tokens: Sequence[int]) -> Path | None:
        if self._keep_dir is None:
            return None
        digest = hashlib.sha256(f"{self._identity}:{','.join(map(str, tokens))}".encode()).hexdigest()
        return self._keep_dir / f"{digest}.kv"

    def _load_kept(self, tokens: list[int], keep: int, slot: int) -> int | None:
        """Load the kept prefix `tokens[:keep]` into `slot` from disk: how many tokens the slot holds then (0 when
        the file was unusable), or None when none is kept (the slot untouched)."""
        path = self._kept_path(tokens[:keep])
        if path is None or not path.is_file():
            return None
        lib = self._lib
        self._forget(slot)
        found = (lib.llama_token * keep)()
        count = ctypes.c_size_t(0)
        read = lib.llama_state_seq_load_file(self._ctx, str(path).encode(), slot, found, keep, ctypes.byref(count))
        if read == 0 or count.value != keep or list(found) != tokens[:keep]:
            self._forget(slot)
            with contextlib.suppress(OSError):
                path.unlink()  # not what its name says (another runtime wrote it, or it was cut short)
            return 0
        return keep

    def _save_kept(self, tokens: list[int], keep: int, slot: int) -> None:
        """Write `tokens[:keep]` (evaluated in `slot`) to disk, once, through a free sample sequence."""
        path = self._kept_path(tokens[:keep])
        if path is None or path.is_file():
            return
        lib = self._lib
        scratch = len(self._slots)
        self._forget(scratch)
        lib.llama_memory_seq_cp(self._memory, slot, scratch, 0, keep)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}")
            array = (lib.llama_token * keep)(*tokens[:keep])
            if lib.llama_state_seq_save_file(self._ctx, str(partial).encode(), scratch, array, keep):
                os.replace(partial, path)
            kept = sorted(self._keep_dir.glob("*.kv"), key=lambda p: p.stat().st_mtime) if self._keep_dir else []
            for old in kept[:-_KEPT_FILES]:
                old.unlink()
        except OSError:
            pass  # a cache that cannot be written is a slower start next time, nothing more
        finally:
            self._forget(scratch)

    # ---- the memory -----------------------------------------------------------------------------
    def _forget(self, seq: int, start: int = 0) -> None:
        self._lib.llama_memory_seq_rm(self._memory, seq, start, -1)

    def _clear(self) -> None:
        self._lib.llama_memory_clear(self._memory, True)
        for slot in self._slots:
            slot.tokens = []

    def _decode(self, entries: Sequence[tuple[int, int, int, bool]]) -> None:
        """Evaluate (token, position, sequence, wants logits) entries as one batch."""
        batch = self._batch
        for i, (token, pos, seq, logits) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = pos
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = logits
        batch.n_tokens = len(entries)
        code = self._lib.llama_decode(self._ctx, batch)
        if code != 0:
            raise DecodeError("the model's memory is full" if code == 1 else f"llama_decode failed ({code})")

    def _prefill(self, tokens: list[int], stop_now: Callable[[], bool], keep: int = 0) -> tuple[int, int]:
        """Evaluate `tokens` into a cache slot, starting from the cached slot that shares their longest prefix:
        the slot's number (its sequence) and how many tokens the cache served; the logits of the last token are the
        context's output."""
        self._clock += 1
        best, shared = 0, 0
        if self.prompt_cache:
            for number, slot in enumerate(self._slots):
                common = _common_prefix(slot.tokens, tokens)
                if common > shared:
                    best, shared = number, common
        else:
            self._clear()
        shared = min(shared, len(tokens) - 1)  # the last token is evaluated again: its logits start the reply
        # A prompt that continues most of a cached one (the next step of a chain: the same prefix, then the
        # earlier step's artifact where the instructions stood) takes that slot over; one that leaves a long part
        # unshared (another system prompt, another problem) takes the least recently used slot, so the prefix
        # other prompts start with stays cached.
        left = len(self._slots[best].tokens) - shared
        target = best if shared and left <= shared // 4 else min(range(len(self._slots)),
                                                                   key=lambda n: self._slots[n].used)
        if target != best:
            self._forget(target)
            if shared:
                self._lib.llama_memory_seq_cp(self._memory, best, target, 0, shared)
        else:
            self._forget(target, shared)
        slot = self._slots[target]
        if keep and shared < keep and (loaded := self._load_kept(tokens, keep, target)) is not None:
            shared = loaded
        slot.tokens, slot.used = tokens[:shared], self._clock
        save = bool(keep) and shared < keep
        try:
            for start in range(shared, len(tokens), _BATCH):
                if stop_now():
                    raise Deadline
                chunk = tokens[start:start + _BATCH]
                last = start + len(chunk) == len(tokens)
                self._decode([(t, start + i, target, last and i == len(chunk) - 1) for i, t in enumerate(chunk)])
                slot.tokens = tokens[:start + len(chunk)]
        except BaseException:
            self._forget(target, len(slot.tokens))
            raise
        if save:
            self._save_kept(tokens, keep, target)
        return target, shared

    # ---- sampling -------------------------------------------------------------------------------
    def _sampler(self, sampling: Sampling) -> Any:
        lib = self._lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        if sampling.temperature <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
        else:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(_TOP_K))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(_TOP_P, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_min_p(_MIN_P, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(sampling.temperature))
            seed = lib.LLAMA_DEFAULT_SEED if sampling.seed is None else sampling.seed & 0xFFFFFFFF
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(seed))
        return chain

    def _grammar(self, grammar: str) -> Any:
        sampler = self._lib.llama_sampler_init_grammar(self._vocab, grammar.encode("utf-8"), b"root")
        if not sampler:
            raise DecodeError("llama.cpp could not parse the reply grammar")
        return sampler

    def _pick(self, output: int, chain: Any, grammar: Any) -> int:
        """The next token of one sequence: sampled unconstrained, kept when the grammar allows it, else sampled
        again from the vocabulary the grammar allows."""
        lib = self._lib
        logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(self._ctx, output), shape=(self._n_vocab,))
        token = self._sample(logits, chain, None)
        if grammar is not None and token >= 0:
            self._one.id[0], self._one.logit[0], self._one.p[0] = token, 0.0, 0.0
            self._one_array.size, self._one_array.selected, self._one_array.sorted = 1, -1, False
            lib.llama_sampler_apply(grammar, ctypes.byref(self._one_array))
            if math.isinf(float(self._one.logit[0])):
                token = self._sample(logits, chain, grammar)
            if token >= 0:
                lib.llama_sampler_accept(grammar, token)
        if token >= 0:
            lib.llama_sampler_accept(chain, token)
        return token

    def _sample(self, logits: np.ndarray, chain: Any, grammar: Any) -> int:
        lib = self._lib
        self._candidates.id[:] = self._ids
        self._candidates.logit[:] = logits
        self._candidates.p[:] = 0.0
        self._array.size, self._array.selected, self._array.sorted = self._n_vocab, -1, False
        if grammar is not None:
            lib.llama_sampler_apply(grammar, ctypes.byref(self._array))
        lib.llama_sampler_apply(chain, ctypes.byref(self._array))
        chosen = self._array.selected
        if chosen < 0 or math.isinf(float(self._candidates.logit[chosen])):
            return -1  # nothing the grammar allows: the reply ends here
        return int(self._candidates.id[chosen])

    def _continue(self, i: int, outputs: list[int], drafts: list[int], chain: Any, grammar: Any,
                  written: list[list[int]], finish: list[str | None], max_tokens: int, prompt: int, worker: int,
                  grams: _Grams | None) -> bool:
        """Sample `i`'s next tokens from the logits at `outputs`: the first always, each later one while the token
        sampled equals the draft those logits were computed after. Drafted cells past the last one kept leave the
        memory. False when the sample has ended (end of generation, or `max_tokens`)."""
        kept = 0
        for n, output in enumerate(outputs):
            token = self._pick(output, chain, grammar)
            if token < 0 or self._lib.llama_vocab_is_eog(self._vocab, token):
                finish[i] = "stop"
                break
            written[i].append(token)
            if grams is not None:
                grams.add(token)
            if len(written[i]) >= max_tokens:
                finish[i] = "length"
                break
            if n < len(drafts) and token == drafts[n]:
                kept += 1
                continue
            break
        if finish[i] is None and kept < len(drafts):
            # drafts were evaluated past the last token written, which is not evaluated yet: their cells go
            self._forget(worker, prompt + len(written[i]) - 1)
        return finish[i] is None

    def generate(self, tokens: list[int], samplings: Sequence[Sampling], *, grammar: str | None, max_tokens: int,
                 stop_now: Callable[[], bool], keep: int = 0) -> list[Decoded]:
        """One reply per entry of `samplings`, all continuing `tokens`; `tokens[:keep]` is a prefix worth keeping on
        disk for the next process (`prefix_length`). Raises `Deadline` when `stop_now()` says so and `DecodeError`
        when the prompt does not fit the context window."""
        if len(tokens) >= self.context_tokens:
            raise DecodeError(f"the prompt has {len(tokens)} tokens; the context window holds {self.context_tokens}")
        max_tokens = max(1, min(max_tokens, self.context_tokens - len(tokens)))
        if not self.prompt_cache:  # the baseline: every sample reads its whole prompt again
            return [self._generate(tokens, [s], grammar, max_tokens, stop_now)[0] for s in samplings]
        out: list[Decoded] = []
        for start in range(0, len(samplings), self._max_samples):
            out += self._generate(tokens, samplings[start:start + self._max_samples], grammar, max_tokens, stop_now,
                                  keep)
        return out

    def _generate(self, tokens: list[int], samplings: Sequence[Sampling], grammar: str | None, max_tokens: int,
                  stop_now: Callable[[], bool], keep: int = 0) -> list[Decoded]:
        try:
            source, cached = self._prefill(tokens, stop_now, keep)
        except DecodeError:  # the memory is full of cached prompts: start from an empty one, once
            self._clear()
            source, cached = self._prefill(tokens, stop_now, keep)
        lib = self._lib
        workers = [len(self._slots) + i for i in range(len(samplings))]
        chains: list[Any] = []
        grammars: list[Any] = []
        written: list[list[int]] = [[] for _ in samplings]
        finish: list[str | None] = [None] * len(samplings)
        try:
            for sampling in samplings:
                chains.append(self._sampler(sampling))
                grammars.append(self._grammar(grammar) if grammar is not None else None)
            for worker in workers:
                self._forget(worker)
                lib.llama_memory_seq_cp(self._memory, source, worker, 0, len(tokens))
            # Per sample: the batch outputs whose logits give its next tokens (the first from the prompt's last
            # logits, the prefill's last output) and the drafted tokens those outputs are checked against.
            pending: dict[int, tuple[list[int], list[int]]] = {i: ([-1], []) for i in range(len(samplings))}
            grams = [_Grams(tokens) for _ in samplings] if self._draft_tokens else []
            while pending:
                if stop_now():
                    raise Deadline
                entries: list[tuple[int, int, int, bool]] = []
                plan: list[tuple[int, int]] = []  # (sample, how many entries it put in the batch)
                for i, (outputs, drafts) in pending.items():
                    if not self._continue(i, outputs, drafts, chains[i], grammars[i], written, finish, max_tokens,
                                          len(tokens), workers[i], grams[i] if grams else None):
                        continue
                    position = len(tokens) + len(written[i]) - 1  # the last token written, not yet evaluated
                    room = max_tokens - len(written[i]) - 1
                    guess = (grams[i].draft(min(self._draft_tokens, room)) if grams and len(pending) == 1 else [])
                    block = [written[i][-1], *guess]
                    entries += [(t, position + n, workers[i], True) for n, t in enumerate(block)]
                    plan.append((i, len(block)))
                if not entries:
                    break
                try:
                    self._decode(entries)
                except DecodeError:  # the memory is full: the other cached prompts make room, once
                    for number in range(len(self._slots)):
                        if number != source:
                            self._forget(number)
                            self._slots[number].tokens = []
                    self._decode(entries)
                pending, start = {}, 0
                for i, size in plan:
                    pending[i] = (list(range(start, start + size)), [e[0] for e in entries[start + 1:start + size]])
                    start += size
        finally:
            for worker in workers:
                self._forget(worker)
            for sampler in [*chains, *grammars]:
                if sampler is not None:
                    lib.llama_sampler_free(sampler)
        # the first sample's prompt was read once; every later one's was all served from it
        return [Decoded(text=self._llama.detokenize(w).decode("utf-8", errors="replace"), tokens=len(w),
                        finish_reason=f or "length", cached=cached if i == 0 else len(tokens))
                for i, (w, f) in enumerate(zip(written, finish, strict=True))]


class _Grams:
    """Prompt-lookup drafting: the tokens that followed the last occurrence of the reply's last n tokens in the prompt
    or the reply so far. Translation copies much of its prompt (numbers, expressions, names, an earlier step's
    artifact), so the draft is often right, and a wrong one costs only its place in the batch."""

    def __init__(self, tokens: Sequence[int]) -> None:
        self.history = list(tokens)
        self.after: dict[tuple[int, ...], int] = {}  # an n-gram -> where what followed its last occurrence starts
        for end in range(1, len(self.history)):
            self._note(end)

    def _note(self, end: int) -> None:
        for n in _GRAMS:
            if end >= n:
                self.after[tuple(self.history[end - n:end])] = end

    def add(self, token: int) -> None:
        self.history.append(token)
        self._note(len(self.history) - 1)

    def draft(self, size: int) -> list[int]:
        if size <= 0:
            return []
        for n in _GRAMS:
            start = self.after.get(tuple(self.history[-n:])) if len(self.history) >= n else None
            if start is not None:
                return self.history[start:start + size]
        return []


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
