"""Every command behaves alike: ``-h``, ``--version``, plain help without type tags on flags, usage
errors exit 2 and failures 1, each as one line ``sixnimmt CMD: message``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer

from sixnimmt import __version__
from sixnimmt.cli import app, run
from sixnimmt.commands import replay as replay_command


def command_paths() -> list[tuple[list[str], bool]]:
    """Every command as its words after ``sixnimmt``, and whether it has subcommands."""
    found: list[tuple[list[str], bool]] = []

    def walk(command: Any, path: list[str]) -> None:
        subcommands = getattr(command, "commands", None) or {}
        found.append((path, bool(subcommands)))
        for name, sub in subcommands.items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


COMMANDS = command_paths()


def test_every_command_is_walked() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "replay", "replay verify", "replay show", "arena", "play", "serve", "advise", "bench",
            "bot", "bot connect"} <= names


@pytest.mark.parametrize(("path", "has_subcommands"), COMMANDS, ids=lambda p: " ".join(p) if isinstance(p, list) else "")
def test_help_everywhere_with_minus_h_and_no_type_tags_on_flags(
    capsys: pytest.CaptureFixture[str], path: list[str], has_subcommands: bool
) -> None:
    assert run([*path, "-h"]) == 0
    text = capsys.readouterr().out
    usage = text.splitlines()[0]
    assert usage.startswith("Usage: sixnimmt" + "".join(f" {p}" for p in path))
    assert ("COMMAND [ARGS]..." in usage) == has_subcommands
    assert "<bool>" not in text
    assert "-h, --help" in text
    assert run([*path, "--help"]) == 0 and capsys.readouterr().out == text


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    assert capsys.readouterr().out == f"sixnimmt {__version__}\n"


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["nosuch"], "sixnimmt: no such command 'nosuch'"),
        (["replay", "verify"], "sixnimmt replay verify: missing argument 'FILE'"),
        (["arena", "--deals", "many"], "sixnimmt arena: invalid value for '--deals'"),
        (["arena", "--bots", "random", "--deals", "0"], "sixnimmt arena: invalid value for '--deals'"),
        (["arena", "--bots", "random,nosuch"], "sixnimmt arena: unknown bot 'nosuch'"),
        (["arena", "--bots", "random", "--variant", "chess"], "sixnimmt arena: unknown variant"),
        (["bench", "bots", "--bots", "nosuch"], "sixnimmt bench bots: invalid value for --bots"),
        (["play", "--count", "sideways"], "sixnimmt play: unknown --count"),
        (["serve", "--port", "0"], "sixnimmt serve: invalid value for '--port'"),
        (["serve", "--log-level", "bogus"], "sixnimmt serve: invalid value for '--log-level'"),
        (["serve", "--host", ""], "sixnimmt serve: --host needs an address"),
        (["serve", "--host", "  "], "sixnimmt serve: --host needs an address"),
        (["advise", "x.json", "--seat", "zero"], "sixnimmt advise: invalid value for '--seat'"),
        (["bot", "connect", "http://h", "easy"], "sixnimmt bot connect: missing option '--token-file'"),
        (["bot", "connect", "http://h", "nosuch", "--token-file", "t"], "sixnimmt bot connect: invalid value for BOT"),
        (["bot", "connect", "http://h", "easy", "--token-file", "t", "--accept", ","],
         "sixnimmt bot connect: invalid value for --accept"),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str], start: str) -> None:
    assert run(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(start), lines


def test_runtime_failures_exit_1_with_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    cases = [
        (["replay", "verify", str(missing)], "sixnimmt replay verify: invalid record"),
        (["replay", "show", str(missing)], "sixnimmt replay show: invalid record"),
        (["advise", str(missing), "--seat", "0"], "sixnimmt advise: "),
        (["play", "--bots", "easy"], "sixnimmt play: needs a terminal"),  # the test's stdout is no terminal
    ]
    for args, start in cases:
        assert run(args) == 1, args
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(start), lines


def test_a_bug_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(replay_command, "replay", broken)
    monkeypatch.delenv("SIXNIMMT_DEBUG", raising=False)
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "sixnimmt-record"}))
    assert run(["replay", "verify", str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "sixnimmt replay verify: internal error: RuntimeError: boom "
        "(run with SIXNIMMT_DEBUG=1 for the traceback)"
    ]
    monkeypatch.setenv("SIXNIMMT_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        run(["replay", "verify", str(path)])


def test_no_command_prints_the_old_error_prefix() -> None:
    """The one style is ``sixnimmt CMD: message``; a bare ``error:`` line is a leftover."""
    commands = Path(__file__).resolve().parents[2] / "sixnimmt" / "commands"
    for source in commands.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert 'f"error: ' not in text and '"error: ' not in text, source.name
