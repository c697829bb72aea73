"""SymPy work in a worker process that a deadline or a memory budget kills, from any thread of the caller."""

import threading
import time

import sympy

from reasonforge.verify.math.killable import Killed, Returned, Stop, call_killable


def _square(n: int) -> int:
    return n * n


def _sleep(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"


def _raise() -> None:
    raise ValueError("no such value")


def _grow() -> bytes:
    return b"x" * (2048 * 1024 * 1024)


def _nested() -> None:
    def down(n: int) -> int:
        return down(n + 1)

    down(0)


def _factor(text: str) -> str:
    return str(sympy.factor(sympy.sympify(text)))


def test_what_the_function_returns_comes_back():
    assert call_killable(_square, (7,), timeout_s=5) == Returned(49)
    assert call_killable(_factor, ("x**2 - 1",), timeout_s=10) == Returned("(x - 1)*(x + 1)")


def test_a_function_past_its_deadline_is_killed_and_said_so():
    started = time.monotonic()
    done = call_killable(_sleep, (30,), timeout_s=0.5)
    assert isinstance(done, Killed) and done.why is Stop.TIMEOUT and "0.5 s" in done.message
    assert time.monotonic() - started < 20  # killed, not waited for (a bound far above the 0.7 s it takes)


def test_a_raise_a_recursion_and_an_exhausted_budget_are_reported_not_raised():
    raised = call_killable(_raise, (), timeout_s=5)
    assert isinstance(raised, Killed) and raised.why is Stop.CRASH and "ValueError: no such value" in raised.message
    deep = call_killable(_nested, (), timeout_s=5)
    assert isinstance(deep, Killed) and deep.why is Stop.CRASH and "nested" in deep.message
    grown = call_killable(_grow, (), timeout_s=10, memory_mb=128)
    assert isinstance(grown, Killed) and grown.why is Stop.MEMORY


def test_it_bounds_work_started_from_a_thread_that_is_not_the_main_one():
    got: list[object] = []
    worker = threading.Thread(target=lambda: got.append(call_killable(_sleep, (30,), timeout_s=0.5)))
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    assert isinstance(got[0], Killed) and got[0].why is Stop.TIMEOUT
