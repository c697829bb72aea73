"""Complexity claims: parse `# complexity: O(...)` comments, fit measured run times, judge the claim.

The claim reaches the checker inside the artifact, as a comment on the line(s) just above a function's
`def` (or inside its body), optionally naming the function: `# complexity: O(n log n)` or
`# complexity: count_frequencies O(n)`. The offline code translator writes that comment when the step
text claims a complexity. Inputs of size n come from the artifact's `complexity_input_<function>(n)` or
`complexity_input(n)` (returning the argument tuple), else n (one `int` parameter), a random string
(one `str` parameter) or one list of n pseudo-random ints. Inputs the artifact builds are its author's
evidence: a claim timed on them can be refuted (a violation is a violation on any input) but never
confirmed, so it leaves the step unsupported.

The timings come from harness/rf_child_complexity.py as an event stream (`read_measurement`): every line
must carry the run's token, which the verifier draws and the child reads before the artifact is imported,
and its place in the stream; a line without it, out of order, or the hook's tamper line means the artifact
reached into the timing, and nothing of that run counts.

The fit: time per call is measured in the sandbox over a geometric range of sizes (n = 64, 91, 128, …)
with repeats (minimum, median and median absolute deviation per size). The slope of log t_min against
log n over the largest sizes (after dividing out a claimed log factor) estimates the exponent, with its standard error.
A claim is violated only when slope - 3·stderr exceeds the claimed exponent by `margin` (default 0.5):
a quadratic loop claimed linear (slope ≈ 2) fails; n log n claimed linear (≈ 1.1) or noise does not.
"""

from __future__ import annotations

import ast
import hmac
import io
import math
import re
import tokenize
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Claim", "ComplexityFit", "Measurement", "find_claim", "fit_claim", "input_kind", "parse_big_o",
           "read_measurement"]

_BIG_O = re.compile(r"O\(\s*([^()]*(?:\([^()]*\)[^()]*)*)\)")
_CLAIM_COMMENT = re.compile(r"#\s*complexity\s*:\s*(?:([A-Za-z_]\w*)\s+)?(O\(.*\))", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """A claimed growth rate n^power · (log n)^log_power for `function` (None: decided by position)."""

    text: str
    power: float
    log_power: int
    function: str | None = None


def parse_big_o(text: str) -> Claim | None:
    """`O(1)`, `O(log n)`, `O(n)`, `O(n log n)`, `O(n^2)` / `O(n²)` / `O(n**2)`, `O(n^k)` → Claim.

    With several in the text, the one followed by "time" wins ("each update is O(1), so counting
    takes O(n) time" claims O(n)), else the last one."""
    matches = list(_BIG_O.finditer(text))
    if not matches:
        return None
    timed = [m for m in matches if re.match(r"\s*(?:time|runtime|running time)\b", text[m.end():], re.IGNORECASE)]
    m = (timed or matches)[-1]
    body = m.group(1).replace(" ", "").replace("²", "^2").replace("³", "^3").replace("**", "^").replace("·", "")
    body = body.replace("*", "").lower()
    table = {"1": (0.0, 0), "logn": (0.0, 1), "log(n)": (0.0, 1), "n": (1.0, 0), "nlogn": (1.0, 1),
             "nlog(n)": (1.0, 1), "n^2": (2.0, 0), "n^3": (3.0, 0), "n^2logn": (2.0, 1)}
    if body in table:
        power, log_power = table[body]
        return Claim(m.group(0), power, log_power)
    k = re.fullmatch(r"n\^(\d+(?:\.\d+)?)", body)
    if k:
        return Claim(m.group(0), float(k.group(1)), 0)
    return None


def find_claim(source: str) -> Claim | None:
    """The artifact's `# complexity:` claim and the function it is about, or None."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        tree = ast.parse(source)
    except (SyntaxError, tokenize.TokenError):
        return None
    from reasonforge.verify.code.mutants import implementation_nodes

    funcs = [f for f in implementation_nodes(tree) if not f.name.startswith("complexity_input")]
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _CLAIM_COMMENT.search(tok.string)
        if not m:
            continue
        claim = parse_big_o(m.group(2))
        if claim is None:
            continue
        name = m.group(1)
        if name is None:
            line = tok.start[0]
            inside = [f for f in funcs if f.lineno <= line <= (f.end_lineno or f.lineno)]
            after = [f for f in funcs if f.lineno > line]
            target = inside[0] if inside else (min(after, key=lambda f: f.lineno) if after else (funcs[0] if funcs else None))
            name = target.name if target is not None else None
        if name is None:
            return None
        return Claim(claim.text, claim.power, claim.log_power, name)
    return None


def _best(point: list[float]) -> float:
    """The fastest repeat when measured: other processes only ever add time, so the minimum is the least noisy."""
    return point[3] if len(point) > 3 else point[1]


@dataclass(frozen=True)
class ComplexityFit:
    """The evidence: fitted exponent, its standard error, the allowance and the verdict."""

    claim: str
    function: str
    verdict: str  # consistent | violation | inconclusive
    slope: float | None
    stderr: float | None
    allowed: float
    noise: float | None
    points: list[list[float]]
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "function": self.function, "verdict": self.verdict,
                "slope": None if self.slope is None else round(self.slope, 3),
                "stderr": None if self.stderr is None else round(self.stderr, 3), "allowed": round(self.allowed, 3),
                "noise": None if self.noise is None else round(self.noise, 3),
                "points": [[int(p[0]), float(f"{p[1]:.4g}"), float(f"{_best(p):.4g}")] for p in self.points],
                "message": self.message}


def fit_claim(claim: Claim, points: list[list[float]], *, margin: float = 0.5, tail: int = 12) -> ComplexityFit:
    """Judge `claim` against measured `points` ([n, median_s, mad_s, min_s?]); see the module docstring."""
    usable = [p for p in points if p[0] >= 2 and p[1] > 0 and _best(p) > 0]
    allowed = claim.power + margin
    noise = None
    if usable:
        noise = sorted(p[2] / p[1] for p in usable)[len(usable) // 2]
    fit_points = usable[-tail:]
    if len(fit_points) < 4:
        return ComplexityFit(claim.text, claim.function or "", "inconclusive", None, None, allowed, noise, usable,
                             f"only {len(fit_points)} sizes could be timed; the claim {claim.text} is not judged")
    xs = [math.log(p[0]) for p in fit_points]
    ys = [math.log(_best(p)) - claim.log_power * math.log(math.log(p[0])) for p in fit_points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    resid = [y - (my + slope * (x - mx)) for x, y in zip(xs, ys, strict=True)]
    stderr = math.sqrt(sum(r * r for r in resid) / max(n - 2, 1) / sxx)
    lo_n, hi_n = int(fit_points[0][0]), int(fit_points[-1][0])
    growth = f"run time grows like n^{slope:.2f} (± {stderr:.2f}) over n = {lo_n}..{hi_n}"
    if claim.log_power:
        growth += f" after dividing out (log n)^{claim.log_power}"
    if slope - 3 * stderr > allowed:
        return ComplexityFit(claim.text, claim.function or "", "violation", slope, stderr, allowed, noise, usable,
                             f"`{claim.function}` claims {claim.text} but {growth}")
    return ComplexityFit(claim.text, claim.function or "", "consistent", slope, stderr, allowed, noise, usable,
                         f"{growth}: consistent with {claim.text}")


def input_kind(source: str, function: str) -> str:
    """How the timing child builds default inputs for `function`: "int" or "str" for a single parameter annotated
    so, else "list". Read from the syntax tree, so the child never inspects artifact objects."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, RecursionError, ValueError):
        return "list"
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function),
                None)
    if node is None:
        return "list"
    a = node.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
              *([a.kwarg] if a.kwarg else [])]
    if len(params) != 1 or params[0].annotation is None:
        return "list"
    ann = params[0].annotation
    name = (ann.id if isinstance(ann, ast.Name) else ann.attr if isinstance(ann, ast.Attribute)
            else ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) else "")
    return name.lower() if name.lower() in ("int", "str") else "list"


@dataclass
class Measurement:
    """What one timing run reported, read strictly: `tampered` says why nothing of it counts (None if it
    counts); `by` which builder made the inputs ("artifact", "default", or None when unreported); `complete`
    whether the child reported its end."""

    points: list[list[float]] = field(default_factory=list)
    by: str | None = None
    complete: bool = False
    tampered: str | None = None
    problem: str | None = None  # the child's own report of what stopped it (filter, import, an exception)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_measurement(events: list[dict[str, Any]], token: str) -> Measurement:
    """Read the timing child's events against this run's `token` (see the module docstring)."""
    out = Measurement()
    for k, event in enumerate(events):
        ev = event.get("ev")
        if ev == "tamper":
            out.tampered = f"{_hex_text(event.get('m'))} was refused"
            return out
        if not hmac.compare_digest(str(event.get("t", "")), token):
            out.tampered = "a line without this run's token was written on the harness's event channel"
            return out
        if event.get("k") != k or out.complete:
            out.tampered = "the event stream was replayed or reordered"
            return out
        if ev == "inputs" and k == 0 and event.get("by") in ("artifact", "default"):
            out.by = str(event["by"])
        elif ev == "point" and out.by is not None and all(
                _number(event.get(f)) for f in ("n", "median_s", "mad_s", "min_s")):
            out.points.append([event["n"], event["median_s"], event["mad_s"], event["min_s"]])
        elif ev == "complexity_done" and event.get("count") == len(out.points):
            out.complete = True
        elif ev in ("filter_error", "import_error", "error"):
            out.problem = f"{ev}: {_hex_text(event.get('m'))}"
        else:
            out.tampered = f"an event the timing child does not write ({str(ev)[:40]!r})"
            return out
    return out


def _hex_text(value: Any) -> str:
    """A marshalled str sent as hex (the harness's messages), read by the plain-data reader, or a placeholder."""
    from reasonforge.verify.code.values import read_marshal

    try:
        text = read_marshal(bytes.fromhex(str(value)))
    except ValueError:
        return "something"
    return text[:200] if isinstance(text, str) else "something"
