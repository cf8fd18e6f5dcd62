"""The playthrough files (tests/openspiel/playthroughs/), made as OpenSpiel makes its own games':
replayed, each comes out the same, so any change to what the game shows a player is a diff to
review (``python -m sixnimmt.rl.openspiel.playthrough`` writes them again). Skipped without the
openspiel extra."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'sixnimmt[openspiel]'")

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

from sixnimmt.rl.openspiel.playthrough import PLAYTHROUGHS

FOLDER = Path(__file__).resolve().parent / "playthroughs"


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_the_playthrough_replays_to_the_same_text(name: str) -> None:
    import sixnimmt.rl.openspiel.game  # noqa: F401  (registers the game)

    if not flags.FLAGS.is_parsed():  # the reader asks for one of OpenSpiel's command-line flags
        flags.FLAGS.mark_as_parsed()

    original, new = generate_playthrough.replay(str(FOLDER / name))
    assert original.splitlines()[0] == f"game: {PLAYTHROUGHS[name]}"
    assert new == original
