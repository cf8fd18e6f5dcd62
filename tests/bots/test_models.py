"""The opponent models of the search: the compiled copy of ``medium`` chooses exactly as ``medium``,
the per-seat model weights find the policy that plays a seat, and the inferred deals favour hands
consistent with what each seat played."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.bots.heuristics import CautiousBot
from sixnimmt.bots.models import MODELLED, PARAMETERS, Inference
from sixnimmt.bots.rollout import COUNTS, MEDIUM, hidden_counts, medium_pick
from sixnimmt.bots.search import MonteCarloBot, SearchConfig
from sixnimmt.core import DecisionKind, Game, PlayerView, Rules, Variant
from sixnimmt.core.fast import DOUBLE_ROW_WIDTH
from sixnimmt.seats import make_bot

#: The variants whose rollouts play ``medium`` compiled: one card each turn placed by the standard
#: or Professional rules, hands hidden (standard, Tactics, Professional, Tournament), public (Logic)
#: or played face up one by one (Open). Double's twins are counted by another estimate (stacked
#: cards), and Nifty and Hand are not rolled out.
COUNTED = (Variant.STANDARD, Variant.TACTICS, Variant.LOGIC, Variant.PROFESSIONAL, Variant.TOURNAMENT, Variant.OPEN)


def card_position(variant: Variant, players: int, seed: int, steps: int) -> PlayerView | None:
    """A view with a card decision, after ``steps`` random legal moves of a seeded game."""
    rng = random.Random(seed)
    game = Game(Rules(players=players, variant=variant, deals=1), seed=seed)
    taken = 0
    while not game.is_over:
        pending = game.pending()
        cards = [d for d in pending if d.kind is DecisionKind.CARD]
        if taken >= steps and cards:
            return game.view(rng.choice(cards).seat)
        decision = rng.choice(pending)
        game.act(decision.seat, rng.choice(decision.options))
        taken += 1
    return None


def compiled_medium(view: PlayerView) -> int:
    """The card the compiled copy picks from ``view``: the hidden cards are the viewer's unseen
    ones (the others' hands in Logic) and its own hand."""
    assert view.decision is not None and view.seat is not None
    rows = np.zeros((4, DOUBLE_ROW_WIDTH), dtype=np.int64)
    lens = np.zeros(4, dtype=np.int64)
    for r, row in enumerate(view.rows):
        rows[r, : len(row)] = row
        lens[r] = len(row)
    unseen = view.unseen_cards()
    if view.hands is not None:
        unseen = tuple(c for s, h in enumerate(view.hands) if s != view.seat for c in h)
    hand = np.array(view.decision.options, dtype=np.int64)
    hidden = np.array([*unseen, *hand], dtype=np.int64)
    cnt = np.zeros(COUNTS, dtype=np.int64)
    bul = np.zeros(COUNTS, dtype=np.int64)
    hidden_counts(hidden.reshape(1, -1), np.array([len(hidden)]), np.zeros(0, dtype=np.int64), cnt, bul)
    others = view.players - 1
    index = medium_pick(rows, lens, hand, len(hand), cnt, bul, others, view.rules.professional, False)
    return int(hand[index])


@settings(max_examples=300, deadline=None)
@given(
    variant=st.sampled_from(COUNTED),
    players=st.sampled_from((2, 3, 4, 5, 6, 8, 10)),
    seed=st.integers(0, 2**31 - 1),
    steps=st.integers(0, 120),
)
def test_compiled_medium_chooses_as_medium(variant: Variant, players: int, seed: int, steps: int) -> None:
    """On random positions of every counted variant the compiled copy plays ``medium``'s card."""
    spec = Rules(players=2, variant=variant).spec
    players = min(max(players, spec.min_players), spec.max_players)
    view = card_position(variant, players, seed, steps)
    if view is None or view.decision is None:
        return
    assert compiled_medium(view) == CautiousBot(0).decide(view)


def play_deal(specs: list[str], players: int, seed: int, watch: MonteCarloBot, seat: int) -> list[Inference]:
    """One deal with ``watch`` in ``seat`` and ``specs`` in the others; every inference ``watch``
    made at its card decisions, in order."""
    bots = {s: make_bot(specs[s], seed + s) for s in range(players) if s != seat}
    game = Game(Rules(players=players, deals=1), seed=seed)
    seen: list[Inference] = []
    while not game.is_over:
        for decision in game.pending():
            view = game.view(decision.seat)
            if decision.seat != seat:
                game.act(decision.seat, bots[decision.seat].decide(view))
                continue
            game.act(seat, watch.decide(view))
            if decision.kind is DecisionKind.CARD and len(decision.options) > 1:
                seen.append(watch.inference(view))
    return seen


def searcher_with_models(seed: int) -> MonteCarloBot:
    return MonteCarloBot(seed, SearchConfig(samples=4, policy=MODELLED))


def test_weights_move_toward_the_policy_that_plays_a_seat() -> None:
    """Within one deal, a seat played by ``medium`` ends weighted to ``medium`` (above its prior, and
    above every other model), and a seat played at random ends weighted away from ``medium``."""
    medium = PARAMETERS.models.index(MEDIUM)
    prior = PARAMETERS.prior(4)
    for seed in (1, 2):
        seen = play_deal(["", "medium", "random", "medium"], 4, seed, searcher_with_models(seed), 0)
        first, last = seen[0].weights, seen[-1].weights
        assert np.allclose(first[1], prior)  # nothing seen yet: the prior
        for seat in (1, 3):
            assert last[seat].argmax() == medium and last[seat, medium] > prior[medium]
        assert last[2, medium] < prior[medium]


def test_inference_favours_deals_consistent_with_the_plays() -> None:
    """The resampled deals explain a ``medium`` seat's plays better than the uniform deals they were
    drawn from (a higher mean likelihood under ``medium``)."""
    medium = PARAMETERS.models.index(MEDIUM)
    players, seed, seat = 6, 4, 2
    bot = searcher_with_models(seed)
    game = Game(Rules(players=players, deals=1), seed=seed)
    bots = [make_bot("medium", s) for s in range(players)]
    for _ in range(6):  # six turns of a medium table, the watching bot remembering every one
        for decision in game.pending():
            view = game.view(decision.seat)
            if decision.seat == 0:
                bot.memory.remember(view)
            game.act(decision.seat, bots[decision.seat].decide(view))
    view = game.view(0)
    inference = bot.inference(view)
    loglik = inference.loglik[:, :, seat, medium].sum(axis=1)
    assert loglik[inference.kept].mean() > loglik.mean()
