"""Our LaTeX reader (`lang.math.text`) against `latex2sympy2_extended` (math-verify's parser) on the relations
models write, per construct.

Every relation our reader reads from a delimited LaTeX span of a ProcessBench step, and every one it leaves
unread there, is also given (its source text) to latex2sympy. Per construct (`\\frac`, `\\sqrt`, `\\binom`,
`\\times`, `\\cdot`, `\\left(`, `\\text{}`, `\\$`, `\\%`, `\\boxed`, …) it counts the relations each reader reads,
those both read alike (closed sides: the same values; otherwise the same relation at random points, names
matched by spelling, case aside), those they read differently, and those only one reads, with why ours left it
unread; the differences are listed, so each can be judged by eye. A construct where latex2sympy reads right what
ours leaves unread is one to add to ours; one where they differ is judged by the listed cases (latex2sympy reads
`2(6) + 3` as 2 + 6 + 3, `P(x+1)` as p·(x+1), `\\cos 60^\\circ` in radians, `f'(x)` as f(x) and `5\\text{ pounds}`
as a product, so where they differ ours is kept).

    python benchmarks/latex_readers.py                                  # the committed slices
    python benchmarks/latex_readers.py --data ../shared/data/processbench --json
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sympy
from pydantic import BaseModel
from sympy.core.function import AppliedUndef

from reasonforge.lang.math.expr import ExpressionError, evaluate
from reasonforge.lang.math.step import Relation, UnreadReason
from reasonforge.lang.math.text import extract, latex_spans

from _common import REPO, display_path, read_rows, share

DEFAULT_DATA = REPO / "data" / "processbench"
_PARSE_SECONDS = 2  # latex2sympy on one relation; a parse that runs longer reads nothing
_POINTS = 3  # random points a symbolic relation is compared at
_MAX_LISTED = 20
# relations left unread because the sentence does not assert them: a matter of assertion, not of reading
_NOT_READINGS = {UnreadReason.NOT_ASSERTED, UnreadReason.NEGATION, UnreadReason.SCRIPT}
CONSTRUCTS = {
    "frac": re.compile(r"\\[dt]?frac"), "sqrt": re.compile(r"\\sqrt"), "binom": re.compile(r"\\[dt]?binom"),
    "times": re.compile(r"\\times"), "cdot": re.compile(r"\\cdot"), "left-right": re.compile(r"\\left"),
    "text-name": re.compile(r"\\(?:text|mathrm)\s*\{"), "dollar": re.compile(r"\\\$"), "percent": re.compile(r"\\%"),
    "boxed": re.compile(r"\\boxed"), "power": re.compile(r"\^"), "factorial": re.compile(r"!"),
    "trig-log": re.compile(r"\\(?:sin|cos|tan|log|ln)\b"), "pi": re.compile(r"\\pi"),
    "plain": re.compile(r"^[^\\^!]*$"),
}


class ConstructReport(BaseModel):
    """One construct: how each reader reads the relations that hold it."""

    relations: int = 0  # relations holding the construct (read by at least one reader)
    ours: int = 0  # read by our reader
    theirs: int = 0  # read (parsed to a relation) by latex2sympy
    both_alike: int = 0
    both_differ: int = 0
    ours_only: int = 0
    theirs_only: int = 0


class Difference(BaseModel):
    """A relation the readers read differently, or one only latex2sympy reads."""

    row: str
    source: str
    ours: str
    theirs: str
    why: str = ""  # why our reader left it unread


class LatexReadersReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: list[str]
    steps: int
    constructs: dict[str, ConstructReport]
    total: ConstructReport
    differ: list[Difference]
    theirs_only: list[Difference]
    theirs_only_by_reason: dict[str, int]  # why ours left unread what latex2sympy reads (a refusal or a gap)
    agreement: float  # both_alike / (both_alike + both_differ)
    elapsed_s: float


class _Timeout(Exception):
    pass


@contextmanager
def _bounded(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def theirs(source: str) -> sympy.Basic | None:
    """latex2sympy's relation for a source text (trailing punctuation off), or None where it reads none."""
    from latex2sympy2_extended import latex2sympy

    text = source.strip().rstrip(".,;:").replace("$", "").strip()
    try:
        with _bounded(_PARSE_SECONDS):
            parsed = latex2sympy(text)
    except (_Timeout, Exception):  # noqa: BLE001 - any failure of the other parser is "not read"
        return None
    return parsed if isinstance(parsed, sympy.core.relational.Relational) else None


def ours(rel: Relation) -> tuple[sympy.Expr, sympy.Expr] | None:
    """Our relation's two sides as sympy, or None where they do not evaluate."""
    try:
        return evaluate(rel.lhs_tree), evaluate(rel.rhs_tree)
    except ExpressionError:
        return None


def alike(mine: tuple[sympy.Expr, sympy.Expr], op: str, other: sympy.Basic, rng: random.Random) -> bool:
    """Whether two readings are the same relation: the same kind, and sides equal in value (closed) or at random
    points (names matched by spelling; either side order, since latex2sympy may swap them)."""
    kinds = {"=": sympy.Eq, "!=": sympy.Ne, "<": sympy.StrictLessThan, "<=": sympy.LessThan,
             ">": sympy.StrictGreaterThan, ">=": sympy.GreaterThan}
    if kinds.get(op) is not type(other) and not (op == "=" and isinstance(other, sympy.Eq)):
        return False
    pairs = [(mine, (other.lhs, other.rhs))]
    if op in ("=", "!="):
        pairs.append((mine, (other.rhs, other.lhs)))
    return any(_same(a, b, rng) and _same(c, d, rng) for (a, c), (b, d) in pairs)


def _same(a: sympy.Expr, b: sympy.Expr, rng: random.Random) -> bool:
    # names matched by spelling, case aside (latex2sympy writes `A` as `a`); its `f(x)` is our `f_of_x`
    by_name = {str(s).lower(): s for s in a.free_symbols}
    try:
        applied = {f: sympy.Symbol(f"{f.func}_of_{'_'.join(map(str, f.args))}") for f in b.atoms(AppliedUndef)}
        b = b.subs(applied)
        b = b.subs({s: by_name.get(str(s).lower(), s) for s in b.free_symbols})
        names = sorted(a.free_symbols | b.free_symbols, key=str)
        for _ in range(_POINTS if names else 1):
            point = {s: sympy.Rational(rng.randint(2, 97), rng.randint(2, 13)) for s in names}
            x, y = sympy.N(a.subs(point), 30), sympy.N(b.subs(point), 30)
            gap, size = sympy.N(abs(x - y)), sympy.N(abs(x))
            if not (gap.is_Number and size.is_Number) or gap > sympy.Float("1e-9") * max(size, sympy.Float(1)):
                return False
        return True
    except Exception:  # noqa: BLE001 - a value sympy cannot compare is not the same reading
        return False


def run_latex_readers(data: list[Path], *, limit: int | None = None, seed: int = 0) -> LatexReadersReport:
    """Compare the readers on every step of `data` (first `limit` rows per file)."""
    started = time.perf_counter()
    rng = random.Random(seed)
    constructs = {name: ConstructReport() for name in CONSTRUCTS}
    total = ConstructReport()
    differ: list[Difference] = []
    only: list[Difference] = []
    steps = 0
    by_reason: dict[str, int] = {}
    for path in data:
        rows = read_rows(path)
        for row in rows[:limit] if limit else rows:
            for text in row["steps"]:
                steps += 1
                spans = latex_spans(text)
                math = extract(text)
                read = [(r.source, r) for r in math.relations if r.origin == "latex"]
                unread = [(u.source, None, u.reason.value) for u in math.unread
                          if u.reason not in _NOT_READINGS and any(a <= u.span[0] < b for a, b in spans)]
                for source, rel, why in [*((src, r, "") for src, r in read), *unread]:
                    mine = ours(rel) if rel is not None else None
                    other = theirs(source)
                    if mine is None and other is None:
                        continue
                    kind = _tally(mine, rel, other, rng)
                    for name, pattern in CONSTRUCTS.items():
                        if pattern.search(source):
                            _count(constructs[name], kind)
                    _count(total, kind)
                    if kind == "theirs_only":
                        by_reason[why or "unevaluated"] = by_reason.get(why or "unevaluated", 0) + 1
                    if kind in ("both_differ", "theirs_only"):
                        listed = differ if kind == "both_differ" else only
                        if len(listed) < _MAX_LISTED:
                            listed.append(Difference(row=str(row.get("id", "")), why=why,
                                                     source=" ".join(source.split())[:160],
                                                     ours=rel.text if rel is not None and mine is not None else "-",
                                                     theirs=str(other)[:160]))
    compared = total.both_alike + total.both_differ
    return LatexReadersReport(data=[display_path(p) for p in data], steps=steps, constructs=constructs, total=total,
                              differ=differ, theirs_only=only, theirs_only_by_reason=by_reason, agreement=share(total.both_alike, compared),
                              elapsed_s=round(time.perf_counter() - started, 1))


def _tally(mine: tuple[sympy.Expr, sympy.Expr] | None, rel: Relation | None, other: sympy.Basic | None,
           rng: random.Random) -> str:
    if mine is None:
        return "theirs_only"
    if other is None:
        return "ours_only"
    assert rel is not None
    return "both_alike" if alike(mine, rel.op, other, rng) else "both_differ"


def _count(report: ConstructReport, kind: str) -> None:
    report.relations += 1
    setattr(report, kind, getattr(report, kind) + 1)
    report.ours += kind in ("both_alike", "both_differ", "ours_only")
    report.theirs += kind in ("both_alike", "both_differ", "theirs_only")


def render(report: LatexReadersReport) -> str:
    """The human-readable report."""
    head = f"  {'construct':<12}{'relations':>10}{'ours':>7}{'theirs':>8}{'alike':>7}{'differ':>8}{'ours only':>11}{'theirs only':>13}"

    def line(name: str, c: ConstructReport) -> str:
        return (f"  {name:<12}{c.relations:>10}{c.ours:>7}{c.theirs:>8}{c.both_alike:>7}{c.both_differ:>8}"
                f"{c.ours_only:>11}{c.theirs_only:>13}")

    out = [f"LaTeX readers: {', '.join(report.data)}; {report.steps} steps", head,
           *(line(name, c) for name, c in report.constructs.items()), line("all", report.total),
           f"read alike where both read: {report.agreement:.2%}; elapsed {report.elapsed_s:.1f} s",
           "read differently (ours | latex2sympy):"]
    out += [f"  {d.row}: {d.source}  ->  {d.ours} | {d.theirs}" for d in report.differ]
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(report.theirs_only_by_reason.items(), key=lambda kv: -kv[1]))
    out.append(f"read by latex2sympy only (why ours left it unread: {reasons or '-'}):")
    out += [f"  {d.row} [{d.why}]: {d.source}  ->  {d.theirs}" for d in report.theirs_only]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a ProcessBench JSONL file or a folder of them")
    parser.add_argument("--limit", type=int, default=None, help="the first N rows of each file")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the random comparison points")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if args.data.is_dir():
        files = sorted(args.data.glob("*.jsonl"))
    elif args.data.is_file():
        files = [args.data]
    else:
        files = []
    if not files:
        print(f"error: --data {args.data} holds no JSONL file; pass a ProcessBench file or folder", file=sys.stderr)
        return 2
    report = run_latex_readers(files, limit=args.limit, seed=args.seed)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
