"""Quality against compute: full-deck blueprints trained for longer and longer.

(a) --train LEVEL: one long MCCFR run (`jabba solve --algorithm mccfr --deck full`, the
    installed command, in a subprocess) with a checkpoint, exporting a policy file at each
    stage of --stages total training seconds (policy_<agenda>_<level>_<N>s.npz in
    --folder, with its log log_<agenda>_<level>_<N>.txt; at --players 3-6 the agenda part
    reads <agenda>_<P>p). Resumable: a stage whose policy file exists is skipped, and a
    stage continues the checkpoint for what its budget still lacks (total minus the
    checkpoint's training seconds).
(b) --evaluate DIR (its policy_*.npz) or --policies FILES: per policy, its header's
    iterations, training seconds and keys and the file size; a duplicate-deal tournament
    (solver/evaluation/tournament.py `play_lineup`, the code of `jabba tournament`; --deals,
    --seed) against n-1 agenda_expert and against n-1 shipped tables of its agenda and size
    (solver/policies/shipped.py; --shipped FILE replaces it); its share of table misses in
    self-play (keys the table never saw); the LBR lower bound (solver/evaluation/lbr.py
    `run_lbr`, the code of `jabba lbr`; --lbr-deals, --lbr-seed; 0 deals: none). The
    shipped table itself is measured the same way once per agenda, as the reference. The
    player count is each policy header's.
(c) --quantisation CHECKPOINT with --policies FILE (the 8-bit export of that very
    checkpoint): the checkpoint's float average strategy against the file's 8-bit rows,
    head to head and by LBR on the same deals (paired).

Every run writes --out STEM.json (provenance header, the command of each part, rows of
other agendas, levels or policies kept), STEM.csv (CURVE_COLUMNS) and STEM.png (LBR bound
and margin against agenda_expert over training seconds, log x, a line per level),
atomically. Seconds are wall seconds of a machine shared with other jobs: the CPU seconds
of the training processes are recorded next to them where a log has them.

    python benchmarks/blueprint_curve.py --train counting --agenda exalted_one
        --stages 120,480,1800,3600 --threads 2 --seed 7 --folder DIR [--players 2]
    python benchmarks/blueprint_curve.py --evaluate DIR [--players 2] [--deals 20000] [--seed 3]
        [--lbr-deals 2000] [--lbr-seed 1] [--shipped FILE] [--no-reference]
        [--out results/blueprint_curve, or results/blueprint_curve_<P>p at P players]
    python benchmarks/blueprint_curve.py --quantisation CHECKPOINT --policies FILE
    python benchmarks/blueprint_curve.py --render  (STEM.csv and .png from STEM.json)
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
from _common import Stopwatch, add_allow_dirty, guard_outputs, load_jabba

from solver import provenance
from solver.evaluation.lbr import run_lbr
from solver.evaluation.report import recorded_spec, shipped_table
from solver.evaluation.tournament import estimate, play_lineup
from solver.policies.compiled import TABLE, PolicyBank, build_bank
from solver.policies.table import row_offsets
from solver.reports import csv as report_csv
from solver.reports import files as report_files
from solver.reports.plots import _png, _pyplot

CURVE_COLUMNS = ["agenda", "players", "level", "iterations", "seconds", "keys", "file_mb",
                 "lbr_lower_bound", "lbr_low", "lbr_high", "margin_v_agenda_expert",
                 "margin_low", "margin_high", "margin_v_shipped", "self_play_miss_rate"]
DECK = "full"
OPPONENT = "agenda_expert"
CHECKPOINT_EVERY = 300  # seconds; a killed stage loses at most this much
STAGE_FILE = re.compile(r"policy_(?P<agenda>\w+?)_(?P<level>[a-z]+)_(?P<total>\d+)s\.npz$")


def run_name(agenda: str, players: int) -> str:
    """The agenda part of a run's file names: the agenda, and its size past 2 players."""
    return agenda if players == 2 else f"{agenda}_{players}p"


# Training -------------------------------------------------------------------------------

def train(level: str, agenda: str, players: int, stages: list[int], threads: int, seed: int,
          folder: Path) -> None:
    """The staged run of (a); each stage's CPU seconds and peak memory go to its log."""
    from solver.mccfr.checkpoint import read_checkpoint_header

    folder.mkdir(parents=True, exist_ok=True)
    name = run_name(agenda, players)
    checkpoint = folder / f"ck_{name}_{level}.npz"
    for total in stages:
        out = folder / f"policy_{name}_{level}_{total}s.npz"
        if out.exists():
            print(f"{out.name}: done, skipped")
            continue
        trained = (read_checkpoint_header(checkpoint)["training_seconds"]
                   if checkpoint.exists() else 0.0)
        extra = max(1, round(total - trained))
        command = ["jabba", "solve", "--algorithm", "mccfr", "--deck", DECK, "--players",
                   str(players), "--agenda", agenda, "--abstraction", level,
                   "--iterations", "0", "--seconds", str(extra), "--threads", str(threads),
                   "--seed", str(seed), "--checkpoint", checkpoint.name,
                   "--checkpoint-every", str(CHECKPOINT_EVERY), "--out", out.name]
        if checkpoint.exists():
            command.append("--resume")
        log = folder / f"log_{name}_{level}_{total}.txt"
        print(f"{out.name}: {' '.join(command)}", flush=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        clock = Stopwatch()
        with open(log, "w") as f:
            done = subprocess.run(command, cwd=folder, stdout=f, stderr=subprocess.STDOUT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        with open(log, "a") as f:
            f.write(f"stage cpu seconds: {cpu:.1f}; wall seconds: {clock.elapsed():.1f}; "
                    f"max rss kB: {after.ru_maxrss}\n")
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({done.returncode}); see {log}")


def stage_cpu_seconds(path: Path) -> float | None:
    """CPU seconds of the training up to this stage's policy file: the sum over the logs of
    this and the earlier stages (`train`'s line, or /usr/bin/time -v output); None if a
    log has neither (a stage run again keeps only its last attempt's log)."""
    match = STAGE_FILE.search(path.name)
    if match is None:
        return None
    agenda, level, total = match["agenda"], match["level"], int(match["total"])
    logs = sorted(path.parent.glob(f"log_{agenda}_{level}_*.txt"),
                  key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    cpu = 0.0
    for log in logs:
        if int(log.stem.rsplit("_", 1)[1]) > total:
            break
        text = log.read_text()
        mine = re.search(r"stage cpu seconds: ([\d.]+)", text)
        user = re.search(r"User time \(seconds\): ([\d.]+)", text)
        system = re.search(r"System time \(seconds\): ([\d.]+)", text)
        if mine:
            cpu += float(mine[1])
        elif user and system:
            cpu += float(user[1]) + float(system[1])
        else:
            return None
    return round(cpu, 1)


# Evaluation -----------------------------------------------------------------------------

def policy_header(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["header"]))


def _lineup_dict(result) -> dict:
    return {**result.margin().to_dict(), "deals": result.deals,
            "table_miss_rate": result.miss_rate(), "seconds": round(result.seconds, 1)}


def measure(path: Path, shipped: Path | None, deals: int, seed: int, lbr_deals: int,
            lbr_seed: int) -> dict:
    """One row of (b): the policy file at `path` against agenda_expert and `shipped`, and
    its LBR bound."""
    header = policy_header(path)
    parameters = provenance.game_parameters(header)
    agenda, players = parameters["agenda"], parameters["players"]
    game = load_jabba(players, agenda, DECK)
    specs = [str(path), OPPONENT] + ([str(shipped)] if shipped else [])
    bank = build_bank(specs, game, ["policy", OPPONENT, "shipped"][:len(specs)])
    others = players - 1
    clock = Stopwatch()
    v_expert = play_lineup(game, bank, [0] + [1] * others, deals, 0, seed)
    v_shipped = (play_lineup(game, bank, [0] + [2] * others, deals, 0, seed) if shipped
                 else None)
    self_play = play_lineup(game, bank, [0] * players, max(1, deals // 4), 0, seed)
    lbr = run_lbr(game, bank, 0, lbr_deals, lbr_seed) if lbr_deals else None
    bound = lbr.lower_bound() if lbr else None
    row = {"agenda": agenda, "players": players, "level": header["abstraction"]["level"],
           "iterations": header["iterations"], "seconds": header["seconds"],
           "cpu_seconds": stage_cpu_seconds(path), "keys": header["keys"],
           "file_mb": round(path.stat().st_size / 1e6, 2), "policy": path.name,
           "trained_by": header["command"], "training_code_version": header["code_version"],
           "lbr": {**bound.to_dict(), "deals": lbr.deals, "rollouts": lbr.rollouts,
                   "seed": lbr_seed, "belief": lbr.belief_stats,
                   "seconds": round(lbr.seconds, 1)} if lbr else None,
           "self_play_miss_rate": self_play.miss_rate(range(players)),
           "self_play_deals": self_play.deals,
           "v_agenda_expert": {**_lineup_dict(v_expert), "seed": seed},
           "v_shipped": {**_lineup_dict(v_shipped), "seed": seed} if shipped else None,
           "shipped": recorded_spec(str(shipped)) if shipped else None,
           "evaluation_seconds": round(clock.elapsed(), 1)}
    print(f"{path.name}: {row['iterations']:,} iterations, {row['seconds']:.0f} s, "
          f"{row['keys']:,} keys, {row['file_mb']} MB; LBR {bound or 'not run'}; "
          f"self-play misses {row['self_play_miss_rate']:.4f}; v {OPPONENT} "
          f"{v_expert.margin()}" + (f"; v shipped {v_shipped.margin()}" if shipped else "")
          + f" ({row['evaluation_seconds']:.0f} s)", flush=True)
    return row


def _row_id(r: dict) -> tuple:
    return r["agenda"], r["level"], r["iterations"], r["policy"]


# Quantisation ---------------------------------------------------------------------------

def float_rows(checkpoint: Path, game) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """(checkpoint header, sorted keys, action counts, float64 rows) of the checkpoint's
    average strategy, the rows `export_policy` rounds."""
    from solver.mccfr.solver import MCCFRSolver
    from solver.mccfr.checkpoint import read_checkpoint_header
    from solver.policies.table import average_strategy_rows

    keys, counts, probs, _ = average_strategy_rows(MCCFRSolver.from_checkpoint(game, checkpoint))
    return read_checkpoint_header(checkpoint), keys, counts, probs


def quantisation(checkpoint: Path, path: Path, deals: int, seed: int, lbr_deals: int,
                 lbr_seed: int) -> dict:
    """(c): the float table and its 8-bit export in one bank (float64 rows both: the
    8-bit ones are the file's, renormalised when read, as always)."""
    header = policy_header(path)
    parameters = provenance.game_parameters(header)
    agenda = parameters["agenda"]
    game = load_jabba(parameters["players"], agenda, DECK)
    ck_header, keys, counts, probs = float_rows(checkpoint, game)
    if ck_header["iterations"] != header["iterations"]:
        raise ValueError(f"{checkpoint.name} holds {ck_header['iterations']:,} iterations, "
                         f"{path.name} {header['iterations']:,}: not the same strategy")
    eight = build_bank([str(path), OPPONENT], game, ["8-bit", OPPONENT])
    n8 = int(eight.key_start[1])
    if n8 != len(keys) or not np.array_equal(eight.keys[:n8], keys):
        raise ValueError(f"{path.name} and {checkpoint.name} do not hold the same keys")
    offsets = np.concatenate([row_offsets(counts), eight.offsets[:n8] + len(probs)])
    bank = PolicyBank(["float", "8-bit", OPPONENT],
                      np.concatenate([[TABLE], eight.kinds]).astype(np.int32),
                      np.concatenate([[eight.levels[0]], eight.levels]).astype(np.int32),
                      np.array([0, len(keys), 2 * len(keys), 2 * len(keys)], np.int64),
                      np.concatenate([keys, eight.keys[:n8]]), offsets.astype(np.int64),
                      np.concatenate([counts, eight.num_actions[:n8]]),
                      np.concatenate([probs, eight.probs[:len(eight.probs)].astype(float)]),
                      [ck_header, *eight.headers], [checkpoint.name, path.name, OPPONENT])
    clock = Stopwatch()
    head_to_head = play_lineup(game, bank, [0, 1], deals, 0, seed)
    expert = {name: play_lineup(game, bank, [bank.index(name), 2], deals, 0, seed)
              for name in ("float", "8-bit")}
    lbr = {name: run_lbr(game, bank, bank.index(name), lbr_deals, lbr_seed)
           for name in ("float", "8-bit")}
    paired = estimate(lbr["float"].payoffs.mean(axis=1) - lbr["8-bit"].payoffs.mean(axis=1))
    out = {"agenda": agenda, "level": header["abstraction"]["level"],
           "iterations": header["iterations"], "policy": path.name,
           "checkpoint": checkpoint.name, "deals": deals, "seed": seed,
           "lbr_deals": lbr_deals, "lbr_seed": lbr_seed,
           "float_v_8bit": head_to_head.margin().to_dict(),
           "v_agenda_expert": {k: v.margin().to_dict() for k, v in expert.items()},
           "lbr": {k: v.lower_bound().to_dict() for k, v in lbr.items()},
           "lbr_float_minus_8bit": paired.to_dict(),
           "seconds": round(clock.elapsed(), 1)}
    print(f"float v 8-bit {head_to_head.margin()}; v {OPPONENT}: float "
          f"{expert['float'].margin()}, 8-bit {expert['8-bit'].margin()}; LBR float "
          f"{lbr['float'].lower_bound()}, 8-bit {lbr['8-bit'].lower_bound()}, paired "
          f"difference {paired} ({out['seconds']:.0f} s)", flush=True)
    return out


# The record and its renderings ----------------------------------------------------------

def curve_files(record: dict, stem: str, figures: bool = True) -> dict[str, bytes]:
    """stem.csv (CURVE_COLUMNS) and stem.png, from the record alone."""
    n = report_csv.number
    rows = sorted(record["rows"], key=lambda r: (r["agenda"], r["level"], r["seconds"]))
    table = report_csv.table(CURVE_COLUMNS, [
        [r["agenda"], r.get("players", 2), r["level"], r["iterations"], n(r["seconds"]),
         r["keys"], n(r["file_mb"]), n((r["lbr"] or {}).get("mean")),
         n((r["lbr"] or {}).get("ci95_low")), n((r["lbr"] or {}).get("ci95_high")),
         n(r["v_agenda_expert"]["mean"]), n(r["v_agenda_expert"]["ci95_low"]),
         n(r["v_agenda_expert"]["ci95_high"]), n((r["v_shipped"] or {}).get("mean")),
         n(r.get("self_play_miss_rate"))] for r in rows])
    files = {f"{stem}.csv": table.encode()}
    if figures:
        files[f"{stem}.png"] = curve_plot(record)
    return files


def curve_plot(record: dict) -> bytes:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    players = record_players(record)
    first = (("lbr", "LBR lower bound on exploitability (tokens / round)")
             if all(r["lbr"] for r in record["rows"])
             else ("self_play_miss_rate", "share of table misses in self-play"))
    panels = (first, ("v_agenda_expert", f"margin against {players - 1} {OPPONENT} "
                                         "(tokens / round)"))
    lines = sorted({(r["agenda"], r["level"]) for r in record["rows"]})
    for ax, (field, label) in zip(axes, panels):
        for agenda, level in lines:
            group = sorted((r for r in record["rows"]
                            if (r["agenda"], r["level"]) == (agenda, level)),
                           key=lambda r: r["seconds"])
            ax.errorbar([r["seconds"] for r in group],
                        [_point(r[field])[0] for r in group],
                        yerr=[[_point(r[field])[0] - _point(r[field])[1] for r in group],
                              [_point(r[field])[2] - _point(r[field])[0] for r in group]],
                        marker="o", capsize=3,
                        label=level if len({a for a, _ in lines}) == 1
                        else f"{agenda}, {level}")
        for reference in record.get("references", []):
            ax.axhline(_point(reference[field])[0], color="grey", ls="--", lw=0.8,
                       label=f"{Path(reference['policy']).stem} "
                       f"({reference['iterations']:,} it.)")
        ax.set_xscale("log")
        ticks = sorted({round(r["seconds"], -1) for r in record["rows"]})
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("training seconds (wall, shared machine)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"Full deck, {players} players: blueprint quality against training time "
                 "(95% intervals)", fontsize=10)
    fig.tight_layout()
    return _png(fig)


def _point(value) -> tuple[float, float, float]:
    """(mean, low, high) of an estimate's dict, or a bare share as a point."""
    if isinstance(value, dict):
        return value["mean"], value["ci95_low"], value["ci95_high"]
    return value, value, value


def record_players(record: dict) -> int:
    return provenance.game_parameters(record)["players"]


def write_record(stem: Path, rows: list[dict], references: list[dict],
                 quantised: list[dict], seconds: float, players: int) -> None:
    """Merge into STEM.json (rows, references and quantisation entries of other policies
    kept; this run's part appended) and render it."""
    path = stem.with_suffix(".json")
    old = provenance.read_json(path) if path.exists() else {}
    merged = {_row_id(r): r for r in old.get("rows", [])}
    merged.update({_row_id(r): r for r in rows})
    refs = {r["agenda"]: r for r in old.get("references", [])}
    refs.update({r["agenda"]: r for r in references})
    quant = {(q["agenda"], q["policy"]): q for q in old.get("quantisation", [])}
    quant.update({(q["agenda"], q["policy"]): q for q in quantised})
    header = provenance.header(
        {"agenda": sorted({r["agenda"] for r in merged.values()} | set(refs)) or "exalted_one",
         "deck": DECK, "players": players, "utility": "margin"}, seconds=seconds,
        command=["python", "benchmarks/blueprint_curve.py", *sys.argv[1:]])
    if isinstance(header["game"]["parameters"]["agenda"], list) and \
            len(header["game"]["parameters"]["agenda"]) == 1:
        header["game"]["parameters"]["agenda"] = header["game"]["parameters"]["agenda"][0]
    part = {k: header[k] for k in ("command", "seconds", "code_version", "created")}
    record = {**header, "what": f"full-deck {players}-player blueprints: quality against "
              "training time (tournament margins on duplicate deals, self-play table misses, "
              "LBR lower bounds)",
              "columns": CURVE_COLUMNS,
              "parts": [*old.get("parts", []), part],
              "rows": sorted(merged.values(), key=lambda r: (r["agenda"], r["level"],
                                                             r["seconds"])),
              "references": sorted(refs.values(), key=lambda r: r["agenda"]),
              "quantisation": list(quant.values())}
    provenance.write_json(path, record)
    for written in report_files.write(path.parent, curve_files(record, stem.name)):
        print(f"wrote {written}")
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--train", metavar="LEVEL", help="(a): train at this abstraction level")
    mode.add_argument("--evaluate", metavar="DIR", type=Path,
                      help="(b): evaluate the policy_*.npz files of DIR")
    mode.add_argument("--quantisation", metavar="CHECKPOINT", type=Path,
                      help="(c): the checkpoint's float table against --policies FILE")
    mode.add_argument("--render", action="store_true",
                      help="only remake STEM.csv and .png from STEM.json")
    parser.add_argument("--policies", metavar="FILES",
                        help="(b), (c): comma-separated policy files instead of DIR's")
    parser.add_argument("--agenda", default="exalted_one")
    parser.add_argument("--stages", default="120,480,1800,3600",
                        help="(a): total training seconds at each export")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None,
                        help="(a) training seed (default 7); (b), (c) deal seed (default 3)")
    parser.add_argument("--folder", type=Path, help="(a): where the run's files go")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--lbr-deals", type=int, default=2_000)
    parser.add_argument("--lbr-seed", type=int, default=1)
    parser.add_argument("--shipped", metavar="FILE", type=Path,
                        help="(b): the table to play instead of the shipped one (e.g. the "
                        "one shipped before it was replaced)")
    parser.add_argument("--no-reference", action="store_true",
                        help="(b): do not measure the shipped table itself")
    parser.add_argument("--players", type=int, default=2,
                        help="(a): players of the trained game; the default --out's size")
    parser.add_argument("--out", type=Path,
                        help="STEM of STEM.json, .csv, .png (default results/blueprint_curve, "
                        "or results/blueprint_curve_<P>p at --players P past 2)")
    add_allow_dirty(parser)
    args = parser.parse_args()
    if not 2 <= args.players <= 6:
        parser.error(f"--players {args.players}: Jabba's Palace takes 2-6 players")
    if args.out is None:
        args.out = Path("results/blueprint_curve" +
                        ("" if args.players == 2 else f"_{args.players}p"))
    if not args.train:  # training writes only into --folder
        guard_outputs(parser, args.out.with_suffix(".json"))
    clock = Stopwatch()
    if args.render:
        record = provenance.read_json(args.out.with_suffix(".json"))
        for written in report_files.write(args.out.parent, curve_files(record, args.out.name)):
            print(f"wrote {written}")
        return
    if args.train:
        if args.folder is None:
            parser.error("--train needs --folder")
        try:
            stages = sorted(int(s) for s in args.stages.split(","))
        except ValueError:
            parser.error(f"--stages {args.stages!r}: give comma-separated whole seconds")
        if not stages or stages[0] <= 0:
            parser.error("--stages must be positive seconds")
        train(args.train, args.agenda, args.players, stages, args.threads,
              7 if args.seed is None else args.seed, args.folder)
        return
    seed = 3 if args.seed is None else args.seed
    if args.policies:
        paths = [Path(p) for p in args.policies.split(",") if p]
    elif args.evaluate:
        paths = sorted(args.evaluate.glob("policy_*.npz"),
                       key=lambda p: (p.name.rsplit("_", 1)[0],
                                      int(STAGE_FILE.search(p.name)["total"])
                                      if STAGE_FILE.search(p.name) else 0))
    elif args.quantisation:
        parser.error("--quantisation needs --policies FILE")
    else:
        parser.error("give --train LEVEL, --evaluate DIR, --policies FILES or "
                     "--quantisation CHECKPOINT")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or not paths:
        parser.error(f"no such policy file: {', '.join(missing)}" if missing
                     else f"no policy_*.npz in {args.evaluate}")
    if args.quantisation:
        if len(paths) != 1:
            parser.error("--quantisation compares one policy file with its checkpoint")
        if not args.quantisation.is_file():
            parser.error(f"no such checkpoint: {args.quantisation}")
        entry = quantisation(args.quantisation, paths[0], args.deals, seed, args.lbr_deals,
                             args.lbr_seed)
        write_record(args.out, [], [], [entry], clock.elapsed(),
                     provenance.game_parameters(policy_header(paths[0]))["players"])
        return
    if args.shipped is not None and not args.shipped.is_file():
        parser.error(f"no such policy file: {args.shipped}")
    sizes = {provenance.game_parameters(policy_header(p))["players"] for p in paths}
    if sizes != {args.players}:
        parser.error(f"the policies are for {sorted(sizes)} players; a record holds one "
                     f"size: give --players (now {args.players}) and that size's files")
    players = args.players
    rows, references = [], []
    agendas = []
    for path in paths:
        agenda = provenance.game_parameters(policy_header(path))["agenda"]
        shipped = args.shipped or shipped_table(DECK, agenda, players)
        rows.append(measure(path, shipped, args.deals, seed, args.lbr_deals, args.lbr_seed))
        if agenda not in agendas:
            agendas.append(agenda)
    if not args.no_reference:
        for agenda in agendas:
            shipped = args.shipped or shipped_table(DECK, agenda, players)
            if shipped is not None:
                ref = measure(shipped, None, args.deals, seed, args.lbr_deals, args.lbr_seed)
                references.append({**ref, "policy": recorded_spec(str(shipped))})
    write_record(args.out, rows, references, [], clock.elapsed(), players)


if __name__ == "__main__":
    main()
