"""PrOntoQA benchmark for the rule-based logic translator and the FOL checker.

For every example, `original_query` is the context (the theory) and the gold chain of thought is the
reasoning chain, one sentence per step (each step depends on the one before). Reported:
1. chains whose every step is verified (target ≥ 95 %);
2. corrupted chains: one step replaced by a false sentence, of two kinds: a negated fact ("Max is a
   dumpus." → "Max is not a dumpus.") and a rule not in the context ("Every dumpus is a rompus.", with
   the rompus chosen so that the theory does not entail it). The position (and the noun) come from an
   RNG seeded by `--seed` and the example id; every chain is corrupted once of each kind. A hit = the
   first step that is not verified is the replaced one, with status `failed` (target ≥ 95 % per kind);
3. the True/False label reproduced from the theory alone: context ⊢ statement → True, context ⊢
   ¬statement → False (target ≥ 95 %);
plus the median and max milliseconds per chain (end to end, translation + checks), translation alone,
and a pure-Python forward-chaining baseline on the same theory measured in the same process.

Usage: python benchmarks/prontoqa.py [--data FILE ...] [--limit N] [--seed S] [--level standard|quick] [--json]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from reasonforge import ReasoningStep, VerifyRequest, verify_chain
from reasonforge.lang.english import EnglishParser, Lexicon, split_query, split_sentences
from reasonforge.lang.logic import Atom, Const, Formula, Implies, Not, Quant
from reasonforge.registry import CheckerRegistry
from reasonforge.translate import LogicTranslator, Translator
from reasonforge.types import Domain, ProofLevel, StepStatus

from _common import REPO, check, interleave, ms_summary, read_rows, share

DEFAULT_DATA = [
    REPO / "data" / "prontoqa" / "prontoqa-trueontology-345hop.slice.jsonl",
    REPO / "data" / "prontoqa" / "prontoqa-fictional-5hop-logiclm.slice.jsonl",
]
TARGET = 0.95
_SHOWN_FAILURES = 5


class Problem(BaseModel):
    """One PrOntoQA example, whichever file format it came from."""

    id: str
    context: str
    statement: str
    label: bool
    chain: list[str]


class Failure(BaseModel):
    """A miss on one metric, with a short reason."""

    id: str
    metric: str
    reason: str


class Report(BaseModel):
    """The benchmark's figures; `passed` is whether every target is met."""

    chains: int
    level: str
    seed: int
    chain_verified: float
    corrupt_negated_fact: float
    corrupt_foreign_rule: float
    corrupt_trials: dict[str, int]
    label_accuracy: float
    chain_ms: dict[str, float]
    translate_ms: dict[str, float]
    forward_chain_ms: dict[str, float]
    ratio_chain_vs_forward_chain: float = Field(description="median chain ms / median forward-chaining ms")
    targets: dict[str, float]
    passed: bool
    failures: list[Failure]


# ---- loading ------------------------------------------------------------------------------------------
def problem_from_row(row: dict) -> Problem:
    """Map an llm-reasoners row (context in `question`) or a Logic-LM row (context in `context`)."""
    if "chain_of_thought" in row:
        context, query, chain, label = row["question"], row["query"], row["chain_of_thought"], row["answer"] == "True"
    elif "explanation" in row:
        context, query, chain, label = row["context"], row["question"], row["explanation"], row["answer"] == "A"
    else:
        raise ValueError(f"row {row.get('id')!r} is neither llm-reasoners nor Logic-LM PrOntoQA")
    statements = split_query(query).statements
    if not statements:
        raise ValueError(f"row {row.get('id')!r}: no statement in the query {query!r}")
    return Problem(id=str(row.get("id", "")), context=context, statement=statements[0], label=label, chain=chain)


def load_problems(paths: Sequence[Path], limit: int | None = None) -> list[Problem]:
    """Problems from every file, interleaved so that a limit keeps each file represented."""
    problems = interleave([problem_from_row(r) for r in read_rows(Path(p))] for p in paths)
    return problems[:limit] if limit is not None else problems


# ---- the forward-chaining baseline and the corruption oracle ------------------------------------------
Literal = tuple[str, str, bool]  # (predicate, constant, positive)


def horn_theory(formulas: Sequence[Formula]) -> tuple[set[Literal], dict[str, list[tuple[str, bool]]]]:
    """Unary facts and rules ∀x (A(x) → [¬]B(x)) of a PrOntoQA theory; other formulas are ignored."""
    facts: set[Literal] = set()
    rules: dict[str, list[tuple[str, bool]]] = {}
    for f in formulas:
        positive = not isinstance(f, Not)
        core = f.arg if isinstance(f, Not) else f
        if isinstance(core, Atom) and len(core.args) == 1 and isinstance(core.args[0], Const):
            facts.add((core.pred, core.args[0].name, positive))
        elif _is_rule(f) and isinstance(f.body.left, Atom):
            head = f.body.right
            head_positive = not isinstance(head, Not)
            head_atom = head.arg if isinstance(head, Not) else head
            if isinstance(head_atom, Atom):
                rules.setdefault(f.body.left.pred, []).append((head_atom.pred, head_positive))
    return facts, rules


def _is_rule(f: Formula) -> bool:
    return isinstance(f, Quant) and f.kind == "forall" and isinstance(f.body, Implies)


def forward_chain(facts: set[Literal], rules: dict[str, list[tuple[str, bool]]]) -> set[Literal]:
    """Every literal derivable from the facts by the rules (a plain worklist closure)."""
    derived = set(facts)
    work = [lit for lit in facts if lit[2]]
    while work:
        pred, const, _ = work.pop()
        for head, positive in rules.get(pred, ()):
            lit = (head, const, positive)
            if lit not in derived:
                derived.add(lit)
                if positive:
                    work.append(lit)
    return derived


def negated_fact(sentence: str) -> str | None:
    """"Max is a dumpus." → "Max is not a dumpus." (and back); None for a rule sentence."""
    match = re.match(r"^(\S+) is (not )?(.+?)\.?$", sentence.strip())
    if match is None or match.group(1) in ("Every", "Each"):
        return None
    name, negation, rest = match.groups()
    return f"{name} is {rest}." if negation else f"{name} is not {rest}."


def foreign_rule(problem: Problem, position: int, rng: random.Random, parser: EnglishParser,
                 rules: dict[str, list[tuple[str, bool]]]) -> str | None:
    """"Every X is a Z." for the X of the fact before `position`, with Z a theory noun X does not reach."""
    fact = re.match(r"^\S+ is an? (.+?)\.?$", problem.chain[position - 1].strip()) if position else None
    if fact is None:
        return None
    noun = fact.group(1)
    candidates = sorted(_theory_nouns(problem.context) - {noun})
    rng.shuffle(candidates)
    for other in [*candidates, "gorpus"]:  # "gorpus": a PrOntoQA noun absent from these files
        sentence = f"Every {noun} is {'an' if other[0] in 'aeiou' else 'a'} {other}."
        rule = parser.parse(sentence)
        assert _is_rule(rule)
        source, target = rule.body.left.pred, rule.body.right.pred
        closure = forward_chain({(source, "fresh", True)}, rules)
        contradictory = any((p, c, not s) in closure for p, c, s in closure)
        if target != source and (target, "fresh", True) not in closure and not contradictory:
            return sentence
    return None


def _theory_nouns(context: str) -> set[str]:
    nouns: set[str] = set()
    for sentence in split_sentences(context):
        text = sentence.rstrip(".")
        every = re.match(r"^(?:Every|Each) (.+?) is (?:not )?(?:an? (.+))?", text)
        if every:
            nouns.update(n for n in every.groups() if n)
        fact = re.match(r"^\S+ is an? (.+)$", text)
        if fact and not every:
            nouns.add(fact.group(1))
    return nouns


# ---- the benchmark ------------------------------------------------------------------------------------
def _request(problem: Problem, chain: Sequence[str], level: ProofLevel) -> VerifyRequest:
    steps = [ReasoningStep(step_id=i + 1, content=s) for i, s in enumerate(chain)]
    return VerifyRequest(original_query=problem.context, reasoning_chain=steps, domain=Domain.LOGIC, proof_level=level)


def _first_unverified(verdict) -> tuple[int, StepStatus, str] | None:
    for v in verdict.step_verdicts:
        if not v.verified:
            return v.step_id, v.status, v.error_message or ""
    return None


def run_benchmark(
    problems: Sequence[Problem],
    *,
    seed: int = 0,
    level: ProofLevel = ProofLevel.STANDARD,
    translator: Translator | None = None,
    registry: CheckerRegistry | None = None,
) -> Report:
    """Run the three measurements over `problems` and return the report."""
    translator = translator or LogicTranslator()
    failures: list[Failure] = []
    verified = 0
    hits = {"negated_fact": 0, "foreign_rule": 0}
    trials = {"negated_fact": 0, "foreign_rule": 0}
    labels_right = 0
    chain_ms: list[float] = []
    translate_ms: list[float] = []
    forward_ms: list[float] = []
    for problem in problems:
        request = _request(problem, problem.chain, level)
        ancestors = {s.step_id: list(range(1, s.step_id)) for s in request.reasoning_chain}
        started = time.perf_counter()
        translator.translate_chain(request, ancestors)
        translate_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        verdict = verify_chain(request, translator=translator, registry=registry)
        chain_ms.append((time.perf_counter() - started) * 1000)
        first = _first_unverified(verdict)
        if first is None:
            verified += 1
        else:
            step_id, status, message = first
            failures.append(Failure(id=problem.id, metric="chain", reason=(
                f"step {step_id} {status.value}: {problem.chain[step_id - 1]!r}: {message[:160]}")))

        parser = EnglishParser(Lexicon.from_texts([problem.context, *problem.chain]))
        theory = LogicTranslator().reader.read_givens(problem.context, parser).formulas
        started = time.perf_counter()
        facts, rules = horn_theory(theory)
        forward_chain(facts, rules)
        forward_ms.append((time.perf_counter() - started) * 1000)

        rng = random.Random(f"{seed}:{problem.id}")
        fact_positions = [i for i, s in enumerate(problem.chain) if negated_fact(s) is not None]
        rule_positions = [i for i in range(1, len(problem.chain)) if negated_fact(problem.chain[i]) is None]
        for kind, positions in (("negated_fact", fact_positions), ("foreign_rule", rule_positions)):
            if not positions:
                continue
            position = rng.choice(positions)
            false = (negated_fact(problem.chain[position]) if kind == "negated_fact"
                     else foreign_rule(problem, position, rng, parser, rules))
            if false is None:
                failures.append(Failure(id=problem.id, metric=kind, reason=f"no false sentence for step {position + 1}"))
                trials[kind] += 1
                continue
            trials[kind] += 1
            # Steps after the replaced one cannot change which step fails first, so they are not re-checked.
            chain = [*problem.chain[:position], false]
            outcome = _first_unverified(verify_chain(_request(problem, chain, level), translator=translator,
                                                     registry=registry))
            if outcome is not None and outcome[0] == position + 1 and outcome[1] is StepStatus.FAILED:
                hits[kind] += 1
            else:
                seen = "every step verified" if outcome is None else f"step {outcome[0]} {outcome[1].value}"
                failures.append(Failure(id=problem.id, metric=kind, reason=(
                    f"replaced step {position + 1} with {false!r}; first unverified: {seen}")))

        predicted = _label(problem, level, translator, registry)
        if predicted == problem.label:
            labels_right += 1
        else:
            failures.append(Failure(id=problem.id, metric="label", reason=(
                f"{problem.statement!r}: expected {problem.label}, got {predicted}")))

    n = len(problems)
    figures = {
        "chain_verified": share(verified, n),
        "corrupt_negated_fact": share(hits["negated_fact"], trials["negated_fact"]),
        "corrupt_foreign_rule": share(hits["foreign_rule"], trials["foreign_rule"]),
        "label_accuracy": share(labels_right, n),
    }
    chain_summary, forward_summary = ms_summary(chain_ms), ms_summary(forward_ms)
    return Report(
        chains=n,
        level=level.value,
        seed=seed,
        **figures,
        corrupt_trials=trials,
        chain_ms=chain_summary,
        translate_ms=ms_summary(translate_ms),
        forward_chain_ms=forward_summary,
        ratio_chain_vs_forward_chain=round(chain_summary["median"] / forward_summary["median"], 1)
        if forward_summary["median"] else 0.0,
        targets={k: TARGET for k in figures},
        passed=n > 0 and all(v >= TARGET for v in figures.values()),
        failures=failures,
    )


def _label(problem: Problem, level: ProofLevel, translator: Translator, registry: CheckerRegistry | None) -> bool | None:
    entail = getattr(translator, "entailment", None) or LogicTranslator().entailment
    proves = check(entail(problem.context, problem.statement, level=level), level, registry).status
    refutes = check(entail(problem.context, problem.statement, negated=True, level=level), level, registry).status
    if (proves is StepStatus.VERIFIED) == (refutes is StepStatus.VERIFIED):
        return None  # unknown, or an inconsistent theory
    return proves is StepStatus.VERIFIED


def format_report(report: Report) -> str:
    """Human-readable summary with the first few failures of each metric."""
    pct = lambda x: f"{100 * x:.1f} %"
    lines = [
        f"PrOntoQA: {report.chains} chains, level {report.level}, seed {report.seed}",
        f"  (1) chains fully verified          {pct(report.chain_verified)}   (target ≥ {pct(TARGET)})",
        f"  (2) corrupted: negated fact caught {pct(report.corrupt_negated_fact)} of {report.corrupt_trials['negated_fact']}",
        f"      corrupted: foreign rule caught {pct(report.corrupt_foreign_rule)} of {report.corrupt_trials['foreign_rule']}",
        f"  (3) True/False label reproduced    {pct(report.label_accuracy)}",
        (f"  ms per chain: median {report.chain_ms['median']:.1f}, max {report.chain_ms['max']:.1f}; "
        f"translation alone: median {report.translate_ms['median']:.2f}; "
        f"forward-chaining baseline: median {report.forward_chain_ms['median']:.3f} "
        f"(chain / baseline = {report.ratio_chain_vs_forward_chain}x)"),
        f"  targets {'met' if report.passed else 'NOT met'}",
    ]
    for metric in ("chain", "negated_fact", "foreign_rule", "label"):
        misses = [f for f in report.failures if f.metric == metric]
        for failure in misses[:_SHOWN_FAILURES]:
            lines.append(f"  miss [{metric}] {failure.id}: {failure.reason}")
        if len(misses) > _SHOWN_FAILURES:
            lines.append(f"  ... and {len(misses) - _SHOWN_FAILURES} more [{metric}] misses")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; exit status 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, nargs="+", default=DEFAULT_DATA, help="PrOntoQA file(s), either format")
    parser.add_argument("--limit", type=int, default=None, help="use the first N chains (interleaved across files)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", choices=[lv.value for lv in ProofLevel], default=ProofLevel.STANDARD.value)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = run_benchmark(load_problems(args.data, args.limit), seed=args.seed, level=ProofLevel(args.level))
    print(report.model_dump_json(indent=2) if args.json else format_report(report))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
