"""Who Django's `authenticate()` runs: the `authenticate` of each authentication backend the settings list
(AUTHENTICATION_BACKENDS, read as routes of every request by indexer/parsing/pydjango.py) whose parameters take the
credentials given. Django binds `backend.authenticate(request, **credentials)` to each backend's signature and skips
the backends it does not fit: `client.login(username=u, password=p)` runs an EmailBackend's
`authenticate(self, request, username=None, password=None)`, never a ProfileBackend's `(self, request, username=None,
token=None)`.

Every request runs the rest of a backend (its `get_user`, for the session's user), not its `authenticate`.
bench/facts_tests_routes.py, Healthchecks' test files against coverage's: EmailBackend.authenticate 128 listed (95 of
the 97 that run it) -> the 97; ProfileBackend.authenticate 128 -> the 3 that run it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .db import stored_list
from .refs import ANY_CREDENTIALS, BACKEND, credentials, parse_refs
from .symbol import parameter_names

if TYPE_CHECKING:
    from .resolver import CallResolver

AUTHENTICATES = "authenticates with"  # a call's basis: `self.client.login(...)` of a backend's `authenticate`


def authenticating(resolver: CallResolver, ref_text: str) -> list[str] | None:
    """The backends' `authenticate` methods an AUTHENTICATE ref runs (None for any other ref)."""
    refs = parse_refs(ref_text)
    given = credentials(refs[0]) if refs else None
    if given is None:
        return None
    out = []
    for (view,) in resolver.conn.execute("SELECT DISTINCT view FROM routes WHERE view LIKE ?", (BACKEND + "%",)):
        backend = resolver.dotted(view.removeprefix(BACKEND))
        method = resolver.member(backend, "authenticate") if backend is not None else None
        if method is not None and _takes(resolver, str(method["id"]), given):
            out.append(str(method["id"]))
    return sorted(set(out))


def _takes(resolver: CallResolver, method: str, given: frozenset[str]) -> bool:
    """Whether a backend's `authenticate(self, request, ...)` takes credentials by these keywords."""
    row = resolver.conn.execute("SELECT params FROM symbols WHERE id = ?", (method,)).fetchone()
    params = stored_list(row[0]) if row is not None else []
    open_ended = any(str(p).startswith("**") for p in params)  # `**kwargs` takes any keyword
    return ANY_CREDENTIALS in given or open_ended or given <= parameter_names(params) - {"self", "request"}
