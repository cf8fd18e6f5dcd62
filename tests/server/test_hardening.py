"""Deployment hardening (issue #53): forwarded addresses believed from the shipped proxy only, the
security headers on every page, and slow requests closed."""

from __future__ import annotations

from pathlib import Path

import yaml
from fastapi.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

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
