"""Request dependencies: the app state and the authenticated, scoped, rate-limited caller."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPBearer

from reasonforge.service.accounts import (
    Principal,
    Scope,
    Tier,
    authenticate,
    require_scope,
)
from reasonforge.service.routes.state import AppState

LOCAL_PRINCIPAL = Principal(
    key_id="local",
    name="local (authentication disabled)",
    scopes=[s.value for s in Scope],
    tier=Tier.ENTERPRISE,
)
"""The caller when `require_auth` is off (trusted local use only)."""

# Declared for the OpenAPI document ("Authorize" in /docs); the header itself is read by `caller`.
_bearer = HTTPBearer(
    auto_error=False, description="An API key: `Authorization: Bearer rf_...`"
)


async def app_state(request: Request) -> AppState:
    """This app's `AppState` (async: no thread hop for an attribute read)."""
    return request.app.state.rf


def resolve_principal(
    state: AppState, authorization: str | None, scope: str
) -> Principal:
    """Authenticate, check `scope`, spend one rate-limit token; raises the matching ServiceError."""
    if not state.settings.require_auth:
        return LOCAL_PRINCIPAL
    with state.jobs.sessionmaker() as session:
        principal = authenticate(session, authorization)
    require_scope(principal, scope)
    state.limiter.check(principal.key_id)
    return principal


def caller(scope: Scope) -> Callable[..., Principal]:
    """A dependency yielding the principal of a request that needs `scope`."""

    def dependency(
        request: Request,
        state: Annotated[AppState, Depends(app_state)],
        _credentials: Annotated[object, Security(_bearer)],
    ) -> Principal:
        return resolve_principal(
            state, request.headers.get("authorization"), scope.value
        )

    return dependency


State = Annotated[AppState, Depends(app_state)]
"""The app's state, as a route parameter."""
Reader = Annotated[Principal, Depends(caller(Scope.READ))]
"""The caller of an endpoint that reads (scope `read`)."""
Submitter = Annotated[Principal, Depends(caller(Scope.VERIFY))]
"""The caller of an endpoint that submits work (scope `verify`)."""


def stream_owner(state: AppState) -> Callable[[str | None], str]:
    """The WebSocket authenticator: header text in, owner key id out (ServiceError when refused)."""

    def authenticate_stream(authorization: str | None) -> str:
        return resolve_principal(state, authorization, Scope.READ.value).key_id

    return authenticate_stream
