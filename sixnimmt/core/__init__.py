"""The rules of 6 nimmt!: pure, exact, and independent of the rest of the project.

>>> from sixnimmt.core import Game, Rules
>>> game = Game(Rules(players=4), seed=7)
>>> while not game.is_over:
...     for decision in game.pending():
...         game.act(decision.seat, decision.options[0])
>>> sum(game.totals) > 0
True
"""

from .cards import BULLHEADS, DECK_SIZE, FULL_DECK, HAND_SIZE, ROW_COUNT, ROW_LIMIT, Card, bullheads, total_bullheads
from .errors import IllegalMoveError, RecordError, RulesError, SixNimmtError
from .events import (
    CardChosen,
    CardShown,
    CardsKept,
    OrderChosen,
    CardPlaced,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Event,
    GameOver,
    RowChoiceRequired,
    RowsLaid,
    RowTaken,
)
from .game import DealSetup, Dealer, Game, RandomDealer
from .placement import Side, Slot, best_slots, row_size
from .record import ReplayResult, replay
from .rules import DoubleDeck, EndRule, ProTie, Rules, Variant
from .views import PASS, Decision, DecisionKind, Phase, PlayerView

__all__ = [
    "BULLHEADS", "DECK_SIZE", "FULL_DECK", "HAND_SIZE", "ROW_COUNT", "ROW_LIMIT", "Card",
    "bullheads", "total_bullheads",
    "IllegalMoveError", "RecordError", "RulesError", "SixNimmtError",
    "CardChosen", "CardShown", "CardsKept", "OrderChosen", "CardPlaced", "CardsRevealed", "DealScored", "DealStarted", "DraftPicked",
    "Event", "GameOver", "RowChoiceRequired", "RowsLaid", "RowTaken",
    "DealSetup", "Dealer", "Game", "RandomDealer",
    "Side", "Slot", "best_slots", "row_size",
    "ReplayResult", "replay",
    "DoubleDeck", "EndRule", "ProTie", "Rules", "Variant",
    "PASS", "Decision", "DecisionKind", "Phase", "PlayerView",
]
