"""`jabba serve`: the local web app (cli/web/app.py) on a socket."""

from __future__ import annotations

import socket

import typer

from cli import options


def register(app: typer.Typer) -> None:
    app.command()(serve)


def serve(
    port: int = typer.Option(8000, **options.PORT, help="Port to listen on (0: any free "
                             "one, printed)."),
    host: str = typer.Option("127.0.0.1", help="Address to listen on. The default is "
                             "this machine only; another address lets the network in."),
    workers: int | None = typer.Option(None, **options.THREADS, help="Hints computed at "
                                       "once (default: the machine's cores)."),
    game: str = options.game_option(command="serve"),
) -> None:
    """The local web app: advice and play pages and their JSON API (docs/play.md)."""
    from cli.web import app as web
    from solver import games

    adapter = games.adapter(game)
    try:
        sock = web.bind(host, port)
    except OSError as err:
        option = "--host" if isinstance(err, socket.gaierror) else "--port"
        raise typer.BadParameter(f"cannot listen on {host} port {port}: "
                                 f"{err.strerror or err}", param_hint=option) from None
    address, bound = sock.getsockname()[:2]
    url = f"http://{f'[{address}]' if ':' in address else address}:{bound}/"
    if not web.is_loopback(sock):
        typer.echo(f"warning: listening on {address}, not this machine only: anyone who can "
                   "reach it can use the app", err=True)
    # `/` is the game's advice page; /play its play page; the other games' advice at
    # /?game=NAME (the same page).
    pages = ([f"{url} ({adapter.advice_label})"]
             + ([f"{url}play (play)"] if adapter.capabilities.play_page else [])
             + [f"{url}?game={a.name} ({a.advice_label})"
                for a in map(games.adapter, games.taking("hint")) if a is not adapter])
    typer.echo(f"serving {', '.join(pages)}, {url}docs (the API); Ctrl-C stops")
    typer.echo("warming up: compiling the kernels (about 30 s the first time; the pages "
               "say when ready)")
    try:
        web.serve(sock, workers, game=game)
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down for
        pass
    typer.echo("stopped")
