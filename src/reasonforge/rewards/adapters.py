"""The reward in the shapes RL trainers call, each a thin door onto `score.Scorer` and the one design.

- TRL `GRPOTrainer(reward_funcs=…)`: `trl_reward()` / `trl_reward_async()` give a function
  `f(prompts, completions, completion_ids=None, **columns) -> list[float | None]`; TRL passes every dataset
  column as a keyword list (the reference is read from `reference_column`, default `answer`) and chat
  completions as message lists. TRL runs an `async def` reward concurrently with the others; the async door
  scores in a thread so the event loop is never blocked.
- veRL `custom_reward_function`: `verl_compute_score(data_source, solution_str, ground_truth, extra_info=None)`
  returns `{"score": reward, …}` (its reward managers log every other key); the question is
  `extra_info["question"]` as veRL's GSM8K and MATH preprocessors write it. `verl_compute_score_batch` takes the
  lists veRL's batch reward manager passes.
- OpenRLHF `--remote_rm_url reward.py`: `openrlhf_reward_func(queries, prompts, labels)` returns
  `{"rewards", "scores", "extra_logs"}` (torch tensors when torch is importable, else lists); a query is the
  prompt followed by the response.

Each call scores its batch in processes killed at their budget (`score.Scorer`), so a trainer's thread never
waits past `budget_s` per completion, whatever the completion holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from reasonforge.rewards.design import Reward, RewardDesign
from reasonforge.rewards.score import DEFAULT_BUDGET_S, RewardInput, Scorer

__all__ = ["openrlhf_reward_func", "text_of", "trl_reward", "trl_reward_async", "verl_compute_score",
           "verl_compute_score_batch"]


def text_of(value: Any, *, role: str = "assistant") -> str:
    """The text of a completion or prompt as trainers pass it: a string, or chat messages (the last message of
    `role`, else the last one; content as a string or a list of text parts)."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        content = value.get("content", "")
        if isinstance(content, list):
            return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
        return content if isinstance(content, str) else ""
    if isinstance(value, Sequence):
        messages = [m for m in value if isinstance(m, Mapping)]
        chosen = [m for m in messages if m.get("role") == role] or messages
        return text_of(chosen[-1]) if chosen else ""
    return ""


def _rows(prompts: Sequence[Any], completions: Sequence[Any], references: Sequence[Any] | None) -> list[RewardInput]:
    refs = list(references) if references is not None else [None] * len(completions)
    if len(refs) != len(completions) or len(prompts) != len(completions):
        raise ValueError(f"{len(prompts)} prompts, {len(completions)} completions and {len(refs)} references: one "
                         "of each per completion")
    return [RewardInput(question=text_of(p, role="user"), completion=text_of(c),
                        reference=str(r) if r is not None else None) for p, c, r in zip(prompts, completions, refs,
                                                                                        strict=True)]


def trl_reward(*, design: RewardDesign | None = None, reference_column: str = "answer", jobs: int | None = None,
               budget_s: float = DEFAULT_BUDGET_S, cached: bool = False) -> Callable[..., list[float | None]]:
    """A TRL `GRPOTrainer` reward function (module docstring); `cached`: completions verified before are answered
    from the verdict cache."""
    scorer = Scorer(design=design, jobs=jobs, budget_s=budget_s, cached=cached)

    def reasonforge_reward(prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                           **columns: Any) -> list[float | None]:
        rewards = scorer.score(_rows(prompts, completions, columns.get(reference_column)))
        return [r.reward for r in rewards]

    reasonforge_reward.scorer = scorer  # type: ignore[attr-defined]  # so a caller can close its pool
    return reasonforge_reward


def trl_reward_async(*, design: RewardDesign | None = None, reference_column: str = "answer",
                     jobs: int | None = None, budget_s: float = DEFAULT_BUDGET_S, cached: bool = False
                     ) -> Callable[..., Awaitable[list[float | None]]]:
    """The TRL reward function as an `async def` (TRL gathers async rewards concurrently)."""
    sync = trl_reward(design=design, reference_column=reference_column, jobs=jobs, budget_s=budget_s, cached=cached)

    async def reasonforge_reward(prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                                 **columns: Any) -> list[float | None]:
        return await asyncio.to_thread(sync, prompts, completions, completion_ids, **columns)

    reasonforge_reward.scorer = sync.scorer  # type: ignore[attr-defined]
    return reasonforge_reward


def _verl_result(reward: Reward) -> dict[str, Any]:
    # veRL averages every key of the dict in its logs: numbers only, besides the score itself
    return {"score": reward.reward, "refuted": float(reward.first_refuted_step is not None),
            "answer_matches_reference": float(reward.answer_matches_reference is True),
            "verified_steps": float(sum(1 for s in reward.step_rewards if s > 0)), "steps": float(reward.steps)}


def verl_compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None,
                       **options: Any) -> dict[str, Any]:
    """veRL's `compute_score` for one response (module docstring); `options` are `Scorer`'s (`design`,
    `budget_s`)."""
    question = str((extra_info or {}).get("question", ""))
    with Scorer(jobs=1, **options) as scorer:
        (reward,) = scorer.score([RewardInput(question=question, completion=solution_str,
                                              reference=str(ground_truth) if ground_truth is not None else None)])
    return _verl_result(reward)


def verl_compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                             extra_infos: Sequence[Mapping[str, Any] | None] | None = None, **options: Any
                             ) -> list[dict[str, Any]]:
    """veRL's batch form: the same per response, over a pool of `jobs` processes (`options`)."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    questions = [str((info or {}).get("question", "")) for info in infos]
    with Scorer(**options) as scorer:
        rewards = scorer.score(_rows(questions, list(solution_strs), list(ground_truths)))
    return [_verl_result(r) for r in rewards]


def openrlhf_reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **options: Any
                         ) -> dict[str, Any]:
    """OpenRLHF's `reward_func` (module docstring)."""
    responses = [q.removeprefix(p) for q, p in zip(queries, prompts, strict=True)]
    with Scorer(**options) as scorer:
        rewards = scorer.score(_rows(list(prompts), responses, list(labels)))
    values = [r.reward for r in rewards]
    logs = {"refuted": [float(r.first_refuted_step is not None) for r in rewards],
            "answer_matches_reference": [float(r.answer_matches_reference is True) for r in rewards]}
    try:
        import torch  # type: ignore[import-not-found]  # OpenRLHF's own dependency; not ours
    except ImportError:
        return {"rewards": values, "scores": values, "extra_logs": logs}
    tensor = torch.tensor(values, dtype=torch.float32)
    return {"rewards": tensor, "scores": tensor.clone(),
            "extra_logs": {k: torch.tensor(v, dtype=torch.float32) for k, v in logs.items()}}
