"""`jabba model fit`, `jabba model sample`, `jabba model accuracy`: opponent models fitted
to play logs (docs/opponents.md)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from cli import options
from spiel_game.cards import AGENDAS

model_app = typer.Typer(help="Opponent models: fit a mixture of the heuristics and the "
                        "table to play logs, sample logs of a known policy, measure the fit.",
                        no_args_is_help=True, cls=options.Group,
                        context_settings={"help_option_names": options.HELP_OPTION_NAMES})


def register(app: typer.Typer) -> None:
    app.add_typer(model_app, name="model")


def _comma_list(value: str, option: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise typer.BadParameter(f"{value!r}: give a comma list", param_hint=option)
    return items


@model_app.command("fit")
def fit_command(
    logs: list[Path] = typer.Option(..., "--log", **options.INPUT_FILE,
                                    help="A play log (jabba play --log, jabba model "
                                    "sample); repeat for more."),
    seat: int = typer.Option(..., help="The table seat whose decisions are fitted (a "
                             "single round's log: the seat in turn order)."),
    candidates: str | None = typer.Option(
        None, help="Comma list of candidates: heuristics, table, policy files (.npz). "
        "Default: the game's heuristics and its shipped table."),
    out: Path | None = typer.Option(None, "--out", **options.OUTPUT_FILE,
                                    help="Write the model file (.json) here."),
) -> None:
    """Fit a mixture of the candidates to a seat's logged decisions (Bayes).

    Prints the weights, each candidate's log-likelihood, the evidence and the number of
    decisions; --out writes the model file for --opponent SEAT=FILE."""
    from solver.opponent_model.fit import OK, fit, fit_record, log_game
    from solver.opponent_model.model import (ModelError, describe_identity, game_identity,
                                             write_model)
    from solver.play.log import LogError

    start = time.perf_counter()
    if out is not None and out.suffix != ".json":
        raise typer.BadParameter(f"{out}: a model file ends in .json", param_hint="--out")
    try:
        game = log_game(logs[0])
    except LogError as err:
        raise typer.BadParameter(str(err), param_hint="--log") from None
    n = game.num_players()
    if not 0 <= seat < n:
        raise typer.BadParameter(f"{seat}: allowed is a table seat from 0 to {n - 1}",
                                 param_hint="--seat")
    names = None if candidates is None else _comma_list(candidates, "--candidates")
    try:
        result = fit([str(p) for p in logs], seat, names, game)
    except LogError as err:
        raise typer.BadParameter(str(err), param_hint="--log") from None
    except ModelError as err:
        raise typer.BadParameter(str(err), param_hint="--candidates") from None
    if result.status != OK:
        typer.echo(f"Error: the logs are not fitted: {result.reason}", err=True)
        raise typer.Exit(2)
    identity = describe_identity(game_identity(game))
    typer.echo(f"{identity}: table seat {seat}, {result.decisions} decisions in "
               f"{result.rounds} rounds of {len(logs)} log(s), tremble {result.tremble}")
    width = max(len(c) for c in result.candidates)
    typer.echo(f"{'candidate':<{width}}  {'weight':>8}  {'log-likelihood':>14}  off support")
    order = sorted(range(len(result.candidates)), key=lambda k: -result.weights[k])
    for k in order:
        typer.echo(f"{result.candidates[k]:<{width}}  {result.weights[k]:>8.2%}  "
                   f"{result.log_likelihoods[k]:>14.3f}  {result.off_support[k]}")
    typer.echo(f"evidence (log marginal likelihood, uniform prior): {result.evidence:.3f}")
    if out is not None:
        write_model(out, fit_record(result, game, seconds=time.perf_counter() - start))
        typer.echo(f"model: {out} (use: --opponent SEAT={out})")


@model_app.command("sample")
def sample_command(
    ctx: typer.Context,
    policy: str = typer.Option(..., help="The seat's policy: a heuristic, table or a policy "
                               "file (.npz)."),
    seat: int = typer.Option(1, help="Its table seat."),
    rounds: int = typer.Option(20, **options.POSITIVE, help="Rounds to log in all."),
    seed: int = typer.Option(1, **options.SEED, help="Seed of the deals and choices."),
    others: str = typer.Option("agenda_expert", help="The other seats' policy."),
    game_name: str = options.game_option(),
    players: int = options.players_option("Number of players, 2 to 6."),
    agenda: str = options.agenda_option(),
    deck: str = options.deck_option(),
    out: Path = typer.Option(..., "--out", **options.OUTPUT_FILE,
                             help="The log file (.jsonl); matches past the first go to "
                             "FILE-2.jsonl, FILE-3.jsonl, ..."),
) -> None:
    """Write play logs of a known policy at one seat (to test jabba model fit on)."""
    from solver.opponent_model.sample import sample_logs, write_log

    game = options.load_game(game_name, players, deck, "margin", agenda, ctx)
    if not 0 <= seat < game.num_players():
        raise typer.BadParameter(f"{seat}: allowed is a table seat from 0 to "
                                 f"{game.num_players() - 1}", param_hint="--seat")
    try:
        logs = sample_logs(game, policy, seat, rounds, seed, others)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--policy or --others") from None
    paths = [out if i == 0 else out.with_name(f"{out.stem}-{i + 1}{out.suffix}")
             for i in range(len(logs))]
    for lines, path in zip(logs, paths):
        write_log(lines, path)
    typer.echo(f"{rounds} rounds of {policy} at table seat {seat} in {len(paths)} log(s): "
               + ", ".join(map(str, paths)))
    typer.echo("fit: jabba model fit " + " ".join(f"--log {p}" for p in paths)
               + f" --seat {seat}")


@model_app.command("accuracy")
def accuracy_command(
    agendas: str = typer.Option("all", help="'all' or a comma list of agendas."),
    policies: str | None = typer.Option(None, help="True policies, comma list (default: "
                                        "every default candidate)."),
    seeds: int = typer.Option(10, **options.POSITIVE, help="Seeds per policy: 1 to N."),
    rounds: str = typer.Option("5,10,20,100", help="Comma list of round counts."),
    out: Path = typer.Option(Path("model_fit_accuracy.csv"), "--out", **options.OUTPUT_FILE,
                             help="Summary CSV (and a .json with every fit and "
                             "the provenance)."),
) -> None:
    """How often the fit finds a known policy: its posterior weight, 2 players."""
    from solver.studies.model_accuracy import COLUMNS, SUMMARY_COLUMNS, run
    from solver.provenance import header
    from solver.reports.files import write_table

    names = list(AGENDAS) if agendas == "all" else _comma_list(agendas, "--agendas")
    wrong = [a for a in names if a not in AGENDAS]
    if wrong:
        raise typer.BadParameter(f"{wrong}: allowed are 'all' or {', '.join(AGENDAS)}",
                                 param_hint="--agendas")
    try:
        checkpoints = sorted({int(r) for r in _comma_list(rounds, "--rounds")})
    except ValueError:
        raise typer.BadParameter(f"{rounds!r}: allowed is a comma list of whole numbers",
                                 param_hint="--rounds") from None
    if checkpoints[0] < 1:
        raise typer.BadParameter(f"{rounds!r}: round counts from 1", param_hint="--rounds")
    truths = None if policies is None else _comma_list(policies, "--policies")

    def progress(agenda, truth, seed):
        if seed == seeds:
            typer.echo(f"  {agenda}: {truth} done")

    try:
        rows, summary, seconds = run(names, truths, list(range(1, seeds + 1)), checkpoints,
                                     progress=progress)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--policies") from None
    params = {"players": 2, "agenda": names, "deck": "full", "utility": "margin"}
    record = {**header(params, seconds=seconds), "kind": "model_fit_accuracy",
              "seat": 1, "others": "agenda_expert", "prior": "uniform",
              "columns": SUMMARY_COLUMNS, "rows": summary, "fit_columns": COLUMNS,
              "fits": rows}
    write_table(out, record)
    for row in summary:
        if row["rounds"] == checkpoints[-1]:
            typer.echo(f"{row['agenda']:<16} {row['true_policy']:<14} after {row['rounds']} "
                       f"rounds: right {row['mean_weight_right']:.3f} (min "
                       f"{row['min_weight_right']:.3f}), alike {row['alike'] or '-'}")
    typer.echo(f"wrote {out} and {out.with_suffix('.json')} ({seconds:.0f} s)")
