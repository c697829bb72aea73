"""Files copied (read-only) into the sandbox to run a Python artifact. Never imported by the verifier, but for
`rf_values.py` (the tagged plain-data codec both sides speak; data functions only).

`rf_parent.py` is the entry point: it reads its config (with the run's nonce) from stdin, makes itself
non-dumpable, runs its children in turn (`rf_child_step.py`, the step's own checks, first when there are any;
then `rf_child_pytest.py`, `rf_child_complexity.py` or a tool command), each with its own event pipe, and alone
writes the nonce'd report line to the sandbox's stdout.
"""
