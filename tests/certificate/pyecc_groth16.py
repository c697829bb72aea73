"""An independent Groth16 verifier on py_ecc (pure Python), used only by tests."""

from __future__ import annotations

import json

from py_ecc.optimized_bn128 import (
    FQ,
    FQ2,
    FQ12,
    add,
    final_exponentiate,
    multiply,
    neg,
    pairing,
)

ONE = (FQ(1), FQ(1), FQ(1))


def _g1(xy: list) -> tuple:
    return (FQ(int(xy[0])), FQ(int(xy[1])), FQ(1))


def _g2(xy: list) -> tuple:
    return (FQ2([int(xy[0][0]), int(xy[0][1])]), FQ2([int(xy[1][0]), int(xy[1][1])]), FQ2([1, 0]))


def verify(vk_json: str, proof: bytes, public: list[int]) -> bool:
    """e(A, B) == e(α, β)·e(vk_x, γ)·e(C, δ), with B's Fp2 words in Ethereum (c1, c0) order."""
    vk = json.loads(vk_json)
    w = [int.from_bytes(proof[i : i + 32], "big") for i in range(0, 256, 32)]
    a = (FQ(w[0]), FQ(w[1]), FQ(1))
    b = (FQ2([w[3], w[2]]), FQ2([w[5], w[4]]), FQ2([1, 0]))
    c = (FQ(w[6]), FQ(w[7]), FQ(1))
    ic = [_g1(p) for p in vk["IC"]]
    vk_x = ic[0]
    for point, value in zip(ic[1:], public):
        vk_x = add(vk_x, multiply(point, value))
    product = FQ12.one()
    for g2, g1 in (
        (b, neg(a)),
        (_g2(vk["vk_beta_2"]), _g1(vk["vk_alpha_1"])),
        (_g2(vk["vk_gamma_2"]), vk_x),
        (_g2(vk["vk_delta_2"]), c),
    ):
        product *= pairing(g2, g1, final_exponentiate=False)
    return final_exponentiate(product) == FQ12.one()
