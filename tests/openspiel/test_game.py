"""The OpenSpiel game ``sixnimmt``: OpenSpiel's own consistency checks on every variant, what each
player may observe, the returns, and bad input. Skipped without the openspiel extra."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'sixnimmt[openspiel]'")

from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation  # noqa: E402

from sixnimmt.core import VARIANT_NAMES, replay, variant_spec  # noqa: E402
from sixnimmt.rl.encoding import PASS_ACTION, encode  # noqa: E402
from sixnimmt.rl.openspiel.game import DEFAULTS, GAME_NAME, SixNimmtState  # noqa: E402


def players_for(variant: str) -> int:
    low, high = variant_spec(variant).player_range
    return min(max(3, low), high)


def load(**params: Any) -> Any:
    return pyspiel.load_game(GAME_NAME, params)


def random_step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(actions, probabilities)[0])
    elif state.is_simultaneous_node():
        state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.num_players())])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


# ---------------------------------------------------------------------- OpenSpiel's own checks


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_openspiel_random_sim_test_passes_on_every_variant(variant: str) -> None:
    """OpenSpiel's consistency checks for a game (random playouts; at every state legal actions,
    chance outcomes, cloning, serialization and deserialization, returns, information state and
    observation strings and tensors), on one deal of each variant."""
    # Two players where a game has many decisions (drafts, Hand's long deal): OpenSpiel's checks
    # deserialize every state from its history, so their time grows with the square of the length.
    slow = not variant_spec(variant).dealing.value == "shuffle" or variant_spec(variant).keeps_taken
    game = load(variant=variant, players=2 if slow else players_for(variant))
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", ["standard", "double", "nifty"])
def test_openspiel_random_sim_test_passes_on_whole_games_to_a_target(variant: str) -> None:
    """Several deals: the next deal's shuffle is dealt by chance between deals."""
    game = load(variant=variant, players=2, target=15, deals=0)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", ["standard", "open", "professional"])
def test_the_turn_based_conversion_passes_openspiel_checks(variant: str) -> None:
    game = pyspiel.convert_to_turn_based(load(variant=variant, players=3))
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


# ---------------------------------------------------------------------- what the game is


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_a_played_game_is_an_engine_game_whose_record_replays(variant: str) -> None:
    """The moves go through the engine: the record it writes replays to the same totals, and the
    returns are minus those totals, the sum of the rewards along the way."""
    rng = random.Random(variant)
    players = players_for(variant)
    state = load(variant=variant, players=players, target=20, deals=0 if variant not in ("tournament", "hand") else 1).new_initial_state()
    if variant in ("tournament", "hand"):
        state = load(variant=variant, players=players).new_initial_state()
    rewards = np.zeros(players)
    while not state.is_terminal():
        random_step(state, rng)
        rewards += state.rewards()
    assert isinstance(state, SixNimmtState) and state.engine is not None
    totals = list(state.engine.totals)
    assert state.returns() == [-float(t) for t in totals]
    assert list(rewards) == pytest.approx(state.returns())
    result = replay(state.engine.record())
    assert list(result.scores) == totals


def test_the_legal_actions_are_the_decisions_options_and_pass_for_the_others() -> None:
    rng = random.Random(3)
    for variant in VARIANT_NAMES:
        state = load(variant=variant, players=players_for(variant)).new_initial_state()
        for _ in range(300):
            if state.is_terminal():
                break
            if not state.is_chance_node():
                engine = state.engine
                owing = {d.seat for d in engine.pending()}
                for player in range(state.num_players()):
                    legal = state.legal_actions(player)
                    if player in owing:
                        assert len(legal) == len(set(engine.decision_for(player).options))  # Double: twins
                    elif state.is_simultaneous_node():
                        assert legal == [PASS_ACTION]
                    else:
                        assert legal == []
                assert state.is_simultaneous_node() == (len(owing) > 1)
            random_step(state, rng)


def test_chance_deals_every_card_of_the_deck_with_its_probability() -> None:
    state = load(variant="double", players=2).new_initial_state()
    outcomes = dict(state.chance_outcomes())
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert outcomes[10] == pytest.approx(2 / 208)  # card 11: two copies of 208 cards
    state.apply_action(10)
    assert dict(state.chance_outcomes())[10] == pytest.approx(1 / 207)
    tactics = load(variant="tactics", players=3).new_initial_state()
    first = dict(tactics.chance_outcomes())  # cards 1..34 with three players, a hand of 10 in order
    assert max(first) == 24 and sum(first.values()) == pytest.approx(1.0)
    assert first[0] == pytest.approx(10 / 34)  # card 1 is the hand's lowest when the hand holds it
    tactics.apply_action(4)  # card 5 first: the next is above it, the lowest of 9 of the 29 left
    second = dict(tactics.chance_outcomes())
    assert min(second) == 5 and second[5] == pytest.approx(9 / 29) and sum(second.values()) == pytest.approx(1.0)
    assert load(variant="logic", players=3).new_initial_state().is_chance_node() is False


# ---------------------------------------------------------------------- what a player may see


def deal(game: Any, hands: list[list[int]], rows: list[int]) -> Any:
    """A state dealt these hands (each in ascending order, as chance deals them) and rows."""
    state = game.new_initial_state()
    for card in [*(c for hand in hands for c in sorted(hand)), *rows]:
        state.apply_action(card - 1)
    return state


@pytest.mark.parametrize("variant", [v for v in VARIANT_NAMES if not variant_spec(v).hands_public])
def test_a_player_sees_its_own_cards_and_never_another_players(variant: str) -> None:
    """Two deals that give seat 0 the same hand and the rows the same cards, but deal the other hands
    differently: seat 0's information state, observation string and tensor are the same in both,
    and every other seat's differ."""
    game = load(variant=variant, players=3)
    size = variant_spec(variant).hand_size
    rng = random.Random(variant)
    deck = list(game.rules.deck)
    rng.shuffle(deck)
    mine, others, rows = deck[:size], deck[size : 3 * size], deck[3 * size : 3 * size + 4]
    first, second = others[:size], others[size:]
    a, b = deal(game, [mine, first, second], rows), deal(game, [mine, second, first], rows)  # the others' swapped
    assert not a.is_chance_node() and not b.is_chance_node()
    observation = make_observation(game)
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert a.observation_tensor(0) == b.observation_tensor(0)
    observation.set_from(a, 0)
    assert list(observation.tensor) == a.observation_tensor(0)
    for other in (1, 2):
        assert a.information_state_string(other) != b.information_state_string(other)
        assert a.observation_string(other) != b.observation_string(other)


@pytest.mark.parametrize("variant", ["standard", "nifty", "double"])
def test_a_simultaneous_choice_stays_hidden_until_the_reveal(variant: str) -> None:
    """In the turn-based form, seat 1 chooses a different card in two worlds after seat 0 chose the
    same one: seat 0 and seat 2 cannot tell the worlds apart, seat 1 can."""
    game = pyspiel.convert_to_turn_based(load(variant=variant, players=3))
    rng = random.Random(variant)
    state = game.new_initial_state()
    while state.is_chance_node():
        random_step(state, rng)
    state.apply_action(state.legal_actions()[0])
    a, b = state.clone(), state.clone()
    a.apply_action(a.legal_actions()[0])
    b.apply_action(b.legal_actions()[-1])
    for player in (0, 2):
        assert a.information_state_string(player) == b.information_state_string(player)
        assert a.observation_string(player) == b.observation_string(player)
    assert a.information_state_string(1) != b.information_state_string(1)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_the_observation_is_the_seats_view_and_the_envs_encoding(variant: str) -> None:
    """Along a random game of each variant, every player's observation tensor is the envs' encoding
    of its own view, the observers' strings are the state's, and the only hands in a player's
    information state are those it was dealt."""
    rng = random.Random(5)
    players = players_for(variant)
    game = load(variant=variant, players=players)
    state = game.new_initial_state()
    hidden_hands = not variant_spec(variant).hands_public
    observation = make_observation(game)
    recall = make_observation(game, INFO_STATE_OBS_TYPE)
    assert recall.tensor is not None and recall.tensor.shape == tuple(game.information_state_tensor_shape())
    while not state.is_terminal():
        if not state.is_chance_node():
            for player in range(players):
                view = state.engine.view(player)
                observation.set_from(state, player)
                assert np.array_equal(observation.tensor, encode(view))
                assert observation.string_from(state, player) == state.observation_string(player)
                assert recall.string_from(state, player) == state.information_state_string(player)
                assert f"hand={list(view.hand)}".replace(" ", "") in state.observation_string(player)
                # The only hands in the information state are the ones this player was dealt.
                dealt = [line for line in state.information_state_string(player).splitlines() if line.startswith("dealt ")]
                setups = state.shuffles.setups[: state.engine.deal_index + 1] if hidden_hands else []
                assert dealt == [f"dealt {k}: {list(setup.hands[player])}" for k, setup in enumerate(setups)]
        random_step(state, rng)


def test_information_states_have_perfect_recall_of_a_players_own_moves() -> None:
    """At a simultaneous node, a player's own chosen card shows in its information state (turn-based
    form: once it has chosen) and no one else's."""
    game = pyspiel.convert_to_turn_based(load(players=3))
    state = game.new_initial_state()
    rng = random.Random(2)
    while state.is_chance_node():
        random_step(state, rng)
    before = [state.information_state_string(p) for p in range(3)]
    state.apply_action(state.legal_actions()[0])
    after = [state.information_state_string(p) for p in range(3)]
    assert before[0] != after[0]


# ---------------------------------------------------------------------- bad input


def test_an_illegal_action_raises_openspiels_error_naming_it() -> None:
    state = load().new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        random_step(state, rng)
    hand = state.engine.hands[0]
    not_held = next(c for c in range(1, 105) if c not in hand)
    with pytest.raises(pyspiel.SpielError, match=rf"illegal action {not_held - 1} \(card {not_held}\) for player 0"):
        state.apply_actions([not_held - 1, *[state.legal_actions(p)[0] for p in (1, 2, 3)]])
    with pytest.raises(pyspiel.SpielError, match="for 4 players"):
        state.apply_actions([0])
    fresh = load().new_initial_state()
    fresh.apply_action(5)
    with pytest.raises(pyspiel.SpielError, match=r"card 6\) is not one chance may deal now"):
        fresh.apply_action(5)
    with pytest.raises(pyspiel.SpielError, match=r"card 4\) is not one chance may deal now"):
        fresh.apply_action(3)  # below the hand's first card: hands are dealt in ascending order


def test_an_unknown_parameter_is_refused_by_name() -> None:
    with pytest.raises(pyspiel.SpielError, match="bogus"):
        pyspiel.load_game("sixnimmt(bogus=1)")
    with pytest.raises(pyspiel.SpielError, match="11 players"):
        load(players=11)
    with pytest.raises(pyspiel.SpielError, match="unknown variant 'chess'"):
        load(variant="chess")
    assert set(DEFAULTS) == {
        "players", "variant", "target", "deals", "end", "pro_tie", "double_deck", "terminal_rewards",
        "zero_sum", "cards", "hand", "rows", "row_limit",
    }


def test_parameters_from_a_string_reach_the_rules() -> None:
    game = pyspiel.load_game("sixnimmt(players=5,variant=tactics,target=30,deals=0,end=above)")
    assert game.rules.players == 5 and game.rules.variant.value == "tactics"
    assert game.rules.target == 30 and game.rules.deals is None and game.rules.end.value == "above"
    assert game.num_players() == 5 and game.num_distinct_actions() == 109
