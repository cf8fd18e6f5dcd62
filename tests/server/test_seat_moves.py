"""A seat's moves, each a method with its rule (the table calls them; nothing else writes a seat)."""

from __future__ import annotations

from sixnimmt.server.tables.seat import Occupant, Seat, SeatKind, reseat


def test_a_takeover_asked_during_a_deal_happens_at_the_next_deal_and_a_release_cancels_it() -> None:
    seats = [Seat(0, SeatKind.HUMAN, "Host", token_hash="h"), Seat(1, SeatKind.BOT, "Otto", "easy")]
    seats[1].take_over_later("Ann", "a", 7)
    assert seats[1].kind is SeatKind.BOT and seats[1].joining == "Ann"
    assert reseat(seats, "medium", now=5.0)
    assert (seats[1].kind, seats[1].name, seats[1].token_hash, seats[1].account, seats[1].bot) == (
        SeatKind.HUMAN, "Ann", "a", 7, None)
    seats[1].release_later()
    assert seats[1].leaving and seats[1].joining is None and seats[1].invite_hash is None
    assert reseat(seats, "medium", now=6.0)
    assert seats[1].kind is SeatKind.OPEN and seats[1].bot == "medium" and seats[1].name != ""


def test_a_player_who_leaves_is_played_for_at_once_and_keeps_the_time_they_went_away() -> None:
    seat = Seat(1, SeatKind.HUMAN, "Ann", token_hash="a")
    seat.arrive()
    seat.leave_now(10.0)
    assert seat.token_hash is None and seat.leaving and seat.away_since == 10.0
    seat.depart(12.0)
    assert seat.connections == 0 and seat.away_since == 12.0
    away = Seat(2, SeatKind.HUMAN, "Bob", token_hash="b", away_since=3.0)
    away.leave_now(10.0)
    assert away.away_since == 3.0


def test_an_invited_seat_is_played_by_its_bot_until_the_friend_comes() -> None:
    seat = Seat(1, SeatKind.BOT, "Otto", "hard")
    seat.become_invited("Cy", "i", bot=seat.bot)
    assert (seat.kind, seat.name, seat.bot, seat.invite_hash) == (SeatKind.INVITED, "Cy", "hard", "i")
    seat.become_bot("easy", "Luna")
    assert (seat.kind, seat.bot, seat.name) == (SeatKind.BOT, "easy", "Luna")


def test_a_rolled_back_seat_keeps_who_is_connected() -> None:
    seat = Seat(1, SeatKind.HUMAN, "Ann", token_hash="a")
    seat.arrive()
    stored = Seat(1, SeatKind.OPEN, "").to_store()
    back = seat.as_stored(stored)
    assert back.kind == SeatKind.OPEN and back.connections == 1 and back.away_since is None


def test_a_seats_occupant_says_whether_a_person_a_bot_program_or_a_server_bot_plays_it() -> None:
    """(#52) A bot program holds its seat as a person does (with a token, which it may give up by
    leaving), but is no person."""
    person = Seat(0, SeatKind.HUMAN, "Ann", token_hash="a", account=1)
    program = Seat(1, SeatKind.HUMAN, "AnnBot", token_hash="p", account=2, program=True)
    server_bot = Seat(2, SeatKind.BOT, "Otto", "easy")
    waiting = Seat(3, SeatKind.OPEN, "Luna", "medium")  # (played by its bot while a game runs)
    invited = Seat(4, SeatKind.INVITED, "Bea", "easy", invite_hash="i")
    seats = [person, program, server_bot, waiting, invited]
    assert [s.occupant for s in seats] == [Occupant.PERSON, Occupant.PROGRAM] + [Occupant.SERVER_BOT] * 3
    assert [s.person for s in seats] == [True, False, False, False, False]
    assert [s.held for s in seats] == [True, True, False, False, False]
    program.leave_now(1.0)
    assert program.left and not program.person  # a program leaves as a person does
    program.become_open()
    assert program.occupant is Occupant.SERVER_BOT and not program.program
    program.become_human("Cleo", "c", 2.0)
    assert program.occupant is Occupant.PERSON
