"""The step DAG as an inline SVG: a node per step coloured by status, an arrow per dependency, the cascade from a
failed step drawn in red. No script: the browser draws it as it arrives, and every label is escaped."""

from __future__ import annotations

from markupsafe import Markup, escape

from reasonforge.report.view import VerdictView
from reasonforge.types import StepStatus

__all__ = ["STATUS_COLOURS", "dag_svg"]

# Fill and stroke per status; the legend and the PDF use the same colours.
STATUS_COLOURS: dict[StepStatus, tuple[str, str]] = {
    StepStatus.VERIFIED: ("#d9f2de", "#106b21"),
    StepStatus.FAILED: ("#f8d0d0", "#a11111"),
    StepStatus.INVALIDATED: ("#f3e3e3", "#a11111"),
    StepStatus.UNSUPPORTED: ("#fff1cc", "#8a6100"),
    StepStatus.ERROR: ("#e6e6e6", "#555555"),
}
NODE_W, NODE_H, GAP_X, GAP_Y, PAD = 64, 34, 46, 18, 12


def _centre(column: int, row: int) -> tuple[float, float]:
    return PAD + column * (NODE_W + GAP_X) + NODE_W / 2, PAD + row * (NODE_H + GAP_Y) + NODE_H / 2


def dag_svg(view: VerdictView) -> Markup:
    """The DAG of `view` as an SVG element (safe to insert into a page as is)."""
    lay = view.layout
    width = 2 * PAD + lay.columns * NODE_W + (lay.columns - 1) * GAP_X
    height = 2 * PAD + lay.rows * NODE_H + (lay.rows - 1) * GAP_Y
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" class="dag" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="step dependency graph">'),
        ("<defs>"
        # in user units: an arrowhead as large on the thicker cascade edge as on the others
        '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" '
        'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#777"/></marker>'
        '<marker id="arrow-bad" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" '
        'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#a11111"/>'
        '</marker>'
        "</defs>"),
    ]
    for dep, sid in lay.edges:
        (x1, y1), (x2, y2) = _centre(*lay.position[dep]), _centre(*lay.position[sid])
        style = ('class="edge cascade" stroke="#a11111" stroke-width="2" stroke-dasharray="5 3" '
                 'marker-end="url(#arrow-bad)"' if (dep, sid) in lay.cascade
                 else 'class="edge" stroke="#777" stroke-width="1.2" marker-end="url(#arrow)"')
        parts.append(
            f'<line {style} data-from="{dep}" data-to="{sid}" x1="{x1 + NODE_W / 2:.1f}" y1="{y1:.1f}" '
            f'x2="{x2 - NODE_W / 2:.1f}" y2="{y2:.1f}"/>'
        )
    for step in view.steps:
        column, row = lay.position[step.step_id]
        cx, cy = _centre(column, row)
        fill, stroke = STATUS_COLOURS[step.status]
        label = escape(f"step {step.step_id}: {step.status.value}")
        parts.append(
            f'<a href="#step-{step.step_id}"><g class="node {step.status.value}" data-step="{step.step_id}">'
            f"<title>{label}</title>"
            f'<rect x="{cx - NODE_W / 2:.1f}" y="{cy - NODE_H / 2:.1f}" width="{NODE_W}" height="{NODE_H}" rx="7" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{2.5 if step.status is StepStatus.FAILED else 1.5}"/>'
            f'<text x="{cx:.1f}" y="{cy + 5:.1f}" text-anchor="middle" font-size="14" fill="{stroke}">'
            f"{step.step_id}</text></g></a>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
