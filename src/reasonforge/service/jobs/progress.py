"""How far a running job has got: the step being checked now, recorded on the job's row while it runs, so a page
read from any API process shows it (`GET /verdicts/{task_id}` while the job is not finished).

The job process reports each step as its check starts (`verify_chain(on_step=...)`); the process that holds the
lease writes the latest report, conditional on the lease like every write of a job, at most every
`PROGRESS_INTERVAL_S`: a chain of quick steps costs a few writes, and a slow step is shown while it runs."""

from __future__ import annotations

from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import bindparam, update
from sqlalchemy.orm import sessionmaker

from reasonforge.service.jobs.leases import HELD, Claim, held_params
from reasonforge.service.jobs.tables import JobRow

__all__ = ["PROGRESS_INTERVAL_S", "JobProgress", "read_progress", "record_progress"]

PROGRESS_INTERVAL_S = 0.5
"""A report not followed by another this soon is written; while reports keep coming, one is written this often."""


class JobProgress(BaseModel):
    """The step whose check started last: its id, its position in the checking order and the chain's length,
    and what the pipeline said (which of an ensemble's translations it is, for one)."""

    step_id: int
    position: int = Field(ge=1)
    total: int = Field(ge=1)
    message: str = ""


_RECORD = update(JobRow).where(HELD).values(progress_json=bindparam("b_progress"))


def record_progress(sm: sessionmaker, claim: Claim, progress: JobProgress) -> bool:
    """Write `progress` on the claimed job's row; False when the lease was lost (nothing written)."""
    with sm.begin() as session:
        result = session.connection().execute(
            _RECORD, {**held_params(claim), "b_progress": progress.model_dump_json()})
        return result.rowcount == 1


def read_progress(row: JobRow) -> JobProgress | None:
    """The progress recorded on `row`, or None (none yet, or unreadable: a page shows none rather than fail)."""
    if not row.progress_json:
        return None
    try:
        return JobProgress.model_validate_json(row.progress_json)
    except ValidationError:
        return None
