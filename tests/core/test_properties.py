"""Properties that hold in every game of every variant (Hypothesis drives random games)."""

from __future__ import annotations

import gc
import random
import weakref
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.core import (
    BULLHEADS,
    CardChosen,
    DealScored,
    Game,
    Phase,
    PlayerView,
    RowChoiceRequired,
    Rules,
    row_size,
    turns,
)
from sixnimmt.core.record import replay
from sixnimmt.core.rules import PLAYER_RANGE, Variant
from sixnimmt.core.variants import TurnOrder

VARIANTS = [v.value for v in Variant]

@st.composite
def rules_strategy(draw: st.DrawFn) -> Rules:
    target = draw(st.one_of(st.none(), st.integers(10, 80)))
    deals = draw(st.integers(1, 4)) if target is None else draw(st.one_of(st.none(), st.integers(1, 4)))
    variant = draw(st.sampled_from(VARIANTS))
    low, high = PLAYER_RANGE.get(Variant(variant), (2, 10))
    return Rules(
        players=draw(st.integers(low, high)),
        variant=variant,
        target=target,
        end=draw(st.sampled_from(["at-least", "above"])),
        deals=deals,
        pro_tie=draw(st.sampled_from(["choose", "left", "right"])),
    )


def check_invariants(game: Game) -> None:
    """Every card of the deck is in exactly one place; rows are legal; piles match penalties."""
    deck = Counter(game.rules.deck)
    deal = game.history[-1]
    if "hands" in deal:
        in_play = Counter(c for h in deal["hands"] for c in h) + Counter(c for r in deal["rows"] for c in r)
    else:
        in_play = deck  # a draft (Logic, Tournament): every card of the short deck is in play
    set_aside = deck - in_play
    places = Counter(c for h in game.hands for c in h)
    places.update(c for r in game.rows for c in r)
    places.update(c for t in game.taken for c in t)
    places.update(game.view(None).unplaced)  # revealed, not yet placed
    places.update(game.draft_pool)
    assert places + set_aside == deck, "a card is missing or in two places"
    double = game.rules.variant is Variant.DOUBLE
    for row in game.rows:
        assert row_size(row, double) <= 5
        assert row == sorted(row)
        assert double or len(set(row)) == len(row)
    if not double and not game.is_over:  # Double shares twin pickups; Hand doubles hands at the end
        assert game.penalties == [sum(BULLHEADS[c] for c in t) for t in game.taken]


def play_random(rules: Rules, seed: int, check: bool = True) -> Game:
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))
            if check:
                check_invariants(game)
    return game


@settings(max_examples=150, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(rules: Rules, seed: int) -> None:
    game = play_random(rules, seed)

    # Each deal's taken bullheads equal the totals' increase.
    previous = [0] * rules.players
    scored = [e for e in game.events if isinstance(e, DealScored)]
    for event in scored:
        assert [t - p for t, p in zip(event.totals, previous)] == list(event.penalties)
        previous = list(event.totals)
    assert previous == game.totals

    # The game ends exactly when the end rule says: after this deal, and not after any earlier one.
    assert rules.game_over_after(game.totals, len(scored))
    for i, event in enumerate(scored[:-1]):
        assert not rules.game_over_after(list(event.totals), i + 1)
    if rules.variant is Variant.HAND:
        hands_left = [sum(BULLHEADS[c] for c in h) for h in game.hands]
        piles = [sum(BULLHEADS[c] for c in t) for t in game.taken]
        assert game.totals == [p + 2 * h for p, h in zip(piles, hands_left)]

    # When one card per player is revealed at once, only the lowest card of a turn can be too low.
    if rules.variant not in (Variant.PROFESSIONAL, Variant.NIFTY, Variant.HAND):
        for event in game.events:
            if isinstance(event, RowChoiceRequired):
                assert event.reason == "too-low"
                turn_plays = game.history[event.deal]["turns"][event.turn]["plays"]
                assert event.card == min(turn_plays)

    # Every record written verifies, with the same scores; the same seed gives the same record.
    record = game.record()
    result = replay(record)
    assert list(result.scores) == game.totals == record["scores"]
    assert play_random(rules, seed, check=False).record() == record


@settings(max_examples=80, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 400))
def test_partial_records_resume_to_the_same_state(rules: Rules, seed: int, cut: int) -> None:
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    steps = 0
    while not game.is_over and steps < cut:
        for decision in game.pending():
            if game.phase is Phase.ROW_CHOICE and steps >= cut:
                break
            game.act(decision.seat, rng.choice(decision.options))
            steps += 1
    if game.phase is not Phase.PLAY or any(c is not None for c in game.chosen):
        return  # records are written between turns; mid-turn states are not on disk
    resumed = replay(game.record(), partial=True).game
    assert resumed.view(0) == game.view(0)
    assert resumed.view(None) == game.view(None)


def fresh_view(game: Game, seat: int | None) -> PlayerView:
    """The view as the game would make it with nothing cached (it caches the pending decisions and
    the fields every seat's view shares, and drops them when they change)."""
    game._forget_views()
    return game.view(seat)


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_views_and_pending_decisions_are_never_out_of_date(rules: Rules, seed: int) -> None:
    """Views asked for after every move, as hosts do (with changed minds in simultaneous turns),
    equal views made from scratch, field for field."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    names = {f.name for f in fields(PlayerView)}
    seats: list[int | None] = [*range(rules.players), None]
    while not game.is_over:
        for decision in game.pending():
            seat = decision.seat
            view = game.view(seat)
            assert view.decision == decision
            # Every field, once read (the engine may make the fields every seat shares on first use).
            assert view.phase is game.phase
            assert set(vars(view)) == names
            game.act(seat, rng.choice(decision.options))
            retract = rules.spec.turn_order is TurnOrder.SIMULTANEOUS and game.phase is Phase.PLAY and game.chosen[seat]
            if retract and rng.random() < 0.3:  # a changed mind, asked about before and after
                game.retract(seat)
                assert game.decision_for(seat) is not None
                game.play(seat, rng.choice(decision.options))
            pending = game.pending()
            cached = [game.view(s) for s in seats]
            assert [fresh_view(game, s) for s in seats] == cached
            assert game.pending() == pending  # made afresh: fresh_view forgot every cached decision
            if rules.spec.turn_order is TurnOrder.SIMULTANEOUS and game.phase is Phase.PLAY:
                assert [d.seat for d in pending] == [s for s in range(rules.players) if game.chosen[s] is None]


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_every_card_chosen_event_names_its_deal_turn_and_seat(rules: Rules, seed: int) -> None:
    """The engine shares its ``CardChosen`` events between games (core/turns.py): each one a move
    emits still says the deal, the turn and the seat of that move."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        for decision in game.pending():
            deal, turn = game.deal_index, game.turn
            for event in game.act(decision.seat, rng.choice(decision.options)):
                if isinstance(event, CardChosen):
                    assert event == CardChosen(deal, turn, decision.seat)


def test_card_chosen_events_past_the_shared_ones_and_from_many_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals and turns beyond the shared table get events of their own; threads that grow the table
    at once leave every event in its place."""
    assert turns._card_chosen(200, 3, 1) == CardChosen(200, 3, 1)
    assert turns._card_chosen(2, 40, 1) == CardChosen(2, 40, 1)
    monkeypatch.setattr(turns, "_CHOSEN", [])
    deals = list(range(turns._SHARED_DEALS))
    random.Random(3).shuffle(deals)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda deal: turns._card_chosen(deal, 1, 2), deals))
    table = turns._CHOSEN
    assert len(table) == turns._SHARED_DEALS
    assert all(
        table[d][t][s] == CardChosen(d, t, s)
        for d in range(turns._SHARED_DEALS) for t in range(turns._SHARED_TURNS) for s in range(10)
    )


def test_a_game_nobody_holds_is_freed_at_once() -> None:
    """No reference cycles in a game (its turn structure and record writer refer back to it weakly):
    a game that is dropped is freed by its reference count, in every variant, views and record
    made, without waiting for the cycle collector (a serving process runs it every few minutes)."""
    gc.collect()
    gc.disable()
    try:
        for variant in VARIANTS:
            low, _ = PLAYER_RANGE.get(Variant(variant), (2, 10))
            game = play_random(Rules(players=max(low, 4), variant=variant, target=None, deals=2), seed=7, check=False)
            game.view(0)
            game.record()
            freed = [weakref.ref(game), weakref.ref(game._turns), weakref.ref(game._record_writer())]
            del game
            assert [ref() for ref in freed] == [None, None, None], f"{variant}: a dropped game is still alive"
    finally:
        gc.enable()
