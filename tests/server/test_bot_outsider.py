"""The outsider's test (docs/bot-api.md): a client written from the docs alone
(examples/bots/outsider_bot.py: the ``websockets`` package and the documented messages, nothing of
the project) plays ten games it seeks, a reconnect in the middle of one, and a challenge by name,
against a real ``sixnimmt serve``; it stops on any message the docs do not describe.

Every wait is a process's exit within a generous limit; nothing asserts on time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .test_bot_connect import ROOT, Person, stop
from .test_cluster_processes import start_servers

pytestmark = pytest.mark.slow

OUTSIDER = ROOT / "examples" / "bots" / "outsider_bot.py"


def test_a_client_written_from_the_docs_plays_ten_games_a_reconnect_and_a_challenge(tmp_path: Path) -> None:
    started = start_servers(f"sqlite:///{tmp_path / 'outsider.db'}", 1, tmp_path)
    try:
        (_, address), = started
        owner = Person(address, "stranger")
        tokens = {name: owner.make_bot(name, tmp_path) for name in ("Outsider", "Other_side")}
        runs = {
            "Outsider": ["--games", "10", "--cut-at", "5", "--challenge", "Other_side"],
            "Other_side": ["--games", "10", "--take-challenges", "1"],
        }
        bots = {name: subprocess.Popen([sys.executable, str(OUTSIDER), f"http://{address}", str(tokens[name]), *args],
                                       stdout=subprocess.PIPE, stderr=(tmp_path / f"{name}.log").open("wb"))
                for name, args in runs.items()}
        try:
            outs = {name: bot.communicate(timeout=400)[0] for name, bot in bots.items()}
        finally:
            stop(list(bots.values()))
        logs = {name: (tmp_path / f"{name}.log").read_text() for name in bots}
        assert [bot.returncode for bot in bots.values()] == [0, 0], logs
        outsider, other = (json.loads(outs[name]) for name in ("Outsider", "Other_side"))
        assert len(outsider["games"]) == len(other["games"]) == 11
        assert outsider["cut"] in outsider["games"] and outsider["resynced"]
        assert outsider["challenge"] == outsider["games"][-1] == other["games"][-1]
        assert outsider["errors"] == other["errors"] == []
        assert outsider["types"]["game-state"] == 1 and outsider["types"]["pong"] == 2  # (one ping a connection)
        for code in outsider["games"]:
            assert owner.http.get(f"/api/tables/{code}").json()["status"] == "finished"
    finally:
        stop([p for p, _ in started])
