"""Errors the subnet layer raises where a user (operator, localnet, CLI) can act on them."""

from __future__ import annotations

from reasonforge.errors import ReasonForgeError


class SubnetError(ReasonForgeError):
    """Base error of the subnet layer: the message says what failed and how to fix it."""

    code = "subnet_error"


class WalletError(SubnetError):
    """A hotkey could not be loaded (missing wallet, unreadable or undecryptable keyfile, bad seed)."""

    code = "wallet_error"


class ChainStateError(SubnetError):
    """The chain refused an operation or its saved state is unusable (unknown hotkey, corrupt snapshot)."""

    code = "chain_state_error"


class ChainUnavailable(SubnetError):
    """The chain could not be reached or answered with an error."""

    code = "chain_unavailable"
