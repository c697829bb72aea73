"""Server logs as JSON lines carry the task id of the job that logged them; bad choices are usage errors."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

from reasonforge.service.logs import LogFormat, configure_logging, job_context


def test_json_records_carry_the_task_id_of_the_job_running_in_that_thread(capsys) -> None:
    configure_logging("INFO", LogFormat.JSON)
    try:
        log = logging.getLogger("reasonforge.test")
        with job_context("task-123"):
            log.info("claimed %s", "it")
        log.warning("between jobs")
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    finally:
        configure_logging("WARNING", LogFormat.TEXT)
    assert lines[0]["message"] == "claimed it" and lines[0]["task_id"] == "task-123" and lines[0]["level"] == "INFO"
    assert lines[1]["task_id"] is None and lines[1]["ts"].endswith("+00:00")


def test_text_records_name_the_task_too(capsys) -> None:
    configure_logging("INFO", LogFormat.TEXT)
    try:
        with job_context("t-9"):
            logging.getLogger("reasonforge.test").info("done")
        err = capsys.readouterr().err
    finally:
        configure_logging("WARNING", LogFormat.TEXT)
    assert err.rstrip().endswith("done [task t-9]")


def test_an_unknown_log_format_is_exit_2() -> None:
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "serve", "--log-format", "xml"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "unknown --log-format 'xml'; use text or json" in out.stderr
