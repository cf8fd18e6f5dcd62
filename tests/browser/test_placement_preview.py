"""The table's placement preview (``previewPlacement`` in static/js/table/plays.js) says what the
engine does: it runs in real Chromium on positions the engine reached in random games of every
variant, and its answer is compared with the engine's rule (``best_slots`` and ``row_size``)."""

from __future__ import annotations

import random
from typing import Any

from sixnimmt.core import ROW_LIMIT, Game, Rules, best_slots, row_size
from sixnimmt.core.variants import VARIANT_NAMES, Placement

#: Imports the page's own module and asks it about every position at once.
PREVIEW = """async (cases) => {
  const { previewPlacement } = await import('/static/js/table/plays.js');
  return cases.map(([placement, rows, card]) => previewPlacement({ placement }, rows, card));
}"""


Case = tuple[str, list[list[int]], int]


def engine_positions(per_variant: int = 150, ties: int = 10) -> list[Case]:
    """``(placement, rows, card)``: the rows of random games of every variant as the engine left
    them at each card decision, with a card of the hand of the seat to play; Professional's go on
    until ``ties`` of them are ties between two row ends (rare, and the preview shows both)."""
    cases: list[Case] = []
    for variant in VARIANT_NAMES:
        rng = random.Random(variant)
        mine: list[Case] = []
        while len(mine) < per_variant or (variant == "professional" and sum(map(is_tie, mine)) < ties):
            game = Game(Rules(players=3, variant=variant), seed=rng.randrange(1 << 30))
            while not game.is_over:
                decision = game.pending()[0]
                if decision.kind.value == "card" and game.rows and all(game.rows):
                    placement = game.rules.spec.placement.value
                    mine += [(placement, [list(row) for row in game.rows], card) for card in game.hands[decision.seat]]
                game.act(decision.seat, rng.choice(decision.options))
        cases += mine
    return cases


def is_tie(case: Case) -> bool:
    return len(engine_preview(*case)["rows"]) == 2


def engine_preview(placement: str, rows: list[list[int]], card: int) -> dict[str, Any]:
    """What the preview must say, from the engine's own rule."""
    stack = placement == Placement.STACKED
    slots = best_slots(rows, card, professional=placement == Placement.EITHER_END, stack=stack)
    on_twin = stack and bool(slots) and rows[slots[0].row][-1] == card
    sixth = len(slots) == 1 and not on_twin and row_size(rows[slots[0].row], stack) >= ROW_LIMIT
    return {"rows": [slot.row for slot in slots], "sixth": sixth, "tooLow": not slots}


def test_the_preview_places_every_card_as_the_engine_does(browser: Any, server: str) -> None:
    cases = engine_positions()
    assert {placement for placement, _, _ in cases} == {p.value for p in Placement}
    assert sum(map(is_tie, cases)) >= 10
    page = browser.new_page()
    page.goto(f"{server}/")
    shown = page.evaluate(PREVIEW, cases)
    wrong = [(case, said) for case, said in zip(cases, shown) if said != engine_preview(*case)]
    assert not wrong, f"{len(wrong)} of {len(cases)} positions differ, first: {wrong[0]}"
