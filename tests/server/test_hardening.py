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
