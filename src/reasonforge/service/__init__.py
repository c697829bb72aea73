"""Verification as a service: HTTP API, durable jobs, webhooks, API keys and billing.

`create_app` loads lazily, so importing a light submodule (errors, settings) stays cheap.
"""

from __future__ import annotations

__all__ = ["ServiceSettings", "create_app"]


def __getattr__(name: str):
    if name == "create_app":
        from reasonforge.service.app import create_app

        return create_app
    if name == "ServiceSettings":
        from reasonforge.service.settings import ServiceSettings

        return ServiceSettings
    raise AttributeError(name)
