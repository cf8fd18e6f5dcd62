"""Bot specs (``NAME[:key=value...]``), the lazy registry and its one list of levels."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.bots.search import HALVING_SPLIT, MonteCarloBot
from sixnimmt.cli import app
from sixnimmt.seats import LEVELS, Option, UnknownBotError, entries, make_bot, parse_spec, registry

runner = CliRunner()


def test_options_are_typed_and_defaults_filled_in() -> None:
    spec = parse_spec("mcs100:samples=1000:relative=false")
    assert spec.name == "mcs100" and not spec.is_prefix
    assert dict(spec.options) == {
        "samples": 1000, "rollout": "random", "own": "same", "noise": 1.0, "relative": False, "shared": False, "halving": False,
    }
    assert parse_spec("expert").options == {key: o.default for key, o in entries()["expert"].options.items()}


def test_a_spec_builds_the_bot_it_says() -> None:
    bot = make_bot("expert:samples=40:rollout=snug:noise=2.5", seed=1)
    assert isinstance(bot, MonteCarloBot) and bot.name == "expert:samples=40:rollout=snug:noise=2.5"
    assert bot.config.samples == 40 and bot.config.policy == 1 and bot.config.noise == 2.5
    assert bot.config.split == HALVING_SPLIT
    plain = make_bot("hard", seed=1)
    assert isinstance(plain, MonteCarloBot) and plain.config.samples == 25 and plain.config.split == (1.0,)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("expert:bogus=1", "unknown option 'bogus'"),
        ("expert:samples=abc", "samples is a whole number, not 'abc'"),
        ("expert:samples=0", "samples must be at least 1"),
        ("expert:samples=" + "9" * 5000, "samples is a whole number"),
        ("expert:samples", "option 'samples' needs a value"),
        ("expert:samples=4:samples=5", "option 'samples' is given twice"),
        ("expert:relative=maybe", "relative is true or false, not 'maybe'"),
        ("expert:noise=nan", "noise is a finite number"),
        ("expert:rollout=smart", "rollout is one of random, snug, medium, model, not 'smart'"),
        ("expert:", "an empty option"),
    ],
)
def test_a_bad_option_is_one_line_naming_the_valid_keys(spec: str, problem: str) -> None:
    with pytest.raises(UnknownBotError) as caught:
        parse_spec(spec)
    message = str(caught.value)
    assert problem in message and "\n" not in message and len(message) < 300
    assert message.endswith("expert takes samples=100, rollout=model, own=same, noise=1.0, relative=false, shared=true, halving=true")


def test_a_bot_without_options_says_so_and_unknown_names_list_the_bots() -> None:
    with pytest.raises(UnknownBotError, match="random takes no options"):
        parse_spec("random:samples=3")
    with pytest.raises(UnknownBotError, match=r"unknown bot 'chess': choose one of .*expert.*, or cmd:\.\.\."):
        parse_spec("chess:samples=3")


def test_cmd_keeps_its_meaning_colons_and_all() -> None:
    spec = parse_spec("cmd:python3 bot.py --opt a:b=c")
    assert spec.is_prefix and spec.name == "cmd" and spec.argument == "python3 bot.py --opt a:b=c"
    with pytest.raises(UnknownBotError, match="needs something after 'cmd:'"):
        parse_spec("cmd:  ")


def test_registering_a_parametrised_bot_is_one_line() -> None:
    registry.register(
        "test-budget", "sixnimmt.bots.search:searcher", "test",
        options={"samples": Option(5, "rollouts", low=1), "relative": True},
    )
    try:
        bot = make_bot("test-budget:samples=7", seed=1)
    finally:
        registry.unregister("test-budget")
    assert isinstance(bot, MonteCarloBot) and bot.config.samples == 7 and bot.config.relative is True


def test_every_level_is_registered() -> None:
    assert set(LEVELS) <= set(entries())


def test_building_random_loads_neither_numba_nor_gymnasium() -> None:
    code = (
        "import sys, json; from sixnimmt.seats import make_bot; make_bot('random', 1); "
        "print(json.dumps([m in sys.modules for m in ('numba', 'gymnasium', 'sixnimmt.bots.search')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [False, False, False]


def test_arena_rejects_a_bad_option_in_one_line_with_exit_2() -> None:
    result = runner.invoke(app, ["arena", "--bots", "expert:bogus=1,random", "--deals", "2"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "unknown option 'bogus'" in lines[0] and "samples=100" in lines[0]


def test_arena_list_shows_each_bots_keys_and_defaults() -> None:
    result = runner.invoke(app, ["arena", "--list"])
    assert result.exit_code == 0
    assert "  samples=25 " in result.output and "  halving=true " in result.output
    assert "cmd:..." in result.output


def test_arena_plays_specs_with_options() -> None:
    result = runner.invoke(app, ["arena", "--bots", "hard:samples=3,mcs100:samples=4:relative=false", "--deals", "1",
                                 "--players", "2", "--game-deals", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [b["label"] for b in report["bots"]] == ["hard:samples=3", "mcs100:samples=4:relative=false"]


def test_registry_doctests() -> None:
    import doctest

    assert doctest.testmod(registry).failed == 0


def _imports(path: Path) -> set[str]:
    """Every module a file imports (absolute names), at any depth of the file."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("package", ["core", "bots", "protocol", "rl/bot.py"])
def test_the_bots_do_not_import_the_seats_above_them(package: str) -> None:
    """The registry imports bots by name when it builds one; no bot imports it back (the RL
    environments may: they sit above the seats, building their opponents by spec)."""
    where = ROOT / "sixnimmt" / package
    for path in where.rglob("*.py") if where.is_dir() else [where]:
        assert not any(m == "sixnimmt.seats" or m.startswith("sixnimmt.seats.") for m in _imports(path)), path


def test_the_arena_chart_does_not_import_the_report() -> None:
    assert "sixnimmt.arena.report" not in _imports(ROOT / "sixnimmt" / "arena" / "chart.py")


def test_the_terminal_game_takes_specs_and_names_the_valid_keys() -> None:
    from sixnimmt.tui.config import parse_opponents

    assert [s.bot for s in parse_opponents("expert:samples=400,human,hard")] == [None, "expert:samples=400", None, "hard"]
    with pytest.raises(UnknownBotError) as caught:
        parse_opponents("hard,expert:bogus=1")
    assert str(caught.value).endswith("expert takes samples=100, rollout=model, own=same, noise=1.0, relative=false, shared=true, halving=true")
