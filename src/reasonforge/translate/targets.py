"""Which artifact language a model writes for a domain and proof level (DESIGN §3.3), and how each is fenced.

logic: `propositional` at quick (the model writes FOL, which the engine grounds: models write FOL far
more reliably than hand-grounded atoms), `fol` at standard and formal (or `smtlib` when asked);
code: `python`; mathematics: `sympy` below formal, `coq` or `lean4` at formal per `resolve_prover`.
"""

from __future__ import annotations

import shutil
from typing import Literal

from reasonforge.errors import ReasonForgeError
from reasonforge.types import ArtifactLanguage, Domain, ProofLevel, Prover

__all__ = ["FENCE_TAGS", "LogicFormat", "lean_installed", "model_language", "resolve_prover", "target_language"]

LogicFormat = Literal["fol", "smtlib"]

# Fence info strings accepted for each language the model writes (lower case). The first is the one
# the prompt asks for. `text`/`fol` both appear in practice for FOL: models rarely know a tag for it.
FENCE_TAGS: dict[ArtifactLanguage, tuple[str, ...]] = {
    ArtifactLanguage.FOL: ("fol", "logic", "text", "plaintext", "txt"),
    ArtifactLanguage.SMTLIB: ("smt2", "smtlib", "smt", "smt-lib", "lisp", "scheme"),
    ArtifactLanguage.PYTHON: ("python", "py", "python3"),
    ArtifactLanguage.SYMPY: ("sympy", "text", "plaintext", "txt"),
    ArtifactLanguage.COQ: ("coq", "v", "gallina", "rocq"),
    ArtifactLanguage.LEAN4: ("lean", "lean4"),
}


def lean_installed() -> bool:
    """True when a Lean 4 toolchain (`lean`) is on PATH."""
    return shutil.which("lean") is not None


def resolve_prover(prover: Prover) -> ArtifactLanguage:
    """The artifact language for `prover`; `auto` is Lean 4 when installed, else Coq."""
    prover = Prover(prover)
    if prover is Prover.AUTO:
        return ArtifactLanguage.LEAN4 if lean_installed() else ArtifactLanguage.COQ
    return ArtifactLanguage.COQ if prover is Prover.COQ else ArtifactLanguage.LEAN4


def target_language(domain: Domain, level: ProofLevel, prover: Prover = Prover.AUTO,
                    logic_format: LogicFormat = "fol") -> ArtifactLanguage:
    """The language of the artifact the checker receives for this domain and level."""
    domain, level = Domain(domain), ProofLevel(level)
    if domain is Domain.LOGIC:
        if level is ProofLevel.QUICK:
            return ArtifactLanguage.PROPOSITIONAL
        return ArtifactLanguage.SMTLIB if logic_format == "smtlib" else ArtifactLanguage.FOL
    if domain is Domain.CODE:
        return ArtifactLanguage.PYTHON
    if level is not ProofLevel.FORMAL:
        return ArtifactLanguage.SYMPY
    return resolve_prover(prover)


def model_language(target: ArtifactLanguage) -> ArtifactLanguage:
    """The language the model is asked to write for a target (propositional targets are written as FOL)."""
    target = ArtifactLanguage(target)
    if target is ArtifactLanguage.PROPOSITIONAL:
        return ArtifactLanguage.FOL
    if target not in FENCE_TAGS:
        raise ReasonForgeError(f"no model prompt exists for artifact language '{target.value}'", field="language")
    return target
