"""First-order and propositional logic in FOLIO notation: AST, parser, printer, helpers, Z3 and SMT-LIB."""

from reasonforge.lang.logic.formulas import (
    atoms,
    canonical,
    children,
    close,
    conj,
    conjuncts,
    constants,
    disj,
    domain_closure,
    exists,
    forall,
    free_vars,
    is_instance,
    negate,
    nodes,
    rebuild,
    size,
    substitute,
    terms,
    universal_prefix,
)
from reasonforge.lang.logic.parse import FolArtifact, FolParser, parse_fol_artifact, parse_formula
from reasonforge.lang.logic.smtlib import SmtlibRendering, smt_symbol, to_smtlib, to_smtlib_script
from reasonforge.lang.logic.syntax import (
    MAX_DEPTH,
    And,
    Atom,
    BoolConst,
    Const,
    Eq,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Quant,
    Signature,
    Term,
    Var,
    Xor,
    is_propositional,
    signature_of,
    to_text,
)
from reasonforge.lang.logic.z3_encoding import Z3Encoding

__all__ = [
    "MAX_DEPTH", "And", "Atom", "BoolConst", "Const", "Eq", "FolArtifact", "FolParser", "Formula", "Iff",
    "Implies", "Not", "Or", "Quant", "Signature", "SmtlibRendering", "Term", "Var", "Xor", "Z3Encoding", "atoms",
    "canonical", "children", "close", "conj", "conjuncts", "constants", "disj", "domain_closure", "exists", "forall",
    "free_vars", "is_instance", "is_propositional", "negate", "nodes",
    "parse_fol_artifact", "parse_formula", "rebuild", "signature_of", "size", "smt_symbol", "substitute", "terms",
    "to_smtlib", "to_smtlib_script", "to_text", "universal_prefix",
]
