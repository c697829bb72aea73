"""GBNF grammars of the reply format, so a small local model can only write a reply our parsers read.

llama.cpp constrains decoding to a grammar (GBNF). Tried unconstrained, a 1.5B model's FOL never parsed
(unbalanced parentheses, prose inside predicates): under these grammars every reply is one fenced block in the
language asked and nothing else (`parsers.parse_artifact_reply`). The DEPENDENCIES and CONFIDENCE lines a free reply
ends with are left out: the step's dependencies are the request's, a small model's self-rated confidence says
nothing, and on two CPU cores their ~15 tokens a step cost more than half a second. A grammar fixes the syntax
only; what the artifact says is checked as for any other model (the checker and the soundness gate).

- `fol`: premise lines and one `⊢ conclusion` line, formulas built from `∀x`/`∃x`, `¬ ∧ ∨ → ↔`, parentheses
  (balanced by construction), predicates `Name(args)` with identifier arguments (`lang.logic.parse`).
- `sympy`: up to 10 lines of the maths artifact format (`let`, `define`, `assume`, `fact`, `claim`, one per
  line): a step states a few relations, and a small model that loops fills any room it is given.
Other languages have no grammar (None): Python and the proof assistants are left to the checkers' feedback.
"""

from __future__ import annotations

from reasonforge.types import ArtifactLanguage

__all__ = ["grammar_for"]

_FOL = r'''
root ::= "```fol\n" line{0,10} goal "```"
line ::= formula "\n"
goal ::= "⊢ " formula "\n"
formula ::= unary (ws binop ws unary)*
binop ::= "∧" | "∨" | "→" | "↔"
unary ::= "¬" unary | quant | primary
quant ::= ("∀" | "∃") var " " unary
primary ::= atom | "(" formula ")"
atom ::= pred "(" term (", " term)* ")" | pred
pred ::= [A-Z] [A-Za-z0-9]{0,40}
term ::= var | const
var ::= [a-z]
const ::= [a-z] [a-z0-9_]{1,40}
ws ::= " "
'''

_SYMPY = r'''
root ::= "```sympy\n" line{1,10} "```"
line ::= keyword " " body "\n"
keyword ::= "let" | "define" | "assume" | "fact" | "claim"
body ::= [^\n`]{1,160}
'''

_GRAMMARS = {ArtifactLanguage.FOL: _FOL, ArtifactLanguage.SYMPY: _SYMPY}


def grammar_for(language: ArtifactLanguage) -> str | None:
    """The GBNF grammar of a reply in `language`, or None when the language has none."""
    return _GRAMMARS.get(language)
