"""The deployment in ``compose.yaml`` (docs/deploy.md) is checked here without Docker: the file
parses, the app containers run ``sixnimmt serve`` with options the command really has, on the
compose file's PostgreSQL, and the proxy sends traffic to every app container with health checks."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer

from sixnimmt.commands.serve import app as serve_app

ROOT = Path(__file__).resolve().parents[1]
yaml = pytest.importorskip("yaml")


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return data


def serve_options() -> set[str]:
    command = typer.main.get_command(serve_app)
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def app_services() -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose()["services"].items() if "sixnimmt" in (s.get("command") or [])}


def test_app_containers_run_serve_with_real_options_on_postgres() -> None:
    apps = app_services()
    assert len(apps) >= 2  # more than one host's worth of processes
    known = serve_options()
    db_user = compose()["services"]["db"]["environment"]["POSTGRES_USER"]
    for name, service in apps.items():
        command = service["command"]
        assert command[:2] == ["sixnimmt", "serve"], name
        options = [arg.split("=", 1)[0] for arg in command[2:]]
        assert set(options) <= known, set(options) - known
        workers = next(arg for arg in command if arg.startswith("--workers="))
        assert int(workers.split("=", 1)[1]) > 1
        assert "--proxy-headers" in options and "--host" in options
        url = service["environment"]["SIXNIMMT_DATABASE_URL"]
        assert url.startswith(f"postgresql+psycopg://{db_user}:") and "@db:5432/" in url
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert "/healthz" in " ".join(service["healthcheck"]["test"])


def test_the_proxy_balances_over_every_app_container_with_health_checks() -> None:
    services = compose()["services"]
    proxy = services["proxy"]
    mounted = {volume.split(":")[1]: volume.split(":")[0] for volume in proxy["volumes"] if volume.startswith("./")}
    caddyfile = (ROOT / mounted["/etc/caddy/Caddyfile"]).read_text()
    upstreams = re.search(r"reverse_proxy ([^{]+)\{", caddyfile)
    assert upstreams is not None
    assert set(upstreams.group(1).split()) == {f"{name}:8000" for name in app_services()}
    assert "health_uri /readyz" in caddyfile
    assert set(proxy["depends_on"]) == set(app_services())
    assert services["db"]["healthcheck"]["test"][0] == "CMD-SHELL"
