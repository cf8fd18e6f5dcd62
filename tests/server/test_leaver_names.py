"""A seat its player left during a game (issue #56, point 3): at a casual table it opens at the next
deal and, until someone takes it, keeps the leaver's name for the results while the bot plays on;
a rated game keeps the leaver in the seat; the next game forgets them."""

from __future__ import annotations

from sixnimmt.server.tables.seat import Seat, SeatKind, reseat


def _table_with_a_leaver() -> list[Seat]:
    seats = [Seat(0, SeatKind.HUMAN, "Host", token_hash="h"), Seat(1, SeatKind.HUMAN, "Bo", token_hash="b", bot="easy"),
             Seat(2, SeatKind.BOT, "Otto", "easy")]
    seats[1].leave_now(1.0)
    assert seats[1].public()["left"] is True and "left_by" not in seats[1].public()
    return seats


def test_a_casual_leavers_seat_opens_at_the_next_deal_with_their_name_kept() -> None:
    seats = _table_with_a_leaver()
    assert reseat(seats, "medium", 2.0)
    bo = seats[1]
    assert bo.kind == SeatKind.OPEN and bo.name not in ("Bo", "", "Otto") and bo.bot == "easy"
    assert bo.public()["left_by"] == "Bo" and "left" not in bo.public()
    assert Seat.from_store(1, bo.to_store(), 3.0).left_by == "Bo"  # kept across a restart
    reseat(seats, "medium", 3.0)  # later deals of the same game keep it
    assert bo.left_by == "Bo"
    reseat(seats, "medium", 4.0, new_game=True)  # the next game is nobody's leaving
    assert bo.left_by is None and "left_by" not in bo.public()


def test_someone_taking_the_seat_over_ends_the_leavers_mark() -> None:
    seats = _table_with_a_leaver()
    reseat(seats, "medium", 2.0)
    seats[1].take_over_later("Cleo", "c", None)
    reseat(seats, "medium", 3.0)
    assert seats[1].name == "Cleo" and seats[1].left_by is None


def test_a_rated_leaver_keeps_the_seat_and_a_new_game_opens_it_without_their_name() -> None:
    seats = _table_with_a_leaver()
    reseat(seats, "medium", 2.0, keep_leavers=True)
    assert seats[1].name == "Bo" and seats[1].left and seats[1].left_by is None
    reseat(seats, "medium", 3.0, new_game=True)
    assert seats[1].kind == SeatKind.OPEN and seats[1].left_by is None
