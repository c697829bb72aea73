"""Build `data/subnet/traps.json`: trap chains from FOLIO, GSM8K and HumanEval with formally verified ground truth.

Each candidate chain is verified once, here, by our own pipeline (`verify_chain` with the offline rule-based
translator, the translator an honest offline miner runs), and kept only when the verifier's verdict equals the
dataset's label and a vacuous translation does not reproduce it (below):
- FOLIO (validation slice): premises as the query, the conclusion as the one step. Label True must verify and
  False/Uncertain must fail; the row's gold FOL, checked by Z3 at standard level, must agree as well. (The offline
  translator proves none of the True conclusions of the slice, so FOLIO traps are all FAILED traps.)
- GSM8K (train slice): a reference solution (one step per line) must verify on every step (its chain is PARTIAL:
  the steps' prose beyond their arithmetic is not proven); a perturbed copy
  (`benchmarks/gsm8k.py perturb`: one calculator result changed) must fail first at the perturbed step.
- HumanEval (slice): the canonical solution with the dataset's `check` as a pytest test must verify; a mutant of it
  (`verify/code/mutants.py`) must fail. Both are written through `ast.unparse`, so their layout cannot tell them apart.
The ground truth stored per step is the verifier's own flags. Selection is seeded and deterministic.

A trap must test the miner's translation. The candidate's steps are translated by the offline translator, every
artifact is replaced by the vacuous miner's (`subnet.miner.vacuous_translations`: `claim 1 = 1`, `assert True`, a
tautology) and the chain is verified again; when that verdict scores full marks against the ground truth
(`trap_score` 1.0) the candidate is dropped, since a verdict the pipeline reaches whatever the artifact says
cannot tell an honest miner from a vacuous one. This drops every FOLIO candidate of the slice today: a logic
step's refutation is the English reader's, whatever artifact a miner sends, and the offline translator proves
none of the True conclusions, so the file then holds no FOLIO trap (the check keeps any that a better translator
would earn). FOLIO candidates alternate between quick and standard, so the two levels stay balanced.

    python scripts/build_traps.py                 # writes data/subnet/traps.json (about a minute)
    python scripts/build_traps.py --out PATH --seed 1 --folio 6 --gsm8k 8 --humaneval 4
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# benchmarks/ is not a package: its gsm8k helpers (chain_request, perturb) are imported from the folder itself.
sys.path.insert(0, str(REPO / "benchmarks"))

from gsm8k import chain_request, perturb

from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.miner import vacuous_translations
from reasonforge.subnet.traps import TRAPS_PATH, Trap, TrapSet, step_flags, trap_score
from reasonforge.translate.engine import TranslationEngine
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    Domain,
    Overall,
    ProofLevel,
    StepStatus,
    StepTranslation,
    VerificationVerdict,
    VerifyRequest,
)
from reasonforge.verify.code.mutants import generate_mutants

FOLIO = REPO / "data" / "folio" / "folio-validation.shared.jsonl"
GSM8K = REPO / "data" / "gsm8k" / "train.slice.jsonl"
HUMANEVAL = REPO / "data" / "humaneval" / "HumanEval.slice.jsonl"
LIMITS = CheckLimits(timeout_s=20.0)
VERIFIER = ("verify_chain with the offline rule-based translator; kept when the verdict equals the dataset label "
            "(FOLIO: also the row's gold FOL under Z3) and the vacuous miner's artifacts do not reproduce it; "
            "step_verified = the verifier's per-step flags, step_refuted = the steps it refutes (failed)")
ENGINE = TranslationEngine()  # offline rules: the translator whose artifacts the vacuous miner replaces


def rows(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def seeded_order(count: int, seed: int, salt: str) -> list[int]:
    """0..count-1 in a seeded order (one order per dataset)."""
    order = list(range(count))
    random.Random(f"{seed}:{salt}").shuffle(order)
    return order


def make_trap(trap_id: str, kind: str, source: Path, row: int, label: str, request: VerifyRequest,
              verdict: VerificationVerdict, note: str = "") -> Trap:
    """A trap whose ground truth is `verdict` (already checked against the label)."""
    return Trap(  # type: ignore[arg-type]
        trap_id=trap_id, kind=kind, source=str(source.relative_to(REPO)), row=row, label=label,
        request=request, expected=verdict.overall, step_verified=step_flags(verdict),
        step_refuted=[sv.step_id for sv in verdict.step_verdicts if sv.status is StepStatus.FAILED], note=note)


def vacuous_reproduces(trap: Trap) -> bool:
    """Whether the vacuous miner's artifacts for the trap's chain score full marks against its ground truth:
    then the verdict does not depend on the translation, and the trap cannot tell honest miners from vacuous."""
    translations = vacuous_translations(ENGINE.translate_chain(trap.request))
    return trap_score(trap, verify_chain(trap.request, translations, limits=LIMITS)) == 1.0


# ---- FOLIO ---------------------------------------------------------------------------------------

def folio_request(row: dict[str, Any], level: ProofLevel) -> VerifyRequest:
    """Premises as the query, the conclusion drawn from them as the one step ("Therefore, …"): FOLIO asks whether
    it follows, so the step claims the inference, and one that does not follow (False or Uncertain) is refuted;
    a bare conclusion would be an assumption, reported, never refuted."""
    premises = row["premises"]
    query = premises if isinstance(premises, str) else " ".join(str(p).strip() for p in premises)
    conclusion = str(row["conclusion"]).strip()
    return VerifyRequest(original_query=query, claimed_answer=conclusion, domain=Domain.LOGIC, proof_level=level,
                         reasoning_chain=[{"step_id": 1, "content": f"Therefore, {conclusion}"}])  # type: ignore[list-item]


def folio_gold_agrees(row: dict[str, Any], request: VerifyRequest) -> bool:
    """The row's gold FOL, checked at standard level, gives the same step verdict as its label."""
    artifact = "\n".join([*row["premises-FOL"], "⊢ " + row["conclusion-FOL"]])
    gold = StepTranslation(step_id=1, language=ArtifactLanguage.FOL, formal_representation=artifact)
    standard = request.model_copy(update={"proof_level": ProofLevel.STANDARD})
    step = verify_chain(standard, [gold], limits=LIMITS).step_verdicts[0]
    return step.status in (StepStatus.VERIFIED, StepStatus.FAILED) and step.verified == (row["label"] == "True")


def folio_traps(per_level: int, seed: int) -> Iterator[Trap]:
    """FOLIO traps, `per_level` at quick and at standard (different rows); each row is tried at the level that
    has fewer traps so far (quick on a tie), so the levels alternate as traps are found."""
    data = rows(FOLIO)
    wanted = {ProofLevel.QUICK: per_level, ProofLevel.STANDARD: per_level}
    for index in seeded_order(len(data), seed, "folio"):
        if not any(wanted.values()):
            return
        level = max(wanted, key=lambda lv: wanted[lv])  # dicts keep order: quick wins a tie
        row = data[index]
        request = folio_request(row, level)
        verdict = verify_chain(request, limits=LIMITS)
        step = verdict.step_verdicts[0]
        truth = row["label"] == "True"
        if step.status not in (StepStatus.VERIFIED, StepStatus.FAILED) or step.verified != truth:
            continue
        if not folio_gold_agrees(row, request):
            continue
        trap = make_trap(f"folio:{index}@{level.value}", "folio", FOLIO, index, f"FOLIO label {row['label']}",
                         request, verdict)
        if vacuous_reproduces(trap):
            continue
        wanted[level] -= 1
        yield trap


# ---- GSM8K ---------------------------------------------------------------------------------------

def gsm8k_answer(answer: str) -> str:
    """The final `#### N` value of a GSM8K solution."""
    return answer.rsplit("####", 1)[-1].strip() if "####" in answer else ""


def gsm8k_traps(count: int, seed: int) -> Iterator[Trap]:
    """`count` reference traps and `count` perturbed traps (different rows)."""
    data = rows(GSM8K)
    rng = random.Random(f"{seed}:gsm8k-perturb")
    references = perturbed = 0
    for index in seeded_order(len(data), seed, "gsm8k"):
        if references >= count and perturbed >= count:
            return
        row = data[index]
        claimed = gsm8k_answer(row["answer"])
        if references < count:
            request = chain_request(row["question"], row["answer"]).model_copy(update={"claimed_answer": claimed})
            verdict = verify_chain(request, limits=LIMITS)
            # Every step verified (its prose beyond the arithmetic is not proven, so the chain is PARTIAL).
            if all(sv.verified for sv in verdict.step_verdicts):
                trap = make_trap(f"gsm8k-reference:{index}", "gsm8k-reference", GSM8K, index, "reference solution",
                                 request, verdict)
                if not vacuous_reproduces(trap):
                    references += 1
                    yield trap
            continue
        changed = perturb(row["answer"], rng)
        if changed is None:
            continue
        answer, step = changed
        request = chain_request(row["question"], answer).model_copy(update={"claimed_answer": gsm8k_answer(answer)})
        verdict = verify_chain(request, limits=LIMITS)
        report = verdict.failure_report
        first_failed = report.failed_step_id if report is not None else None
        if all(sv.verified for sv in verdict.step_verdicts) or first_failed != step:
            continue
        trap = make_trap(f"gsm8k-perturbed:{index}", "gsm8k-perturbed", GSM8K, index, f"perturbed step {step}",
                         request, verdict)
        if vacuous_reproduces(trap):
            continue
        perturbed += 1
        yield trap


# ---- HumanEval -----------------------------------------------------------------------------------

def code_request(query: str, code: str, tests: str) -> VerifyRequest:
    """One step holding the implementation and the dataset's tests in fenced blocks (as `bench.data`)."""
    content = (f"The implementation:\n```python\n{code.rstrip()}\n```\n\n"
               f"It passes these tests:\n```python\n{tests.rstrip()}\n```")
    return VerifyRequest(original_query=query, claimed_answer="The implementation passes its tests.",
                         domain=Domain.CODE, proof_level=ProofLevel.QUICK,
                         reasoning_chain=[{"step_id": 1, "content": content}])  # type: ignore[list-item]


def humaneval_traps(count: int, seed: int) -> Iterator[Trap]:
    """`count` canonical traps and `count` mutant traps (different tasks)."""
    data = rows(HUMANEVAL)
    canonical = mutants = 0
    for index in seeded_order(len(data), seed, "humaneval"):
        if canonical >= count and mutants >= count:
            return
        row = data[index]
        tests = f"{row['test'].strip()}\n\n\ndef test_check():\n    check({row['entry_point']})"
        code = ast.unparse(ast.parse(row["prompt"] + row["canonical_solution"]))
        if canonical < count:
            request = code_request(row["prompt"], code, tests)
            verdict = verify_chain(request, limits=LIMITS)
            if verdict.overall is Overall.VERIFIED:
                trap = make_trap(f"humaneval-canonical:{index}", "humaneval-canonical", HUMANEVAL, index,
                                 f"{row['task_id']} canonical solution", request, verdict)
                if not vacuous_reproduces(trap):
                    canonical += 1
                    yield trap
            continue
        for mutant in generate_mutants(code, seed=seed, max_mutants=3, draw_order=True):
            request = code_request(row["prompt"], mutant.source, tests)
            verdict = verify_chain(request, limits=LIMITS)
            if verdict.step_verdicts[0].status is StepStatus.FAILED:
                trap = make_trap(f"humaneval-mutant:{index}", "humaneval-mutant", HUMANEVAL, index,
                                 f"{row['task_id']} mutant", request, verdict, note=mutant.description)
                if vacuous_reproduces(trap):
                    continue
                mutants += 1
                yield trap
                break


def build(seed: int, n_folio: int, n_gsm8k: int, n_humaneval: int,
          progress: Callable[[str], None] = lambda _: None) -> TrapSet:
    """The whole trap set."""
    traps: list[Trap] = []
    for name, source in (("FOLIO", folio_traps(n_folio, seed)), ("GSM8K", gsm8k_traps(n_gsm8k, seed)),
                         ("HumanEval", humaneval_traps(n_humaneval, seed))):
        started = time.perf_counter()
        found = list(source)
        traps.extend(found)
        progress(f"{name}: {len(found)} traps in {time.perf_counter() - started:.1f} s")
    return TrapSet(seed=seed, verifier=VERIFIER, traps=traps)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=TRAPS_PATH, help="where to write the trap file")
    parser.add_argument("--seed", type=int, default=0, help="selection seed")
    parser.add_argument("--folio", type=int, default=6, help="FOLIO traps per proof level (quick, standard)")
    parser.add_argument("--gsm8k", type=int, default=10, help="GSM8K reference traps, and as many perturbed ones")
    parser.add_argument("--humaneval", type=int, default=4, help="HumanEval canonical traps, and as many mutants")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    trap_set = build(args.seed, args.folio, args.gsm8k, args.humaneval, progress=lambda m: print(m, file=sys.stderr))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(trap_set.model_dump(mode="json", exclude_defaults=False), indent=1, ensure_ascii=False)
    args.out.write_text(text + "\n", encoding="utf-8")
    kinds: dict[str, int] = {}
    for trap in trap_set.traps:
        kinds[trap.kind] = kinds.get(trap.kind, 0) + 1
    print(f"wrote {len(trap_set.traps)} traps to {args.out} ({kinds}) in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
