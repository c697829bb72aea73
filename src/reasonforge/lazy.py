"""Lazy package exports (PEP 562): a package says where each public name lives and imports it on first use.

Packages whose modules pull in heavy dependencies (bittensor, FastAPI, tantivy, the embedding model) keep
`import reasonforge.<package>` cheap this way, so the CLI starts fast and tools load only when used.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` importing `package.<exports[name]>` when `name` is first read."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value  # later reads find it directly and skip this hook
        return value

    return __getattr__
