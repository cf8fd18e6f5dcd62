"""No token in any log line: a real uvicorn serving the app, a script connecting with the documented
``?token=`` and the browser's ``token.`` subprotocol, and an invitation in a URL: the server's whole
output (access log included, at the most talkative level) holds none of them."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

from sixnimmt.server.web.logs import RedactSecrets

LAUNCH = """
import sys
import uvicorn
from sixnimmt.server.web.app import create_app
from sixnimmt.server.config import Settings
uvicorn.run(create_app(Settings(database_url=sys.argv[1], bot_delay=0.0)), host="127.0.0.1",
            port=int(sys.argv[2]), log_level="trace")
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_no_token_reaches_the_servers_log(tmp_path: Path) -> None:
    port = _free_port()
    log = (tmp_path / "server.log").open("wb")
    server = subprocess.Popen([sys.executable, "-c", LAUNCH, f"sqlite:///{tmp_path / 'l.db'}", str(port)],
                              stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        table = httpx.post(f"{base}/api/tables", json={"name": "Host", "seats": [{"kind": "open"}]}).json()
        token = table["token"]
        with connect(f"ws://127.0.0.1:{port}/ws/{table['code']}?token={token}") as ws:
            assert json.loads(ws.recv())["table"]["you"] == 0
        with connect(f"ws://127.0.0.1:{port}/ws/{table['code']}", subprotocols=["sixnimmt", f"token.{token}"]) as ws:
            assert json.loads(ws.recv())["table"]["you"] == 0
        httpx.get(f"{base}/api/tables/{table['code']}?token={token}&invite={token}x")
    finally:
        server.terminate()
        server.wait(10)
        log.close()
    output = (tmp_path / "server.log").read_text()
    assert f"/ws/{table['code']}?token=[redacted]" in output  # the access log was written, and redacted
    assert token not in output


def test_the_filter_redacts_messages_and_their_arguments() -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d', ("1.2.3.4:5", "GET", "/ws/ABCDE?x=1&token=s3cr-t_", "1.1", 101),
                               None)
    RedactSecrets().filter(record)
    assert record.getMessage() == '1.2.3.4:5 - "GET /ws/ABCDE?x=1&token=[redacted] HTTP/1.1" 101'
    record = logging.LogRecord("sixnimmt.server", logging.INFO, __file__, 1, "offered token.abc-DEF and invite=xyz",
                               None, None)
    RedactSecrets().filter(record)
    assert record.getMessage() == "offered token.[redacted] and invite=[redacted]"
