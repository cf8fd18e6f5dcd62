"""Game review, as chess sites do for chess: every decision of one seat, analysed afterwards.

:func:`review` replays a game record with the core engine, stops at each card or row decision of the
chosen seat and asks the searcher, from that seat's view at the time (nothing it could not see then),
for the expected penalty of each option for the rest of the deal. The move played is compared with
the best option found; a move that costs more than :data:`MISTAKE` expected bullheads is a mistake.

Pure: a record in, dataclasses out (the web game can run it in the background and store
``Review.to_dict()``). Each turn's position comes from replaying the record up to that turn, so a
record that :func:`~sixnimmt.core.record.replay` rejects is rejected here with the same error.
Turns in which a seat plays several cards (Nifty's pairs, Hand's turns) are not analysed: the
review says how many it left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core import DecisionKind, Game, PlayerView, RecordError
from ..core.record import replay
from .grandmaster import GrandmasterBot, GrandmasterConfig

#: A move is a mistake when its expected penalty exceeds the best option's by more than this.
MISTAKE = 1.0
#: Rollouts per option for each analysed decision: every option gets all of them (no racing), so
#: the move played is estimated as well as the best one.
REVIEW_SAMPLES = 300


@dataclass(frozen=True, slots=True)
class ReviewedDecision:
    """One decision of the reviewed seat. Deals and turns count from 1, as people do."""

    deal: int
    turn: int
    kind: str  # "card" (the card played this turn) or "row" (the row taken for ``card``)
    card: int | None  # row decisions: the card whose row was chosen
    played: int  # the card or row index played
    best: int  # the option with the lowest expected penalty
    expected_played: float  # expected penalty this deal (bullheads taken so far included)
    expected_best: float
    options: Mapping[int, float]  # every option's expected penalty

    @property
    def loss(self) -> float:
        """Expected bullheads the move played gave away against the best option (0 or more)."""
        return max(0.0, self.expected_played - self.expected_best)

    @property
    def mistake(self) -> bool:
        return self.loss > MISTAKE

    def to_dict(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "turn": self.turn,
            "kind": self.kind,
            "card": self.card,
            "played": self.played,
            "best": self.best,
            "expected_played": round(self.expected_played, 3),
            "expected_best": round(self.expected_best, 3),
            "loss": round(self.loss, 3),
            "mistake": self.mistake,
            "options": {str(k): round(v, 3) for k, v in sorted(self.options.items())},
        }


@dataclass(frozen=True, slots=True)
class Review:
    """Every analysed decision of ``seat`` in a record."""

    seat: int
    name: str
    samples: int  # rollouts per option and decision
    seed: int
    decisions: tuple[ReviewedDecision, ...]
    skipped_turns: int  # turns with several cards per seat (Nifty, Hand): not analysed

    @property
    def mistakes(self) -> tuple[ReviewedDecision, ...]:
        return tuple(d for d in self.decisions if d.mistake)

    @property
    def total_loss(self) -> float:
        return sum(d.loss for d in self.decisions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "analyst": "grandmaster",
            "samples": self.samples,
            "seed": self.seed,
            "mistake_threshold": MISTAKE,
            "mistakes": len(self.mistakes),
            "total_loss": round(self.total_loss, 3),
            "skipped_turns": self.skipped_turns,
            "decisions": [d.to_dict() for d in self.decisions],
        }


def _analyse(
    analyst: GrandmasterBot, view: PlayerView, played: int, deal: int, turn: int
) -> ReviewedDecision:
    decision = view.decision
    assert decision is not None
    if len(decision.options) == 1:  # forced: nothing to analyse, nothing to search
        scores = {played: float(view.penalties[decision.seat])}
    else:
        _, scores = analyst.explain(view)
    best = min(scores, key=lambda o: (scores[o], o))
    return ReviewedDecision(
        deal=deal, turn=turn, kind=decision.kind.value,
        card=decision.card if decision.kind is DecisionKind.ROW else None,
        played=played, best=best, expected_played=scores[played], expected_best=scores[best],
        options=dict(scores),
    )  # fmt: skip


def _turn_start(data: Mapping[str, Any], deal: int, turn: int) -> Game:
    """The game just before ``turn`` of ``deal`` (both from 0), rebuilt from the record."""
    deals = list(data["deals"])
    cut = dict(deals[deal])
    cut["turns"] = list(cut.get("turns", []))[:turn]
    upto = {k: v for k, v in data.items() if k != "scores"}
    upto["deals"] = [*deals[:deal], cut]
    return replay(upto, partial=True).game


def review(
    data: Mapping[str, Any], seat: int, *, samples: int = REVIEW_SAMPLES, seed: int = 0
) -> Review:
    """Analyse every card and row decision of ``seat`` in the record ``data`` (see the module doc).
    Raises :class:`~sixnimmt.core.RecordError` for a record that does not replay, or a seat it does
    not have."""
    whole = replay(data, partial=True)  # checks the whole record first
    game = whole.game
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.players:
        raise RecordError(f"there is no seat {seat} in this record (seats are 0 to {game.players - 1})")
    # z = infinity: no option leaves the race, every option gets ``samples`` rollouts.
    analyst = GrandmasterBot(seed, GrandmasterConfig(samples=samples, rival=0.0, z=float("inf")))
    found: list[ReviewedDecision] = []
    skipped = 0
    for d, raw_deal in enumerate(data["deals"]):
        for t, turn in enumerate(raw_deal.get("turns", [])):
            plays = turn["plays"]
            if "seat" in turn or not all(isinstance(p, int) for p in plays):
                skipped += 1
                continue
            found.extend(_review_turn(analyst, _turn_start(data, d, t), turn, seat, d + 1, t + 1))
    return Review(
        seat=seat, name=game.seats[seat], samples=samples, seed=seed,
        decisions=tuple(found), skipped_turns=skipped,
    )  # fmt: skip


def _review_turn(
    analyst: GrandmasterBot, game: Game, turn: Mapping[str, Any], seat: int, deal: int, number: int
) -> list[ReviewedDecision]:
    """Play one recorded turn (one card per seat) on ``game``, analysing ``seat``'s decisions."""
    plays: list[int] = list(turn["plays"])
    picks = {int(card): row for card, row in turn.get("picks", {}).items()}
    found = []
    first = game.current if game.current is not None else 0  # Open: face up from the marker's holder
    for k in range(game.players):
        who = (first + k) % game.players
        if who == seat:
            view = game.view(seat)
            if view.decision is not None and view.decision.kind is DecisionKind.CARD:
                found.append(_analyse(analyst, view, plays[seat], deal, number))
        game.play(who, plays[who])
    while (pending := game.pending()) and pending[0].kind is DecisionKind.ROW:
        (decision,) = pending
        assert decision.card is not None
        if decision.seat == seat:
            found.append(_analyse(analyst, game.view(seat), picks[decision.card], deal, number))
        game.choose_row(decision.seat, picks[decision.card])
    return found


def describe_review(analysis: Review) -> str:
    """The review as a table for people: one line per decision, mistakes marked."""
    lines = [
        f"review of seat {analysis.seat} ({analysis.name}): expected penalty this deal of the move played "
        f"and of the best move found (grandmaster, {analysis.samples} rollouts per option, seed {analysis.seed})",
        f"{'deal':>4} {'turn':>4}  {'decision':<13} {'played':>6} {'expected':>8}  {'best':>6} {'expected':>8} {'loss':>6}",
    ]
    for d in analysis.decisions:
        what = "card" if d.kind == "card" else f"row for {d.card}"
        played, best = (str(d.played), str(d.best)) if d.kind == "card" else (f"row {d.played + 1}", f"row {d.best + 1}")  # rows 1-4, as the games show them
        lines.append(
            f"{d.deal:>4} {d.turn:>4}  {what:<13} {played:>6} {d.expected_played:>8.2f}  {best:>6} "
            f"{d.expected_best:>8.2f} {d.loss:>6.2f}" + ("  MISTAKE" if d.mistake else "")
        )
    lines.append(
        f"{len(analysis.decisions)} decisions, {len(analysis.mistakes)} mistake(s) costing more than "
        f"{MISTAKE:g} expected bullhead, {analysis.total_loss:.2f} expected bullheads given away in all"
    )
    if analysis.skipped_turns:
        lines.append(f"{analysis.skipped_turns} turn(s) with several cards per seat not analysed")
    return "\n".join(lines)
