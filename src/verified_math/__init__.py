"""`verifiers` plug-in for the ReasonForge environment `verified-math`.

`verifiers.v1` resolves a taskset id by importing the module of that name (dashes → underscores) and taking the
`Taskset` subclass in its `__all__`; this package is that module. Everything lives in
`reasonforge.rewards.verifiers_env`.
"""

import verifiers.v1 as vf

from reasonforge.rewards.verifiers_env import (
    ENV_NAME,
    MathHarness,
    MathTask,
    MathTaskData,
    MathTaskset,
    MathTasksetConfig,
)


def load_environment(**taskset: object) -> vf.Env:
    """The verifiers `Env` for this taskset (single agent); keyword arguments set `--env.taskset.*` fields."""
    return vf.load_environment(vf.resolve_env_config({"taskset": {**taskset, "id": ENV_NAME}}))


__all__ = ["ENV_NAME", "MathHarness", "MathTask", "MathTaskData", "MathTaskset", "MathTasksetConfig",
           "load_environment"]
