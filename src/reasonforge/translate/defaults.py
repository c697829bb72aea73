"""The translator a request gets when it brings no translations and names none."""

from __future__ import annotations

from reasonforge.errors import ReasonForgeError
from reasonforge.translate.logic import LogicTranslator
from reasonforge.translate.protocol import Translator
from reasonforge.types import Domain


def default_translator(domain: Domain) -> Translator:
    """The offline rule-based translator for `domain` (`logic`; `code`: fenced blocks and examples)."""
    if Domain(domain) is Domain.LOGIC:
        return LogicTranslator()
    if Domain(domain) is Domain.CODE:
        from reasonforge.translate.code_blocks import CodeBlockTranslator

        return CodeBlockTranslator()
    raise ReasonForgeError(
        f"no offline translator is available for domain '{Domain(domain).value}'; "
        "send `translations` with the request or configure a translator",
        field="domain",
    )
