"""Tournament throughput on one core: rounds per second of compiled policy play.

Side by side in one process, interleaved within each repeat so machine noise hits every
configuration alike (medians over repeats, min-max range):

- the shipped 2-player table policy against itself (the issue's target: at least 20,000
  rounds per second per core), with the duplicate deals of solver/evaluation/tournament.py;
- the table policy against `agenda_expert`, heuristics against each other, uniform play;
- 3 players: heuristics;
- for scale, random playouts (solver/sim/playout.py run_playouts, no policy, no deal).

    python benchmarks/tournament_speed.py [--seconds 3] [--repeats 5] [--seed 1] [--out FILE]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _common import (
    Stopwatch,
    add_output_args,
    load_jabba,
    machine_info,
    markdown_table,
    median,
    run_playouts,
    write_json_atomic,
)

from solver.policies.compiled import build_bank
from solver.evaluation.tournament import play_lineup

TARGET_ROUNDS_PER_S = 20_000  # 2 players, table policy, one core
TABLE = Path(__file__).resolve().parent.parent / "results" / \
    "policy_full_exalted_one_2p_counting.npz"
CONFIGS = (  # (label, players, policies per seat)
    ("table v table (2p)", 2, ("table", "table")),
    ("table v agenda_expert (2p)", 2, ("table", "agenda_expert")),
    ("agenda_expert v card_counter (2p)", 2, ("agenda_expert", "card_counter")),
    ("uniform v uniform (2p)", 2, ("uniform", "uniform")),
    ("card_counter x 3 (3p)", 3, ("card_counter",) * 3),
)


def measure_lineup(game, bank, lineup, seconds: float, seed: int) -> dict:
    """Duplicate deals of `lineup` for about `seconds` (chunks of growing size)."""
    deals = 64
    rounds = 0
    first = 0
    clock = Stopwatch()
    while clock.elapsed() < seconds:
        call = Stopwatch()
        result = play_lineup(game, bank, lineup, deals, seed=seed, first_deal=first)
        rounds += result.rounds
        first += deals
        if call.elapsed() < 0.1:
            deals *= 2
    elapsed = clock.elapsed()
    return {"rounds": rounds, "seconds": elapsed, "rounds_per_s": rounds / elapsed}


def measure_engine(initial, seconds: float, seed: int) -> dict:
    chunk, rounds = 4096, 0
    clock = Stopwatch()
    while clock.elapsed() < seconds:
        run_playouts(initial, chunk, seed + rounds)
        rounds += chunk
    elapsed = clock.elapsed()
    return {"rounds": rounds, "seconds": elapsed, "rounds_per_s": rounds / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per configuration "
                        "and repeat (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="default %(default)s")
    add_output_args(parser)
    args = parser.parse_args()

    banks = {}
    for players in (2, 3):
        game = load_jabba(players=players)
        specs = [str(TABLE), "agenda_expert", "card_counter", "uniform"] if players == 2 \
            else ["agenda_expert", "card_counter", "uniform"]
        labels = ["table", *specs[1:]] if players == 2 else specs
        banks[players] = (game, build_bank(specs, game, labels))
    rates: dict[str, list[float]] = {label: [] for label, _, _ in CONFIGS}
    rates["engine random playouts (2p)"] = []
    for game, bank in banks.values():  # compile outside the clock
        play_lineup(game, bank, [0] * game.num_players(), 4, seed=args.seed)
    run_playouts(banks[2][0].initial_array, 16, args.seed)
    for repeat in range(args.repeats):
        for label, players, policies in CONFIGS:
            game, bank = banks[players]
            lineup = [bank.index(p) for p in policies]
            rates[label].append(measure_lineup(game, bank, lineup, args.seconds,
                                               args.seed + repeat)["rounds_per_s"])
        rates["engine random playouts (2p)"].append(
            measure_engine(banks[2][0].initial_array, args.seconds, args.seed + repeat)
            ["rounds_per_s"])
        print(f"repeat {repeat + 1}/{args.repeats} done", flush=True)

    rows = []
    for label, values in rates.items():
        target = TARGET_ROUNDS_PER_S if label.startswith("table v table") else None
        rows.append([label, median(values), f"{min(values):,.0f}-{max(values):,.0f}",
                     f">= {target:,} ({median(values) / target:.1f}x)" if target else ""])
    print()
    print(markdown_table(["configuration (one core)", "rounds/s, median", "range",
                          "target"], rows))
    if args.out:
        write_json_atomic(args.out, {
            "what": "tournament throughput, rounds per second on one core",
            "seconds": args.seconds, "repeats": args.repeats, "seed": args.seed,
            "table_policy": str(TABLE), "rates": rates,
            "medians": {label: median(v) for label, v in rates.items()},
            "machine": machine_info()})


if __name__ == "__main__":
    main()
