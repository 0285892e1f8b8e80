"""`jabba`: the command line. Thin: parse, validate, call the library, render.

This module is the app and its global options; the commands are in the modules of
COMMAND_MODULES, each adding its own with `register(app)`. The validation they share
(the game's options, `load_game`) is cli/options.py."""

from __future__ import annotations

import typer

from cli import evaluate, hint, match, model, options, play, rules, search, serve, solve

app = typer.Typer(
    help="Solver and hint engine for Star Wars: Jabba's Palace - A Love Letter Game.",
    no_args_is_help=True, add_completion=False, cls=options.Group,
    context_settings={"help_option_names": options.HELP_OPTION_NAMES})


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        from solver.provenance import code_version

        typer.echo(f"jabba {version('jabbas-palace-solver')} (code {code_version()})")
        raise typer.Exit()


@app.callback()
def _options(_version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version,
        help="Print the package version and the code version (git commit), then exit."),
             allow_dirty: bool = typer.Option(
        False, "--allow-dirty", help="Write into results/ (--ship, --out) from code with "
        "uncommitted changes; the records then carry the diff's hash (code_diff_sha256).")
             ) -> None:
    from solver import provenance

    provenance.allow_dirty(allow_dirty)


# Every command module adds its commands the one way, `register(app)`; this order is the
# order of the help's list.
COMMAND_MODULES = (solve, rules, serve, hint, match, play, evaluate, search, model)
for _module in COMMAND_MODULES:
    _module.register(app)

if __name__ == "__main__":
    app()
