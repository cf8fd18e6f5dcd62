"""The security headers every HTTP answer carries (docs/deploy.md, "Security headers"): a content
security policy that runs only the site's own script files (no inline script, nothing from another
origin), forbids framing the pages anywhere (clickjacking), and keeps browsers from guessing content
types or sending the page's address to other sites."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The pages' policy. Styles may be inline (the pages set a few ``style`` attributes); scripts may not.
#: ``connect-src 'self'`` covers the WebSockets of the same host and port.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
#: The API's own documentation page (FastAPI's Swagger UI) loads its script from a CDN and starts it
#: inline: it keeps every header but a policy that would leave it blank.
DOCS_PATHS = ("/api/docs", "/openapi.json")

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)


class SecurityHeaders:
    """ASGI middleware: adds :data:`HEADERS` and the content security policy to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = not str(scope.get("path", "")).startswith(DOCS_PATHS)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() not in dict(HEADERS)]
                headers += HEADERS
                if policy:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
