"""`jabba hint` and `jabba export`: advice for a described situation, strategy tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def _pairs(values: list[str] | None, what: str) -> dict:
    """'1=luke' or '1:luke,guard' items as {seat: text}."""
    out = {}
    for item in values or []:
        seat, sep, rest = item.partition("=")
        if not sep:
            seat, sep, rest = item.partition(":")
        if not sep:
            raise typer.BadParameter(f"--{what} {item!r}: expected SEAT=CARDS, e.g. "
                                     f"'1=luke'")
        out[seat.strip()] = rest.strip()
    return out


def _read_situation_file(path: Path) -> dict:
    try:
        text = path.read_text()
    except OSError as err:
        raise typer.BadParameter(f"situation file {path}: {err.strerror}") from None
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        import tomllib
        return tomllib.loads(text)
    except (ValueError, json.JSONDecodeError) as err:
        raise typer.BadParameter(f"situation file {path}: not valid "
                                 f"{'JSON' if path.suffix.lower() == '.json' else 'TOML'}: "
                                 f"{err}") from None


def _compiled_yet() -> bool:
    from solver.hint import advice
    cache = Path(advice.__file__).parent / "__pycache__"
    return any(cache.glob("advice.rollout_values*.nbi"))


def register(app: typer.Typer) -> None:
    @app.command()
    def hint(
        situation: Path | None = typer.Option(
            None, "--situation", "-s", help="A TOML or JSON situation file (docs/hint.md); the "
            "flags below override its fields."),
        players: int | None = typer.Option(None, help="Players in the round, 2 to 6 "
                                              "[default 2]."),
        agenda: str | None = typer.Option(None, help="exalted_one, my_kind_of_scum, "
                                             "jabbas_court or rescue_mission "
                                             "[default exalted_one]."),
        seat: int | None = typer.Option(None, help="Your seat, in turn order from the "
                                           "round's first player (0) [default 0]."),
        hand: str | None = typer.Option(None, help="Your 2 cards, e.g. 'jabba,guard'."),
        face_up: str | None = typer.Option(None, "--face-up", help="The 3 face-up "
                                              "set-aside cards (2 players)."),
        area: list[str] | None = typer.Option(
            None, help="A play area in the order played, SEAT=CARDS, e.g. "
            "'1=guard,boba,took:luke' (repeat per seat; 'took:' marks a card taken with "
            "Boba Fett; an out player's last card is the hand they discarded)."),
        out: str | None = typer.Option(None, help="Seats that are out, e.g. '2'."),
        protected: str | None = typer.Option(None, help="Seats protected by Bib "
                                                "Fortuna."),
        saw: list[str] | None = typer.Option(None, help="A card you know a player "
                                                "holds, SEAT=CARD (repeatable)."),
        seen_by: list[str] | None = typer.Option(
            None, "--seen-by", help="A player who knows one of your cards, SEAT=CARD."),
        set_aside: str | None = typer.Option(None, "--set-aside", help="The face-down "
                                                "set-aside card, if you saw it (R2-D2)."),
        bottom: str | None = typer.Option(None, help="Cards you put under the deck with "
                                             "Leia, in draw order."),
        deck: int | None = typer.Option(None, help="Cards left in the deck, to check "
                                           "the situation against."),
        log: str | None = typer.Option(None, help="The round's events as you saw them, "
                                          "separated by ';' (docs/hint.md: event log)."),
        log_file: Path | None = typer.Option(None, "--log-file", help="The events, one "
                                                "per line."),
        policy: list[Path] | None = typer.Option(
            None, help="Policy file(s) to use instead of the shipped ones."),
        seconds: float = typer.Option(0.25, help="Time for the rollouts behind the "
                                      "values."),
        resolve_seconds: float = typer.Option(2.0, "--resolve-seconds", help="Time budget "
                                              "for re-solving a situation the table lacks."),
        seed: int = typer.Option(0, help="Seed for worlds and rollouts."),
        as_json: bool = typer.Option(False, "--json", help="Print the versioned JSON "
                                     "answer."),
    ) -> None:
        """Which card should I play? The policy's advice, each play's value, and beliefs."""
        from solver.hint import advice as hint_lib
        from solver.hint.situation import SituationError, from_mapping

        data = _read_situation_file(situation) if situation else {}
        flags = {"players": players, "agenda": agenda, "seat": seat, "hand": hand,
                 "face_up": face_up, "out": out, "protected": protected,
                 "set_aside": set_aside, "bottom": bottom, "deck": deck}
        data.update({k: v for k, v in flags.items() if v is not None})
        if area:
            data["areas"] = {**data.get("areas", {}), **_pairs(area, "area")}
        if saw:
            data["saw"] = {**data.get("saw", {}), **_pairs(saw, "saw")}
        if seen_by:
            data["seen_by"] = {**data.get("seen_by", {}), **_pairs(seen_by, "seen-by")}
        if log is not None:
            data["log"] = log
        if log_file is not None:
            try:
                data["log"] = [x for x in log_file.read_text().splitlines() if x.strip()]
            except OSError as err:
                raise typer.BadParameter(f"--log-file {log_file}: {err.strerror}") from None
        data.setdefault("players", 2)
        data.setdefault("seat", 0)
        if seconds <= 0 or resolve_seconds <= 0:
            raise typer.BadParameter("--seconds and --resolve-seconds must be positive")
        if not _compiled_yet():
            print("First run: compiling the rollout kernels (about 30 s, once)...",
                  file=sys.stderr)
        try:
            sit = from_mapping(data)
            game = hint_lib.check_game(sit)
            policies = hint_lib.load_policies(game, policy)
            answer = hint_lib.hint(sit, game, policies, seconds=seconds,
                                   resolve_seconds=resolve_seconds, seed=seed)
        except SituationError as err:
            typer.echo(f"Error: impossible situation: {err}", err=True)
            raise typer.Exit(2) from None
        except ValueError as err:  # a refused policy file
            typer.echo(f"Error: {err}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            typer.echo(json.dumps(answer, indent=2))
        else:
            _render(answer)

    @app.command()
    def export(
        players: int = typer.Option(2, help="Players, for the shipped policy."),
        agenda: str = typer.Option("exalted_one", help="Agenda, for the shipped policy."),
        policy: Path | None = typer.Option(None, help="A policy file instead of the "
                                              "shipped one."),
        fmt: str = typer.Option("csv", "--format", help="csv or jsonl."),
        output: Path = typer.Option(..., "--out", "-o", help="File to write."),
        rounds: int = typer.Option(2000, help="Self-play rounds that find and describe "
                                   "the keys (and count visits)."),
        all_keys: bool = typer.Option(False, "--all-keys", help="Also keys the sample "
                                      "never met (no description, 0 visits)."),
        seed: int = typer.Option(0, help="Seed for the self-play sample."),
    ) -> None:
        """Write a policy as a strategy table (CSV or JSON Lines; columns in docs/hint.md)."""
        import time

        import pyspiel
        from rich.progress import Progress

        import spiel_game  # noqa: F401
        from solver.hint.export import export_header, export_rows, write_rows
        from solver.policies.table import load_policy, shipped_policies

        if fmt not in ("csv", "jsonl"):
            raise typer.BadParameter(f"--format {fmt!r}: allowed are csv, jsonl")
        if rounds < 1:
            raise typer.BadParameter("--rounds must be at least 1")
        try:
            game = pyspiel.load_game("jabbas_palace", {"players": players, "agenda": agenda})
        except (ValueError, pyspiel.SpielError) as err:
            raise typer.BadParameter(str(err)) from None
        paths = [policy] if policy else shipped_policies("full", agenda, players)
        if not paths:
            raise typer.BadParameter(f"no shipped policy for {players} players, {agenda}; "
                                     "give --policy")
        try:
            table = load_policy(paths[0], game)
        except ValueError as err:
            typer.echo(f"Error: {err}", err=True)
            raise typer.Exit(2) from None
        start = time.perf_counter()
        with Progress(transient=True) as bar:
            task = bar.add_task("self-play", total=rounds)
            rows = export_rows(game, table, rounds, seed, all_keys,
                               progress=lambda r: bar.update(task, completed=r))
        header = export_header(game, table, paths[0], rounds=rounds, seed=seed,
                               all_keys=all_keys, seconds=time.perf_counter() - start)
        write_rows(rows, output, fmt, header)
        keys = len({r["key"] for r in rows})
        typer.echo(f"wrote {output}: {len(rows)} rows, {keys} keys from {paths[0]}")


def _render(answer: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    sit = answer["situation"]
    console.print(f"[bold]{sit['players']} players, {sit['agenda']}, you are seat "
                  f"{sit['seat']}[/bold]: hand {', '.join(sit['hand'])}; deck {sit['deck']}")
    rec = answer["recommendation"]
    console.print(f"[bold green]Recommended: {rec['action']}[/bold green]")
    table = Table(title="Your plays")
    table.add_column("play")
    table.add_column("policy", justify="right")
    table.add_column("EV (token margin)", justify="right")
    table.add_column("vs best", justify="right")
    for p in answer["plays"]:
        prob = "-" if p["probability"] is None else f"{p['probability']:.0%}"
        table.add_row(p["card"], prob, f"{p['ev']:+.3f} ± {p['ev_ci95']:.3f}",
                      f"{p['vs_best']:+.3f} ± {p['vs_best_ci95']:.3f}")
    console.print(table)
    for step in rec["steps"]:
        options = sorted(step["options"], key=lambda o: -(o["probability"] or 0))[:4]
        shown = ", ".join(o["action"] + ("" if o["probability"] is None else
                                         f" {o['probability']:.0%}") for o in options)
        console.print(f"  then {step['decision']}: {step['chosen']}   ({shown})")
    beliefs = Table(title="What the others hold")
    beliefs.add_column("seat")
    beliefs.add_column("hand (probability)")
    for o in answer["opponents"]:
        if o["status"] == "out":
            beliefs.add_row(f"p{o['seat']}", "out")
            continue
        cards = ", ".join(f"{c['card']} {c['probability']:.0%}" for c in o["hand"][:6])
        more = "" if len(o["hand"]) <= 6 else ", ..."
        status = " (protected)" if o["status"] == "protected" else ""
        beliefs.add_row(f"p{o['seat']}{status}", cards + more)
    console.print(beliefs)
    pol, roll = answer["policy"], answer["rollouts"]
    console.print(f"policy: {pol['detail']}; posterior: {answer['posterior']['basis']} "
                  f"({answer['posterior']['worlds']} worlds); values from {roll['count']:,} "
                  f"rollouts ({roll['from_table']:.1%} of their decisions from the table, "
                  f"{roll['from_coarser_table']:.1%} from a coarser one, "
                  f"{roll['from_default_policy']:.1%} from {roll['default_policy']}); "
                  f"{answer['seconds']:.2f} s")
