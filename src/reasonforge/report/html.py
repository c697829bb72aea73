"""The verdict page: one verdict step by step, server-rendered, with no script at all.

The template escapes every value (autoescape); the only markup inserted as is comes from Pygments (which
escapes the artifact it highlights) and from `dag.dag_svg` (which escapes its labels)."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined, Template, select_autoescape
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from reasonforge.report.dag import STATUS_COLOURS, dag_svg
from reasonforge.report.text import PartKind, TextPart, text_parts
from reasonforge.report.view import VerdictView

__all__ = ["PAGE_CSP", "page_template", "verdict_page"]

PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
"""Nothing on the page needs a script, a frame or anything remote."""

# Pygments lexer per artifact language; the logic formats have no lexer and are shown plain.
_LEXERS = {"python": "python", "py": "python", "python3": "python", "coq": "coq", "lean4": "lean4", "lean": "lean4",
           "smtlib": "scheme", "smt2": "scheme", "sympy": "python"}
_FORMATTER = HtmlFormatter(cssclass="hl", nowrap=False)


@cache
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("reasonforge.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["highlight"] = _highlight
    env.filters["reasoning_parts"] = _reasoning
    env.filters["reasoning"] = lambda text: _reasoning(text_parts(text))
    return env


def page_template(name: str) -> Template:
    """A template of the report's pages (autoescaped, strict about undefined values)."""
    return _environment().get_template(name)


def _highlight(artifact: str, language: str) -> Markup:
    try:
        lexer = get_lexer_by_name(_LEXERS.get(language, language or "text"))
    except ClassNotFound:  # an older Pygments without this language
        lexer = get_lexer_by_name("text")
    return Markup(highlight(artifact, lexer, _FORMATTER))


def _reasoning(parts: tuple[TextPart, ...]) -> Markup:
    """A step's text in monospace: its prose as written, its fenced code blocks highlighted as code."""
    out = []
    for part in parts:
        if part.kind is PartKind.CODE:
            out.append(_highlight(part.text, part.language or "text"))
        else:
            out.append(Markup('<pre class="prose">{}</pre>').format(part.text))
    return Markup("").join(out)


def verdict_page(view: VerdictView) -> str:
    """The whole HTML document for `view`."""
    return _environment().get_template("verdict.html.j2").render(
        v=view,
        verdict=view.verdict,
        dag=dag_svg(view),
        colours={status.value: colours for status, colours in STATUS_COLOURS.items()},
        shown_statuses={step.status.value for step in view.steps},
        highlight_css=Markup(_FORMATTER.get_style_defs(".hl")),
    )
