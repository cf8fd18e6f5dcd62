"""The rules of 6 nimmt!: pure, exact, and independent of the rest of the project.

>>> from sixnimmt.core import Game, Rules
>>> game = Game(Rules(players=4), seed=7)
>>> while not game.is_over:
...     for decision in game.pending():
...         game.act(decision.seat, decision.options[0])
>>> sum(game.totals) > 0
True
"""

from .cards import (
    BULLHEADS,
    DECK_SIZE,
    FULL_DECK,
    HAND_SIZE,
    ROW_COUNT,
    ROW_LIMIT,
    Card,
    bullheads,
    total_bullheads,
)
from .dealing import Dealer, DealSetup, RandomDealer
from .errors import IllegalMoveError, RecordError, RulesError, SixNimmtError
from .events import (
    CardChosen,
    CardPlaced,
    CardShown,
    CardsKept,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Event,
    GameOver,
    OrderChosen,
    RowChoiceRequired,
    RowsLaid,
    RowTaken,
    event_from_dict,
)
from .game import Game
from .placement import Side, Slot, best_slots, row_size
from .record import ReplayResult, replay
from .rules import DoubleDeck, EndRule, ProTie, Rules, Variant
from .variants import (
    VARIANT_NAMES,
    VARIANTS,
    Dealing,
    Deck,
    Placement,
    TurnOrder,
    VariantSpec,
    variant_spec,
)
from .views import PASS, Decision, DecisionKind, Phase, PlayerView

__all__ = [
    "BULLHEADS",
    "DECK_SIZE",
    "FULL_DECK",
    "HAND_SIZE",
    "PASS",
    "ROW_COUNT",
    "ROW_LIMIT",
    "VARIANTS",
    "VARIANT_NAMES",
    "Card",
    "CardChosen",
    "CardPlaced",
    "CardShown",
    "CardsKept",
    "CardsRevealed",
    "DealScored",
    "DealSetup",
    "DealStarted",
    "Dealer",
    "Dealing",
    "Decision",
    "DecisionKind",
    "Deck",
    "DoubleDeck",
    "DraftPicked",
    "EndRule",
    "Event",
    "Game",
    "GameOver",
    "IllegalMoveError",
    "OrderChosen",
    "Phase",
    "Placement",
    "PlayerView",
    "ProTie",
    "RandomDealer",
    "RecordError",
    "ReplayResult",
    "RowChoiceRequired",
    "RowTaken",
    "RowsLaid",
    "Rules",
    "RulesError",
    "Side",
    "SixNimmtError",
    "Slot",
    "TurnOrder",
    "Variant",
    "VariantSpec",
    "best_slots",
    "bullheads",
    "event_from_dict",
    "replay",
    "row_size",
    "total_bullheads",
    "variant_spec",
]
