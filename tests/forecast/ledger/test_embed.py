"""The NumPy all-MiniLM-L6-v2 forward pass, checked against the model's published similarities."""

from __future__ import annotations

import numpy as np
import pytest

from reasonforge.forecast.ledger.embed import SentenceEmbedder, model_dir

# The sentence-transformers quickstart for all-MiniLM-L6-v2 prints these cosines for these three sentences:
# [[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]].
QUICKSTART = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
QUICKSTART_COSINES = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])


@pytest.fixture(scope="module")
def embedder() -> SentenceEmbedder:
    return SentenceEmbedder()


def test_model_ships_in_the_wheel():
    assert (model_dir() / "model.safetensors").is_file()
    assert (model_dir() / "tokenizer.json").is_file()


def test_matches_published_cosines(embedder):
    vectors = embedder.embed(QUICKSTART)
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(vectors @ vectors.T, QUICKSTART_COSINES, atol=6e-4)


def test_deterministic_and_independent_of_batch_padding(embedder):
    alone = embedder.embed([QUICKSTART[2]])
    longer = "A much longer sentence about border controls, migrants and trains in Europe."
    padded = embedder.embed([*QUICKSTART, longer])
    np.testing.assert_allclose(alone[0], padded[2], atol=1e-5)
    np.testing.assert_array_equal(embedder.embed([QUICKSTART[2]]), alone)


def test_similar_sentences_are_closer_than_unrelated(embedder):
    event, paraphrase, unrelated = embedder.embed([
        "Germany reintroduces emergency controls on its border with Austria.",
        "I expect Germany to reintroduce checks on its border with Austria.",
        "A typhoon makes landfall in the Philippines.",
    ])
    assert event @ paraphrase > 0.6
    assert event @ unrelated < 0.2


def test_long_text_is_truncated_to_256_tokens(embedder):
    long_text = " ".join(["refugees"] * 300)
    longer = long_text + " " + " ".join(["typhoon"] * 100)  # everything past token 256 is cut
    a, b = embedder.embed([long_text, longer])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_batches_give_the_same_vectors(embedder):
    small = SentenceEmbedder(batch_size=2)
    np.testing.assert_allclose(small.embed(QUICKSTART), embedder.embed(QUICKSTART), atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)
