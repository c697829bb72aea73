"""Complexity claims: parse `# complexity: O(...)` comments, fit measured run times, judge the claim.

The claim reaches the checker inside the artifact, as a comment on the line(s) just above a function's
`def` (or inside its body), optionally naming the function: `# complexity: O(n log n)` or
`# complexity: count_frequencies O(n)`. The offline code translator writes that comment when the step
text claims a complexity. Inputs of size n come from the artifact's `complexity_input_<function>(n)` or
`complexity_input(n)` (returning the argument tuple), else n (one `int` parameter), a random string
(one `str` parameter) or one list of n pseudo-random ints.

The fit: time per call is measured in the sandbox over a geometric range of sizes (n = 64, 91, 128, …)
with repeats (minimum, median and median absolute deviation per size). The slope of log t_min against
log n over the largest sizes (after dividing out a claimed log factor) estimates the exponent, with its standard error.
A claim is violated only when slope - 3·stderr exceeds the claimed exponent by `margin` (default 0.5):
a quadratic loop claimed linear (slope ≈ 2) fails; n log n claimed linear (≈ 1.1) or noise does not.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from dataclasses import dataclass
from typing import Any

__all__ = ["Claim", "ComplexityFit", "find_claim", "fit_claim", "parse_big_o"]

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
