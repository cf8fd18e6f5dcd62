"""The checks on a player's move before the engine sees it, each refusal with a reason the player
can act on (a move for an earlier turn, the wrong phase, not their turn, not one of their options).
The engine would refuse an illegal move too; these say why in the table's words."""

from __future__ import annotations

from ...core import PASS, Decision, DecisionKind
from ..wire import ChooseRow, Draft, Keep, Order, Pass, Play, Retract
from .table import Change, TableSession
from .table_setup import TableError

Move = Play | ChooseRow | Draft | Order | Keep | Pass | Retract

#: The kind of decision each move message answers (``pass`` declines Hand's second card or ends a
#: keep; ``retract`` takes a card decision's answer back); the engine says when each is asked.
MESSAGE_KINDS: dict[type, tuple[DecisionKind, ...]] = {
    Play: (DecisionKind.CARD,),
    ChooseRow: (DecisionKind.ROW,),
    Draft: (DecisionKind.DRAFT,),
    Order: (DecisionKind.ORDER,),
    Keep: (DecisionKind.KEEP,),
    Pass: (DecisionKind.CARD, DecisionKind.KEEP),
    Retract: (DecisionKind.CARD,),
}


async def make_move(table: TableSession, seat: int | None, message: Move) -> Change | None:
    """Check ``message`` from ``seat`` (None: a spectator) and apply it. None: nothing changed (the
    card already chosen, sent again: nothing is saved or sent)."""
    if seat is None:
        raise TableError("spectators cannot play", "spectator", action="play")
    game = table.require_game()
    if (message.deal is not None and message.deal != game.deal_index) or (
        message.turn is not None and message.turn != game.turn
    ):
        raise TableError(
            f"that move was for deal {(message.deal or 0) + 1}, turn {(message.turn or 0) + 1}, "
            f"but the game is at deal {game.deal_index + 1}, turn {game.turn + 1}",
            "stale-move",
            deal=game.deal_index + 1,
            turn=game.turn + 1,
        )
    if not any(game.asks_for(kind) for kind in MESSAGE_KINDS[type(message)]):
        raise TableError(
            f"cannot {message.type} now: the game is in the {game.phase.value} phase",
            "wrong-phase",
            action=message.type,
            phase=game.phase.value,
        )
    if isinstance(message, Retract):
        return await table.retract(seat)
    if isinstance(message, Play) and _changes_choice(table, seat, message.card):
        if game.chosen[seat] == message.card:
            return None
        return await table.act(seat, message.card)
    decision = _decision_of(table, seat)
    if isinstance(message, Pass):
        if PASS not in decision.options or decision.kind not in (DecisionKind.CARD, DecisionKind.KEEP):
            raise TableError("nothing to pass now: choose a card", "nothing-to-pass")
        return await table.act(seat, PASS)
    value = message.row if isinstance(message, ChooseRow) else message.card
    if value not in decision.options:
        what = f"row {value + 1}" if isinstance(message, ChooseRow) else f"card {value}"
        raise TableError(f"{what} is not one of your options now", "not-an-option", value=what)
    return await table.act(seat, value)


def _changes_choice(table: TableSession, seat: int, card: int) -> bool:
    """A card played again in a simultaneous turn after choosing one: a change of mind, allowed
    until everyone has chosen (with one card a turn; with more, the cards are taken back first)."""
    game = table.require_game()
    if not game.has_chosen(seat):
        return False  # not chosen yet, or still choosing (Nifty's second card)
    if not game.may_change_card(seat):
        raise TableError("you have already chosen: take your cards back to change them", "already-chosen")
    if card not in game.hands[seat]:
        raise TableError(f"card {card} is not one of your options now", "not-an-option", value=f"card {card}")
    return True


def _decision_of(table: TableSession, seat: int) -> Decision:
    """What ``seat`` must decide now, or a :class:`TableError` saying why it has nothing to decide."""
    game = table.require_game()
    decision = game.decision_for(seat)
    if decision is not None:
        return decision
    pending = game.pending()
    if pending:
        other = table.seats[pending[0].seat]
        raise TableError(
            f"it is not your turn: {other.name} (seat {other.index + 1}) decides now",
            "not-your-turn",
            seat=other.index + 1,
            name=other.name,
        )
    raise TableError("nothing to decide now", "nothing-to-decide")
