"""Translation benchmarks: dataset readers (`data`), the runner that takes a model's or the offline
translator's artifacts through the checkers (`run`), and the `reasonforge bench` command (`cli`).

Exports load on first use, so the CLI can import `reasonforge.bench.cli` without the solvers.
"""

from __future__ import annotations

from reasonforge.lazy import lazy_exports

_LAZY = {
    "BenchItem": "data",
    "detect_format": "data",
    "load_items": "data",
    "run_bench": "run",
}

__all__ = ["BenchItem", "detect_format", "load_items", "run_bench"]
__getattr__ = lazy_exports(__name__, _LAZY)
