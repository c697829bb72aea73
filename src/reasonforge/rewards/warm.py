"""Imported by the fork server that starts reward workers from a threaded process (an event loop's thread, a
trainer's data loader): importing it loads and warms everything a reward needs (the pipeline, the rules'
translation, SymPy's lazily loaded modules) once, so each worker forked from the server starts warm instead of
paying seconds of imports per completion."""

from reasonforge.rewards.score import warm_rewards

warm_rewards()
