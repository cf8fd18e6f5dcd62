"""Standings worked out by hand from the rules of docs/arena.md ("Tournaments"), and the duplicate
score's defining property: it compares hands, so which table holds which lineup changes nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sixnimmt.competition import FILL, TableResult, duplicate_results, placement_points, rank


def test_placement_points_count_the_players_with_more_bullheads_and_half_the_ties() -> None:
    assert placement_points([5, 10, 10, 20]) == (3.0, 1.5, 1.5, 0.0)
    assert placement_points([4, 4, 9, 0]) == (1.5, 1.5, 0.0, 3.0)
    assert placement_points([7, 7]) == (0.5, 0.5)


def test_swiss_standings_and_every_tie_break_match_a_hand_computation() -> None:
    rounds = [
        [TableResult((0, 1, 2, 3), (5, 10, 10, 20)), TableResult((4, 5, 6, 7), (0, 3, 8, 8))],
        [TableResult((0, 4, 1, 5), (7, 2, 7, 1)), TableResult((2, 6, 3, 7), (4, 4, 9, 0))],
    ]
    # By hand: points 0: 3 + 0.5, 1: 1.5 + 0.5, 2: 1.5 + 1.5, 3: 0 + 0, 4: 3 + 2, 5: 2 + 3,
    # 6: 0.5 + 1.5, 7: 0.5 + 3. Level on points: 4 and 5 (Buchholz 21 each: bullheads 2 against 4),
    # 7 and 0 (Buchholz 17 each: bullheads 8 against 12), 6 and 1 (Buchholz 20 each: 12 against 17).
    standings = rank(8, rounds, duplicate=False)
    assert [s.entrant for s in standings] == [4, 5, 7, 0, 2, 6, 1, 3]
    assert [s.points for s in standings] == [5, 5, 3.5, 3.5, 3, 2, 2, 0]
    assert [s.tiebreak for s in standings[:4]] == [21, 21, 17, 17]
    assert [s.bullheads for s in standings] == [2, 4, 8, 12, 14, 12, 17, 29]
    assert [s.place for s in standings] == list(range(1, 9))
    assert all(s.games == 2 for s in standings)


def test_entrants_level_on_everything_keep_their_seeding_order() -> None:
    standings = rank(4, [[TableResult((2, 0, 3, 1), (5, 5, 5, 5))]], duplicate=False)
    assert [s.entrant for s in standings] == [0, 1, 2, 3]


def test_fill_players_are_opponents_but_never_in_the_standings() -> None:
    standings = rank(3, [[TableResult((0, 1, 2, FILL), (1, 2, 3, 0))]], duplicate=False)
    assert [(s.entrant, s.points) for s in standings] == [(0, 2.0), (1, 1.0), (2, 0.0)]


def test_duplicate_results_compare_each_hand_with_its_other_holders_by_hand() -> None:
    tables = [
        TableResult((0, 1, 2, 3), (5, 3, 10, 2)),
        TableResult((4, 5, 6, 7), (5, 8, 1, 2)),
        TableResult((8, 9, 10, FILL), (2, 3, 10, 20)),
    ]
    results = duplicate_results(tables)
    assert set(results) == set(range(11))
    # Seat 0's hand: 0 took 5, 4 took 5, 8 took 2.
    assert (results[0].matchpoints, results[0].comparisons, results[0].score) == (0.5, 2, 0.25)
    assert results[0].saved == (5 + 2) / 2 - 5
    assert results[8].score == 1.0
    # Seat 3's hand: held by 3 and 7 (the fill player's 20 is no comparison).
    assert (results[3].comparisons, results[3].score, results[3].saved) == (1, 0.5, 0.0)
    # Seat 1: 1 took 3, 5 took 8, 9 took 3.
    assert results[1].score == 0.75 and results[5].score == 0.0


def test_a_hand_nobody_else_held_scores_the_neutral_half() -> None:
    results = duplicate_results([TableResult((0, 1), (3, 7)), TableResult((2, FILL), (4, 1))])
    assert results[1].comparisons == 0 and results[1].score == 0.5


tables_strategy = st.integers(2, 5).flatmap(
    lambda seats: st.lists(st.lists(st.integers(0, 26), min_size=seats, max_size=seats), min_size=2, max_size=5)
)


@given(tables_strategy, st.randoms(use_true_random=False))
def test_which_table_holds_which_lineup_changes_no_duplicate_score(totals: list[list[int]], rng: object) -> None:
    seats = len(totals[0])
    tables = [TableResult(tuple(t * seats + s for s in range(seats)), tuple(row)) for t, row in enumerate(totals)]
    moved = list(tables)
    rng.shuffle(moved)  # type: ignore[attr-defined]
    assert duplicate_results(moved) == duplicate_results(tables)
    assert rank(len(tables) * seats, [moved], duplicate=True) == rank(len(tables) * seats, [tables], duplicate=True)


@given(tables_strategy, st.integers(0, 4), st.integers(1, 10))
def test_a_duplicate_score_rises_with_better_play_and_falls_with_worse(totals: list[list[int]], t: int, better: int) -> None:
    seats = len(totals[0])
    t %= len(totals)
    tables = [TableResult(tuple(k * seats + s for s in range(seats)), tuple(row)) for k, row in enumerate(totals)]
    entrant = t * seats
    before = duplicate_results(tables)[entrant]
    improved = list(tables)
    row = list(totals[t])
    row[0] = max(0, row[0] - better)
    improved[t] = TableResult(tables[t].seats, tuple(row))
    after = duplicate_results(improved)[entrant]
    assert after.score >= before.score and after.saved >= before.saved
    if row[0] < totals[t][0]:
        assert after.saved > before.saved
