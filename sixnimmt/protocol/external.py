"""External bots: any program that speaks the bot protocol on stdin/stdout (``cmd:COMMAND LINE``).

The host never trusts the program. A reply that is late, malformed or illegal, a reply to a request
that was never made, a crash or a refusal to start each become a :class:`~.faults.Fault` (logged,
naming the bot and the request); when the request has no legal answer, ``decide`` raises
:class:`~.faults.BotFaultError` and the host's :class:`~sixnimmt.seats.GuardedSeat` plays its
seeded fallback move, so the game always goes on. A bot that crashes, or times out ``max_timeouts``
times in a row, is stopped and sits out the rest of the game (every request raises at once); it is
started again for the next game (at most ``max_restarts`` times).

The program runs in its own process group, read by a thread (so every read has a deadline) and
killed with its whole group on :meth:`ExternalBot.close`, so nothing hangs and no zombie is left.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import queue
import shlex
import shutil
import signal
import subprocess
import threading
import time
import weakref
from typing import IO, Any

from ..bots.base import Bot
from ..core import Event, GameOver, PlayerView
from . import messages
from .faults import BotFaultError, Fault, FaultKind
from .narration import Narrator

log = logging.getLogger("sixnimmt.protocol")

_EOF = object()  # the reader thread's "stdout closed" marker
_QUEUE_LIMIT = 10_000  # lines buffered before a flooding bot's output is dropped


def _read_lines(stream: IO[str], lines: queue.Queue[object]) -> None:
    """Reader thread: every stdout line into the queue, then the EOF marker."""
    try:
        while True:
            line = stream.readline(messages.MAX_LINE)
            if not line:
                break
            if lines.qsize() < _QUEUE_LIMIT:
                lines.put(line)
    except (OSError, ValueError):  # the pipe was closed under us: same as EOF
        pass
    lines.put(_EOF)


def _write_lines(stream: IO[str], outbox: queue.Queue[str | None]) -> None:
    """Writer thread: the host never blocks on a bot that stops reading (a full pipe blocks only
    this thread, which ends when the program is killed). ``None`` closes the program's stdin."""
    try:
        while (line := outbox.get()) is not None:
            stream.write(line)
            stream.flush()
    except (OSError, ValueError):  # the program is gone: the reader reports it
        pass
    finally:
        try:
            stream.close()
        except (OSError, ValueError):
            pass


def _read_stderr(stream: IO[str], tail: collections.deque[str], name: str) -> None:
    """Stderr thread: keep the last lines (shown when the bot crashes) and log them at debug level."""
    try:
        for line in stream:
            tail.append(line.rstrip("\n"))
            log.debug("bot %r stderr: %s", name, line.rstrip("\n"))
    except (OSError, ValueError):
        pass


def _kill_group(process: subprocess.Popen[str]) -> None:
    """SIGKILL the bot's whole process group (it may have started children) and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
        log.error("bot process %d did not die", process.pid)


def _close_streams(process: subprocess.Popen[str]) -> None:
    """Close our ends of the pipes. Called once the threads using them have ended: closing a
    stream while another thread is inside a write on it fails inside CPython's buffer code
    (a ValueError, not an OSError), which is also caught for the finalizer's sake."""
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except (OSError, ValueError):
                pass


def _kill_and_close(process: subprocess.Popen[str]) -> None:
    """The finalizer's path: no threads to wait for, the process is only being cleaned up."""
    _kill_group(process)
    _close_streams(process)


class ExternalBot(Bot):
    """A bot played by an external program; see docs/bot-protocol.md."""

    name = "cmd"

    def __init__(
        self,
        command: str,
        seed: int | None = None,
        *,
        timeout: float = 5.0,
        start_timeout: float = 10.0,
        max_timeouts: int = 3,
        max_restarts: int = 3,
        grace: float = 0.5,
        cwd: str | None = None,
    ) -> None:
        super().__init__(seed)
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"cannot parse command line {command!r}: {error}") from None
        if not argv:
            raise ValueError("empty command line")
        if shutil.which(argv[0], path=None) is None and not os.path.isfile(os.path.join(cwd or ".", argv[0])):
            raise ValueError(f"command {argv[0]!r} not found")
        self.name = f"cmd:{command}"
        self.command = command
        self.argv = argv
        self.seed = seed
        self.timeout = timeout  # seconds per reply to a decision
        self.start_timeout = start_timeout  # seconds for the program to start and answer hello
        self.max_timeouts = max_timeouts
        self.max_restarts = max_restarts
        self.grace = grace  # seconds a program gets to exit after "bye" before it is killed
        self.cwd = cwd
        self.faults: list[Fault] = []
        self.remote_name: str | None = None  # the name the program gave in its hello
        self.protocol: int | None = None  # the protocol version the program answered hello with
        self.fallback_moves = 0  # requests it gave no legal answer to (BotFaultError raised)
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._finalizer: weakref.finalize[[subprocess.Popen[str]], ExternalBot] | None = None
        self._next_id = 1
        self._abandoned: set[int] = set()  # requests given up on: a late reply to one is dropped
        self._starts = 0
        self._timeouts_in_a_row = 0
        self._benched = False  # sits out the rest of this game on fallback moves
        self._in_game = False
        self._position: tuple[int, int] = (-1, -1)
        self._narrator = Narrator()  # what the program hears between decisions
        self._seat: int | None = None

    # ------------------------------------------------------------------ Bot interface

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None, "decide() is only called when the seat has a decision"
        self._enter_game(view)
        for message in self._narrator.before_decision(view.deal, view.turn):
            self._send(message)  # the turn is over: its result comes before the next request
        if not self._benched:
            move = self._ask(view)
            if move is not None:
                return move
        self.fallback_moves += 1
        raise BotFaultError(self.faults[-1] if self.faults else Fault(self.name, FaultKind.CRASH, "not running", seat=view.seat))

    def prepare(self, view: PlayerView) -> None:
        """Start the program and announce the game now, before the first decision (the arena calls
        this so that start-up time does not count as thinking time). Optional: ``decide`` and
        ``notify`` start it when needed."""
        self._enter_game(view)

    def notify(self, event: Event, view: PlayerView) -> None:
        self._enter_game(view)
        if self._benched:
            if isinstance(event, GameOver):
                self._in_game = False
            return
        for message in self._narrator.event(event.to_dict()):
            self._send(message)
        if isinstance(event, GameOver):
            self._in_game = False

    def close(self) -> None:
        """Say bye, give the program ``grace`` seconds to exit, then kill its process group."""
        process = self._process
        if process is None:
            return
        self._process = None
        alive = process.poll() is None
        if alive:
            self._outbox.put(messages.encode(messages.bye()))
        self._outbox.put(None)  # end of input; also ends the writer thread
        if alive:
            try:
                process.wait(timeout=self.grace)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(process)  # the threads now see a broken pipe or end of file, and end
        for thread in self._threads:
            thread.join(timeout=2)
        self._threads = []
        _close_streams(process)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None

    # ------------------------------------------------------------------ games and processes

    def _enter_game(self, view: PlayerView) -> None:
        """Notice a new game (first message, after game-end, or the position going backwards) and
        make sure a program is running for it."""
        position = (view.deal, view.turn)
        new_game = not self._in_game or position < self._position
        self._position = position
        if not new_game:
            return
        self._in_game = True
        self._seat = view.seat
        self._benched = False
        self._timeouts_in_a_row = 0
        if self._process is None or self._process.poll() is not None:
            if self._process is not None:
                self.close()
            if self._starts > self.max_restarts:
                self._benched = True  # it has had its chances; the fault was logged when it died
                return
            if not self._start(view):
                return
        if not self._speaks_variant(view):
            return
        for message in self._narrator.start(view):
            self._send(message)

    def _start(self, view: PlayerView) -> bool:
        self._starts += 1
        self._lines = queue.Queue()
        self._outbox = queue.Queue()
        self._abandoned = set()
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                cwd=self.cwd,
                start_new_session=True,  # its own process group, killed as a whole on close
            )
        except OSError as error:
            self._fault(FaultKind.START, f"cannot start {self.command!r}: {error.strerror or error}", view)
            self._benched = True
            return False
        self._process = process
        self._finalizer = weakref.finalize(self, _kill_and_close, process)
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self._threads = [
            threading.Thread(target=_write_lines, args=(process.stdin, self._outbox), daemon=True),
            threading.Thread(target=_read_lines, args=(process.stdout, self._lines), daemon=True),
            threading.Thread(target=_read_stderr, args=(process.stderr, self.stderr_tail, self.name), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        request = self._new_id()
        self._send(messages.hello(request, self.name, self.seed))
        reply = self._await(request, self.start_timeout, view, what="hello")
        if reply is None:
            self._bench(view)
            return False
        version = reply.get("protocol")
        if isinstance(version, bool) or version not in messages.SUPPORTED_VERSIONS:
            self._fault(
                FaultKind.START,
                f"hello reply speaks protocol {version!r}; the host speaks "
                f"{' or '.join(map(str, messages.SUPPORTED_VERSIONS))}",
                view, request,
            )
            self._bench(view)
            return False
        self.protocol = version
        name = reply.get("name")
        self.remote_name = name if isinstance(name, str) else None
        return True

    def _speaks_variant(self, view: PlayerView) -> bool:
        """A protocol-1 program cannot play the variants of version 2: a start fault, benched."""
        if self.protocol is None or messages.speaks(self.protocol, view.rules.variant):
            return True
        self._fault(
            FaultKind.START,
            f"the program speaks protocol {self.protocol}, which has no {view.rules.variant.value} "
            f"variant: answer hello with protocol {messages.PROTOCOL_VERSION}",
            view,
        )
        self._bench(view)
        return False

    def _bench(self, view: PlayerView | None) -> None:
        """Stop the program; the bot plays fallback moves until the next game."""
        self._benched = True
        if self._process is not None:
            self.close()

    # ------------------------------------------------------------------ requests

    def _new_id(self) -> int:
        request = self._next_id
        self._next_id += 1
        return request

    def _send(self, message: dict[str, Any]) -> None:
        """Queue one line for the writer thread (a dead program is noticed by the reader)."""
        if self._process is not None:
            self._outbox.put(messages.encode(message))

    def _crashed(self, view: PlayerView | None, request: int | None) -> None:
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
        status = "closed its output" if code is None else f"exited with code {code}"
        tail = f"; last stderr: {self.stderr_tail[-1]!r}" if self.stderr_tail else ""
        self._fault(FaultKind.CRASH, f"the program {status}{tail}", view, request)
        self._bench(view)

    def _ask(self, view: PlayerView) -> int | None:
        """Send a decide request; the move, or ``None`` after a fault (already recorded)."""
        decision = view.decision
        assert decision is not None
        request = self._new_id()
        if self._process is None:
            return None
        self._send(messages.decide(request, view))
        reply = self._await(request, self.timeout, view, what=f"{decision.kind.value} decision")
        if reply is None:
            return None
        move = reply.get("move")
        if isinstance(move, bool) or not isinstance(move, int) or move not in decision.options:
            self._fault(
                FaultKind.ILLEGAL,
                f"move {json.dumps(move)} for a {decision.kind.value} decision; "
                f"the options were {list(decision.options)}",
                view, request,
            )
            return None
        return move

    def _await(self, request: int, timeout: float, view: PlayerView, *, what: str) -> dict[str, Any] | None:
        """Wait for the reply to ``request``. Lines that are not it are faults, skipped; ``None``
        when the deadline passes or the program dies (both recorded as faults)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.0, remaining)) if remaining > 0 else self._lines.get_nowait()
            except queue.Empty:
                self._abandoned.add(request)
                self._timeouts_in_a_row += 1
                self._fault(FaultKind.TIMEOUT, f"no reply to the {what} within {timeout:g}s", view, request)
                if self._timeouts_in_a_row >= self.max_timeouts:
                    self._fault(
                        FaultKind.TIMEOUT,
                        f"{self._timeouts_in_a_row} timeouts in a row: stopped for the rest of the game",
                        view, request,
                    )
                    self._bench(view)
                return None
            if line is _EOF:
                self._crashed(view, request)
                return None
            assert isinstance(line, str)
            if not line.strip():
                continue  # a blank line is harmless
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                self._fault(FaultKind.MALFORMED, f"not JSON: {_excerpt(line)}", view, request)
                continue
            if not isinstance(reply, dict):
                self._fault(FaultKind.MALFORMED, f"not a JSON object: {_excerpt(line)}", view, request)
                continue
            got = reply.get("id")
            if got == request and not isinstance(got, bool):
                self._timeouts_in_a_row = 0
                return reply
            if isinstance(got, int) and got in self._abandoned:
                self._abandoned.discard(got)
                log.info("bot %r: dropped a late reply to request %d", self.name, got)
                continue
            self._fault(
                FaultKind.UNSOLICITED,
                f"reply with id {json.dumps(got)} while request {request} was pending: {_excerpt(line)}",
                view, request,
            )

    def _fault(
        self, kind: FaultKind, message: str, view: PlayerView | None, request: int | None = None
    ) -> None:
        fault = Fault(
            bot=self.name,
            kind=kind,
            message=message,
            request=request,
            deal=view.deal if view is not None else None,
            turn=view.turn if view is not None else None,
            seat=view.seat if view is not None else self._seat,
        )
        self.faults.append(fault)
        log.warning("%s", fault.text())


def _excerpt(line: str, limit: int = 80) -> str:
    text = line.rstrip("\n")
    return json.dumps(text if len(text) <= limit else text[:limit] + "...")


def external_bot(command: str, seed: int | None) -> ExternalBot:
    """The ``cmd:`` prefix factory for the bot registry."""
    return ExternalBot(command, seed)
