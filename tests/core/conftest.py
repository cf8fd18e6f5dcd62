"""Helpers for building exact positions from docs/rules.md's examples."""

from __future__ import annotations

from collections.abc import Sequence

from sixnimmt.core import Game, Rules


def position(
    rows: Sequence[Sequence[int]],
    plays: Sequence[int],
    *,
    variant: str = "standard",
    pro_tie: str = "choose",
    spare: int = 1,
) -> Game:
    """A game at ``rows`` whose seat i holds ``plays[i]`` (plus ``spare`` filler cards each)."""
    used = {c for r in rows for c in r} | set(plays)
    filler = iter(c for c in range(1, 105) if c not in used)
    hands = [[card] + [next(filler) for _ in range(spare)] for card in plays]
    rules = Rules(players=len(plays), variant=variant, pro_tie=pro_tie)
    return Game.from_position(rules, hands, rows, seed=0)


def play_all(game: Game, plays: Sequence[int]) -> None:
    for seat, card in enumerate(plays):
        game.play(seat, card)
