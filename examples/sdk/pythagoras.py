"""The plan's SDK example: verify the Pythagoras chain at proof_level="formal" and print the verdict.

Start a server and make a key that may run formal proofs, then run this script:

    reasonforge serve --host 127.0.0.1 --port 8000 &
    export REASONFORGE_API_KEY=$(reasonforge keys create --name demo --tier enterprise)
    python examples/sdk/pythagoras.py            # or --base-url http://host:port

Exit status: 0 when the chain is VERIFIED, 1 for another verdict, 2 when the call itself failed.
"""

from __future__ import annotations

import argparse
import sys

from reasonforge import ReasonForge
from reasonforge.errors import ReasonForgeError


def main(argv: list[str] | None = None) -> int:
    """Verify the chain and print the verdict, the certificate URL and any failing step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base-url",
        default=None,
        help="API root (default $REASONFORGE_BASE_URL or http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--api-key", default=None, help="rf_... key (default $REASONFORGE_API_KEY)"
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds to wait for the verdict"
    )
    args = parser.parse_args(argv)
    try:
        with ReasonForge(api_key=args.api_key, base_url=args.base_url) as rf:
            result = rf.verify(
                reasoning_chain=[
                    {"step_id": 1, "content": "Let x = 3 and y = 4"},
                    {"step_id": 2, "content": "By Pythagorean theorem, x² + y² = z²"},
                    {"step_id": 3, "content": "So z² = 9 + 16 = 25"},
                    {"step_id": 4, "content": "Therefore z = 5"},
                ],
                domain="mathematics",
                original_query="Find the hypotenuse of a right triangle with legs 3 and 4",
                claimed_answer="z = 5",
                proof_level="formal",
                timeout_s=args.timeout,
            )
    except ReasonForgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        result.verdict.value
        if result.verdict
        else f"no verdict (job {result.status.value})"
    )
    print(result.certificate_url or "no certificate")
    if result.verdict is not None and result.verdict.value != "VERIFIED":
        for failure in result.failure_points or []:
            print(f"Step {failure.step_id} failed: {failure.error}")
            print(f"  Last valid step: {failure.step_id - 1}")
    return 0 if result.verdict is not None and result.verdict.value == "VERIFIED" else 1


if __name__ == "__main__":
    sys.exit(main())
