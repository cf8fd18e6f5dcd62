"""Illegal input is refused with a message naming what was wrong, and changes nothing; views hide
what a seat must not see."""

from __future__ import annotations

import copy
import json
import pickle
import random
from dataclasses import FrozenInstanceError, fields

import pytest

from sixnimmt.core import Game, IllegalMoveError, Rules, RulesError, Variant, event_from_dict
from sixnimmt.core.views import Phase, PlayerView

from .conftest import play_all, position


def snapshot(game: Game) -> str:
    return json.dumps(
        [game.hands, game.rows, game.chosen, game.totals, game.penalties, game.phase, game.turn,
         len(game.events), game.history],
        default=str,
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 1}, "1 players"),
        ({"players": 11}, "11 players"),
        ({"players": "4"}, "whole number"),
        ({"players": 4, "variant": "chess"}, "unknown variant 'chess'"),
        ({"players": 4, "end": "sometimes"}, "unknown end rule"),
        ({"players": 4, "pro_tie": "middle"}, "unknown pro_tie"),
        ({"players": 4, "target": 0}, "target must be at least 1"),
        ({"players": 4, "target": None, "deals": None}, "needs an end"),
        ({"players": 4, "deals": -2}, "deals must be at least 1"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules(**options)  # type: ignore[arg-type]


def test_rules_round_trip_and_unknown_fields() -> None:
    rules = Rules(players=5, variant="professional", target=100, end="above", deals=3, pro_tie="left")
    assert Rules.from_dict(rules.to_dict()) == rules
    with pytest.raises(RulesError, match="unknown rules field"):
        Rules.from_dict({**rules.to_dict(), "jokers": True})
    assert Rules.from_dict({"variant": "standard", "players": 3}).target == 66


def test_wrong_seat_names_count() -> None:
    with pytest.raises(RulesError, match="3 seat names for 4 players"):
        Game(Rules(players=4), ["a", "b", "c"])


def test_card_not_in_hand_names_seat_card_and_turn() -> None:
    game = Game(Rules(players=3), ["Ana", "Bo", "Cy"], seed=2)
    foreign = game.hands[1][0]
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match=rf"deal 1, turn 1: seat 0 \(Ana\) cannot play card {foreign}"):
        game.play(0, foreign)
    assert snapshot(game) == before


@pytest.mark.parametrize("seat", [-1, 3, True, "0"])
def test_no_such_seat(seat: object) -> None:
    game = Game(Rules(players=3), seed=2)
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match="no seat"):
        game.play(seat, game.hands[0][0])  # type: ignore[arg-type]
    assert snapshot(game) == before


def test_row_choice_errors_leave_state_unchanged() -> None:
    game = position([[20], [30], [40], [50]], [3, 9, 60])
    with pytest.raises(IllegalMoveError, match="no row choice is due"):
        game.choose_row(0, 1)
    play_all(game, [3, 9, 60])
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match=r"seat 1 .* it is seat 0 .*card 3"):
        game.choose_row(1, 0)
    with pytest.raises(IllegalMoveError, match=r"row 4 .*choose one of \[0, 1, 2, 3\]"):
        game.choose_row(0, 4)
    with pytest.raises(IllegalMoveError, match="row-choice phase"):
        game.play(2, game.hands[2][0])
    with pytest.raises(IllegalMoveError, match="no draft"):
        game.draft(0, 5)
    assert snapshot(game) == before


def test_draft_errors() -> None:
    game = Game(Rules(players=2, variant="logic"))
    with pytest.raises(IllegalMoveError, match=r"seat 1 .*seat 0 .*'s pick"):
        game.draft(1, 5)
    game.draft(0, 5)
    with pytest.raises(IllegalMoveError, match="card 5: not in the pool"):
        game.draft(1, 5)
    with pytest.raises(IllegalMoveError, match="draft phase"):
        game.play(0, 5)


def test_a_choice_can_change_until_the_last_player_chooses() -> None:
    game = position([[12], [37], [43], [58]], [14, 44], spare=2)
    first, second = game.hands[0][0], game.hands[0][1]
    game.play(0, first)
    game.play(0, second)
    assert game.chosen[0] == second
    assert [d.seat for d in game.pending()] == [1]
    game.play(1, 44)
    assert game.revealed == (second, 44)


def test_game_over_refuses_everything() -> None:
    game = Game(Rules(players=2, deals=1), seed=1)
    while not game.is_over:
        for d in game.pending():
            game.act(d.seat, d.options[0])
    assert game.pending() == ()
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play(0, 1)


def test_a_view_shows_only_what_its_seat_may_know() -> None:
    game = Game(Rules(players=4), seed=11)
    secret = game.hands[1][0]
    game.play(1, secret)
    view0 = game.view(0)
    assert view0.hand == tuple(game.hands[0])
    assert view0.hands is None
    assert view0.chosen == (False, True, False, False)
    assert view0.my_choice is None
    assert view0.revealed is None
    data = view0.to_dict()
    shown: set[int] = set(data["hand"]) | set(data["unplaced"]) | set(data["draft_pool"])
    for field in ("rows", "taken", "played"):
        for cards in data[field]:
            shown |= set(cards)
    hidden = set(game.hands[1]) | set(game.hands[2]) | set(game.hands[3]) | {secret}
    assert not shown & hidden
    assert data["my_choice"] is None and data["revealed"] is None and data["hands"] is None
    assert game.view(1).my_choice == secret
    spectator = game.view(None)
    assert spectator.hand == () and spectator.my_choice is None and spectator.decision is None


def test_unseen_cards_are_the_others_hands_and_the_set_aside_cards() -> None:
    game = Game(Rules(players=4), seed=4)
    view = game.view(2)
    hidden = set(game.hands[0]) | set(game.hands[1]) | set(game.hands[3])
    assert hidden <= set(view.unseen_cards())
    assert len(view.unseen_cards()) == 104 - 10 - 4
    tactics = Game(Rules(players=4, variant="tactics"), seed=4)
    others = {c for s in (0, 1, 3) for c in tactics.hands[s]}
    assert set(tactics.view(2).unseen_cards()) == others


def test_view_round_trips_through_json() -> None:
    game = position([[20], [30], [40], [50]], [3, 9])
    play_all(game, [3, 9])
    for seat in (0, 1, None):
        view = game.view(seat)
        assert type(view).from_dict(json.loads(json.dumps(view.to_dict()))) == view
    assert game.view(0).decision is not None and game.view(1).decision is None
    assert game.view(1).row_choice is not None and game.view(1).waiting_for == (0,)


def test_a_view_made_while_cards_are_chosen_is_a_view_like_any_other() -> None:
    """The engine makes the fields every seat shares on first use in a simultaneous turn: the view
    still equals, hashes, copies, pickles and serializes as one made from its fields."""
    game = Game(Rules(players=4), seed=7)
    first = game.pending()[0]
    game.play(first.seat, first.options[0])
    assert game.view(0).target == 66 and game.view(1).current is None  # fields with defaults
    assert game.view(None).played_by == () and game.view(2).turns_per_deal == 10
    for seat in (0, 1, None):
        made = type(game.view(seat)).from_dict(game.view(seat).to_dict())
        for view in (game.view(seat), copy.copy(game.view(seat)), copy.deepcopy(game.view(seat)),
                     pickle.loads(pickle.dumps(game.view(seat)))):
            assert view == made and hash(view) == hash(made)
            assert view.chosen == (True, False, False, False) and view.waiting_for == (1, 2, 3)
            assert not hasattr(view, "no_such_field")
            with pytest.raises(FrozenInstanceError):
                view.rows = ()  # type: ignore[misc]
    kept = game.view(1)
    assert PlayerView(**{f.name: getattr(kept, f.name) for f in fields(PlayerView)}) == kept
    assert PlayerView(**{f.name: getattr(made, f.name) for f in fields(PlayerView) if f.name != "hands"}) == made
    for decision in game.pending():
        game.play(decision.seat, decision.options[0])
    assert kept.phase is Phase.PLAY and kept.waiting_for == (1, 2, 3)  # as it was when made
    assert kept.revealed is None and kept.decision is not None


def test_events_describe_every_change_in_order() -> None:
    game = position([[20], [30], [40], [50]], [3, 9], spare=0)  # the deal's last turn
    mark = len(game.events)
    game.play(0, 3)
    new = game.play(1, 9)
    assert [e.type for e in game.events[mark:]][:2] == ["card-chosen", "card-chosen"]
    assert [e.type for e in new] == ["card-chosen", "cards-revealed", "row-choice-required"]
    new = game.choose_row(0, 2)
    assert [e.type for e in new] == ["row-taken", "card-placed", "card-placed", "deal-scored", "deal-started"]
    assert all("card" not in e.to_dict() for e in game.events if e.type == "card-chosen")


def test_same_seed_same_game() -> None:
    def run(seed: int) -> dict[str, object]:
        game = Game(Rules(players=5, variant="professional"), seed=seed)
        while not game.is_over:
            for d in game.pending():
                game.act(d.seat, d.options[len(d.options) // 2])
        return game.record()

    assert run(9) == run(9)
    assert run(9) != run(10)
    record = run(9)
    assert copy.deepcopy(record) == record


@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_every_event_comes_back_from_its_json(variant: str) -> None:
    """event_from_dict inverts to_dict through JSON (a Bot API client rebuilds what it is sent)."""
    game = Game(Rules(players=4, variant=Variant(variant)), seed=11)
    rng = random.Random(3)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))
    for event in game.events:
        assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
    with pytest.raises(ValueError, match="unknown event type 'card-eaten'"):
        event_from_dict({"type": "card-eaten"})
