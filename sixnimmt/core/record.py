"""Game records: write them, read them, check and replay them (docs/record-format.md).

The format lives here and nowhere else: :class:`RecordWriter` writes a game's record from the
engine's events (and the deals chance made), and :func:`replay` reads one back.

A record stores the rules, the seats, every deal's cards and every turn's plays and row picks, so
that a game replays exactly. :func:`replay` rebuilds the :class:`~sixnimmt.core.game.Game` and raises
:class:`~sixnimmt.core.errors.RecordError` naming the deal, turn, seat and card where a record goes
wrong.

Records come from outside (files, uploads, a server's store), so the reader trusts nothing: sizes
are bounded before anything is built (:data:`MAX_RECORD_BYTES` and the other limits below), the
first error in play order is the one reported, and every error is one short printable line
(:func:`error_line`), whatever the record holds.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import compress
from pathlib import Path
from typing import Any, NoReturn, ParamSpec, TypeVar

from .cards import HAND_SIZE, ROW_COUNT, Card
from .dealing import DealSetup, RandomDealer
from .errors import IllegalMoveError, RecordError, RulesError
from .events import (
    CardPlaced,
    CardsKept,
    CardsRevealed,
    DealStarted,
    DraftPicked,
    Event,
    OrderChosen,
    RowChoiceRequired,
)
from .game import Game
from .rules import Rules
from .text import printable
from .variants import Dealing, TurnOrder
from .views import PASS, DecisionKind, Phase

FORMAT = "sixnimmt-record"
VERSION = 2  # written for the variants of docs/rules.md §6; version 1 (the others) is still read
VERSIONS = (1, 2)
_TOP_FIELDS = {"format", "version", "rules", "seats", "deals", "scores"}

# Limits on what the reader accepts (docs/record-format.md, "Limits"). Each is far above what a real
# game writes, and each keeps a hostile file from costing more than a moment and a little memory.
#: Largest record file: a 10-player game to 66 is about 10 kB, a 100-deal one under 1 MB.
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: Deepest nesting of lists and objects (a record needs 7: deals, deal, turns, turn, plays, pair).
MAX_DEPTH = 12
#: Most characters in a JSON number (cards and totals need a few).
MAX_NUMBER_CHARS = 12
#: Most characters in any string (seat names are the only free text; the web server allows 200).
MAX_STRING_CHARS = 200
#: Most characters in a seat name (the same bound, named for the callers that check names early).
MAX_SEAT_NAME = MAX_STRING_CHARS
#: Longest error line: the message is cut there, and anything unprintable in it is escaped.
MAX_ERROR_CHARS = 300

_P = ParamSpec("_P")
_R = TypeVar("_R")


def error_line(message: str) -> str:
    """One bounded, printable line for an error message (at most :data:`MAX_ERROR_CHARS`)."""
    return printable(message[: 4 * MAX_ERROR_CHARS], MAX_ERROR_CHARS)


def _bounded_errors(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Every :class:`RecordError` leaving ``function`` carries one bounded, printable line."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except RecordError as error:
            raise RecordError(error_line(str(error))) from None

    return wrapper


def _show(value: Any, limit: int = 60) -> str:
    """A value from the record, as JSON, short and printable, for an error message."""
    if isinstance(value, (list, dict)) and len(value) > limit:
        kind = "list" if isinstance(value, list) else "object"
        return f"a {kind} of {len(value)} entries"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # pragma: no cover - values come from json.loads
        text = repr(value)
    return printable(text, limit)


def _name(name: str) -> str:
    """A seat name for an error message: printable and short."""
    return printable(name, 40)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """A record that replayed: the game played again from it, its final scores, winners and deals."""

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


@_bounded_errors
def load(path: str | Path) -> dict[str, Any]:
    """Read a record file as JSON (not yet checked: :func:`replay` does that). Reads at most
    :data:`MAX_RECORD_BYTES` (``/dev/zero`` or a huge file is refused, not loaded)."""
    try:
        with Path(path).open("rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)
    except OSError as error:
        raise RecordError(f"cannot read {printable(str(path), 100)}: {error.strerror or error}") from None
    return loads(raw)


def _too_long_number(text: str) -> NoReturn:
    raise RecordError(
        f"not a record: a number of {len(text)} characters (at most {MAX_NUMBER_CHARS}): "
        f"{printable(text, 20)}"
    )


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        _too_long_number(text)
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        _too_long_number(text)
    return float(text)  # kept, so that the field that holds it names it ("version": 1.0)


def _parse_constant(text: str) -> NoReturn:
    raise RecordError(f"not valid JSON: {text} is not a JSON number")


def _object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise RecordError(f"not a record: the field {_show(twice)} appears twice in one object")
    return data


def _check_sizes(data: Any) -> None:
    """Nesting depth and string lengths within the limits (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = [*value.keys(), *value.values()]
        elif isinstance(value, list):
            children = value
        else:
            if isinstance(value, str) and len(value) > MAX_STRING_CHARS:
                raise RecordError(
                    f"not a record: a string of {len(value)} characters (at most {MAX_STRING_CHARS}): "
                    f"{_show(value, 40)}"
                )
            continue
        if depth > MAX_DEPTH:
            raise RecordError(f"not a record: lists and objects nested more than {MAX_DEPTH} deep")
        stack.extend((child, depth + 1) for child in children)


@_bounded_errors
def loads(text: str | bytes) -> dict[str, Any]:
    """Parse a record's JSON text (UTF-8 when given bytes) within the reader's limits."""
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"not a record: more than {MAX_RECORD_BYTES // (1024 * 1024)} MiB")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise RecordError(
                f"not a record: not UTF-8 text (byte 0x{text[error.start]:02x} at offset {error.start})"
            ) from None
    try:
        data = json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
            object_pairs_hook=_object_pairs,
        )
    except json.JSONDecodeError as error:
        raise RecordError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise RecordError(f"not a record: lists and objects nested more than {MAX_DEPTH} deep") from None
    if not isinstance(data, dict):
        raise RecordError(f"a record is a JSON object, not {_json_type(data)}")
    _check_sizes(data)
    return data


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", int: "a number",
             float: "a number", type(None): "null"}  # fmt: skip
    return names.get(type(value), type(value).__name__)


def dumps(record: Mapping[str, Any]) -> str:
    """A record as compact, readable JSON: one line per turn."""
    return json.dumps(record, indent=1, separators=(",", ": "))


class RecordWriter:
    """Writes one game's record from its events, as they come (each event is read once).

    A record's turn holds what happened in it: ``plays`` (one card per seat; in a turn of pairs each
    seat's two cards in the order placed; in a solo turn the player's cards, with their ``seat``),
    ``picks`` (each row chosen, by the card that needed it) and ``keeps`` (taken cards kept, by the
    card that took the row). A turn whose cards are still being placed is not written yet.

    The writer holds no reference to its game (the game owns the writer, and a game nobody holds
    is then freed at once): each call is given the game.
    """

    def __init__(self, rules: Rules) -> None:
        self._seen = 0  # events read so far
        self._deals: list[dict[str, Any]] = []
        self._turn: dict[str, Any] | None = None
        self._asked: Card | None = None  # the card whose row choice is awaited
        spec = rules.spec
        self._players = rules.players
        self._solo = spec.turn_order is TurnOrder.SOLO
        self._pairs = spec.turn_order is TurnOrder.PAIRS
        self._drafts_first = spec.dealing is Dealing.DRAFT_ONCE
        self._drafts_always = spec.dealing is Dealing.DRAFT
        # One handler per kind of event the record needs, found by the event's own class (the
        # engine makes no subclasses of them); the other events (chosen cards, placements, takes,
        # scores) say nothing the record does not hold already, and are passed over in C
        # (``_catch_up``): a game makes some 430 events, and 70 or so matter here. The class's
        # functions, not bound methods: a writer holding its own bound methods would be a reference
        # cycle.
        self._handlers: dict[type[Event], Callable[[RecordWriter, Game, Any, int], None]] = {
            CardsRevealed: RecordWriter._start_turn,
            RowChoiceRequired: RecordWriter._asked_for,
            OrderChosen: RecordWriter._ordered,
            CardsKept: RecordWriter._kept,
            DraftPicked: RecordWriter._drafted,
            DealStarted: RecordWriter._start_deal,
        }

    def _catch_up(self, game: Game) -> None:
        events = game.events
        start, end = self._seen, len(events)
        if start == end:
            return
        if self._asked is not None:
            self._find_pick(events, start, end)
        handlers = self._handlers
        for index in compress(range(start, end), map(handlers.__contains__, map(type, events[start:end]))):
            event = events[index]
            handlers[event.__class__](self, game, event, index)
        self._seen = end

    def _asked_for(self, game: Game, event: RowChoiceRequired, index: int) -> None:
        self._asked = event.card
        self._find_pick(game.events, index + 1, len(game.events))

    def _find_pick(self, events: list[Event], start: int, end: int) -> None:
        # The answer to a row choice places the card at once (after the row it took, if any).
        asked = self._asked
        for index in range(start, end):
            event = events[index]
            if event.__class__ is CardPlaced and event.card == asked:
                turn = self._turn
                assert turn is not None
                if "picks" not in turn and "keeps" in turn:  # the record's order: picks before keeps
                    turn["picks"] = {}
                    turn["keeps"] = turn.pop("keeps")
                turn.setdefault("picks", {})[str(asked)] = event.row
                self._asked = None
                return

    def _ordered(self, game: Game, event: OrderChosen, index: int) -> None:
        assert self._turn is not None
        self._turn["plays"][event.seat] = list(event.cards)

    def _kept(self, game: Game, event: CardsKept, index: int) -> None:
        assert self._turn is not None
        self._turn.setdefault("keeps", {})[str(event.card)] = list(event.cards)

    def _drafted(self, game: Game, event: DraftPicked, index: int) -> None:
        self._deals[-1]["draft"]["order"].append(event.card)

    def _start_deal(self, game: Game, event: DealStarted, index: int) -> None:
        setup = game.dealt[event.deal]
        deal: dict[str, Any]
        if setup is not None:
            deal = {"hands": [sorted(h) for h in setup.hands], "rows": [list(r) for r in event.rows]}
        elif self._drafts_always or (self._drafts_first and event.deal == 0):
            deal = {"draft": {"first": event.deal % self._players, "order": []}}
        elif game.started_mid_deal and event.deal == 0:
            deal = {"position": True}
        else:
            deal = {}  # the drafted hands passed on: nothing new to say
        deal["turns"] = []
        self._deals.append(deal)
        self._turn = None

    def _start_turn(self, game: Game, event: CardsRevealed, index: int) -> None:
        turn: dict[str, Any]
        if self._solo:
            turn = {"seat": event.seat, "plays": list(event.plays)}
        elif self._pairs:
            turn = {"plays": [[] for _ in range(self._players)]}  # filled as pairs are ordered
        else:
            turn = {"plays": list(event.plays)}  # a card per seat, by seat
        self._deals[-1]["turns"].append(turn)
        self._turn = turn

    def deals(self, game: Game) -> list[dict[str, Any]]:
        """The record's ``deals`` so far (a fresh copy)."""
        if not self._seen and game.is_over:
            # Asked for once, at the end (the arena, the bench): written straight from the
            # events and handed over, with nothing kept, so no copy is needed (a copy was
            # a third of the record's cost). A writer asked as the game goes on (the server, at
            # every turn) keeps its place in the events and copies what it wrote.
            self._catch_up(game)
            deals = self._deals
            self._seen, self._deals, self._turn, self._asked = 0, [], None, None
            return deals
        self._catch_up(game)
        copy_turn = _pair_turn_copy if self._pairs else _turn_copy
        copies = []
        for deal in self._deals:
            copy: dict[str, Any] = {}
            for key, value in deal.items():
                if key == "turns":
                    copy[key] = list(map(copy_turn, value))
                elif key == "draft":
                    copy[key] = {"first": value["first"], "order": list(value["order"])}
                elif key == "position":
                    copy[key] = value
                else:  # hands, rows: lists of cards
                    copy[key] = [list(cards) for cards in value]
            copies.append(copy)
        if game.revealed is not None and copies and copies[-1]["turns"]:
            copies[-1]["turns"].pop()  # the last turn's cards are still being placed
        return copies

    def record(self, game: Game) -> dict[str, Any]:
        """The whole record; with ``scores`` once the game is over."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": game.rules.spec.record_version,
            "rules": game.rules.to_dict(),
            "seats": list(game.seats),
            "deals": self.deals(game),
        }
        if game.is_over:
            data["scores"] = list(game.totals)
        return data


def _turn_copy(turn: dict[str, Any]) -> dict[str, Any]:
    # A turn's fields in the record's order: seat (solo turns), plays, picks, keeps.
    copy: dict[str, Any] = {"plays": list(turn["plays"])} if "seat" not in turn else {
        "seat": turn["seat"], "plays": list(turn["plays"])
    }
    if "picks" in turn:
        copy["picks"] = dict(turn["picks"])
    if "keeps" in turn:
        copy["keeps"] = {card: list(kept) for card, kept in turn["keeps"].items()}
    return copy


def _pair_turn_copy(turn: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = {"plays": [list(pair) for pair in turn["plays"]]}
    if "picks" in turn:
        copy["picks"] = dict(turn["picks"])
    return copy


def _int(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where}: expected a whole number, got {_show(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise RecordError(f"{where}: {value} is out of range {low}..{high}")
    return value


def _list(value: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{where}: expected a list, got {_show(value)}")
    if length is not None and len(value) != length:
        raise RecordError(f"{where}: expected {length} entries, got {len(value)}")
    return value


def _object(value: Any, where: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(f"{where}: expected an object, got {_show(value)}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {', '.join(printable(u, 30) for u in unknown[:3])}")
    missing = sorted(required - set(value))
    if missing:
        raise RecordError(f"{where}: missing field(s) {', '.join(missing)}")
    return value


def _parse_header(data: Mapping[str, Any]) -> tuple[Rules, list[str]]:
    _object(data, "record", _TOP_FIELDS, {"format", "version", "rules", "deals"})
    if data["format"] != FORMAT:
        raise RecordError(f"not a {FORMAT} file (format is {_show(data['format'])})")
    version = data["version"]
    if type(version) is not int or version not in VERSIONS:  # 1.0 and true are not versions
        readable = " and ".join(str(v) for v in VERSIONS)
        raise RecordError(f"unsupported record version {_show(version)} (this reads {readable})")
    try:
        rules = Rules.from_dict(data["rules"])
    except RulesError as error:
        raise RecordError(f"rules: {error}") from None
    # Some variants fix fields themselves (Tournament: deals = players); a record that says
    # otherwise is wrong, not silently corrected.
    canonical = rules.to_dict()
    for field in ("target", "deals"):
        given = data["rules"].get(field, canonical[field])
        if given != canonical[field] or type(given) is not type(canonical[field]):
            raise RecordError(
                f"rules: a {rules.variant.value} game has {field} {_show(canonical[field])}, "
                f"not {_show(given)}"
            )
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
            raise RecordError(f"seats[{i}]: a seat name is a string, got {_show(name)}")
        if len(name) > MAX_SEAT_NAME:
            raise RecordError(f"seats[{i}]: a seat name has at most {MAX_SEAT_NAME} characters")
    return rules, list(seats)


@dataclass(frozen=True, slots=True)
class _Deal:
    """One deal of a record, its shape checked."""

    setup: DealSetup | None  # None when no chance is involved (a draft, or passed-on sheets)
    order: list[Any]  # the draft's picks, in order
    turns: list[Any]


def _parse_deal(raw: Any, index: int, rules: Rules) -> _Deal:
    """Check one deal's shape."""
    where = f"deal {index + 1}"
    order: list[Any] = []
    setup: DealSetup | None = None
    dealing = rules.spec.dealing
    if dealing is Dealing.DRAFT or (dealing is Dealing.DRAFT_ONCE and index == 0):
        deal = _object(raw, where, {"draft", "turns"}, {"draft", "turns"})
        draft = _object(deal["draft"], f"{where} draft", {"first", "order"}, {"first", "order"})
        first = _int(draft["first"], f"{where} draft.first", 0, rules.players - 1)
        if first != index % rules.players:
            raise RecordError(
                f"{where}: the draft starts with seat {index % rules.players}, not seat {first}"
            )
        order = _list(draft["order"], f"{where} draft.order")
    elif dealing is Dealing.DRAFT_ONCE:
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
        stacks = rules.spec.twins
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
    return _Deal(setup, order, turns)


class _RecordDealer:
    """Deals the recorded cards; past the record's end (a game resumed from a partial record) it
    shuffles from a seed, so the resumed game can go on.

    Each deal is checked when the game reaches it, not before, so that the error reported is the
    first one in play order. The game asks for a deal's cards as the previous deal ends, before the
    replay has finished checking that deal, so a malformed deal's error waits in :meth:`deal`
    until the replay gets there (a shuffled deal stands in for it meanwhile).
    """

    def __init__(self, rules: Rules, raw_deals: list[Any], seed: int | None) -> None:
        self._rules = rules
        self._raw = raw_deals
        self._parsed: dict[int, _Deal | RecordError] = {}
        self._fallback = RandomDealer(rules, random.Random(seed))

    def deal(self, index: int) -> _Deal:
        """The record's deal ``index``, checked; :class:`RecordError` if it is malformed."""
        if index not in self._parsed:
            try:
                self._parsed[index] = _parse_deal(self._raw[index], index, self._rules)
            except RecordError as error:
                self._parsed[index] = error
        parsed = self._parsed[index]
        if isinstance(parsed, RecordError):
            raise parsed
        return parsed

    def __call__(self, deal_index: int) -> DealSetup:
        if deal_index < len(self._raw):
            try:
                setup = self.deal(deal_index).setup
            except RecordError:
                setup = None  # raised when the replay reaches this deal
            if setup is not None:
                return setup
        return self._fallback(deal_index)


@_bounded_errors
def replay(
    data: Mapping[str, Any], *, partial: bool = False, seed: int | None = None
) -> ReplayResult:
    """Replay a record and check it. With ``partial`` the record may stop anywhere (a game in
    progress); otherwise it must end exactly when the game ends. ``seed`` shuffles any deal after the
    record's last (only a partial record needs one). A record that gives ``scores`` claims a
    finished game: they must match, partial or not."""
    if not isinstance(data, Mapping):
        raise RecordError(f"a record is a JSON object, not {_json_type(data)}")
    rules, seats = _parse_header(data)
    raw_deals = _list(data["deals"], "deals")
    if not raw_deals:
        raise RecordError("the record has no deals")
    dealer = _RecordDealer(rules, raw_deals, seed)
    try:
        game = Game(rules, seats, dealer=dealer)
    except RulesError as error:  # pragma: no cover - a malformed first deal is never dealt
        raise RecordError(str(error)) from None

    last = len(raw_deals) - 1
    hand_variant = rules.spec.turn_order is TurnOrder.SOLO  # a deal of no fixed length
    per_deal = game.turns_per_deal
    for index in range(len(raw_deals)):
        where = f"deal {index + 1}"
        if game.is_over:
            raise RecordError(
                f"{where}: the game was already over after deal {index} "
                f"(totals {game.totals}), but the record goes on"
            )
        deal = dealer.deal(index)
        if (rules.drafted and deal.order) or game.phase is Phase.DRAFT:
            _replay_draft(game, deal.order, where, partial and index == last)
        if not hand_variant and len(deal.turns) > per_deal:
            raise RecordError(f"{where}: {len(deal.turns)} turns, but a deal has {per_deal}")
        for t, turn in enumerate(deal.turns):
            if game.is_over:
                raise RecordError(f"{where}, turn {t + 1}: the game was already over")
            _replay_turn(game, turn, f"{where}, turn {t + 1}", seats)
        if not hand_variant and len(deal.turns) < per_deal and not (partial and index == last):
            raise RecordError(f"{where}: only {len(deal.turns)} of {per_deal} turns")

    if not partial and not game.is_over:
        target = "none" if rules.target is None else f"{rules.end.value} {rules.target}"
        raise RecordError(
            f"the record ends after deal {len(raw_deals)}, but the game is not over "
            f"(totals {game.totals}, target {target})"
        )
    scores = data.get("scores")
    if scores is not None:
        scores = [_int(s, f"scores[{i}]") for i, s in enumerate(_list(scores, "scores", rules.players))]
        if not game.is_over:
            raise RecordError(f"scores {scores} are given, but the game is not over (totals {game.totals})")
        if scores != game.totals:
            raise RecordError(f"scores {scores} do not match the replayed totals {game.totals}")
    return ReplayResult(game, tuple(game.totals), game.winners, len(raw_deals))


def _replay_draft(game: Game, order: list[Any], where: str, may_stop: bool) -> None:
    expected = HAND_SIZE * game.players
    if len(order) > expected:
        raise RecordError(f"{where}: the draft has {len(order)} picks, not {expected}")
    for i, raw in enumerate(order):
        card = _int(raw, f"{where}, draft pick {i + 1}")
        seat = game.drafter
        if seat is None:  # pragma: no cover - the pick count is checked above
            raise RecordError(f"{where}, draft pick {i + 1}: the draft is over")
        try:
            game.draft(seat, card)
        except IllegalMoveError:
            raise RecordError(
                f"{where}, draft pick {i + 1}, seat {seat} ({_name(game.seats[seat])}), card {card}: "
                "not in the draft pool"
            ) from None
    if len(order) < expected and not may_stop:
        raise RecordError(f"{where}: the draft has {len(order)} picks, not {expected}")


def _play(game: Game, seat: int, card: int, where: str, seats: list[str]) -> None:
    try:
        game.play(seat, card)
    except IllegalMoveError:
        raise RecordError(
            f"{where}, seat {seat} ({_name(seats[seat])}), card {card}: not in that seat's hand "
            f"{sorted(game.hands[seat])}"
        ) from None


def _turn_plays(
    game: Game, turn: dict[str, Any], where: str, seats: list[str]
) -> tuple[list[int], dict[int, int]]:
    """Play a turn's cards as the variant asks for them; returns every card played, and in Nifty
    the card each seat placed first."""
    order = game.rules.spec.turn_order
    if order is TurnOrder.SOLO:
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
        return cards, {}
    if "seat" in turn:
        raise RecordError(f"{where}: unknown field(s) seat")
    plays = _list(turn["plays"], f"{where} plays", game.players)
    if order is TurnOrder.PAIRS:
        pairs = [_list(p, f"{where} plays[{s}]", 2) for s, p in enumerate(plays)]
        cards = [_int(c, f"{where} plays[{s}]") for s, pair in enumerate(pairs) for c in pair]
        for seat, pair in enumerate(pairs):
            for card in pair:
                _play(game, seat, card, where, seats)
        return cards, {seat: pair[0] for seat, pair in enumerate(pairs)}
    cards = [_int(c, f"{where} plays[{s}]") for s, c in enumerate(plays)]
    seat_order: list[int] = list(range(game.players))
    if order is TurnOrder.SEQUENCE:  # face up, one at a time from the marker's holder
        first = game.current if game.current is not None else 0
        seat_order = [(first + k) % game.players for k in range(game.players)]
    for seat in seat_order:
        _play(game, seat, cards[seat], where, seats)
    return cards, {}


def _replay_turn(game: Game, raw: Any, where: str, seats: list[str]) -> None:
    hand_variant = game.rules.spec.turn_order is TurnOrder.SOLO
    allowed = {"plays", "picks"} | ({"seat", "keeps"} if hand_variant else set())
    turn = _object(raw, where, allowed, {"plays"})
    if game.phase is not Phase.PLAY:
        raise RecordError(f"{where}: the draft is not finished, no card can be played")
    picks_raw = turn.get("picks", {})
    if not isinstance(picks_raw, dict):
        raise RecordError(f"{where}: picks must be an object mapping a card to a row")
    picks = {key: _int(row, f"{where} picks[{printable(key, 20)}]") for key, row in picks_raw.items()}
    keeps_raw = turn.get("keeps", {})
    if not isinstance(keeps_raw, dict):
        raise RecordError(f"{where}: keeps must be an object mapping a card to the cards kept")
    keeps = {
        key: [
            _int(c, f"{where} keeps[{printable(key, 20)}]")
            for c in _list(kept, f"{where} keeps[{printable(key, 20)}]")
        ]
        for key, kept in keeps_raw.items()
    }
    cards, placed_first = _turn_plays(game, turn, where, seats)
    used: set[str] = set()
    used_keeps: set[str] = set()
    keep_progress: dict[str, int] = {}
    while (pending := game.pending()) and pending[0].kind not in (DecisionKind.CARD, DecisionKind.DRAFT):
        (decision,) = pending
        seat = decision.seat
        who = f"{where}, seat {seat} ({_name(seats[seat])}), card {decision.card}"
        if decision.kind is DecisionKind.ORDER:
            game.order(seat, placed_first[seat])
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
        if game.rules.spec.turn_order in (TurnOrder.PAIRS, TurnOrder.SOLO):
            owner = None  # cards are not one per seat
        who = f"seat {owner} ({_name(seats[owner])}), " if owner is not None else ""
        raise RecordError(f"{where}, {who}card {printable(card, 20)}: needless pick, no row choice was due")
    extra_keeps = sorted(set(keeps) - used_keeps)
    if extra_keeps:
        raise RecordError(
            f"{where}, card {printable(extra_keeps[0], 20)}: needless keeps, that card took no row"
        )
    for key, wanted in keeps.items():
        if keep_progress.get(key, 0) < len(wanted):
            raise RecordError(
                f"{where}, card {printable(key, 20)}: keeps {_show(wanted)}, more than the hand could take"
            )
