"""The compiled inner loops of :mod:`sixnimmt.rl.vector`: N games stepped and encoded in arrays.

Everything here works on a :class:`Batch` of arrays with a leading game axis and is compiled with
numba. The placement rules are the core's compiled kernels (:mod:`sixnimmt.core.fast`); what this
module adds is the game's state machine around them (deals, turns, row choices, scoring, the end
rule) and an encoder that writes, for a seat, exactly the vector :func:`sixnimmt.rl.encoding.encode`
builds from that seat's view. ``tests/rl/test_vector.py`` checks both against the checked engine,
decision by decision.

Covered: every variant whose turn is one secret card from everyone, dealt by shuffling, from a deck
of distinct cards ``1..deck_top``, placed at a row's right end or (Professional) at either end:
standard, Tactics and Professional, 2 to 10 players.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..bots.rollout import card_danger
from ..core.cards import BULLHEADS, DECK_SIZE, HAND_SIZE, ROW_COUNT, ROW_LIMIT
from ..core.fast import nb_cheapest_row, nb_put, nb_row_cost, nb_row_for, nb_slots_pro
from .encoding import (
    N_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    PLAYER_FEATURES,
    ROW_ACTION_BASE,
    ROW_FEATURES,
    ROW_POINTS_SCALE,
    segment_slice,
)

# Phases of a game in the batch.
PLAY, ROW, OVER = 0, 1, 2
# Why a row choice is owed (the observation's reason one-hot).
TOO_LOW, TIE = 0, 1
# Professional ties (Rules.pro_tie): the owner chooses, or always the left or the right end.
TIE_CHOOSE, TIE_LEFT, TIE_RIGHT = 0, 1, 2
# Compiled opponents (SixNimmtVectorEnv): which rule picks their moves.
OPP_RANDOM, OPP_GREEDY = 0, 1

_BULL = np.array(BULLHEADS, dtype=np.int64)
#: Where the encoding's segments start, in this order (``layout()``). They reach the compiled encoder
#: as data in :class:`Config`, not as constants: numba's cache would keep a constant from another
#: module after that module changed.
LAYOUT_SEGMENTS = ("hand", "table", "unseen", "unplaced", "hand_take", "hand_gap", "hand_too_low", "rows",
                   "players", "decision", "context")
_FDECK = float(DECK_SIZE)
_FLIMIT = float(ROW_LIMIT)
_FPOINTS = float(ROW_POINTS_SCALE)


class Config(NamedTuple):
    """What the rules fix for every game of a batch (plain numbers, for the compiled code)."""

    players: int
    deck_top: int  # the deck is 1..deck_top
    professional: bool
    tie_mode: int  # TIE_CHOOSE, TIE_LEFT or TIE_RIGHT
    target: int  # -1: none
    above: bool  # the end rule: a total > target (else >= target)
    deals: int  # -1: no limit
    score_scale: float  # totals are divided by this in the observation
    variant_slot: int  # the variant's place in the observation's one-hot
    layout: np.ndarray  # int64: where the observation's segments start (layout())


class Batch(NamedTuple):
    """The state of N games. Hands are sorted, their first ``hand_len`` entries valid; rows hold
    ``row_len`` cards in ``rows[:, r, :row_len]``; ``seen`` marks the cards of this deal every seat
    has seen (the starting rows and every card revealed), by card number."""

    rows: np.ndarray  # int64[N, 4, 6]
    row_len: np.ndarray  # int64[N, 4]
    hands: np.ndarray  # int64[N, P, 10]
    hand_len: np.ndarray  # int64[N, P]
    seen: np.ndarray  # bool[N, 105]
    totals: np.ndarray  # int64[N, P]: scores of finished deals
    penalties: np.ndarray  # int64[N, P]: bullheads taken this deal
    queue_card: np.ndarray  # int64[N, P]: this turn's cards in placement order
    queue_seat: np.ndarray  # int64[N, P]: their owners
    queue_pos: np.ndarray  # int64[N]: the next card to place (P: none waits)
    phase: np.ndarray  # int64[N]: PLAY, ROW or OVER
    pending: np.ndarray  # int64[N, 3]: a row choice owed: seat, card, reason
    options: np.ndarray  # bool[N, 4]: its legal rows
    turn: np.ndarray  # int64[N]
    deal: np.ndarray  # int64[N]
    rng: np.ndarray  # uint64[N, 2]: the deals' generator, the random opponents' generator

    @staticmethod
    def empty(games: int, players: int) -> Batch:
        return Batch(
            rows=np.zeros((games, ROW_COUNT, ROW_LIMIT + 1), dtype=np.int64),
            row_len=np.ones((games, ROW_COUNT), dtype=np.int64),
            hands=np.zeros((games, players, HAND_SIZE), dtype=np.int64),
            hand_len=np.zeros((games, players), dtype=np.int64),
            seen=np.zeros((games, DECK_SIZE + 1), dtype=np.bool_),
            totals=np.zeros((games, players), dtype=np.int64),
            penalties=np.zeros((games, players), dtype=np.int64),
            queue_card=np.zeros((games, players), dtype=np.int64),
            queue_seat=np.zeros((games, players), dtype=np.int64),
            queue_pos=np.full(games, players, dtype=np.int64),
            phase=np.full(games, OVER, dtype=np.int64),
            pending=np.zeros((games, 3), dtype=np.int64),
            options=np.zeros((games, ROW_COUNT), dtype=np.bool_),
            turn=np.zeros(games, dtype=np.int64),
            deal=np.zeros(games, dtype=np.int64),
            rng=np.zeros((games, 2), dtype=np.uint64),
        )


# ------------------------------------------------------------------------------ random numbers


@njit(cache=True)
def splitmix64(x: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    """One step of SplitMix64's output function: a well-mixed 64-bit number from ``x``."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _below(rng: np.ndarray, g: int, k: int, n: int) -> np.int64:  # pragma: no cover - compiled
    """A uniform number in ``0..n-1`` from generator ``k`` of game ``g`` (SplitMix64 stream)."""
    rng[g, k] += np.uint64(0x9E3779B97F4A7C15)
    x = splitmix64(rng[g, k])
    return np.int64(x % np.uint64(n))  # int64: numba would unify uint64 with int64 as float64


@njit(cache=True)
def seed_games(rng: np.ndarray, games: np.ndarray, seed: int) -> None:  # pragma: no cover - compiled
    """Independent streams for each game of ``games``, all fixed by ``seed`` and the game's index."""
    base = splitmix64(np.uint64(seed))
    for g in games:
        rng[g, 0] = splitmix64(base ^ splitmix64(np.uint64(2 * g + 1)))
        rng[g, 1] = splitmix64(base ^ splitmix64(np.uint64(2 * g + 2)))


# ---------------------------------------------------------------------------------- the game


@njit(cache=True)
def _start_deal(b: Batch, c: Config, g: int) -> None:  # pragma: no cover - compiled
    b.deal[g] += 1
    b.turn[g] = 0
    b.phase[g] = PLAY
    b.queue_pos[g] = c.players
    b.seen[g, :] = False
    deck = np.arange(1, c.deck_top + 1)
    for i in range(c.deck_top - 1, 0, -1):  # Fisher-Yates
        j = _below(b.rng, g, 0, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for s in range(c.players):
        b.penalties[g, s] = 0
        b.hands[g, s, :] = np.sort(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE])
        b.hand_len[g, s] = HAND_SIZE
    for r in range(ROW_COUNT):
        card = deck[c.players * HAND_SIZE + r]
        b.rows[g, r, 0] = card
        b.row_len[g, r] = 1
        b.seen[g, card] = True


@njit(cache=True)
def new_game(b: Batch, c: Config, g: int) -> None:  # pragma: no cover - compiled
    for s in range(c.players):
        b.totals[g, s] = 0
    b.deal[g] = -1
    _start_deal(b, c, g)


@njit(cache=True)
def _charge(b: Batch, g: int, seat: int, cost: int, taken: np.ndarray) -> None:  # pragma: no cover
    b.penalties[g, seat] += cost
    taken[g, seat] += cost


@njit(cache=True)
def _end_turn(b: Batch, c: Config, g: int) -> None:  # pragma: no cover - compiled
    b.turn[g] += 1
    b.phase[g] = PLAY
    if b.turn[g] < HAND_SIZE:
        return
    top = 0
    for s in range(c.players):
        b.totals[g, s] += b.penalties[g, s]
        top = max(top, b.totals[g, s])
    over = c.deals >= 0 and b.deal[g] + 1 >= c.deals
    if c.target >= 0 and (top > c.target if c.above else top >= c.target):
        over = True
    if over:
        b.phase[g] = OVER  # the last deal's penalties stay, as in the engine
    else:
        _start_deal(b, c, g)


@njit(cache=True)
def _resolve(b: Batch, c: Config, g: int, taken: np.ndarray) -> None:  # pragma: no cover - compiled
    """Place this turn's waiting cards in order until one needs its owner's row choice."""
    rows, lens = b.rows[g], b.row_len[g]
    while b.queue_pos[g] < c.players:
        k = b.queue_pos[g]
        card, seat = b.queue_card[g, k], b.queue_seat[g, k]
        if c.professional:
            right, left, _ = nb_slots_pro(rows, lens, card)
            if right >= 0 and left >= 0:  # a tie between one row's right end and another's left
                if c.tie_mode == TIE_CHOOSE:
                    b.options[g, :] = False
                    b.options[g, right] = True
                    b.options[g, left] = True
                    b.pending[g, 0], b.pending[g, 1], b.pending[g, 2] = seat, card, TIE
                    b.phase[g] = ROW
                    return
                if c.tie_mode == TIE_LEFT:
                    right = -1
                else:
                    left = -1
            if left >= 0:
                _charge(b, g, seat, nb_put(rows, lens, left, card, True), taken)
                b.queue_pos[g] += 1
                continue
            best = right
        else:
            best, _ = nb_row_for(rows, lens, card)
        if best < 0:  # too low: the owner chooses the row to take
            b.options[g, :] = True
            b.pending[g, 0], b.pending[g, 1], b.pending[g, 2] = seat, card, TOO_LOW
            b.phase[g] = ROW
            return
        _charge(b, g, seat, nb_put(rows, lens, best, card, False), taken)
        b.queue_pos[g] += 1
    _end_turn(b, c, g)


@njit(cache=True)
def play_cards(b: Batch, c: Config, g: int, cards: np.ndarray, taken: np.ndarray) -> None:  # pragma: no cover
    """Every seat's card of this turn (``cards[seat]``, each in that seat's hand): reveal, place."""
    for s in range(c.players):
        card = cards[s]
        n = b.hand_len[g, s]
        j = 0
        while b.hands[g, s, j] != card:
            j += 1
        for i in range(j, n - 1):
            b.hands[g, s, i] = b.hands[g, s, i + 1]
        b.hands[g, s, n - 1] = 0
        b.hand_len[g, s] = n - 1
        b.seen[g, card] = True
        # Insertion into the placement order (ascending cards).
        k = s
        while k > 0 and b.queue_card[g, k - 1] > card:
            b.queue_card[g, k] = b.queue_card[g, k - 1]
            b.queue_seat[g, k] = b.queue_seat[g, k - 1]
            k -= 1
        b.queue_card[g, k] = card
        b.queue_seat[g, k] = s
    b.queue_pos[g] = 0
    _resolve(b, c, g, taken)


@njit(cache=True)
def choose_row(b: Batch, c: Config, g: int, row: int, taken: np.ndarray) -> None:  # pragma: no cover
    """The pending row choice answered with ``row`` (one of ``options[g]``)."""
    rows, lens = b.rows[g], b.row_len[g]
    seat, card, reason = b.pending[g, 0], b.pending[g, 1], b.pending[g, 2]
    if reason == TOO_LOW:
        _charge(b, g, seat, nb_row_cost(rows, lens, row), taken)
        rows[row, 0] = card
        lens[row] = 1
    else:
        right, _, _ = nb_slots_pro(rows, lens, card)
        _charge(b, g, seat, nb_put(rows, lens, row, card, row != right), taken)
    b.queue_pos[g] += 1
    b.phase[g] = PLAY
    _resolve(b, c, g, taken)


# ------------------------------------------------------------------------------- the decisions


@njit(cache=True)
def owes(b: Batch, g: int, seat: int) -> bool:  # pragma: no cover - compiled
    phase = b.phase[g]
    return bool(phase == PLAY or (phase == ROW and b.pending[g, 0] == seat))


@njit(cache=True)
def is_legal(b: Batch, g: int, seat: int, action: int) -> bool:  # pragma: no cover - compiled
    """Whether ``action`` answers what ``seat`` owes in game ``g`` (``PASS_ACTION`` if nothing)."""
    if not owes(b, g, seat):
        return action == PASS_ACTION
    if b.phase[g] == ROW:
        return ROW_ACTION_BASE <= action < ROW_ACTION_BASE + ROW_COUNT and b.options[g, action - ROW_ACTION_BASE]
    for j in range(b.hand_len[g, seat]):
        if b.hands[g, seat, j] == action + 1:
            return True
    return False


@njit(cache=True)
def first_illegal(b: Batch, actions: np.ndarray, games: np.ndarray) -> int:  # pragma: no cover
    """``g * players + seat`` of the first owed decision ``actions[g, seat]`` does not answer
    legally, among ``games``; -1 if every one is legal. Seats that owe nothing are not checked."""
    for g in games:
        for s in range(actions.shape[1]):
            if owes(b, g, s) and not is_legal(b, g, s, actions[g, s]):
                return int(g * actions.shape[1] + s)
    return -1


@njit(cache=True)
def _random_row_action(b: Batch, g: int) -> int:  # pragma: no cover - compiled
    """A uniformly random one of game ``g``'s row options, as an action (one draw of its generator)."""
    count = 0
    for r in range(ROW_COUNT):
        count += b.options[g, r]
    pick = _below(b.rng, g, 1, count)
    for r in range(ROW_COUNT):
        if b.options[g, r]:
            if pick == 0:
                return ROW_ACTION_BASE + r
            pick -= 1
    return -1  # no option: never asked, a row choice always offers one


@njit(cache=True)
def replace_illegal(b: Batch, actions: np.ndarray, games: np.ndarray, replaced: np.ndarray) -> None:  # pragma: no cover
    """Every owed decision in ``games`` that ``actions`` does not answer legally gets a uniformly
    random legal action instead (from the game's own generator); ``replaced[g, seat]`` marks them."""
    for g in games:
        for s in range(actions.shape[1]):
            if not owes(b, g, s) or is_legal(b, g, s, actions[g, s]):
                continue
            replaced[g, s] = True
            if b.phase[g] == PLAY:
                actions[g, s] = b.hands[g, s, _below(b.rng, g, 1, b.hand_len[g, s])] - 1
                continue
            actions[g, s] = _random_row_action(b, g)


@njit(cache=True)
def apply(b: Batch, c: Config, actions: np.ndarray, games: np.ndarray, taken: np.ndarray) -> None:  # pragma: no cover
    """Answer the decisions each game of ``games`` waits for with ``actions[g, seat]`` (checked
    by :func:`first_illegal` first). ``taken[g, seat]`` adds up the bullheads taken."""
    cards = np.empty(c.players, dtype=np.int64)
    for g in games:
        if b.phase[g] == PLAY:
            for s in range(c.players):
                cards[s] = actions[g, s] + 1
            play_cards(b, c, g, cards, taken)
        elif b.phase[g] == ROW:
            choose_row(b, c, g, actions[g, b.pending[g, 0]] - ROW_ACTION_BASE, taken)


@njit(cache=True)
def opponent_actions(
    b: Batch, c: Config, actions: np.ndarray, games: np.ndarray, seats: np.ndarray, kinds: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Fill ``actions[g, s]`` for every seat ``s`` that owes a decision in game ``g`` of ``games``
    and is played by a compiled opponent (``kinds[g, s]``: OPP_RANDOM or OPP_GREEDY; -1: not).

    Random: a uniformly random legal action (from the game's own generator). Greedy: the card with
    the lowest quick danger estimate of the search bots' rollouts (a sure sixth card or a too-low
    card is expensive; a snug fit in a short row is cheap), then the cheapest row (fewest bullheads,
    then fewest cards) or, in a Professional tie, the end whose row has room."""
    for g in games:
        for s in range(c.players):
            kind = kinds[g, s]
            if kind < 0 or not owes(b, g, s) or s == seats[g]:
                continue
            if b.phase[g] == PLAY:
                n = b.hand_len[g, s]
                if kind == OPP_RANDOM:
                    pick = int(_below(b.rng, g, 1, n))
                else:
                    pick = 0
                    low = 1e18
                    for j in range(n):
                        d = card_danger(b.rows[g], b.row_len[g], b.hands[g, s, j], c.professional)
                        if d < low:
                            pick = j
                            low = d
                actions[g, s] = b.hands[g, s, pick] - 1
                continue
            if kind == OPP_RANDOM:
                actions[g, s] = _random_row_action(b, g)
            elif b.pending[g, 2] == TOO_LOW:
                actions[g, s] = ROW_ACTION_BASE + nb_cheapest_row(b.rows[g], b.row_len[g])
            else:
                right, left, _ = nb_slots_pro(b.rows[g], b.row_len[g], b.pending[g, 1])
                full_right = b.row_len[g, right] >= ROW_LIMIT
                row = left if full_right and b.row_len[g, left] < ROW_LIMIT else right
                actions[g, s] = ROW_ACTION_BASE + row


# ------------------------------------------------------------------------------- the encoding


@njit(cache=True)
def encode_seat(
    b: Batch, c: Config, g: int, seat: int, others_chosen: bool, obs: np.ndarray, mask: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Write ``seat``'s observation and action mask in game ``g`` into ``obs`` (float32[OBS_SIZE])
    and ``mask`` (int8[N_ACTIONS]): what ``encoding.encode`` and ``encoding.action_mask`` give for
    that seat's view. ``others_chosen``: in the card phase, the other seats have already chosen
    (the single-agent env asks the learner last)."""
    obs[:] = 0.0
    mask[:] = 0
    at = c.layout  # segment starts; "- 1" below for card segments, where card c sits at start + c - 1
    hand_at, table_at, unseen_at, unplaced_at = at[0] - 1, at[1] - 1, at[2] - 1, at[3] - 1
    take_at, gap_at, too_low_at = at[4] - 1, at[5] - 1, at[6] - 1
    rows_at, players_at, decision_at, context_at = at[7], at[8], at[9], at[10]
    reason_at = decision_at + 5  # after the kind one-hot (card, row, draft, order, keep)
    variants_at = context_at + 3  # after turn, deal, players
    rows, lens = b.rows[g], b.row_len[g]
    players = c.players
    phase = b.phase[g]
    n = b.hand_len[g, seat]
    # Cards: hand, table, waiting to be placed, unseen (this deck, less everything seen).
    for c_ in range(1, c.deck_top + 1):
        if not b.seen[g, c_]:
            obs[unseen_at + c_] = 1.0
    for j in range(n):
        card = b.hands[g, seat, j]
        obs[hand_at + card] = 1.0
        obs[unseen_at + card] = 0.0
    costs = np.zeros(ROW_COUNT, dtype=np.int64)
    cheapest = 1 << 30
    for r in range(ROW_COUNT):
        for j in range(lens[r]):
            obs[table_at + rows[r, j]] = 1.0
        costs[r] = nb_row_cost(rows, lens, r)
        cheapest = min(cheapest, costs[r])
    if phase == ROW:
        for k in range(b.queue_pos[g], players):
            obs[unplaced_at + b.queue_card[g, k]] = 1.0
    # Where each hand card would go now (encoding._hand_placement).
    for j in range(n):
        card = b.hands[g, seat, j]
        if c.professional:
            right, left, gap = nb_slots_pro(rows, lens, card)
            # in a tie, the lower row: the first end found, as best_slots lists them
            best = left if right < 0 or 0 <= left < right else right
        else:
            best, gap = nb_row_for(rows, lens, card)
        if best < 0:
            obs[too_low_at + card] = 1.0
            obs[gap_at + card] = 1.0
            points = cheapest
        else:
            obs[gap_at + card] = gap / _FDECK
            points = costs[best] if lens[best] >= ROW_LIMIT else 0
        if points:
            obs[take_at + card] = min(points / _FPOINTS, 1.0)
    for r in range(ROW_COUNT):
        base = rows_at + r * ROW_FEATURES
        obs[base] = rows[r, 0] / _FDECK
        obs[base + 1] = rows[r, lens[r] - 1] / _FDECK
        obs[base + 2] = lens[r] / _FLIMIT
        obs[base + 3] = min(costs[r] / _FPOINTS, 1.0)
        if lens[r] >= ROW_LIMIT:
            obs[base + 4] = 1.0
    for slot in range(players):
        other = (seat + slot) % players
        base = players_at + slot * PLAYER_FEATURES
        obs[base] = 1.0
        obs[base + 1] = min(b.totals[g, other] / c.score_scale, 1.0)
        obs[base + 2] = min(b.penalties[g, other] / c.score_scale, 1.0)
        obs[base + 3] = min(b.hand_len[g, other] / float(HAND_SIZE), 1.0)
        if phase == ROW or (phase == PLAY and others_chosen and other != seat):
            obs[base + 4] = 1.0
    if phase == PLAY:
        obs[decision_at] = 1.0
        for j in range(n):
            mask[b.hands[g, seat, j] - 1] = 1
    elif phase == ROW and b.pending[g, 0] == seat:
        obs[decision_at + 1] = 1.0
        obs[reason_at + b.pending[g, 2]] = 1.0
        obs[reason_at + 2] = b.pending[g, 1] / _FDECK
        for r in range(ROW_COUNT):
            if b.options[g, r]:
                mask[ROW_ACTION_BASE + r] = 1
    else:
        mask[PASS_ACTION] = 1
    obs[context_at] = min(b.turn[g] / float(HAND_SIZE), 1.0)
    obs[context_at + 1] = min(max(b.deal[g], 0) / 10.0, 1.0)
    obs[context_at + 2] = players / 10.0
    obs[variants_at + c.variant_slot] = 1.0


@njit(cache=True)
def encode_all(b: Batch, c: Config, games: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> None:  # pragma: no cover
    """Every seat's observation (``obs[g, seat]``) and mask in each game of ``games`` (self-play)."""
    for g in games:
        for s in range(c.players):
            encode_seat(b, c, g, s, False, obs[g, s], masks[g, s])


@njit(cache=True)
def encode_pairs(
    b: Batch, c: Config, games: np.ndarray, seats: np.ndarray, obs: np.ndarray, masks: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Seat ``seats[k]`` of game ``games[k]`` into ``obs[k]`` and ``masks[k]`` (opponents' views)."""
    for k in range(games.shape[0]):
        encode_seat(b, c, games[k], seats[k], False, obs[k], masks[k])


@njit(cache=True)
def encode_seats(
    b: Batch, c: Config, seats: np.ndarray, others_chosen: bool, obs: np.ndarray, masks: np.ndarray
) -> None:  # pragma: no cover - compiled
    """One seat's observation per game: ``seats[g]``'s into ``obs[g]`` and ``masks[g]``."""
    for g in range(seats.shape[0]):
        encode_seat(b, c, g, seats[g], others_chosen, obs[g], masks[g])




def layout() -> np.ndarray:
    """The encoding's segment starts, in the order of :data:`LAYOUT_SEGMENTS`."""
    return np.array([segment_slice(name).start for name in LAYOUT_SEGMENTS], dtype=np.int64)


assert N_ACTIONS == PASS_ACTION + 1 and OBS_SIZE > segment_slice("context").start
