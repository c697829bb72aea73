"""Durable verification jobs: the store (leases, retries, exactly-once completion), runners and queues."""

from reasonforge.service.jobs.context import JobContext, make_context
from reasonforge.service.jobs.executor import ContextHolder
from reasonforge.service.jobs.lanes import Lane, lane_of
from reasonforge.service.jobs.queue import JobQueue, make_queue
from reasonforge.service.jobs.runner import run_claimed, run_job
from reasonforge.service.jobs.sweeper import Sweeper, sweep_once
from reasonforge.service.jobs.views import (
    JOB_LEVEL_STEP_ID,
    certificate_url,
    to_response,
)

__all__ = [
    "JOB_LEVEL_STEP_ID",
    "ContextHolder",
    "JobContext",
    "JobQueue",
    "Lane",
    "Sweeper",
    "certificate_url",
    "lane_of",
    "make_context",
    "make_queue",
    "run_claimed",
    "run_job",
    "sweep_once",
    "to_response",
]
