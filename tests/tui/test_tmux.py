"""The game as a user sees it: ``sixnimmt play`` in a real 80x24 terminal (tmux), keys sent as typed.

Skipped where tmux is not installed (CI installs it: .ci/run).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

#: Bounds on polling the pane (the app starts in a second or two; a busy CI runner may take longer).
POLLS, POLL_PAUSE = 1200, 0.05


class Pane:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False)
        return result.stdout

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "game")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "game", key)

    def until(self, condition: Callable[[str], bool]) -> str:
        """Poll the pane until ``condition`` holds on its text (a bound on polls, not a timing check)."""
        for _ in range(POLLS):
            text = self.text()
            if condition(text):
                return text
            time.sleep(POLL_PAUSE)
        raise AssertionError(f"the terminal never showed what was expected; it shows:\n{self.text()}")


@pytest.fixture
def pane() -> Iterator[Pane]:
    program = Path(sys.executable).with_name("sixnimmt")  # the installed command, next to this Python
    if not program.exists():
        pytest.skip(f"the sixnimmt command is not installed next to {sys.executable}")
    socket = f"sixnimmt-test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("SIXNIMMT_DEBUG", None)
    command = f"{shlex.quote(str(program))} play --bots easy,easy,easy --no-save --seed 3 --delay 0"
    subprocess.run(
        ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "game", "-x", "80", "-y", "24", command],
        check=True, env=env,
    )  # fmt: skip
    try:
        yield Pane(socket)
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, capture_output=True)


def hand_of(text: str) -> list[int]:
    """The cards in the hand's frame (titled "Your hand"), on as many lines as it has."""
    lines = text.splitlines()
    top = next(index for index, line in enumerate(lines) if "Your hand" in line)
    inside = []
    for line in lines[top + 1 :]:
        if "╰" in line:
            break
        inside.append(line)
    return [int(n) for n in re.findall(r"(\d+)[⁰¹²³⁴⁵⁶⁷⁸⁹]", " ".join(inside))]


def test_the_game_in_an_80x24_terminal_shows_the_rows_and_hand_and_plays(pane: Pane) -> None:
    text = pane.until(lambda t: "Your hand" in t and "choose a card" in t and bool(hand_of(t)))
    lines = text.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    for number in range(1, 5):
        row = [line for line in lines if f"Row {number} " in line]
        assert len(row) == 1, text  # each row on one line...
        assert re.search(r"\d+ bullheads?", row[0]), row[0]  # ...with its bullheads
    hand = hand_of(text)
    assert len(hand) == 10 and hand == sorted(hand)
    assert "Turn 1 of 10" in text

    # A number not in the hand plays nothing: an error, and still turn 1 with ten cards.
    missing = next(n for n in range(10, 100) if n not in hand)
    pane.keys(*str(missing), "Enter")
    text = pane.until(lambda t: "not in your hand" in t)
    assert f"{missing} is not in your hand" in text
    assert "Turn 1 of 10" in text and len(hand_of(text)) == 10

    # Backspace takes the digits back; Enter plays the card under the cursor (the lowest): the hand
    # loses it. (Not Escape: sent right before Enter, a terminal reads the two as Alt+Enter.)
    pane.keys(*["BSpace"] * len(str(missing)))
    pane.until(lambda t: "not in your hand" not in t)
    pane.keys("Enter")
    text = pane.until(lambda t: "Your hand" in t and len(hand_of(t)) == 9)
    assert hand[0] not in hand_of(text)
    pane.keys("q", "q")
