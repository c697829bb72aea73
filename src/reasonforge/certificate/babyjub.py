"""EdDSA-Poseidon on Baby Jubjub: the signature circomlib's EdDSAPoseidonVerifier checks.

Verification is circomlibjs's `verifyPoseidon` equation (S·B8 = R8 + 8·H(R8, A, M)·A); key and
nonce derivation use SHA-512 instead of circomlibjs's Blake-512 (derivation is private to the
signer, so signatures stay interoperable; tests cross-check against circomlibjs).
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict

from reasonforge.certificate.params import FIELD_MODULUS as P
from reasonforge.certificate.poseidon import poseidon

A_COEF = 168700
D_COEF = 168696
SUBORDER = 2736030358979909402780800718157159386076813972158567259200215660948447373041
BASE8 = (
    5299619240641551281634865583518297030282874472190772894086521144482721001553,
    16950150798460657717958625567821834550301663161624707787222815936182638968203,
)
IDENTITY = (0, 1)

Point = tuple[int, int]


class EddsaSignature(BaseModel):
    """An EdDSA-Poseidon signature (R8, S) as decimal-safe ints."""

    model_config = ConfigDict(frozen=True)

    r8x: int
    r8y: int
    s: int


def add(p1: Point, p2: Point) -> Point:
    """Twisted Edwards point addition on Baby Jubjub."""
    x1, y1 = p1
    x2, y2 = p2
    t = D_COEF * x1 * x2 * y1 * y2 % P
    x3 = (x1 * y2 + y1 * x2) * pow(1 + t, -1, P) % P
    y3 = (y1 * y2 - A_COEF * x1 * x2) * pow(1 - t, -1, P) % P
    return x3, y3


def _add_ext(p1: tuple[int, int, int, int], p2: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Unified addition in extended coordinates (X:Y:T:Z), complete on Baby Jubjub (no inversions)."""
    x1, y1, t1, z1 = p1
    x2, y2, t2, z2 = p2
    a = x1 * x2 % P
    b = y1 * y2 % P
    c = D_COEF * t1 % P * t2 % P
    d = z1 * z2 % P
    e = ((x1 + y1) * (x2 + y2) - a - b) % P
    f = (d - c) % P
    g = (d + c) % P
    h = (b - A_COEF * a) % P
    return e * f % P, g * h % P, e * h % P, f * g % P


def mul(point: Point, scalar: int) -> Point:
    """Scalar multiplication by double-and-add in extended coordinates (one inversion at the end)."""
    result = (0, 1, 0, 1)
    addend = (point[0], point[1], point[0] * point[1] % P, 1)
    while scalar:
        if scalar & 1:
            result = _add_ext(result, addend)
        addend = _add_ext(addend, addend)
        scalar >>= 1
    x, y, _, z = result
    z_inv = pow(z, -1, P)
    return x * z_inv % P, y * z_inv % P


def on_curve(point: Point) -> bool:
    """True when the point satisfies a·x² + y² = 1 + d·x²·y²."""
    x, y = point
    x2, y2 = x * x % P, y * y % P
    return (A_COEF * x2 + y2 - 1 - D_COEF * x2 * y2) % P == 0


def secret_scalar(seed: bytes) -> int:
    """The signing scalar derived from a 32-byte seed."""
    if len(seed) != 32:
        raise ValueError("a Baby Jubjub seed is 32 bytes")
    digest = hashlib.sha512(b"reasonforge/babyjub/key" + seed).digest()
    return int.from_bytes(digest, "little") % SUBORDER or 1


def public_key(seed: bytes) -> Point:
    """Public key A = s·B8 for a seed."""
    return mul(BASE8, secret_scalar(seed))


def sign(seed: bytes, message: int) -> EddsaSignature:
    """Sign a field element; deterministic nonce from the seed and message."""
    if not 0 <= message < P:
        raise ValueError("EdDSA-Poseidon signs a BN254 field element")
    s = secret_scalar(seed)
    a = mul(BASE8, s)
    nonce = hashlib.sha512(b"reasonforge/babyjub/nonce" + seed + message.to_bytes(32, "little")).digest()
    r = int.from_bytes(nonce, "little") % SUBORDER
    r8 = mul(BASE8, r)
    hm = poseidon([r8[0], r8[1], a[0], a[1], message])
    return EddsaSignature(r8x=r8[0], r8y=r8[1], s=(r + hm * 8 * s) % SUBORDER)


def verify(pub: Point, message: int, sig: EddsaSignature) -> bool:
    """circomlibjs verifyPoseidon: S < suborder, points on curve, S·B8 == R8 + 8·h·A."""
    r8 = (sig.r8x, sig.r8y)
    if not (0 <= sig.s < SUBORDER and on_curve(r8) and on_curve(pub) and 0 <= message < P):
        return False
    hm = poseidon([r8[0], r8[1], pub[0], pub[1], message])
    return mul(BASE8, sig.s) == add(r8, mul(pub, 8 * hm))
