"""The evaluation report: tournaments and exploitability lower bounds on the full game.

Three parts, each run on its own and written atomically as CSV, Markdown, PNG and a JSON
record (parameters, seeds, code version, run time, the command that remakes it):

- `crosstable`: every policy against every other (solver/evaluation/tournament.py), per agenda,
  2 and 3 players: mean margin per round and match-win rate with 95% intervals;
- `lbr`: local best response lower bounds on exploitability (solver/evaluation/lbr.py) for every
  policy, per agenda, 2 players and 3 players (NashConv);
- `validation`: the same LBR on reduced decks, where the exact exploitability is known
  (solver/exact/best_response.py): LBR's exact value next to it, and its estimate by play.

`write_report` assembles results/evaluation_report.md from the parts' JSON records.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import io
import math
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

from spiel_game.cards import AGENDA_NAMES

from solver import provenance as results
from solver.policies.compiled import HEURISTIC_KINDS, build_bank
from solver.policies.table import RESULTS, shipped_policies

PREFIX = "evaluation"
HEURISTIC_ORDER = ["agenda_expert", "card_counter", "keep_higher", "keep_lower", "uniform"]
assert set(HEURISTIC_ORDER) == set(HEURISTIC_KINDS)
TABLE = "table"  # the shipped table policy of the game, if there is one
_LEVEL_PREFERENCE = ("fine", "coarse", "identity")
PARTS = ("crosstable", "lbr", "validation")

Log = Callable[[str], None]
Progress = Callable[[str, int, int], None]


def shipped_table(deck: str, agenda: str, players: int, folder: Path = RESULTS
                  ) -> Path | None:
    """The shipped table policy of a game, by _LEVEL_PREFERENCE."""
    paths = {p.stem.rsplit("_", 1)[1]: p for p in shipped_policies(deck, agenda, players,
                                                                    folder)}
    return next((paths[level] for level in _LEVEL_PREFERENCE if level in paths), None)


def resolve_policies(names: list[str], deck: str, agenda: str, players: int
                     ) -> tuple[list[str], list[str]]:
    """(labels, specs) for policy names: heuristics, `table` (the shipped table policy of
    the game) or paths of policy files. Raises ValueError for an unknown name."""
    labels, specs = [], []
    for name in names:
        if name == TABLE:
            path = shipped_table(deck, agenda, players)
            if path is None:
                raise ValueError(f"no shipped table policy for deck {deck}, agenda {agenda}, "
                                 f"{players} players (looked for results/policy_{deck}_"
                                 f"{agenda}_{players}p_<level>.npz)")
            labels.append(TABLE)
            specs.append(str(path))
        elif name in HEURISTIC_KINDS or name.endswith(".npz"):
            labels.append(Path(name).stem if name.endswith(".npz") else name)
            specs.append(name)
        else:
            raise ValueError(f"unknown policy {name!r}; allowed: {TABLE}, "
                             f"{', '.join(HEURISTIC_ORDER)}, or a policy file (.npz)")
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies listed twice: {names}")
    return labels, specs


def load_game(players: int, agenda: str, deck: str = "full"):
    import pyspiel

    import spiel_game  # noqa: F401  (registers the game)

    return pyspiel.load_game("jabbas_palace", {"players": players, "agenda": agenda,
                                               "deck": deck})


@dataclasses.dataclass(frozen=True)
class Settings:
    """Sizes and seeds of the report (the defaults make results/evaluation_*)."""

    agendas: tuple[str, ...] = tuple(AGENDA_NAMES)
    players: tuple[int, ...] = (2, 3)
    seed: int = 1
    # Per player count: duplicate deals and matches per cross-table cell, LBR deals.
    deals: dict = dataclasses.field(default_factory=lambda: {2: 20_000, 3: 10_000})
    matches: dict = dataclasses.field(default_factory=lambda: {2: 2_000, 3: 1_000})
    lbr_deals: dict = dataclasses.field(default_factory=lambda: {2: 2_000, 3: 300})
    rollouts: int = 64
    max_particles: int = 4096
    validation_decks: tuple[str, ...] = ("small", "medium")
    validation_deals: int = 1_000  # LBR by play on the reduced decks
    mccfr_iterations: int = 200_000  # the reduced-deck table policy

    def scaled(self, factor: float) -> Settings:
        """Every sample size times `factor` (at least 2), for quick runs."""
        def times(n):
            return max(2, int(round(n * factor)))
        return dataclasses.replace(
            self, deals={k: times(v) for k, v in self.deals.items()},
            matches={k: times(v) for k, v in self.matches.items()},
            lbr_deals={k: times(v) for k, v in self.lbr_deals.items()},
            validation_deals=times(self.validation_deals),
            mccfr_iterations=times(self.mccfr_iterations))

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v)
                for k, v in dataclasses.asdict(self).items()}


def _policy_names(agenda: str, players: int, deck: str = "full") -> list[str]:
    has_table = shipped_table(deck, agenda, players) is not None
    return ([TABLE] if has_table else []) + HEURISTIC_ORDER


def _record(part: str, settings: Settings, command: str, seconds: float, rows: list[dict],
            interrupted: bool, **extra) -> dict:
    return {"what": _PART_TITLES[part], "part": part, "command": command,
            "settings": settings.to_dict(), "seconds": round(seconds, 1),
            "interrupted": interrupted, "code_version": results.code_version(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            **extra, "rows": rows}


_PART_TITLES = {
    "crosstable": "tournament cross-tables on the full game (duplicate deals)",
    "lbr": "local best response lower bounds on exploitability, full game",
    "validation": "local best response against exact exploitability on reduced decks",
}


def _ci(e) -> dict:
    return {"mean": e.mean, "low": e.low, "high": e.high}


# Part 1: cross-tables ---------------------------------------------------------------------

def crosstable_rows(table, bank, agenda: str) -> list[dict]:
    """One row per played cell of a CrossTable (solver/evaluation/tournament.py)."""
    players = table.players
    others = tuple(range(1, players))
    rows = []
    for (a, b), result in table.cells.items():
        has_matches = len(result.wins) > 0
        rows.append({
            "players": players, "agenda": agenda, "policy": a, "opponent": b,
            "deals": result.deals, "rounds": result.rounds, "matches": len(result.wins),
            "margin": _ci(result.margin((0,))),
            "tokens": _ci(result.mean_tokens((0,))),
            "opponent_tokens": _ci(result.mean_tokens(others)),
            "win_rate": _ci(result.win_rate((0,))) if has_matches else None,
            "opponent_win_rate": _ci(result.win_rate(others)) if has_matches else None,
            "shared_win_rate": result.shared_win_rate(),
            "match_rounds": result.mean_match_rounds(),
            "table_miss_rate": result.miss_rate((0,)),
            "opponent_table_miss_rate": result.miss_rate(others),
            "seconds": round(result.seconds, 2),
            "specs": {a: bank.specs[bank.index(a)], b: bank.specs[bank.index(b)]}})
    return rows


def _games(settings: Settings):
    """(players, agenda, game, labels, specs, bank) for every game of the settings."""
    for players in settings.players:
        for agenda in settings.agendas:
            game = load_game(players, agenda)
            labels, specs = resolve_policies(_policy_names(agenda, players), "full", agenda,
                                             players)
            yield players, agenda, game, labels, specs, build_bank(specs, game, labels)


def run_crosstable(settings: Settings, rows: list[dict], log: Log,
                   progress: Progress | None = None) -> bool:
    """Every cell of every (players, agenda) cross-table, appended to rows; True if
    interrupted."""
    from solver.evaluation.tournament import play_cross_table

    for players, agenda, game, _, _, bank in _games(settings):
        start = time.perf_counter()
        table = play_cross_table(game, bank, settings.deals[players],
                                 settings.matches[players], settings.seed,
                                 on_progress=progress)
        seconds = time.perf_counter() - start
        rounds = sum(r.rounds for r in table.cells.values())
        log(f"{players}p {agenda}: {len(table.cells)} cells, {rounds:,} rounds and "
            f"{sum(len(r.wins) for r in table.cells.values()):,} matches "
            f"({seconds:.0f} s)")
        rows.extend(crosstable_rows(table, bank, agenda))
        if table.interrupted:
            return True
    return False


# Part 2: LBR on the full game ---------------------------------------------------------------

def run_lbr_full(settings: Settings, rows: list[dict], log: Log,
                 progress: Progress | None = None) -> bool:
    """LBR against every policy of every game, appended to rows; True if interrupted."""
    from solver.evaluation.lbr import run_lbr

    for players, agenda, game, labels, specs, bank in _games(settings):
        for index, label in enumerate(labels):
            result = run_lbr(
                game, bank, index, settings.lbr_deals[players], settings.seed,
                settings.rollouts, max_particles=settings.max_particles,
                on_progress=(lambda done, total, text=f"LBR {players}p {agenda} {label}":
                             progress(text, done, total)) if progress else None)
            bound = result.lower_bound()
            log(f"LBR {players}p {agenda} {label}: {result.metric} >= {bound} "
                f"({result.seconds:.0f} s)")
            rows.append({"players": players, "agenda": agenda, "policy": label,
                         "spec": specs[index], "metric": result.metric,
                         "lower_bound": _ci(bound), "deals": result.deals,
                         "rounds": result.deals * players,
                         "per_seat": [_ci(e) for e in result.per_seat()],
                         "rollouts": result.rollouts,
                         "continuation": result.continuation,
                         "belief": result.belief_stats,
                         "seconds": round(result.seconds, 1)})
            if result.interrupted:
                return True
    return False


# Part 3: validation on reduced decks ----------------------------------------------------------

def _train_table(game, level: str, iterations: int, seed: int, folder: Path) -> Path:
    """A reduced-deck MCCFR table policy, as the shipped full-game ones are made."""
    from solver.abstraction import keys as abstraction
    from solver.mccfr.solver import MCCFRSolver
    from solver.policies.table import export_policy

    solver = MCCFRSolver(game, level=abstraction.LEVELS[level], seed=seed, threads=1)
    solver.run(iterations, batch=max(1, iterations // 10))
    path = folder / f"mccfr_{level}.npz"
    export_policy(solver, path)
    return path


def run_validation(settings: Settings, rows: list[dict], log: Log,
                   progress: Progress | None = None) -> bool:
    """Exact LBR value and LBR by play against exact exploitability on reduced decks,
    appended to rows; True if interrupted."""
    from solver.evaluation.lbr import exact_lbr_value, run_lbr
    from solver.exact.tree import build_tree

    cases = [(deck, 2) for deck in settings.validation_decks if 2 in settings.players]
    if 3 in settings.players:
        cases.append((settings.validation_decks[0], 3))
    total = sum(len(HEURISTIC_ORDER) + (players == 2) for _, players in cases) * len(
        settings.agendas)
    with tempfile.TemporaryDirectory() as folder:
        for deck, players in cases:
            for agenda in settings.agendas:
                game = load_game(players, agenda, deck)
                tree = build_tree(game)
                labels, specs = list(HEURISTIC_ORDER), list(HEURISTIC_ORDER)
                level = "fine"
                if players == 2:  # the level the shipped full-game policy of the agenda uses
                    shipped = shipped_table("full", agenda, 2)
                    level = shipped.stem.rsplit("_", 1)[1] if shipped else "fine"
                    t0 = time.perf_counter()
                    path = _train_table(game, level, settings.mccfr_iterations,
                                        settings.seed, Path(folder))
                    log(f"{deck} {agenda}: MCCFR ({level}) {settings.mccfr_iterations:,} "
                        f"iterations in {time.perf_counter() - t0:.0f} s")
                    labels.insert(0, f"mccfr_{level}")
                    specs.insert(0, str(path))
                bank = build_bank(specs, game, labels)
                for index, label in enumerate(labels):
                    comparison = exact_lbr_value(tree, bank, index, settings.seed,
                                                 settings.rollouts,
                                                 max_particles=settings.max_particles)
                    sampled = run_lbr(game, bank, index, settings.validation_deals,
                                      settings.seed, settings.rollouts,
                                      max_particles=settings.max_particles)
                    bound = sampled.lower_bound()
                    log(f"{deck} {players}p {agenda} {label}: exact {comparison.exact:.4f}, "
                        f"LBR exact {comparison.lbr:.4f} ({comparison.tightness:.0%}), "
                        f"by play {bound}")
                    rows.append({
                        "deck": deck, "players": players, "agenda": agenda, "policy": label,
                        "metric": sampled.metric, "exact": comparison.exact,
                        "lbr_exact": comparison.lbr, "tightness": comparison.tightness,
                        "lbr_by_play": _ci(bound), "deals": sampled.deals,
                        "rollouts": settings.rollouts,
                        "iterations": settings.mccfr_iterations if label.startswith("mccfr")
                        else 0,
                        "belief": sampled.belief_stats,
                        "seconds": round(comparison.seconds + sampled.seconds, 1)})
                    if progress:
                        progress(f"validation {deck} {players}p", len(rows), total)
                    if sampled.interrupted:
                        return True
    return False


# Writing ------------------------------------------------------------------------------------

PART_RUNNERS = {"crosstable": run_crosstable, "lbr": run_lbr_full,
                "validation": run_validation}


def run_part(part: str, settings: Settings, out_dir: Path, command: str, log: Log,
             progress: Progress | None = None) -> list[Path]:
    """Run one part and write its files. Ctrl-C writes what was done, marked interrupted
    (and nothing, keeping any earlier files, if nothing was done)."""
    start = time.perf_counter()
    rows: list[dict] = []
    try:
        interrupted = PART_RUNNERS[part](settings, rows, log, progress)
    except KeyboardInterrupt:
        interrupted = True
    if not rows:
        log(f"{part}: interrupted before any result; nothing written")
        return []
    record = _record(part, settings, command, time.perf_counter() - start, rows,
                     interrupted)
    return write_part(record, out_dir)


def write_part(record: dict, out_dir: Path) -> list[Path]:
    part = record["part"]
    stem = out_dir / f"{PREFIX}_{part}"
    paths = [stem.with_suffix(".json"), stem.with_suffix(".csv"), stem.with_suffix(".md")]
    results.write_json(paths[0], record)
    results.write_atomic(paths[1], _CSV[part](record["rows"]).encode())
    results.write_atomic(paths[2], _MARKDOWN[part](record).encode())
    for name, png in _PLOTS[part](record).items():
        path = out_dir / f"{PREFIX}_{name}.png"
        results.write_atomic(path, png)
        paths.append(path)
    return paths


def read_part(part: str, out_dir: Path) -> dict | None:
    path = out_dir / f"{PREFIX}_{part}.json"
    return results.read_json(path) if path.exists() else None


def format_ci(ci: dict | None, digits: int = 3, percent: bool = False) -> str:
    if not ci:
        return "—"
    half = (ci["high"] - ci["low"]) / 2
    if percent:
        return f"{100 * ci['mean']:.1f}% ± {100 * half:.1f}"
    return f"{ci['mean']:+.{digits}f} ± {half:.{digits}f}"


def _rows_to_csv(header: list[str], lines: list[list]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(lines)
    return out.getvalue()


def _g(x) -> str:
    return "" if x is None else f"{x:.6g}"


def crosstable_csv(rows: list[dict]) -> str:
    header = ["players", "agenda", "policy", "opponent", "deals", "rounds", "matches",
              "margin", "margin_low", "margin_high", "tokens", "opponent_tokens",
              "win_rate", "win_rate_low", "win_rate_high", "opponent_win_rate",
              "shared_win_rate", "match_rounds", "table_miss_rate",
              "opponent_table_miss_rate", "seconds"]
    lines = []
    for r in rows:
        win = r["win_rate"] or {}
        lines.append([r["players"], r["agenda"], r["policy"], r["opponent"], r["deals"],
                      r["rounds"], r["matches"], _g(r["margin"]["mean"]),
                      _g(r["margin"]["low"]), _g(r["margin"]["high"]),
                      _g(r["tokens"]["mean"]), _g(r["opponent_tokens"]["mean"]),
                      _g(win.get("mean")), _g(win.get("low")), _g(win.get("high")),
                      _g((r["opponent_win_rate"] or {}).get("mean")),
                      _g(r["shared_win_rate"]), _g(r["match_rounds"]),
                      _g(r["table_miss_rate"]), _g(r["opponent_table_miss_rate"]),
                      r["seconds"]])
    return _rows_to_csv(header, lines)


def crosstable_cells(rows: list[dict], players: int, agenda: str
                     ) -> tuple[list[str], dict[tuple[str, str], dict]]:
    """Policies in order and (policy, opponent) -> {margin, win_rate}, 2-player mirrors
    filled in from the played cells."""
    policies, cells = [], {}
    for r in rows:
        if r["players"] != players or r["agenda"] != agenda:
            continue
        for name in (r["policy"], r["opponent"]):
            if name not in policies:
                policies.append(name)
        cells[(r["policy"], r["opponent"])] = {"margin": r["margin"],
                                               "win_rate": r["win_rate"]}
        if players == 2 and r["policy"] != r["opponent"]:
            m = r["margin"]
            cells[(r["opponent"], r["policy"])] = {
                "margin": {"mean": -m["mean"], "low": -m["high"], "high": -m["low"]},
                "win_rate": r["opponent_win_rate"]}
    return policies, cells


def crosstable_markdown(record: dict) -> str:
    rows = record["rows"]
    lines = [f"Mean margin per round of the row policy against the column policy "
             f"(tokens; 95% interval over duplicate deals), and the share of matches to "
             f"the token goal it wins. 2 players: the row against the column; 3 players: "
             f"the row in one seat, the column in the other two. Made by `{record['command']}` "
             f"in {record['seconds']:.0f} s.", ""]
    for players in sorted({r["players"] for r in rows}):
        for agenda in dict.fromkeys(r["agenda"] for r in rows if r["players"] == players):
            policies, cells = crosstable_cells(rows, players, agenda)
            first = next(r for r in rows if r["players"] == players and r["agenda"] == agenda)
            lines.append(f"#### {agenda}, {players} players ({first['deals']:,} deals x "
                         f"{players} seatings and {first['matches']:,} matches x {players} per "
                         "cell)")
            for title, field, percent in (("margin per round", "margin", False),
                                          ("match-win rate", "win_rate", True)):
                lines.append("")
                lines.append(f"| {title} | " + " | ".join(policies) + " |")
                lines.append("|---|" + "---|" * len(policies))
                for a in policies:
                    cells_text = [format_ci(cells[(a, b)][field], percent=percent)
                                  if (a, b) in cells else "—" for b in policies]
                    lines.append(f"| **{a}** | " + " | ".join(cells_text) + " |")
            misses = [r["table_miss_rate"] for r in rows if r["players"] == players
                      and r["agenda"] == agenda and r["policy"] == TABLE
                      and r["table_miss_rate"] is not None
                      and not math.isnan(r["table_miss_rate"])]
            if misses:
                lines.append("")
                lines.append(f"Table policy: {100 * float(np.mean(misses)):.2f}% of its "
                             "decisions had no entry in the table (played uniformly).")
            lines.append("")
    return "\n".join(lines)


def _lbr_csv(rows: list[dict]) -> str:
    header = ["players", "agenda", "policy", "metric", "lower_bound", "low", "high",
              "deals", "rounds", "rollouts", "continuation", "belief_decisions",
              "belief_most_particles", "belief_truncated", "belief_lost",
              "belief_policy_ignored_steps", "seconds", "spec"]
    return _rows_to_csv(header, [[
        r["players"], r["agenda"], r["policy"], r["metric"], _g(r["lower_bound"]["mean"]),
        _g(r["lower_bound"]["low"]), _g(r["lower_bound"]["high"]), r["deals"], r["rounds"],
        r["rollouts"], r["continuation"], r["belief"]["decisions"],
        r["belief"]["most_particles"], r["belief"]["truncated"], r["belief"]["lost"],
        r["belief"]["policy_ignored_steps"], r["seconds"], r["spec"]] for r in rows])


def _lbr_markdown(record: dict) -> str:
    rows = record["rows"]
    s = record["settings"]
    lines = [f"Lower bounds on exploitability (2 players) and NashConv (3 players), in "
             f"tokens per round: the mean margin of a local best response (LBR, "
             f"{s['rollouts']} rollouts per action, the policy as continuation) against "
             f"the policy, 95% interval over duplicate deals (LBR in every seat). Made by "
             f"`{record['command']}` in {record['seconds']:.0f} s.", ""]
    for players in sorted({r["players"] for r in rows}):
        agendas = list(dict.fromkeys(r["agenda"] for r in rows if r["players"] == players))
        policies = list(dict.fromkeys(r["policy"] for r in rows if r["players"] == players))
        value = {(r["agenda"], r["policy"]): r for r in rows if r["players"] == players}
        metric = "exploitability" if players == 2 else "NashConv"
        deals = rows[[r["players"] for r in rows].index(players)]["deals"]
        lines.append(f"#### {players} players: {metric} ≥ (LBR, {deals:,} deals x "
                     f"{players} seats)")
        lines.append("")
        lines.append("| policy | " + " | ".join(agendas) + " |")
        lines.append("|---|" + "---|" * len(agendas))
        for policy in policies:
            cells = [format_ci(value[(a, policy)]["lower_bound"]) if (a, policy) in value
                     else "—" for a in agendas]
            lines.append(f"| {policy} | " + " | ".join(cells) + " |")
        lost = sum(r["belief"]["lost"] for r in rows if r["players"] == players)
        truncated = sum(1 for r in rows if r["players"] == players
                        and r["belief"]["truncated"] > 0)
        decisions = sum(r["belief"]["decisions"] for r in rows if r["players"] == players)
        lines.append("")
        lines.append(f"Belief: {decisions:,} LBR decisions; the particle cap "
                     f"({s['max_particles']:,}) was reached in {truncated} of "
                     f"{len(value)} runs, and {lost:,} decisions fell back to the policy "
                     "(belief lost).")
        lines.append("")
    return "\n".join(lines)


def _validation_csv(rows: list[dict]) -> str:
    header = ["deck", "players", "agenda", "policy", "metric", "exact", "lbr_exact",
              "tightness", "lbr_by_play", "low", "high", "deals", "rollouts",
              "mccfr_iterations", "seconds"]
    return _rows_to_csv(header, [[
        r["deck"], r["players"], r["agenda"], r["policy"], r["metric"], _g(r["exact"]),
        _g(r["lbr_exact"]), _g(r["tightness"]), _g(r["lbr_by_play"]["mean"]),
        _g(r["lbr_by_play"]["low"]), _g(r["lbr_by_play"]["high"]), r["deals"],
        r["rollouts"], r["iterations"], r["seconds"]] for r in rows])


def _validation_markdown(record: dict) -> str:
    rows = record["rows"]
    s = record["settings"]
    lines = [f"LBR ({s['rollouts']} rollouts per action) on reduced decks, where the "
             "exact exploitability (NashConv with 3 players) is computed on the whole "
             "tree: LBR's exact value there (its choice at each of its information "
             "states, the policy elsewhere), the share of the exact value it reaches, and "
             f"its estimate by play ({s['validation_deals']:,} deals, 95% interval). "
             f"`mccfr_<level>`: MCCFR with the abstraction of the agenda's shipped policy, "
             f"{s['mccfr_iterations']:,} iterations. Made by `{record['command']}` in "
             f"{record['seconds']:.0f} s.", ""]
    violations = [r for r in rows if r["lbr_exact"] > r["exact"] + 1e-9]
    lines.append(f"LBR's exact value exceeds the exact value in {len(violations)} of "
                 f"{len(rows)} cases; the interval of its estimate by play lies above the "
                 f"exact value in "
                 f"{sum(1 for r in rows if r['lbr_by_play']['low'] > r['exact'])} cases.")
    lines.append("")
    lines.append("| deck | players | agenda | policy | exact | LBR exact | share | LBR by play |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        lines.append(f"| {r['deck']} | {r['players']} | {r['agenda']} | {r['policy']} | "
                     f"{r['exact']:.4f} | {r['lbr_exact']:.4f} | {r['tightness']:.0%} | "
                     f"{format_ci(r['lbr_by_play'])} |")
    lines.append("")
    for deck in dict.fromkeys(r["deck"] for r in rows):
        for players in sorted({r["players"] for r in rows if r["deck"] == deck}):
            group = [r for r in rows if r["deck"] == deck and r["players"] == players]
            shares = [r["tightness"] for r in group]
            lines.append(f"- {deck}, {players} players: LBR reaches {min(shares):.0%} to "
                         f"{max(shares):.0%} of the exact value (median "
                         f"{float(np.median(shares)):.0%}).")
    lines.append("")
    return "\n".join(lines)


# Plots ---------------------------------------------------------------------------------------

def _figure_bytes(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _crosstable_plots(record: dict) -> dict[str, bytes]:
    plt = _pyplot()
    rows = record["rows"]
    out = {}
    for players in sorted({r["players"] for r in rows}):
        agendas = list(dict.fromkeys(r["agenda"] for r in rows if r["players"] == players))
        columns = min(2, len(agendas))
        lines = -(-len(agendas) // columns)
        fig, axes = plt.subplots(lines, columns, figsize=(5.4 * columns, 4.6 * lines),
                                 squeeze=False)
        for ax in axes.flat[len(agendas):]:
            ax.set_visible(False)
        for ax, agenda in zip(axes.flat, agendas):
            policies, cells = crosstable_cells(rows, players, agenda)
            grid = np.full((len(policies), len(policies)), np.nan)
            for i, a in enumerate(policies):
                for j, b in enumerate(policies):
                    if (a, b) in cells:
                        grid[i, j] = cells[(a, b)]["margin"]["mean"]
            limit = max(0.05, float(np.nanmax(np.abs(grid))))
            ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit)
            for i in range(len(policies)):
                for j in range(len(policies)):
                    if not np.isnan(grid[i, j]):
                        ax.text(j, i, f"{grid[i, j]:+.2f}", ha="center", va="center",
                                fontsize=7)
            ax.set_xticks(range(len(policies)), policies, rotation=40, ha="right",
                          fontsize=7)
            ax.set_yticks(range(len(policies)), policies, fontsize=7)
            ax.set_title(agenda, fontsize=9)
        fig.suptitle(f"{players} players: row's mean margin per round against the column "
                     f"(tokens)", fontsize=10)
        fig.tight_layout()
        out[f"crosstable_{players}p"] = _figure_bytes(fig)
    return out


def _lbr_plots(record: dict) -> dict[str, bytes]:
    plt = _pyplot()
    rows = record["rows"]
    player_counts = sorted({r["players"] for r in rows})
    if not player_counts:
        return {}
    fig, axes = plt.subplots(1, len(player_counts), figsize=(6.2 * len(player_counts), 4),
                             squeeze=False)
    for ax, players in zip(axes[0], player_counts):
        group = [r for r in rows if r["players"] == players]
        agendas = list(dict.fromkeys(r["agenda"] for r in group))
        policies = list(dict.fromkeys(r["policy"] for r in group))
        width = 0.8 / len(agendas)
        for k, agenda in enumerate(agendas):
            xs, ys, errors = [], [], []
            for i, policy in enumerate(policies):
                match = [r for r in group if r["agenda"] == agenda and r["policy"] == policy]
                if match:
                    b = match[0]["lower_bound"]
                    xs.append(i + (k - (len(agendas) - 1) / 2) * width)
                    ys.append(b["mean"])
                    errors.append((b["high"] - b["low"]) / 2)
            ax.bar(xs, ys, width, yerr=errors, capsize=2, label=agenda)
        ax.set_xticks(range(len(policies)), policies, rotation=25, ha="right", fontsize=8)
        ax.axhline(0, color="black", lw=0.6)
        metric = "exploitability" if players == 2 else "NashConv"
        ax.set_ylabel(f"{metric} lower bound (tokens / round)")
        ax.set_title(f"{players} players, full deck: LBR against each policy", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return {"lbr": _figure_bytes(fig)}


def _validation_plots(record: dict) -> dict[str, bytes]:
    plt = _pyplot()
    rows = record["rows"]
    if not rows:
        return {}
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    groups = list(dict.fromkeys((r["deck"], r["players"]) for r in rows))
    for (deck, players), marker in zip(groups, "os^vD"):
        group = [r for r in rows if r["deck"] == deck and r["players"] == players]
        ax.scatter([r["exact"] for r in group], [r["lbr_exact"] for r in group],
                   marker=marker, s=18, label=f"{deck}, {players} players")
    top = max(max(r["exact"] for r in rows), 1e-3) * 1.05
    ax.plot([0, top], [0, top], color="grey", lw=0.8, ls="--", label="exact = LBR")
    ax.set_xlabel("exact exploitability / NashConv (tokens / round)")
    ax.set_ylabel("LBR lower bound, exact value")
    ax.set_title("LBR on reduced decks: below the diagonal = a lower bound", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return {"lbr_validation": _figure_bytes(fig)}


_CSV = {"crosstable": crosstable_csv, "lbr": _lbr_csv, "validation": _validation_csv}
_MARKDOWN = {"crosstable": crosstable_markdown, "lbr": _lbr_markdown,
             "validation": _validation_markdown}
_PLOTS = {"crosstable": _crosstable_plots, "lbr": _lbr_plots,
          "validation": _validation_plots}


# The report ---------------------------------------------------------------------------------

def write_report(out_dir: Path) -> Path:
    """results/evaluation_report.md from the parts written so far."""
    records = {part: read_part(part, out_dir) for part in PARTS}
    done = {part: record["seconds"] for part, record in records.items() if record}
    lines = ["# Evaluation on the full game", "",
             "Evidence of strength where exact exploitability cannot be computed: "
             "tournaments between the shipped table policies and the heuristics, and "
             "lower bounds on exploitability from a local best response, checked against "
             "the exact values on reduced decks. Units: tokens per round (margin utility). "
             "Each part below names the command that remakes it and how long it took "
             "here (2 cores shared with other work); `jabba evaluate` runs them all "
             f"({sum(done.values()):.0f} s in all: "
             + ", ".join(f"{part} {seconds:.0f} s" for part, seconds in done.items())
             + ").", ""]
    sections = [("crosstable", "Tournament cross-tables",
                 ["crosstable_2p", "crosstable_3p"]),
                ("lbr", "Exploitability lower bounds (LBR), full game", ["lbr"]),
                ("validation", "LBR against exact exploitability, reduced decks",
                 ["lbr_validation"])]
    for part, title, figures in sections:
        record = records[part]
        lines.append(f"## {title}")
        lines.append("")
        if record is None:
            lines.append(f"Not run yet: `jabba evaluate --parts {part}`.")
            lines.append("")
            continue
        if record["interrupted"]:
            lines.append("**Interrupted: partial results.**")
            lines.append("")
        for figure in figures:
            if (out_dir / f"{PREFIX}_{figure}.png").exists():
                lines.append(f"![{figure}]({PREFIX}_{figure}.png)")
                lines.append("")
        lines.append(_MARKDOWN[part](record))
        lines.append(f"Files: `{PREFIX}_{part}.csv`, `{PREFIX}_{part}.json` (code version "
                     f"{record['code_version']}, {record['created']}).")
        lines.append("")
    path = out_dir / f"{PREFIX}_report.md"
    results.write_atomic(path, "\n".join(lines).encode())
    return path


def parse_settings(agendas: str, players: str, **overrides) -> Settings:
    """Settings from command-line text: comma lists of agendas ('all') and players."""
    chosen = list(AGENDA_NAMES) if agendas == "all" else [a.strip() for a in
                                                         agendas.split(",")]
    unknown = [a for a in chosen if a not in AGENDA_NAMES]
    if unknown:
        raise ValueError(f"unknown agenda(s) {unknown}; allowed: {', '.join(AGENDA_NAMES)} "
                         "or 'all'")
    try:
        counts = tuple(int(p) for p in players.split(","))
    except ValueError:
        raise ValueError(f"players {players!r}: a comma list of 2 and/or 3") from None
    if not counts or any(p not in (2, 3) for p in counts):
        raise ValueError(f"players {players!r}: the report covers 2 and/or 3 players")
    return Settings(agendas=tuple(chosen), players=counts, **overrides)

