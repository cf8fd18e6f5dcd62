"""Server settings in one place: where the database lives, timers, limits.

Every value has a sensible default and can be set from the command line (``sixnimmt serve``) or
the environment (``SIXNIMMT_DATABASE_URL``, ``SIXNIMMT_DATA_DIR``).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path


def default_data_dir() -> Path:
    """``$SIXNIMMT_DATA_DIR``, else ``$XDG_DATA_HOME/sixnimmt``, else ``~/.local/share/sixnimmt``."""
    if env := os.environ.get("SIXNIMMT_DATA_DIR"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sixnimmt"


def default_database_url() -> str:
    """``$SIXNIMMT_DATABASE_URL``, else an SQLite file in the data directory."""
    if env := os.environ.get("SIXNIMMT_DATABASE_URL"):
        return env
    return f"sqlite:///{default_data_dir() / 'sixnimmt.db'}"


def smtp_port_from_env() -> int:
    """``$SIXNIMMT_SMTP_PORT``, else 587 (:class:`ValueError` naming it if it is not a port)."""
    raw = os.environ.get("SIXNIMMT_SMTP_PORT", "587").strip()
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ValueError(f"SIXNIMMT_SMTP_PORT is a port number (1 to 65535), not {raw[:20]!r}")
    return int(raw)


@dataclass(slots=True)
class Settings:
    database_url: str = field(default_factory=default_database_url)
    #: Seconds a disconnected player has before the fallback bot plays for them.
    absent_grace: float = 20.0
    #: Bot programs online (docs/bot-api.md): seconds per decision where the table has no timer,
    #: seconds a dropped program keeps its seats, games at once per bot, the allowances of one
    #: token (messages a second, with their burst; seeks a minute; invitations people send one bot
    #: a minute), how long an invitation waits for an answer, and how often every live token is
    #: checked against the database (a token revoked on another process stops within that).
    program_move_seconds: float = 10.0
    program_grace: float = 60.0
    program_max_games: int = 8
    program_messages_per_second: float = 20.0
    program_message_burst: int = 40
    program_seeks_per_minute: int = 6
    program_invitations_per_minute: int = 10
    program_invitation_seconds: float = 30.0
    program_token_check_seconds: float = 3.0
    #: Tournaments (docs/web.md, "Tournaments"): how often each process looks at the tournaments
    #: under way (opens a round that is due, collects the results of finished tables, moves on).
    tournament_tick: float = 2.0
    #: An arena seats a person or a bot program only while seen this recently (seconds): a person
    #: on the tournament's page (it asks every few seconds), a program connected.
    arena_presence: float = 90.0
    #: Tournaments the server announces by itself, one schedule a line ("every hour, swiss,
    #: standard, 5 players, 4 rounds": :mod:`sixnimmt.server.tournaments.timetable`).
    tournament_schedule: list[str] = field(default_factory=list)
    #: Pause before a bot answers, so people can follow the table (0 in tests and load runs).
    bot_delay: float = 0.6
    #: Largest inbound WebSocket message, in bytes, and how deeply its JSON may nest.
    max_message_bytes: int = 2048
    max_json_depth: int = 8
    #: Inbound messages per second a seat may send over all its sockets (a spectator: per socket;
    #: token bucket), and the burst it may save up.
    rate_per_second: float = 10.0
    rate_burst: int = 30
    #: Open WebSockets from one client address (all tables), holding one seat, watching one table.
    max_connections_per_address: int = 32
    max_connections_per_seat: int = 4
    max_spectators_per_table: int = 100
    #: Messages a slow client may leave unread before it is disconnected (it resyncs on reconnect).
    max_outbox_messages: int = 256
    #: Largest HTTP request body, in bytes (413 before the rest is read).
    max_body_bytes: int = 16 * 1024
    #: Tables one client address may create per minute, and the burst it may save up (429 beyond).
    create_per_minute: float = 6.0
    create_burst: int = 10
    #: Joins one client address may make per minute, and its burst.
    join_per_minute: float = 20.0
    join_burst: int = 20
    #: Table lookups by code (the table's page, its socket, a join) one client address may make per
    #: minute, and the burst; and lookups of codes that name no table, which only a scan makes often
    #: (docs/web.md, "Limits"): 429 (or close code 4429) with the seconds to wait beyond.
    lookup_per_minute: float = 120.0
    lookup_burst: int = 60
    miss_per_minute: float = 6.0
    miss_burst: int = 10
    #: WebSockets one client address may open per minute (connect-and-close churn), and the burst.
    socket_opens_per_minute: float = 60.0
    socket_open_burst: int = 40
    #: Hints one client address may ask for per minute, and the burst; hints are made one at a time
    #: in a thread of their own (never the bots'), and at most ``hints_waiting`` wait their turn.
    hints_per_minute: float = 10.0
    hint_burst: int = 5
    hints_waiting: int = 4
    #: Seconds over which seats' arrivals and departures are gathered into one ``presence`` message
    #: for the spectators (the players hear of each at once).
    presence_coalesce_seconds: float = 1.0
    #: Chat lines and reactions per minute per seat (spectators: per socket), and the burst.
    chat_per_minute: float = 12.0
    chat_burst: int = 5
    #: Reviews of finished games: rollouts per option and decision, and how many may wait their turn
    #: (they are made one at a time).
    review_samples: int = 300
    reviews_queued: int = 8
    #: Longest chat line (characters), and how many lines a table keeps.
    chat_max_chars: int = 200
    chat_kept: int = 50
    #: Bot that plays for a player who is away or out of time.
    fallback_bot: str = "medium"
    #: The spec a bot level plays with at this server's tables, where it differs from the level's
    #: registry defaults. ``grandmaster`` thinks at most 250 ms per decision here (docs/web.md): a
    #: time limit rather than its rollout budget, so a loaded server makes it think less instead of
    #: making people wait longer.
    level_specs: dict[str, str] = field(default_factory=lambda: {"grandmaster": "grandmaster:ms=250"})
    #: Milliseconds the timed bots of one table may think per turn in all: each thinks at most its
    #: share (a ten-seat table of nine ``grandmaster`` bots gives each 78 ms rather than 250), so a
    #: turn of a big table costs the server under a second of CPU whatever its bots: the bots' work
    #: outside the clock (the inference, a first round of rollouts) comes on top of the share.
    turn_think_ms: float = 700.0
    #: Threads the bots and hints of all tables think in (at most this many searches at once, the
    #: rest wait their turn): one fewer than the CPUs, at least one, so a core stays for the event loop.
    think_threads: int = field(default_factory=lambda: max(1, (os.cpu_count() or 1) - 1))
    #: How much lower than the server's the thinking threads' scheduling priority is (Linux ``nice``
    #: steps, 0 for none): under load the event loop, which answers every player, goes first.
    think_niceness: int = 10
    #: Seconds a bot may think before its seat is shown as thinking (a ``thinking`` message): long
    #: enough that quick bots never flicker, short enough that a searching bot's wait is explained.
    thinking_notice: float = 0.15
    #: Seconds a room with nobody connected stays in memory (it is reloaded from the store on demand).
    idle_evict: float = 600.0
    #: Seconds per move at a turn-based table in place of the hours its host chose (None: the
    #: table's own). Everything else stays turn-based: a demonstration, or a test of how a cluster
    #: keeps deadlines on real processes (docs/scaling.md), shortens the hours to seconds.
    turn_based_seconds: float | None = None
    #: A process that only serves (``sixnimmt serve`` sets it): freeze what start-up made, stop
    #: Python's automatic collector and run one full collection every ``full_collection_seconds``
    #: (server/collector.py says why: the automatic one stopped a busy server for a quarter of a
    #: second every few seconds, and found nothing to free).
    quiet_gc: bool = False
    full_collection_seconds: float = 300.0
    #: Several processes on one database (``docs/deploy.md``): None means "on for PostgreSQL" (any
    #: process may then share the database with others), False keeps one process's tables to itself.
    cluster: bool | None = None
    #: A process's lease (seconds, the database's clock) and how often it renews it and checks that
    #: the owners of the tables its sockets watch are alive: a dead owner's tables are taken over
    #: within lease + heartbeat seconds.
    lease_seconds: float = 3.0
    heartbeat_seconds: float = 1.0
    #: Accounts (docs/web.md): sign-ins per minute and burst from one address and on one name,
    #: sign-ups per minute and burst from one address (429 beyond), the threads password hashes run
    #: in (and how much below the server's priority), and how long a session lasts (days).
    signin_per_minute: float = 10.0
    signin_burst: int = 20
    signin_name_per_minute: float = 2.0
    signin_name_burst: int = 5
    signup_per_minute: float = 3.0
    signup_burst: int = 5
    hash_threads: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) // 2))
    hash_niceness: int = 10
    #: Password hashes that may wait or run at once; past that, sign-ins and sign-ups get 503.
    hash_queue: int = 32
    session_days: float = 30.0
    #: "Play now": seconds a table it opened waits for people before bots fill its empty seats, and
    #: how long such a table is offered to the next players (seconds).
    play_now_wait: float = 5.0
    play_now_offer: float = 60.0
    #: E-mail and Web Push (docs/web.md, "E-mail" and "Push"; docs/deploy.md): the SMTP server mail
    #: goes through (no host: the e-mail features are hidden), its port, user and password, the
    #: sender's address, how the connection is secured ("starttls", "tls" or "none"), the address
    #: the links in mails start with, how long a confirmation or reset link works (seconds), and at
    #: most one "your move" mail per table and account in ``move_mail_period`` seconds.
    smtp_host: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_SMTP_HOST", ""))
    smtp_port: int = field(default_factory=lambda: smtp_port_from_env())
    smtp_user: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_SMTP_USER", ""))
    smtp_password: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_SMTP_PASSWORD", ""), repr=False)
    smtp_from: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_SMTP_FROM", ""))
    smtp_security: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_SMTP_SECURITY", "starttls"))
    public_url: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_PUBLIC_URL", ""))
    mail_link_seconds: float = 3600.0
    move_mail_period: float = 6 * 3600.0
    #: Seconds a turn-based decision waits before an absent player is mailed or pushed about it (one
    #: who opens the table meanwhile, as the host of a new table does, is told nothing).
    move_notice_delay: float = 60.0
    #: Web Push: whom push services may contact about this server's pushes (a ``mailto:`` or an
    #: ``https:`` address, RFC 8292), and how long a pushed message waits for a device (seconds).
    push_contact: str = field(default_factory=lambda: os.environ.get("SIXNIMMT_PUSH_CONTACT", "mailto:admin@localhost"))
    push_ttl: int = 12 * 3600
    #: Take push subscriptions whose endpoint is plain ``http`` (tests, with a receiver of their own;
    #: every real push service is ``https``).
    push_insecure_endpoints: bool = False

    def clustered(self) -> bool:
        """Whether this process coordinates with others through the database (PostgreSQL only)."""
        postgres = self.database_url.startswith(("postgresql", "postgres:"))
        return postgres if self.cluster is None else self.cluster and postgres


#: How ``sixnimmt serve --workers N`` hands its settings to the worker processes it starts.
SETTINGS_ENV = "SIXNIMMT_SERVE_SETTINGS"


def settings_to_env(settings: Settings) -> str:
    return json.dumps(asdict(settings))


def settings_from_env() -> Settings:
    raw = os.environ.get(SETTINGS_ENV)
    return Settings(**json.loads(raw)) if raw else Settings()
