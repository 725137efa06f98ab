"""`annals events`, `rebuild`, `verify`: the event log itself, its replay and the check of the projections."""

from __future__ import annotations

from typing import Any

import click

from ...store import log as event_log
from ..cli import Context, cli, echo_lines, emit, json_option


@cli.command()
@click.option("--since", default=0, show_default=True, type=click.IntRange(0), help="Only events with seq > SINCE.")
@click.option("--type", "types", multiple=True, help="Only events of this type (repeatable).")
@click.option("--limit", default=None, type=click.IntRange(1), help="At most this many events.")
@json_option
@click.pass_obj
def events(obj: Context, since: int, types: tuple[str, ...], limit: int | None, as_json: bool) -> None:
    """The raw event log, oldest first."""
    with obj.store() as conn:
        data = [e.as_json() for e in event_log.read(conn, since=since, types=list(types) or None, limit=limit)]
    emit(
        data,
        as_json,
        lambda es: echo_lines(
            f"{e['seq']:>8}  {e['recorded_at']}  {e['source']:<7} {e['type']:<15} {e['stream']}" for e in es
        ),
    )


@cli.command()
@json_option
@click.pass_obj
def rebuild(obj: Context, as_json: bool) -> None:
    """Drop every projection and replay the whole event log into fresh ones."""
    from ...store.maintenance import rebuild as replay_all

    with obj.store() as conn:
        count = replay_all(conn)
    emit({"events_replayed": count}, as_json, lambda d: click.echo(f"replayed {d['events_replayed']} events"))


@cli.command()
@json_option
@click.pass_obj
def verify(obj: Context, as_json: bool) -> None:
    """Replay the log into a scratch database and compare it with the live projections."""
    from ...store.maintenance import verify as check

    with obj.store() as conn:
        result = check(conn)

    def text(r: dict[str, Any]) -> None:
        click.echo(f"integrity  {r['checks']['integrity']}")
        for p in r["projections"]:
            verdict = "ok" if p["equal"] else f"DIFFERS from replay {p['replay'][:16]}"
            click.echo(f"{p['projection']:<13} {p['live'][:16]}  {verdict}")

    emit(result, as_json, text)
    if not result["ok"]:
        raise SystemExit(1)
