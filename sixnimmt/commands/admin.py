"""``sixnimmt admin``: the operator's moderation tools, on the server's database (docs/deploy.md,
"Moderators"; docs/web.md, "Moderation"). Each action is logged with its reason, under the name
``operator``; it holds on every process of the server at once: the database holds it, and on
PostgreSQL each live process is told (a NOTIFY), so a banned account's sockets and bots are closed,
an address ban refuses at once and a renamed account's seats change their name."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from ..server.calls import ModerationCall
    from ..server.moderation.sanctions import Moderation

app = typer.Typer(help="Moderation: reports, bans, renames, closed bots, voided games, moderators, the log.",
                  no_args_is_help=True)

#: Who the log names for an action taken here.
ACTOR = "operator"
T = TypeVar("T")

Reason = Annotated[str, typer.Option("--reason", help="Why (kept in the moderation log).", show_default=False)]
Length = Annotated[str, typer.Option("--for", help="How long: 30m, 12h, 7d, 2w or forever.")]
Name = Annotated[str, typer.Argument(metavar="NAME", help="The account's name.", show_default=False)]


@app.callback()
def admin(
    ctx: typer.Context,
    database_url: Annotated[
        str | None,
        typer.Option("--database-url", envvar="SIXNIMMT_DATABASE_URL", show_default=False,
                     help="The server's database (the one `sixnimmt serve` uses; default: its default)."),
    ] = None,
) -> None:
    """The operator's moderation tools, on the server's database."""
    ctx.obj = database_url


@contextmanager
def _moderation(ctx: typer.Context) -> Iterator[Moderation]:
    from ..server.config import default_database_url
    from ..server.moderation.sanctions import Moderation
    from ..server.store.database import Store

    url = ctx.obj or default_database_url()
    try:
        store = Store(url)
        store.migrate()
    except Exception as error:  # (a URL nobody can open: one line, not a traceback)
        _fail(ctx, f"cannot open the database {url!r}: {str(error).splitlines()[0][:120]}")
    try:
        yield Moderation(store.engine)
    finally:
        store.close()


def _fail(ctx: typer.Context, message: str) -> None:
    typer.echo(f"{ctx.command_path}: {message}", err=True)
    raise typer.Exit(1)


def _do(ctx: typer.Context, action: Callable[[Moderation], T]) -> T:
    """Run ``action``; a refusal (no such account, a bad duration...) is one line and exit 1."""
    from ..server.refusal import Refusal

    with _moderation(ctx) as moderation:
        try:
            return action(moderation)
        except Refusal as error:
            _fail(ctx, str(error))
            raise AssertionError("unreachable") from None


def _told(moderation: Moderation, done: T, news: Callable[[T], ModerationCall]) -> T:
    """``done`` (an action's result), once the live server processes are told ``news(done)`` (on
    PostgreSQL). The action is kept whether or not they are: a process not told finds it in the
    database when the account's sockets connect again, and reads the address bans within 15 s."""
    from ..server.moderation.moderation_news import tell_from_outside

    try:
        tell_from_outside(moderation.engine, news(done))
    except Exception as error:  # (the database went away after the action was kept)
        typer.echo(f"the running server was not told at once: {str(error).splitlines()[0][:120]}", err=True)
    return done


def _duration(ctx: typer.Context, text: str) -> Any:
    from ..server.moderation.sanctions import parse_duration
    from ..server.refusal import Refusal

    try:
        return parse_duration(text)
    except Refusal as error:
        _fail(ctx, str(error))


@app.command()
def reports(
    ctx: typer.Context,
    every: Annotated[bool, typer.Option("--all", help="Resolved reports too (newest first).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the open reports, oldest first."""
    listed = _do(ctx, lambda m: m.reports.listed(not every, limit=500))
    if as_json:
        typer.echo(json.dumps(listed, indent=1))
        return
    if not listed:
        typer.echo("no open reports" if not every else "no reports")
    for r in listed:
        where = f"table {r['table']}" if r["table"] else f"game {r['game']}" if r["game"] else r["place"]
        state = f"resolved: {r['resolution']}" if r["resolved"] else "open"
        typer.echo(f"#{r['id']} {r['at'][:16]} {r['target']!r} ({r['reason']}, from {where}, "
                   f"by {r['reporter'] or r['address']}) {state}" + (f"\n    {r['note']}" if r["note"] else ""))


@app.command()
def report(
    ctx: typer.Context,
    number: Annotated[int, typer.Argument(metavar="N", help="The report's number.", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """One report with its context: the table's chat lines and the game's record."""
    shown = _do(ctx, lambda m: m.reports.shown(number))
    if as_json:
        typer.echo(json.dumps(shown, indent=1))
        return
    typer.echo(f"#{shown['id']} {shown['at']}: {shown['target']!r}, {shown['reason']}, from the {shown['place']}"
               f"{' of table ' + shown['table'] if shown['table'] else ''}")
    if shown["note"]:
        typer.echo(f"note: {shown['note']}")
    context = shown["context"]
    for line in context.get("chat", []):
        mark = "> " if line.get("id") == context.get("line") else "  "
        who = line.get("name") or f"spectator {line.get('spectator', '')}".strip()
        typer.echo(f"{mark}[{line.get('id')}] {who}: {line.get('text', line.get('emoji', ''))}")
    if "game" in context:
        typer.echo(f"game {context['game']['id']} of table {context['game']['table']}: its record is in --json")
    elif "record" in context:
        typer.echo("the table's game record is in --json")


@app.command()
def resolve(ctx: typer.Context, number: Annotated[int, typer.Argument(metavar="N", show_default=False)],
            reason: Reason) -> None:
    """Mark report N resolved, saying what was done."""
    _do(ctx, lambda m: m.resolve(ACTOR, number, reason))
    typer.echo(f"report {number} resolved")


@app.command()
def ban(ctx: typer.Context, name: Name, reason: Reason, length: Length = "forever") -> None:
    """Ban an account: it cannot sign in, its sessions end, its bots' tokens are revoked."""
    span = _duration(ctx, length)
    from ..server.calls import AccountBanned

    done = _do(ctx, lambda m: _told(m, m.ban(ACTOR, name, span, reason),
                                    lambda d: AccountBanned(d["id"], tuple(d["tokens"]))))
    typer.echo(f"{done['name']} is banned until {done['until']} ({len(done['tokens'])} bot tokens revoked)")


@app.command()
def unban(ctx: typer.Context, name: Name, reason: Reason) -> None:
    """Lift an account's ban."""
    _do(ctx, lambda m: m.unban(ACTOR, name, reason))
    typer.echo(f"{name} may sign in again")


@app.command("ban-address")
def ban_address(ctx: typer.Context, address: Annotated[str, typer.Argument(metavar="ADDRESS", show_default=False)],
                reason: Reason, length: Length = "7d") -> None:
    """Refuse every request from an IP address for a time."""
    span = _duration(ctx, length)
    from ..server.calls import AddressBansChanged

    until = _do(ctx, lambda m: _told(m, m.ban_address(ACTOR, address, span, reason), lambda _: AddressBansChanged()))
    typer.echo(f"{address.strip()} is banned until {until}")


@app.command("unban-address")
def unban_address(ctx: typer.Context, address: Annotated[str, typer.Argument(metavar="ADDRESS", show_default=False)],
                  reason: Reason) -> None:
    """Lift an address's ban."""
    from ..server.calls import AddressBansChanged

    def lift(m: Moderation) -> None:
        m.unban_address(ACTOR, address, reason)
        _told(m, None, lambda _: AddressBansChanged())

    _do(ctx, lift)
    typer.echo(f"{address.strip()} is no longer banned")


@app.command()
def rename(ctx: typer.Context, name: Name,
           new_name: Annotated[str, typer.Argument(metavar="NEW_NAME", show_default=False)], reason: Reason) -> None:
    """Force a new name on an account whose name offends."""
    from ..server.calls import AccountRenamed

    old, _account = _do(ctx, lambda m: _told(m, m.rename(ACTOR, name, new_name, reason),
                                             lambda d: AccountRenamed(d[1], new_name.strip())))
    typer.echo(f"{old} is now {new_name.strip()}")


@app.command("close-bot")
def close_bot(ctx: typer.Context, name: Name, reason: Reason) -> None:
    """Close a bot program's account: its tokens are revoked and it goes offline."""
    from ..server.calls import AccountBanned

    done = _do(ctx, lambda m: _told(m, m.close_bot(ACTOR, name, reason),
                                    lambda d: AccountBanned(d["id"], tuple(d["tokens"]))))
    typer.echo(f"bot {done['name']} is closed ({len(done['tokens'])} tokens revoked)")


@app.command()
def void(ctx: typer.Context, game: Annotated[int, typer.Argument(metavar="GAME", show_default=False)],
         reason: Reason) -> None:
    """Void a rated game: every rating is replayed as if it had not been played."""
    done = _do(ctx, lambda m: m.void(ACTOR, game, reason))
    typer.echo(f"game {game} voided: {len(done['ratings'])} ratings in {done['variant']} changed")


@app.command()
def moderator(ctx: typer.Context, name: Name, reason: Reason,
              remove: Annotated[bool, typer.Option("--remove", help="Unmake the moderator.")] = False) -> None:
    """Make an account a moderator (it gets the admin page), or unmake it with --remove."""
    _do(ctx, lambda m: m.set_moderator(ACTOR, name, not remove, reason))
    typer.echo(f"{name} is {'no longer' if remove else 'now'} a moderator")


@app.command()
def moderators(ctx: typer.Context) -> None:
    """List the moderators."""
    names = _do(ctx, lambda m: m.moderators())
    typer.echo("\n".join(names) if names else "no moderators")


@app.command()
def log(ctx: typer.Context, limit: Annotated[int, typer.Option(min=1, max=10000, help="How many entries.")] = 50,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """The moderation log, newest first: who did what, to whom, when and why."""
    entries = _do(ctx, lambda m: m.log(limit))
    if as_json:
        typer.echo(json.dumps(entries, indent=1))
        return
    if not entries:
        typer.echo("the log is empty")
    for e in entries:
        typer.echo(f"{e['at'][:19]} {e['actor']}: {e['action']} {e['target']}: {e['reason']}")
