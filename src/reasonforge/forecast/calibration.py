"""Calibration: reliability table and diagram, Murphy decomposition, expected calibration error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, Field


class ReliabilityBin(BaseModel):
    """One forecast bin: how often the event happened when forecasts fell in [lo, hi)."""

    lo: float
    hi: float
    n: int
    mean_forecast: float | None
    observed_rate: float | None


class MurphyDecomposition(BaseModel):
    """Brier = reliability − resolution + uncertainty (grouped by distinct forecast value, so exact)."""

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    n: int

    @property
    def recomposed(self) -> float:
        """reliability − resolution + uncertainty."""
        return self.reliability - self.resolution + self.uncertainty


class CalibrationReport(BaseModel):
    """`forecast calibration`: the table behind the plot and the summary numbers."""

    n: int
    n_unparsed: int
    n_missing: int = Field(default=0, ge=0, description="items with no prediction row, left out (not scored)")
    bins: list[ReliabilityBin]
    ece: float | None
    murphy: MurphyDecomposition | None
    plot: str | None = None


def _valid(p: ArrayLike, outcome: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p_arr = np.asarray(p, dtype=np.float64)
    o_arr = np.asarray(outcome, dtype=np.float64)
    if p_arr.shape != o_arr.shape:
        raise ValueError(f"forecasts have shape {p_arr.shape} but outcomes have shape {o_arr.shape}")
    ok = ~np.isnan(p_arr)  # calibration is a property of stated forecasts; unparsed replies have none
    return p_arr[ok], o_arr[ok]


def _bin_index(p: NDArray[np.float64], bins: int) -> NDArray[np.int64]:
    # Equal-width bins; p = 1 goes into the last bin rather than a bin of its own.
    return np.minimum((p * bins).astype(np.int64), bins - 1)


def reliability(p: ArrayLike, outcome: ArrayLike, bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width reliability table over [0, 1]."""
    p_arr, o_arr = _valid(p, outcome)
    idx = _bin_index(p_arr, bins)
    n = np.bincount(idx, minlength=bins)
    sum_p = np.bincount(idx, weights=p_arr, minlength=bins)
    sum_o = np.bincount(idx, weights=o_arr, minlength=bins)
    return [
        ReliabilityBin(lo=k / bins, hi=(k + 1) / bins, n=int(n[k]),
                       mean_forecast=float(sum_p[k] / n[k]) if n[k] else None,
                       observed_rate=float(sum_o[k] / n[k]) if n[k] else None)
        for k in range(bins)
    ]


def expected_calibration_error(p: ArrayLike, outcome: ArrayLike, bins: int = 10) -> float | None:
    """ECE = Σ_bins (n_b / N)·|mean forecast − observed rate| over equal-width bins."""
    p_arr, o_arr = _valid(p, outcome)
    if p_arr.size == 0:
        return None
    idx = _bin_index(p_arr, bins)
    # |Σ_b (p − o)| = n_b·|mean forecast − observed rate|
    gap = np.abs(np.bincount(idx, weights=p_arr - o_arr, minlength=bins))
    return float(gap.sum() / p_arr.size)


def murphy_decomposition(p: ArrayLike, outcome: ArrayLike) -> MurphyDecomposition | None:
    """Murphy (1973) decomposition grouped by distinct forecast values, which makes it sum exactly."""
    p_arr, o_arr = _valid(p, outcome)
    if p_arr.size == 0:
        return None
    values, idx = np.unique(p_arr, return_inverse=True)
    n_k = np.bincount(idx).astype(np.float64)
    o_k = np.bincount(idx, weights=o_arr) / n_k
    base = o_arr.mean()
    total = p_arr.size
    return MurphyDecomposition(
        brier=float(np.mean((p_arr - o_arr) ** 2)),
        reliability=float(np.sum(n_k * (values - o_k) ** 2) / total),
        resolution=float(np.sum(n_k * (o_k - base) ** 2) / total),
        uncertainty=float(base * (1.0 - base)),
        n=int(total),
    )


def calibration_report(p: ArrayLike, outcome: ArrayLike, bins: int = 10, *, n_missing: int = 0) -> CalibrationReport:
    """Reliability table, ECE and Murphy decomposition in one report (`n_missing`: items left out unanswered)."""
    p_arr = np.asarray(p, dtype=np.float64)
    return CalibrationReport(n=int(np.sum(~np.isnan(p_arr))), n_unparsed=int(np.sum(np.isnan(p_arr))), n_missing=n_missing,
                             bins=reliability(p_arr, outcome, bins), ece=expected_calibration_error(p_arr, outcome, bins),
                             murphy=murphy_decomposition(p_arr, outcome))


def plot_reliability(report: CalibrationReport, path: str | Path, *, title: str = "Reliability", label: str = "forecast",
                     reference: CalibrationReport | None = None, reference_label: str = "market") -> Path:
    """Write the reliability diagram as a PNG (Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, (ax, hist) = plt.subplots(2, 1, figsize=(5.5, 6.5), height_ratios=(3, 1), sharex=True)
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1, label="perfect calibration")
    for rep, name, style in ((report, label, "o-"), (reference, reference_label, "s:")):
        if rep is None:
            continue
        pts = [(b.mean_forecast, b.observed_rate) for b in rep.bins if b.n]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, label=f"{name} (ECE {rep.ece:.3f})" if rep.ece is not None else name)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_ylabel("observed frequency")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)
    widths = [b.hi - b.lo for b in report.bins]
    hist.bar([b.lo for b in report.bins], [b.n for b in report.bins], width=widths, align="edge",
             color="tab:blue", alpha=0.6, edgecolor="white")
    hist.set_xlabel("forecast probability")
    hist.set_ylabel("items")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, format="png")  # exactly at `path`: no suffix appended to a bare name
    plt.close(fig)
    return path
