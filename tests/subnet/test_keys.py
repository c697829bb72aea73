"""Identities: deterministic dev keys, on-disk wallets, and btauth/1 signatures."""

from __future__ import annotations

from pathlib import Path

import bittensor
import pytest
from bittensor import http_auth

from reasonforge.subnet.errors import WalletError
from reasonforge.subnet.keys import Identity

ALICE_SS58 = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"  # substrate's well-known //Alice


def test_dev_uri_matches_substrate_alice() -> None:
    assert Identity.from_seed("//Alice").hotkey == ALICE_SS58


def test_seeds_are_deterministic_and_distinct() -> None:
    assert Identity.from_seed("//miner-3").hotkey == Identity.from_seed("//miner-3").hotkey
    assert Identity.from_seed("//miner-3").hotkey != Identity.from_seed("//miner-4").hotkey
    assert Identity.from_seed("validator one").hotkey == Identity.from_seed("validator one").hotkey
    assert Identity.from_seed("validator one").hotkey != Identity.from_seed("validator two").hotkey


def test_empty_seed_is_a_clear_error() -> None:
    with pytest.raises(WalletError, match="empty key seed"):
        Identity.from_seed("  ")


def test_identity_is_a_bittensor_signer_that_http_auth_accepts() -> None:
    identity = Identity.from_seed("//validator")
    receiver = Identity.from_seed("//miner-1")
    assert isinstance(identity, bittensor.Signer)
    assert bittensor.resolve_signer(identity, role="hotkey") is identity
    headers = http_auth.sign(identity, method="POST", path="/task", body=b"{}", receiver_ss58=receiver.hotkey)
    caller = http_auth.verify(
        headers, b"{}", method="POST", path="/task", self_hotkey_ss58=receiver.hotkey,
        nonce_store=http_auth.InMemoryNonceStore(),
    )
    assert caller.hotkey_ss58 == identity.hotkey
    with pytest.raises(http_auth.BadSignature):
        http_auth.verify(
            headers, b"{ }", method="POST", path="/task", self_hotkey_ss58=receiver.hotkey,
            nonce_store=http_auth.InMemoryNonceStore(),
        )


def test_from_wallet_loads_an_on_disk_hotkey(tmp_path: Path) -> None:
    wallet = bittensor.Wallet("owner", "miner", str(tmp_path))
    wallet.create_new_hotkey(suppress=True)
    identity = Identity.from_wallet("owner", "miner", str(tmp_path))
    assert identity.hotkey == wallet.hotkeypub.ss58_address
    message = b"payload"
    assert bittensor.sp_core.verify(message, identity.sign(message), identity.hotkey, identity.crypto_type)
    assert "owner/miner" in repr(identity)


def test_from_wallet_missing_hotkey_names_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(WalletError) as info:
        Identity.from_wallet("nobody", "hot", str(tmp_path))
    assert str(tmp_path / "nobody" / "hotkeys" / "hot") in info.value.message
    assert "btcli wallet new_hotkey" in info.value.message


def test_from_wallet_corrupt_hotkey_is_a_clear_error(tmp_path: Path) -> None:
    keyfile = tmp_path / "owner" / "hotkeys" / "broken"
    keyfile.parent.mkdir(parents=True)
    keyfile.write_text("not a key")
    with pytest.raises(WalletError, match="cannot load hotkey file"):
        Identity.from_wallet("owner", "broken", str(tmp_path))
