"""Who may talk to the workbench: one browser, on this machine, that came with the token.

``sdcflow ui`` prints (and opens) a URL holding a random access token, as Jupyter does. The
first request that shows it is given a session cookie (HttpOnly, SameSite=Strict) and sent
on without the token; the token is then spent, so a second browser, or anyone who reads the
URL later, gets nothing. Every request needs the session cookie; every request that changes
something also needs the CSRF token of the page (the ``X-CSRF-Token`` header that htmx sends,
or a ``csrf_token`` form field) and, when the browser sends one, an ``Origin`` of this
server. A ``Host`` other than the loopback names is refused (DNS rebinding). Responses
forbid framing, sniffing, referrers to other sites and any script, style or connection from elsewhere."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.datastructures import MutableHeaders
from starlette.responses import PlainTextResponse, RedirectResponse

LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
COOKIE = "sdcflow_ui_session"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def new_token() -> str:
    """A random access token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


@dataclass
class Access:
    """The access token (until spent), the session it was exchanged for and the CSRF token
    the pages carry."""

    token: str
    session: str | None = None
    csrf: str = field(default_factory=new_token)

    def exchange(self, token: str) -> str | None:
        """The new session id if ``token`` is the unspent access token, else None."""
        if self.session is not None or not hmac.compare_digest(token, self.token):
            return None
        self.session = new_token()
        return self.session

    def has_session(self, value: str | None) -> bool:
        return (self.session is not None and value is not None
                and hmac.compare_digest(value, self.session))

    def csrf_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value, self.csrf)


def _forbidden(message: str) -> PlainTextResponse:
    return PlainTextResponse(message, status_code=403, headers=_headers())


def _headers() -> dict[str, str]:
    return {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
            "Cache-Control": "no-store"}


def _cookies(scope) -> dict[str, str]:
    jar = SimpleCookie()
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except CookieError:  # a malformed cookie header is no session
                return {}
    return {k: m.value for k, m in jar.items()}


def _header(scope, key: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == key:
            return value.decode("latin-1")
    return None


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[: host.index("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if ":" in host else host


class Guard:
    """ASGI middleware enforcing :class:`Access` on every HTTP request (see the module)."""

    def __init__(self, app, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # no websockets
        host = _header(scope, b"host") or ""
        if _hostname(host) not in LOOPBACK:
            await _forbidden("forbidden: this server answers only on 127.0.0.1")(
                scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if "token" in query:
            session = self.access.exchange(query["token"][0])
            if session is None:
                await _forbidden("forbidden: this link is spent or wrong; start "
                                 "'sdcflow ui' again for a new one")(scope, receive, send)
                return
            rest = {k: v for k, v in query.items() if k != "token"}
            target = scope["path"] + ("?" + urlencode(rest, doseq=True) if rest else "")
            response = RedirectResponse(target, status_code=303, headers=_headers())
            response.set_cookie(COOKIE, session, httponly=True, samesite="strict", path="/")
            await response(scope, receive, send)
            return
        if not self.access.has_session(_cookies(scope).get(COOKIE)):
            await _forbidden("forbidden: open the link 'sdcflow ui' printed")(
                scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin is not None and (urlsplit(origin).netloc != host):
                await _forbidden("forbidden: cross-site request")(scope, receive, send)
                return
            if not self.access.csrf_ok(_header(scope, b"x-csrf-token")):
                receive = await _csrf_from_form(scope, receive, self.access)
                if receive is None:
                    await _forbidden("forbidden: missing or wrong CSRF token")(
                        scope, receive, send)
                    return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in _headers().items():
                    headers.setdefault(key, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _csrf_from_form(scope, receive, access: Access):
    """A ``receive`` replaying the body when its urlencoded ``csrf_token`` field is right
    (plain form posts without htmx), else None."""
    kind = (_header(scope, b"content-type") or "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        return None
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > 10_000_000:
            return None
    values = parse_qs(body.decode("utf-8", "replace")).get("csrf_token", [None])
    if not access.csrf_ok(values[0]):
        return None
    sent = False

    async def replay():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
