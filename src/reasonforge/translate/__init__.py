"""Translators: natural-language reasoning steps → formal artifacts (DESIGN §2, `translate/`). The readers they
write from live in `lang/`."""

from reasonforge.translate.code_blocks import CodeBlockTranslator
from reasonforge.translate.defaults import default_translator
from reasonforge.translate.logic import LogicTranslator
from reasonforge.translate.protocol import Translator

__all__ = ["CodeBlockTranslator", "LogicTranslator", "Translator", "default_translator"]
