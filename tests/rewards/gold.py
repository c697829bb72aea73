"""GSM8K gold solutions as completions (calculator annotations taken out, the way a model writes them), one in five
given a wrong final answer line."""

from __future__ import annotations

import json
import re
from pathlib import Path

SLICE = Path(__file__).resolve().parents[2] / "data" / "gsm8k" / "train.slice.jsonl"


def gold_rows(n: int, *, wrong_every: int = 5) -> list[dict]:
    """`n` rows `{question, completion, reference, wrong}`: every `wrong_every`-th completion states a final answer
    one more than the gold one."""
    rows = []
    for index, line in enumerate(SLICE.read_text(encoding="utf-8").splitlines()[:n]):
        row = json.loads(line)
        completion = re.sub(r"<<[^>]*>>", "", row["answer"])
        final = row["answer"].rsplit("####", 1)[1].strip()
        wrong = wrong_every > 0 and index % wrong_every == wrong_every - 1
        if wrong:
            completion = completion.rsplit("####", 1)[0] + f"#### {int(final.replace(',', '')) + 1}"
        rows.append({"question": row["question"], "completion": completion, "reference": f"#### {final}",
                     "wrong": wrong})
    return rows
