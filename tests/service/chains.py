"""Request bodies the service tests share."""

from __future__ import annotations


def sleeping_code_chain(seconds: float) -> dict:
    """A one-step code chain whose example sleeps `seconds` in the sandbox when checked: a job surely still running
    a moment after it starts (the sleep outlasts the example check's time limit, so its verdict is FAILED)."""
    code = f"import time\n\ndef slow_double(x: int) -> int:\n    time.sleep({seconds})\n    return 2 * x\n"
    return {
        "original_query": "Double a number, slowly.",
        "domain": "code",
        "proof_level": "quick",
        "generate_certificate": False,
        "reasoning_chain": [{"step_id": 1, "content": f"```python\n{code}```\n>>> slow_double(2)\n4"}],
    }
