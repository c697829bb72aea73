"""Hotkey identities: who signs a request, who receives it, who sets weights.

`Identity` wraps an sr25519 keypair from bittensor. It is itself a bittensor `Signer`
(`ss58_address`, `public_key`, `crypto_type`, `sign`), so `bittensor.http_auth.sign` accepts it
directly; SDK extrinsics take `identity.signer`, the raw keypair.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from bittensor.sp_core import KeyfileError, Keypair
from bittensor.wallet import DEFAULT_WALLET_PATH, Wallet

from reasonforge.subnet.errors import WalletError


class Identity:
    """A hotkey that can sign (satisfies `bittensor.http_auth`'s WalletLike as a Signer)."""

    def __init__(self, keypair: Keypair, *, label: str = "") -> None:
        self._keypair = keypair
        self.label = label

    @classmethod
    def from_seed(cls, seed: str) -> Identity:
        """A deterministic development key: a substrate URI such as "//miner-3", or any other string.

        URIs ("//Alice", "//miner-3") derive from the well-known dev phrase like every substrate tool;
        any other string is hashed (sha256) into the 32-byte seed. Never use these keys on a real network.
        """
        if not seed or not seed.strip():
            raise WalletError('empty key seed; give a dev URI such as "//miner-3" or any non-empty string')
        try:
            if seed.startswith("//"):
                keypair = Keypair.create_from_uri(seed)
            else:
                keypair = Keypair.create_from_seed(hashlib.sha256(seed.encode("utf-8")).digest())
        except (ValueError, KeyfileError) as exc:
            raise WalletError(f"cannot derive a key from seed {seed!r}: {exc}") from None
        return cls(keypair, label=seed)

    @classmethod
    def from_wallet(cls, name: str, hotkey: str, path: str | None = None, password: str | None = None) -> Identity:
        """The hotkey of an on-disk bittensor wallet (`<path>/<name>/hotkeys/<hotkey>`).

        An encrypted hotkey needs `password` (or the bittensor `BT_PW_...` environment variable);
        without either, bittensor prompts on the terminal.
        """
        root = path or DEFAULT_WALLET_PATH
        wallet = Wallet(name, hotkey, root)
        keyfile = Path(root).expanduser() / name / "hotkeys" / hotkey
        fix = (
            f"create it with `btcli wallet new_hotkey --wallet.name {name} --wallet.hotkey {hotkey}` "
            f"or pass the wallet directory that holds it"
        )
        try:
            keypair = wallet.get_hotkey(password)
        except FileNotFoundError:
            raise WalletError(f"no hotkey file at {keyfile}; {fix}") from None
        except PermissionError:
            raise WalletError(f"hotkey file {keyfile} is not readable by this user; fix its permissions") from None
        except KeyfileError as exc:
            raise WalletError(
                f"cannot load hotkey file {keyfile}: {exc}; check the password or regenerate the hotkey"
            ) from None
        return cls(keypair, label=f"{name}/{hotkey}")

    @property
    def hotkey(self) -> str:
        """The hotkey's ss58 address."""
        return self._keypair.ss58_address

    @property
    def signer(self) -> Keypair:
        """The underlying keypair, for SDK calls that take a wallet (set_weights, serve_axon)."""
        return self._keypair

    @property
    def ss58_address(self) -> str:
        """Signer protocol: the address that signs."""
        return self._keypair.ss58_address

    @property
    def public_key(self) -> bytes:
        """Signer protocol: the raw public key."""
        return bytes(self._keypair.public_key)

    @property
    def crypto_type(self) -> int:
        """Signer protocol: 1 = sr25519 (0 = ed25519)."""
        return self._keypair.crypto_type

    def sign(self, payload: bytes) -> bytes:
        """Signer protocol: sign raw bytes with the hotkey."""
        return bytes(self._keypair.sign(payload))

    def __repr__(self) -> str:
        label = f"{self.label!r}, " if self.label else ""
        return f"Identity({label}hotkey={self.hotkey})"
