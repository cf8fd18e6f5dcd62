"""Deployment hardening (issue #53): forwarded addresses believed from the shipped proxy only, the
security headers on every page, and slow requests closed."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import uvicorn
import yaml
from fastapi.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from sixnimmt.server.web.slow_clients import MAX_HEAD_BYTES, TimedH11Protocol

from .conftest import make_client

ROOT = Path(__file__).resolve().parents[2]


def shipped_trusted_proxies() -> str:
    """The ``--forwarded-allow-ips`` the shipped deployment (compose.yaml) gives its app containers."""
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    command = services["app1"]["command"]
    return str(next(arg.split("=", 1)[1] for arg in command if arg.startswith("--forwarded-allow-ips=")))


def test_a_spoofed_forwarded_for_from_outside_the_proxy_changes_nothing(tmp_path: Path) -> None:
    trusted = shipped_trusted_proxies()
    assert trusted != "*"
    with make_client(f"sqlite:///{tmp_path / 'proxy.db'}", create_per_minute=6.0, create_burst=10) as server:
        behind = ProxyHeadersMiddleware(server.app, trusted_hosts=trusted)  # as `serve --proxy-headers` runs it
        table = {"name": "x", "seats": [{"kind": "open"}]}

        def creations(client: TestClient) -> list[int]:
            return [client.post("/api/tables", json=table, headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
                    for i in range(12)]

        # a client reaching the app directly, naming a new address each time: one address, limited
        assert creations(TestClient(behind, client=("203.0.113.9", 4000))) == [201] * 10 + [429] * 2
        # the proxy's forwarded addresses are believed: twelve clients
        proxy = trusted.split(",")[0].strip()
        assert creations(TestClient(behind, client=(proxy, 4000))) == [201] * 12


def test_every_page_carries_the_security_headers(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'headers.db'}") as client:
        code = client.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}]}).json()["code"]
        answers = [client.get(path) for path in ("/", "/static/js/app.js", "/api/config", f"/api/tables/{code}",
                                                 "/api/tables/NOPE9", "/healthz", "/no/such/page")]
        answers.append(client.post("/api/tables", json={"name": "x"}))  # a refusal (422)
        for answer in answers:
            policy = answer.headers.get("content-security-policy", "")
            directives = {d.strip().split(" ")[0]: d.strip() for d in policy.split(";") if d.strip()}
            assert directives.get("frame-ancestors") == "frame-ancestors 'none'", answer.url
            assert directives["script-src"] == "script-src 'self'"  # no inline script, nothing from elsewhere
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert answer.headers["referrer-policy"] in ("same-origin", "no-referrer", "strict-origin")
        # the page's own scripts are files, never inline
        page = answers[0].text
        assert "<script" in page and all('src="' in tag.split(">")[0] for tag in page.split("<script")[1:])


class QuickTimeouts(TimedH11Protocol):
    header_timeout = 0.2
    body_timeout = 0.2


def _serve(app: Any) -> tuple[uvicorn.Server, int, threading.Thread]:
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=QuickTimeouts, log_level="warning",
                            h11_max_incomplete_event_size=MAX_HEAD_BYTES, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        threading.Event().wait(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, port, thread


def _closed(sock: socket.socket) -> bytes:
    """What the server sends before it closes the connection (b"" when it just closes)."""
    sock.settimeout(10)  # a bound on a hang, not a timing: the server closes long before
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_a_slow_request_is_closed_and_a_huge_head_refused() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    server, port, thread = _serve(app)
    try:
        with socket.create_connection(("127.0.0.1", port)) as head_only:  # headers never finished
            head_only.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            assert _closed(head_only) == b""
        with socket.create_connection(("127.0.0.1", port)) as slow_body:  # a body that never comes
            slow_body.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab")
            assert _closed(slow_body) == b""
        with socket.create_connection(("127.0.0.1", port)) as huge:
            huge.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
            assert _closed(huge).startswith(b"HTTP/1.1 431")
        with socket.create_connection(("127.0.0.1", port)) as fine:  # a whole request is answered
            fine.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert _closed(fine).startswith(b"HTTP/1.1 200")
    finally:
        server.should_exit = True
        thread.join(10)
