"""Players' reports (docs/web.md, "Moderation"): a reason and an optional note about a player, made
from a table, a chat line, a profile or a finished game, kept with its context (the table's chat
lines and the game's record as they were), listed for the moderators and resolved by them.

Each reporter has a budget (by account, and by address for anonymous players), and one reporter
reports one player once a day: a flood of reports is refused, not queued. Nothing of a report is
shown to anyone but the moderators.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..accounts.account_rows import UserRow, now_utc
from ..accounts.users import AccountError, name_key
from ..store.rows import GameRow, TableRow
from .moderation_rows import ReportRow

#: Why a player is reported (the client translates each).
REASONS = ("abuse", "cheating", "name", "spam", "throwing", "other")
#: Where the report was made.
PLACES = ("table", "chat", "profile", "game")
NOTE_MAX = 500
#: Reports a day: by one account, by one address (anonymous players share their address's budget).
REPORTS_PER_DAY = 10
REPORTS_PER_ADDRESS_PER_DAY = 20
#: The chat lines kept with a report (the last ones of the table).
CONTEXT_LINES = 50
#: A report its reporter took back is closed with this resolution.
WITHDRAWN = "withdrawn by the reporter"


@dataclass(frozen=True, slots=True)
class Report:
    """What a player reports: ``name`` (an account), or the player in ``seat`` of table ``table``."""

    reason: str
    place: str
    note: str = ""
    name: str | None = None
    table: str | None = None
    seat: int | None = None
    game: int | None = None
    line: int | None = None

    def checked(self) -> Report:
        if self.reason not in REASONS:
            raise AccountError(f"reason is one of {', '.join(REASONS)}", "report-reason", reasons=list(REASONS))
        if self.place not in PLACES:
            raise AccountError(f"place is one of {', '.join(PLACES)}", "report-place", places=list(PLACES))
        if len(self.note) > NOTE_MAX:
            raise AccountError(f"a note has at most {NOTE_MAX} characters", "report-note", limit=NOTE_MAX)
        if self.name is None and (self.table is None or self.seat is None) and self.game is None:
            raise AccountError("say whom you report: a name, a table and seat, or a game and seat", "report-whom")
        note = " ".join("".join(ch for ch in self.note if ch.isprintable()).split())
        return Report(self.reason, self.place, note, self.name, self.table.strip().upper() if self.table else None,
                      self.seat, self.game, self.line)


class Reports:
    """The reports' database calls (synchronous: the routes and the command run them)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def file(self, report: Report, reporter: int | None, address: str,
             live_chat: list[dict[str, Any]] | None = None, now: dt.datetime | None = None) -> int:
        """Keep ``report`` with its context; returns its number. ``live_chat``: the table's chat as
        its room holds it (fresher than the stored one). Raises :class:`AccountError`: a bad report,
        or past the reporter's budget."""
        report = report.checked()
        now = now or now_utc()
        with Session(self.engine) as session, session.begin():
            self._within_budget(session, reporter, address, now)
            context: dict[str, Any] = {}
            target_id, target_name = None, ""
            if report.table is not None:
                table = session.scalars(select(TableRow).where(TableRow.code == report.table)).one_or_none()
                if table is None:
                    raise AccountError("no such table", "no-table", status=404)
                chat = live_chat if live_chat is not None else list(table.chat or [])
                context["chat"] = chat[-CONTEXT_LINES:]
                context["seats"] = [{"name": s.get("name", ""), "kind": s.get("kind")} for s in table.seats]
                if table.record is not None:
                    context["record"] = table.record
                if report.seat is not None:
                    if not 0 <= report.seat < len(table.seats):
                        raise AccountError(f"no seat {report.seat + 1} at this table", "bad-seat", seat=report.seat + 1)
                    seat = table.seats[report.seat]
                    target_id, target_name = seat.get("account"), str(seat.get("name", ""))
            if report.game is not None:
                game = session.get(GameRow, report.game)
                if game is None:
                    raise AccountError(f"no game {report.game}", "no-game", status=404)
                context["game"] = {"id": game.id, "table": game.table_code, "record": game.record}
                if report.seat is not None and report.table is None:
                    if not 0 <= report.seat < len(game.seats):
                        raise AccountError(f"no seat {report.seat + 1} in this game", "bad-seat", seat=report.seat + 1)
                    target_name = game.seats[report.seat]
            if report.name is not None:
                user = session.scalars(select(UserRow).where(
                    UserRow.name_key == name_key(report.name.strip()[:64]), UserRow.deleted_at.is_(None))).one_or_none()
                if user is None:
                    raise AccountError("no such player", "no-player", status=404)
                target_id, target_name = user.id, user.name
            if not target_name:
                raise AccountError("nobody sits there to report", "report-whom")
            if target_id is not None and target_id == reporter:
                raise AccountError("you cannot report yourself", "report-self")
            if reporter is not None and target_id is not None and session.scalar(select(ReportRow.id).where(
                    ReportRow.reporter_id == reporter, ReportRow.target_id == target_id,
                    ReportRow.created_at > now - dt.timedelta(days=1))) is not None:
                raise AccountError("you reported this player today already", "report-again", status=429)
            if report.line is not None:
                context["line"] = report.line
            row = ReportRow(created_at=now, reporter_id=reporter, reporter_address=address[:64],
                            target_id=target_id, target_name=target_name[:64], reason=report.reason, note=report.note,
                            place=report.place, table_code=report.table, game_id=report.game, context=context)
            session.add(row)
            session.flush()
            return row.id

    @staticmethod
    def _within_budget(session: Session, reporter: int | None, address: str, now: dt.datetime) -> None:
        day = now - dt.timedelta(days=1)
        recent = select(func.count()).select_from(ReportRow).where(ReportRow.created_at > day)
        if reporter is not None:
            count, limit = session.scalar(recent.where(ReportRow.reporter_id == reporter)) or 0, REPORTS_PER_DAY
        else:
            count = session.scalar(recent.where(ReportRow.reporter_address == address[:64])) or 0
            limit = REPORTS_PER_ADDRESS_PER_DAY
        if count >= limit:
            raise AccountError(f"at most {limit} reports a day: the moderators have yours", "rate-limited",
                               status=429, retry_after=86400, limit=limit)

    def mine(self, reporter: int, limit: int = 50) -> list[dict[str, Any]]:
        """The reports an account made, newest first, as its settings list them: whom, why, when,
        and whether the moderators are done with it (nothing they wrote)."""
        with Session(self.engine) as session:
            rows = session.scalars(select(ReportRow).where(ReportRow.reporter_id == reporter)
                                   .order_by(ReportRow.id.desc()).limit(limit))
            return [{"id": r.id, "at": r.created_at.isoformat() + "Z", "target": r.target_name, "reason": r.reason,
                     "note": r.note, "open": r.resolved_at is None} for r in rows]

    def withdraw(self, reporter: int, report_id: int) -> None:
        """The reporter takes an open report back: it is closed as withdrawn (and still counts in
        the reporter's budget)."""
        with Session(self.engine) as session, session.begin():
            row = session.get(ReportRow, report_id, with_for_update=True)
            if row is None or row.reporter_id != reporter:
                raise AccountError(f"you made no report {report_id}", "no-report", status=404)
            if row.resolved_at is not None:
                raise AccountError(f"report {report_id} is closed already", "report-resolved")
            row.resolved_at, row.resolution = now_utc(), WITHDRAWN

    def listed(self, open_only: bool = True, limit: int = 50) -> list[dict[str, Any]]:
        """The reports for the moderators, oldest open one first (all of them newest first)."""
        with Session(self.engine) as session:
            query = select(ReportRow)
            if open_only:
                query = query.where(ReportRow.resolved_at.is_(None)).order_by(ReportRow.id)
            else:
                query = query.order_by(ReportRow.id.desc())
            rows = list(session.scalars(query.limit(limit)))
            names = self._names(session, {r.reporter_id for r in rows if r.reporter_id is not None})
            return [report_public(r, names) for r in rows]

    def shown(self, report_id: int) -> dict[str, Any]:
        """One report with its whole context (the chat lines and the game's record)."""
        with Session(self.engine) as session:
            row = session.get(ReportRow, report_id)
            if row is None:
                raise AccountError(f"no report {report_id}", "no-report", status=404)
            names = self._names(session, {row.reporter_id} if row.reporter_id is not None else set())
            return {**report_public(row, names), "context": row.context}

    def resolve(self, session: Session, report_id: int, resolution: str) -> ReportRow:
        row = session.get(ReportRow, report_id, with_for_update=True)
        if row is None:
            raise AccountError(f"no report {report_id}", "no-report", status=404)
        if row.resolved_at is not None:
            raise AccountError(f"report {report_id} is resolved already", "report-resolved")
        row.resolved_at, row.resolution = now_utc(), resolution[:NOTE_MAX]
        return row

    @staticmethod
    def _names(session: Session, ids: set[int]) -> dict[int, str]:
        if not ids:
            return {}
        return {int(i): str(n) for i, n in session.execute(select(UserRow.id, UserRow.name).where(UserRow.id.in_(ids)))}


def report_public(row: ReportRow, names: dict[int, str]) -> dict[str, Any]:
    """A report as the moderators list it (without its context)."""
    return {
        "id": row.id, "at": row.created_at.isoformat() + "Z", "reason": row.reason, "note": row.note,
        "place": row.place, "target": row.target_name, "member": row.target_id is not None,
        "reporter": names.get(row.reporter_id, "") if row.reporter_id is not None else "",
        "address": row.reporter_address, "table": row.table_code, "game": row.game_id,
        "resolved": None if row.resolved_at is None else row.resolved_at.isoformat() + "Z",
        "resolution": row.resolution,
    }
