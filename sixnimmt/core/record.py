"""Game records: read, check and replay them (docs/record-format.md).

A record stores the rules, the seats, every deal's cards and every turn's plays and row picks, so
that a game replays exactly. :func:`replay` rebuilds the :class:`~sixnimmt.core.game.Game` and raises
:class:`~sixnimmt.core.errors.RecordError` naming the deal, turn, seat and card where a record goes
wrong.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cards import HAND_SIZE, ROW_COUNT
from .errors import IllegalMoveError, RecordError, RulesError
from .game import DealSetup, Game, RandomDealer
from .rules import Rules, Variant
from .views import PASS, DecisionKind, Phase

FORMAT = "sixnimmt-record"
VERSION = 2  # written for the variants of RULES.md §6; version 1 (the others) is still read
VERSIONS = (1, 2)
_TOP_FIELDS = {"format", "version", "rules", "seats", "deals", "scores"}


@dataclass(frozen=True, slots=True)
class ReplayResult:
    game: Game
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    deals: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": True,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "deals": self.deals,
        }


def load(path: str | Path) -> dict[str, Any]:
    """Read a record file as JSON (not yet checked: :func:`replay` does that)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"cannot read {path}: {error.strerror or error}") from None
    return loads(text)


def loads(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    if not isinstance(data, dict):
        raise RecordError(f"a record is a JSON object, not {type(data).__name__}")
    return data


def dumps(record: Mapping[str, Any]) -> str:
    """A record as compact, readable JSON: one line per turn."""
    return json.dumps(record, indent=1, separators=(",", ": "))


def _int(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where}: expected a whole number, got {json.dumps(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise RecordError(f"{where}: {value} is out of range {low}..{high}")
    return value


def _list(value: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{where}: expected a list, got {json.dumps(value)[:60]}")
    if length is not None and len(value) != length:
        raise RecordError(f"{where}: expected {length} entries, got {len(value)}")
    return value


def _object(value: Any, where: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(f"{where}: expected an object, got {json.dumps(value)[:60]}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {', '.join(unknown)}")
    missing = sorted(required - set(value))
    if missing:
        raise RecordError(f"{where}: missing field(s) {', '.join(missing)}")
    return value


def _parse_header(data: Mapping[str, Any]) -> tuple[Rules, list[str]]:
    _object(data, "record", _TOP_FIELDS, {"format", "version", "rules", "deals"})
    if data["format"] != FORMAT:
        raise RecordError(f"not a {FORMAT} file (format is {json.dumps(data['format'])})")
    version = data["version"]
    if version not in VERSIONS or isinstance(version, bool):
        readable = " and ".join(str(v) for v in VERSIONS)
        raise RecordError(f"unsupported record version {json.dumps(version)} (this reads {readable})")
    try:
        rules = Rules.from_dict(data["rules"])
    except RulesError as error:
        raise RecordError(f"rules: {error}") from None
    if version < rules.spec.record_version:
        raise RecordError(
            f"the {rules.variant.value} variant needs record version {rules.spec.record_version}"
        )
    seats = data.get("seats")
    if seats is None:
        seats = [f"Player {i + 1}" for i in range(rules.players)]
    _list(seats, "seats", rules.players)
    for i, name in enumerate(seats):
        if not isinstance(name, str):
            raise RecordError(f"seats[{i}]: a seat name is a string, got {json.dumps(name)}")
    return rules, list(seats)


def _parse_deal(raw: Any, index: int, rules: Rules) -> tuple[DealSetup | None, list[Any], list[Any]]:
    """Check one deal's shape; returns (setup, or None when no chance is involved; draft order;
    turns)."""
    where = f"deal {index + 1}"
    variant = rules.variant
    order: list[Any] = []
    setup: DealSetup | None = None
    if variant is Variant.LOGIC or (variant is Variant.TOURNAMENT and index == 0):
        deal = _object(raw, where, {"draft", "turns"}, {"draft", "turns"})
        draft = _object(deal["draft"], f"{where} draft", {"first", "order"}, {"first", "order"})
        first = _int(draft["first"], f"{where} draft.first", 0, rules.players - 1)
        if first != index % rules.players:
            raise RecordError(
                f"{where}: the draft starts with seat {index % rules.players}, not seat {first}"
            )
        order = _list(draft["order"], f"{where} draft.order")
    elif variant is Variant.TOURNAMENT:
        deal = _object(raw, where, {"turns"}, {"turns"})  # the drafted sheets, passed on
    else:
        deal = _object(raw, where, {"hands", "rows", "turns"}, {"hands", "rows", "turns"})
        hands = _list(deal["hands"], f"{where} hands", rules.players)
        parsed_hands = []
        for seat, hand in enumerate(hands):
            cards = _list(hand, f"{where} hands[{seat}]", rules.hand_size)
            parsed_hands.append(tuple(_int(c, f"{where} hands[{seat}]") for c in cards))
        rows = _list(deal["rows"], f"{where} rows", ROW_COUNT)
        turned: list[int] = []
        stacks = variant is Variant.DOUBLE
        for r, row in enumerate(rows):
            cards = _list(row, f"{where} rows[{r}]")
            if not (len(cards) == 1 or (stacks and len(cards) == 2)):
                size = "1 card, or 2 twins" if stacks else "1 card"
                raise RecordError(f"{where} rows[{r}]: a row starts with {size}, got {len(cards)}")
            values = [_int(c, f"{where} rows[{r}]") for c in cards]
            if len(set(values)) != 1:
                raise RecordError(f"{where} rows[{r}]: only twins stack, not {values}")
            turned.extend(values)
        setup = DealSetup(tuple(parsed_hands), tuple(turned))
        try:
            setup.validate(rules)
        except RulesError as error:
            raise RecordError(f"{where}: {error}") from None
    turns = _list(deal["turns"], f"{where} turns")
    return setup, order, turns


class _RecordDealer:
    """Deals the recorded cards; past the record's end (a game resumed from a partial record) it
    shuffles from a seed, so the resumed game can go on."""

    def __init__(self, rules: Rules, setups: list[DealSetup | None], seed: int | None) -> None:
        self._setups = setups
        self._fallback = RandomDealer(rules, random.Random(seed))

    def __call__(self, deal_index: int) -> DealSetup:
        if deal_index < len(self._setups):
            setup = self._setups[deal_index]
            if setup is not None:
                return setup
        return self._fallback(deal_index)


def replay(
    data: Mapping[str, Any], *, partial: bool = False, seed: int | None = None
) -> ReplayResult:
    """Replay a record and check it. With ``partial`` the record may stop anywhere (a game in
    progress); otherwise it must end exactly when the game ends. ``seed`` shuffles any deal after the
    record's last (only a partial record needs one)."""
    rules, seats = _parse_header(data)
    raw_deals = _list(data["deals"], "deals")
    if not raw_deals:
        raise RecordError("the record has no deals")
    parsed = [_parse_deal(raw, i, rules) for i, raw in enumerate(raw_deals)]
    scores = data.get("scores")
    if scores is not None:
        scores = [_int(s, f"scores[{i}]") for i, s in enumerate(_list(scores, "scores", rules.players))]
    try:
        game = Game(rules, seats, dealer=_RecordDealer(rules, [p[0] for p in parsed], seed))
    except RulesError as error:  # pragma: no cover - setups were validated above
        raise RecordError(str(error)) from None

    last = len(parsed) - 1
    hand_variant = rules.variant is Variant.HAND
    per_deal = game.turns_per_deal
    for index, (_, order, turns) in enumerate(parsed):
        where = f"deal {index + 1}"
        if game.is_over:
            raise RecordError(
                f"{where}: the game was already over after deal {index} "
                f"(totals {game.totals}), but the record goes on"
            )
        if (rules.drafted and order) or game.phase is Phase.DRAFT:
            _replay_draft(game, order, where, partial and index == last)
        if not hand_variant and len(turns) > per_deal:
            raise RecordError(f"{where}: {len(turns)} turns, but a deal has {per_deal}")
        for t, turn in enumerate(turns):
            if game.is_over:
                raise RecordError(f"{where}, turn {t + 1}: the game was already over")
            _replay_turn(game, turn, f"{where}, turn {t + 1}", seats)
        if not hand_variant and len(turns) < per_deal and not (partial and index == last):
            raise RecordError(f"{where}: only {len(turns)} of {per_deal} turns")

    if not partial:
        if not game.is_over:
            target = "none" if rules.target is None else f"{rules.end.value} {rules.target}"
            raise RecordError(
                f"the record ends after deal {len(parsed)}, but the game is not over "
                f"(totals {game.totals}, target {target})"
            )
        if scores is not None and list(scores) != game.totals:
            raise RecordError(f"scores {scores} do not match the replayed totals {game.totals}")
    return ReplayResult(game, tuple(game.totals), game.winners, len(parsed))


def _replay_draft(game: Game, order: list[Any], where: str, may_stop: bool) -> None:
    expected = HAND_SIZE * game.players
    if len(order) > expected:
        raise RecordError(f"{where}: the draft has {len(order)} picks, not {expected}")
    for i, raw in enumerate(order):
        card = _int(raw, f"{where}, draft pick {i + 1}")
        seat = game.drafter
        assert seat is not None
        try:
            game.draft(seat, card)
        except IllegalMoveError:
            raise RecordError(
                f"{where}, draft pick {i + 1}, seat {seat} ({game.seats[seat]}), card {card}: "
                "not in the draft pool"
            ) from None
    if len(order) < expected and not may_stop:
        raise RecordError(f"{where}: the draft has {len(order)} picks, not {expected}")


def _play(game: Game, seat: int, card: int, where: str, seats: list[str]) -> None:
    try:
        game.play(seat, card)
    except IllegalMoveError:
        raise RecordError(
            f"{where}, seat {seat} ({seats[seat]}), card {card}: not in that seat's hand "
            f"{sorted(game.hands[seat])}"
        ) from None


def _turn_plays(game: Game, turn: dict[str, Any], where: str, seats: list[str]) -> list[int]:
    """Play a turn's cards as the variant asks for them; returns every card played."""
    variant = game.rules.variant
    if variant is Variant.HAND:
        seat = _int(turn.get("seat"), f"{where} seat", 0, game.players - 1)
        if seat != game.current:
            raise RecordError(f"{where}: it is seat {game.current}'s turn, not seat {seat}'s")
        cards = [_int(c, f"{where} plays") for c in _list(turn["plays"], f"{where} plays")]
        if not 1 <= len(cards) <= 2:
            raise RecordError(f"{where}: a player plays 1 or 2 cards, not {len(cards)}")
        for card in cards:
            _play(game, seat, card, where, seats)
        if len(cards) == 1 and game.phase is Phase.PLAY and game.current == seat and game.choices[seat]:
            game.play(seat, PASS)  # no second card
        return cards
    if "seat" in turn:
        raise RecordError(f"{where}: unknown field(s) seat")
    plays = _list(turn["plays"], f"{where} plays", game.players)
    if variant is Variant.NIFTY:
        pairs = [_list(p, f"{where} plays[{s}]", 2) for s, p in enumerate(plays)]
        cards = [_int(c, f"{where} plays[{s}]") for s, pair in enumerate(pairs) for c in pair]
        for seat, pair in enumerate(pairs):
            for card in pair:
                _play(game, seat, card, where, seats)
        return cards
    cards = [_int(c, f"{where} plays[{s}]") for s, c in enumerate(plays)]
    order: list[int] = list(range(game.players))
    if variant is Variant.OPEN:  # face up, one at a time from the marker's holder
        first = game.current if game.current is not None else 0
        order = [(first + k) % game.players for k in range(game.players)]
    for seat in order:
        _play(game, seat, cards[seat], where, seats)
    return cards


def _replay_turn(game: Game, raw: Any, where: str, seats: list[str]) -> None:
    hand_variant = game.rules.variant is Variant.HAND
    allowed = {"plays", "picks"} | ({"seat", "keeps"} if hand_variant else set())
    turn = _object(raw, where, allowed, {"plays"})
    if game.phase is not Phase.PLAY:
        raise RecordError(f"{where}: the draft is not finished, no card can be played")
    picks_raw = turn.get("picks", {})
    if not isinstance(picks_raw, dict):
        raise RecordError(f"{where}: picks must be an object mapping a card to a row")
    picks = {key: _int(row, f"{where} picks[{key}]") for key, row in picks_raw.items()}
    keeps_raw = turn.get("keeps", {})
    if not isinstance(keeps_raw, dict):
        raise RecordError(f"{where}: keeps must be an object mapping a card to the cards kept")
    keeps = {
        key: [_int(c, f"{where} keeps[{key}]") for c in _list(kept, f"{where} keeps[{key}]")]
        for key, kept in keeps_raw.items()
    }
    nifty_orders: dict[int, list[Any]] = {}
    if game.rules.variant is Variant.NIFTY:
        nifty_orders = {s: p for s, p in enumerate(turn["plays"]) if isinstance(p, list)}
    cards = _turn_plays(game, turn, where, seats)
    used: set[str] = set()
    used_keeps: set[str] = set()
    keep_progress: dict[str, int] = {}
    while (pending := game.pending()) and pending[0].kind not in (DecisionKind.CARD, DecisionKind.DRAFT):
        (decision,) = pending
        seat = decision.seat
        who = f"{where}, seat {seat} ({seats[seat]}), card {decision.card}"
        if decision.kind is DecisionKind.ORDER:
            game.order(seat, int(nifty_orders[seat][0]))
        elif decision.kind is DecisionKind.KEEP:
            key = str(decision.card)
            wanted = keeps.get(key, [])
            done = keep_progress.get(key, 0)
            if done < len(wanted):
                card = wanted[done]
                keep_progress[key] = done + 1
                if card == PASS or card not in decision.options:
                    raise RecordError(
                        f"{who}: cannot keep card {card}, the row taken holds "
                        f"{[c for c in decision.options if c != PASS]}"
                    )
                game.keep(seat, card)
            else:
                game.keep(seat, PASS)
            used_keeps.add(key)
        else:
            key = str(decision.card)
            if key not in picks:
                why = "is too low for every row" if decision.reason == "too-low" else "ties two row ends"
                raise RecordError(f"{who}: the card {why}, but the turn has no pick for it")
            try:
                game.choose_row(seat, picks[key])
            except IllegalMoveError:
                raise RecordError(
                    f"{who}: pick row {picks[key]} is not allowed (choose one of "
                    f"{list(decision.options)})"
                ) from None
            used.add(key)
    needless = sorted(set(picks) - used, key=lambda k: (len(k), k))
    if needless:
        card = needless[0]
        owner = next((s for s, c in enumerate(cards) if str(c) == card), None)
        if game.rules.variant in (Variant.NIFTY, Variant.HAND):
            owner = None  # cards are not one per seat
        who = f"seat {owner} ({seats[owner]}), " if owner is not None else ""
        raise RecordError(f"{where}, {who}card {card}: needless pick, no row choice was due")
    extra_keeps = sorted(set(keeps) - used_keeps)
    if extra_keeps:
        raise RecordError(f"{where}, card {extra_keeps[0]}: needless keeps, that card took no row")
    for key, wanted in keeps.items():
        if keep_progress.get(key, 0) < len(wanted):
            raise RecordError(
                f"{where}, card {key}: keeps {wanted}, more than the hand could take"
            )
