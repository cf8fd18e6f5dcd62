"""The game's playthrough files, made the way OpenSpiel makes its own games' (its
``generate_playthrough``): one random game, every state printed with its strings, tensors, legal
actions and returns, seeded so that it comes out the same each time. A test replays each file and
compares, so a change to what a player sees shows in a diff.

    python -m sixnimmt.rl.openspiel.playthrough            # rewrite tests/openspiel/playthroughs/
    python -m sixnimmt.rl.openspiel.playthrough --out DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import require_pyspiel

#: The games given a playthrough: the file's name and the game string.
PLAYTHROUGHS: dict[str, str] = {
    "sixnimmt.txt": "sixnimmt(players=2)",
    # The tiny game of the CFR tests (sixnimmt.rl.openspiel.tiny.TINY): a whole game on one page.
    "sixnimmt_tiny.txt": "sixnimmt(players=2,cards=6,hand=2,rows=1,row_limit=2,zero_sum=true)",
}
SEED = 7


def playthrough(game_string: str) -> str:
    """The playthrough text of ``game_string`` (seed :data:`SEED`)."""
    from open_spiel.python.algorithms import generate_playthrough

    from . import game  # noqa: F401  (registers the game)

    text: str = generate_playthrough.playthrough(game_string, None, seed=SEED)
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("tests/openspiel/playthroughs"), help="the folder to write to")
    args = parser.parse_args(argv)
    try:
        require_pyspiel()
    except ImportError as error:
        parser.exit(2, f"error: {error}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, game_string in PLAYTHROUGHS.items():
        (args.out / name).write_text(playthrough(game_string), encoding="utf-8")
        print(args.out / name)


if __name__ == "__main__":
    main()
