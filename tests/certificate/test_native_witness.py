"""The C++ witness generator: built once with the keys, same witness as the WASM one, same refusals."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from reasonforge.certificate import native_witness, toolchain, validators, witness
from reasonforge.certificate.params import FIELD_MODULUS, SMALL
from reasonforge.certificate.prover import Prover

_WHY = native_witness.unavailable_reason()
needs_native = pytest.mark.skipif(_WHY is not None, reason=f"C++ witness generator unavailable: {_WHY}")


@pytest.fixture(scope="module")
def inputs() -> dict:
    vset = validators.generate(4, threshold=2)
    statement = witness.Statement(
        task_input=secrets.randbelow(1 << 248),
        step_bits=(True, True, False, True),
        salt=secrets.randbelow(FIELD_MODULUS),
        timestamp=1_767_000_000,
        threshold=2,
        stake_threshold=200,
        validator_root=vset.levels(SMALL.merkle_depth)[-1][0],
    )
    slots = witness.sign_statement(vset, statement, SMALL.merkle_depth, [1, 3])
    return witness.circuit_inputs(SMALL, statement, slots, witness.tree_opening(vset, SMALL))


@needs_native
def test_keys_come_with_the_native_generator(prover: Prover) -> None:
    assert native_witness.binary(prover.keys.folder) is not None
    assert prover.witness_engine == "native"


@needs_native
def test_native_and_wasm_witnesses_are_byte_identical(prover: Prover, inputs: dict, tmp_path: Path) -> None:
    wasm = Prover(prover.keys, native=False)
    assert wasm.witness_engine == "wasm"
    a = prover.witness(inputs, tmp_path / "native").read_bytes()
    b = wasm.witness(inputs, tmp_path / "wasm").read_bytes()
    assert a == b and len(a) > 1000


@pytest.mark.parametrize("native", [True, False], ids=["native", "wasm"])
def test_both_engines_refuse_inputs_that_break_a_constraint(
    prover: Prover, inputs: dict, tmp_path: Path, native: bool
) -> None:
    if native and _WHY is not None:
        pytest.skip(f"C++ witness generator unavailable: {_WHY}")
    bad = {**inputs, "verifiedSteps": inputs["verifiedSteps"] + 1}  # more than the bits count
    with pytest.raises(toolchain.ToolchainError) as err:
        Prover(prover.keys, native=native).witness(bad, tmp_path)
    assert "fail" in err.value.message.lower()


def test_missing_tools_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither g++ nor nasm on it
    reason = native_witness.unavailable_reason()
    assert reason is not None and ("nasm" in reason or "x86-64" in reason)


def test_build_without_circom_output_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(toolchain.ToolchainError, match="no circom --c output"):
        native_witness.build(tmp_path)
