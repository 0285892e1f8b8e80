"""The evaluation report: tournaments and exploitability lower bounds on the full game.

Three parts, each run on its own; each writes a JSON record (the provenance header of
solver/provenance.py: the command that remakes it, code version, run time; then settings
and rows) and its CSV, Markdown and PNG renderings (solver/reports/):

- `crosstable`: every policy against every other (solver/evaluation/tournament.py), per agenda,
  2 and 3 players: mean margin per round and match-win rate with 95% intervals;
- `lbr`: local best response lower bounds on exploitability (solver/evaluation/lbr.py) for every
  policy, per agenda, 2 players and 3 players (NashConv);
- `validation`: the same LBR on reduced decks, where the exact exploitability is known
  (solver/exact/best_response.py): LBR's exact value next to it, and its estimate by play.

solver/reports/files.py assembles results/evaluation_report.md from the parts' records.

The game is a setting: jabbas_palace by its agendas, or love_letter (classic Love Letter,
one variant named love_letter, files results/evaluation_love_letter_*).
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from collections.abc import Callable

from spiel_game.cards import AGENDA_NAMES, GAMES, ruleset

from solver import provenance
from solver.policies.compiled import HEURISTIC_KINDS, build_bank
from solver.policies.heuristics import GAME_HEURISTICS
from solver.policies.shipped import policy_files, shipped_folder
from solver.reports import files as report_files

# The heuristics of each game's report, strongest first.
HEURISTIC_ORDER = list(GAME_HEURISTICS[GAMES[0]])
assert set().union(*GAME_HEURISTICS.values()) == set(HEURISTIC_KINDS)
TABLE = "table"  # the shipped table policy of the game, if there is one
PARTS = ("crosstable", "lbr", "validation")

Log = Callable[[str], None]
Progress = Callable[[str, int, int], None]


def shipped_table(deck: str, agenda: str, players: int, folder: Path | None = None
                  ) -> Path | None:
    """The shipped table policy of a game: its finest shipped file, by the rule of
    solver/policies/shipped.py (None if none ships)."""
    return next(iter(policy_files(deck, agenda, players, folder)), None)


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
            known = dict.fromkeys(name for names in GAME_HEURISTICS.values() for name in names)
            raise ValueError(f"unknown policy {name!r}; allowed: {TABLE}, "
                             f"{', '.join(known)}, or a policy file (.npz)")
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies listed twice: {names}")
    return labels, specs


def load_game(players: int, variant: str, deck: str = "full", game: str = GAMES[0]):
    """The game of a report's cell: `variant` is one of the game's variants (its agenda,
    or the game's name for one without agendas)."""
    import spiel_game

    return spiel_game.load(game, players=players, deck=deck,
                           agenda=ruleset(game).agenda_of(variant))


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
    game: str = GAMES[0]  # without agendas: agendas == (the game's name,), its one variant

    @property
    def heuristics(self) -> list[str]:
        return list(GAME_HEURISTICS[self.game])

    @property
    def prefix(self) -> str:
        """The stem of the report's files: evaluation, evaluation_love_letter."""
        return report_files.evaluation_prefix(self.game)

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


def _policy_names(agenda: str, players: int, deck: str = "full",
                  game: str = GAMES[0]) -> list[str]:
    has_table = shipped_table(deck, agenda, players) is not None
    return ([TABLE] if has_table else []) + list(GAME_HEURISTICS[game])


def _record(part: str, settings: Settings, command: str, seconds: float, rows: list[dict],
            interrupted: bool) -> dict:
    decks = list(settings.validation_decks) if part == "validation" else "full"
    game = {"agenda": list(settings.agendas), "deck": decks,
            "players": list(settings.players), "utility": "margin"}
    if not ruleset(settings.game).has_agendas:  # rows name the game as their variant
        del game["agenda"]
    return {**provenance.header(game, seconds=seconds, command=command,
                                game_name=settings.game),
            "what": _PART_TITLES[part], "part": part, "settings": settings.to_dict(),
            "interrupted": interrupted, "rows": rows}


def recorded_spec(spec: str) -> str:
    """A policy spec as records keep it: a heuristic's name, or a policy file's path
    with no machine in it (a shipped file by its name)."""
    return provenance.portable_path(spec, shipped_folder())


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
            "specs": {a: recorded_spec(bank.specs[bank.index(a)]),
                      b: recorded_spec(bank.specs[bank.index(b)])}})
    return rows


def _games(settings: Settings):
    """(players, agenda, game, labels, specs, bank) for every game of the settings."""
    for players in settings.players:
        for agenda in settings.agendas:
            game = load_game(players, agenda, game=settings.game)
            labels, specs = resolve_policies(
                _policy_names(agenda, players, game=settings.game), "full", agenda, players)
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
                         "spec": recorded_spec(specs[index]), "metric": result.metric,
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
    total = sum(len(settings.heuristics) + (players == 2) for _, players in cases) * len(
        settings.agendas)
    with tempfile.TemporaryDirectory() as folder:
        for deck, players in cases:
            for agenda in settings.agendas:
                game = load_game(players, agenda, deck, settings.game)
                tree = build_tree(game)
                labels, specs = settings.heuristics, settings.heuristics[:]
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
    return report_files.write_evaluation_part(record, out_dir, settings.prefix)


def parse_settings(agendas: str, players: str, game: str = GAMES[0],
                   **overrides) -> Settings:
    """Settings from command-line text: comma lists of agendas ('all'; a game without
    agendas has only its own variant) and players."""
    allowed = list(ruleset(game).variants)
    chosen = allowed if agendas == "all" else [a.strip() for a in agendas.split(",")]
    unknown = [a for a in chosen if a not in allowed]
    if unknown:
        raise ValueError(f"unknown agenda(s) {unknown}; allowed: {', '.join(allowed)} "
                         "or 'all'")
    try:
        counts = tuple(int(p) for p in players.split(","))
    except ValueError:
        raise ValueError(f"players {players!r}: a comma list of 2 and/or 3") from None
    if not counts or any(p not in (2, 3) for p in counts):
        raise ValueError(f"players {players!r}: the report covers 2 and/or 3 players")
    return Settings(agendas=tuple(chosen), players=counts, game=game, **overrides)

