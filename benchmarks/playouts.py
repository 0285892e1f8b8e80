"""Random-playout throughput, side by side in one process (one core).

(a) the compiled engine, random rounds (solver/sim/playout.py `run_playouts`), for 2, 3
    and 4 players, full deck: Jabba's Palace (Exalted One) and classic Love Letter
    (`love_letter`, the same engine reading the classic card table), with the ratio of
    classic's rounds/s to Jabba's Palace's (the classic path is to stay within 20%);
(b) the same games through the pyspiel API (legal_actions / chance_outcomes /
    apply_action), with OpenSpiel's python_kuhn_poker and C++ leduc_poker through the
    same loop for comparison;
(c) the Han Solo card game (`han_solo`, its own compiled engine: spiel_game/han_solo),
    random rounds on the full deck with default parameters, for the same player counts,
    beside Jabba's Palace's rounds/s from (a); its API speed is a row of (b).

Configurations are interleaved within each repeat, so machine noise hits them alike;
the tables give medians over repeats and the min-max range. Classic rounds are longer
(21 cards, 16 turns with 2 players against Jabba's 19 and 14), so rounds/s is compared per
round and per decision.

    python benchmarks/playouts.py [--seconds 3] [--repeats 5] [--seed 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import random

import open_spiel.python.games  # noqa: F401  (registers python_kuhn_poker)
import pyspiel
from _common import (
    Stopwatch,
    add_output_args,
    load_game,
    machine_info,
    markdown_table,
    median,
    run_playouts,
    write_json_atomic,
)

from spiel_game.han_solo import engine as han_solo_engine  # after _common: this checkout's

ENGINE_PLAYERS = (2, 3, 4)
# The two rule sets compared: classic Love Letter's speed against Jabba's Palace's.
ENGINE_GAMES = ("jabbas_palace", "love_letter")
ENGINE_TARGET_ROUNDS_PER_S = 500_000  # 2 players, one core (the target)
ENGINE_TARGETS = {("jabbas_palace", 2): ENGINE_TARGET_ROUNDS_PER_S}  # (game, players)
CLASSIC_LEAST_RATIO = 0.8  # classic's per-round speed at least 80% of Jabba's Palace's
API_TARGET_ACTIONS_PER_S = 30_000  # jabbas_palace through pyspiel


API_GAMES = (  # (label, loader, target actions/s or None)
    ("jabbas_palace (2p)", lambda: load_game("jabbas_palace"), API_TARGET_ACTIONS_PER_S),
    ("love_letter (2p)", lambda: load_game("love_letter"), API_TARGET_ACTIONS_PER_S),
    ("han_solo (2p)", lambda: pyspiel.load_game("han_solo"), None),
    ("python_kuhn_poker", lambda: pyspiel.load_game("python_kuhn_poker"), None),
    ("leduc_poker (C++ game)", lambda: pyspiel.load_game("leduc_poker"), None),
)
MIN_CHUNK_SECONDS = 0.05  # engine calls grow until one takes at least this long


def measure_engine(initial, seconds: float, rng: random.Random) -> dict:
    """Random rounds (solver/sim/playout.py run_playouts) for about `seconds`."""
    chunk = 1000
    rounds = decisions = chance_events = 0
    clock = Stopwatch()
    while clock.elapsed() < seconds:
        call = Stopwatch()
        chunk_decisions, chunk_chance, _ = run_playouts(initial, chunk,
                                                        rng.randrange(1, 2**31 - 1))
        rounds += chunk
        decisions += chunk_decisions
        chance_events += chunk_chance
        if call.elapsed() < MIN_CHUNK_SECONDS:
            chunk *= 2
    elapsed = clock.elapsed()
    return {"rounds": rounds, "seconds": elapsed, "rounds_per_s": rounds / elapsed,
            "decisions_per_round": decisions / rounds,
            "chance_per_round": chance_events / rounds}


def measure_han_solo(initial, seconds: float, rng: random.Random) -> dict:
    """Random rounds of han_solo (spiel_game/han_solo/engine.py random_rounds)."""
    chunk = 1000
    rounds = actions = 0
    clock = Stopwatch()
    while clock.elapsed() < seconds:
        call = Stopwatch()
        actions += han_solo_engine.random_rounds(initial, chunk, rng.randrange(1, 2**31 - 1))
        rounds += chunk
        if call.elapsed() < MIN_CHUNK_SECONDS:
            chunk *= 2
    elapsed = clock.elapsed()
    return {"rounds": rounds, "seconds": elapsed, "rounds_per_s": rounds / elapsed,
            "actions_per_round": actions / rounds}


def random_round_via_api(game, rng: random.Random) -> int:
    """Play one round with uniform decisions and true chance; return the actions applied."""
    state = game.new_initial_state()
    actions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            pick = rng.random()
            action = outcomes[-1][0]  # if rounding leaves `pick` above the last sum
            for outcome, probability in outcomes:
                pick -= probability
                if pick < 0:
                    action = outcome
                    break
        else:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
        state.apply_action(action)
        actions += 1
    return actions


def measure_api(game, seconds: float, rng: random.Random) -> dict:
    """Random rounds through the pyspiel API for about `seconds`."""
    rounds = actions = 0
    clock = Stopwatch()
    while clock.elapsed() < seconds:
        actions += random_round_via_api(game, rng)
        rounds += 1
    elapsed = clock.elapsed()
    return {"rounds": rounds, "actions": actions, "seconds": elapsed,
            "rounds_per_s": rounds / elapsed, "actions_per_s": actions / elapsed,
            "actions_per_round": actions / rounds}


def summarize(runs: list[dict], key: str) -> dict:
    values = [run[key] for run in runs]
    return {"median": median(values), "min": min(values), "max": max(values)}


def spread(summary: dict) -> str:
    return f"{summary['min']:,.0f} – {summary['max']:,.0f}"


def ratio(value: float, target: float | None) -> str:
    return "-" if target is None else f"{value / target:.2f}×"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds per measurement (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="measurements per configuration (default %(default)s)")
    add_output_args(parser)
    args = parser.parse_args(argv)
    wall = Stopwatch()
    rng = random.Random(args.seed)

    engine_games = {(name, players): load_game(name, players)
                    for players in ENGINE_PLAYERS for name in ENGINE_GAMES}
    api_games = [(label, loader(), target) for label, loader, target in API_GAMES]
    han_solo_games = {players: pyspiel.load_game("han_solo", {"players": players})
                      for players in ENGINE_PLAYERS}
    for game in engine_games.values():  # compile (or load numba's cache) outside timing
        run_playouts(game.initial_array, 10, 1)
    for game in han_solo_games.values():
        han_solo_engine.random_rounds(game.initial_array, 10, 1)
    for _, game, _ in api_games:
        random_round_via_api(game, random.Random(0))

    engine_runs = {config: [] for config in engine_games}
    api_runs = {label: [] for label, _, _ in api_games}
    han_solo_runs = {players: [] for players in han_solo_games}
    for _ in range(args.repeats):
        for config, game in engine_games.items():
            engine_runs[config].append(
                measure_engine(game.initial_array, args.seconds, rng))
        for label, game, _ in api_games:
            api_runs[label].append(
                measure_api(game, args.seconds, random.Random(rng.getrandbits(64))))
        for players, game in han_solo_games.items():
            han_solo_runs[players].append(
                measure_han_solo(game.initial_array, args.seconds, rng))

    engine_rows, engine_json, medians = [], [], {}
    for (name, players), runs in engine_runs.items():
        rate = summarize(runs, "rounds_per_s")
        target = ENGINE_TARGETS.get((name, players))
        decisions = median([r["decisions_per_round"] for r in runs])
        chance = median([r["chance_per_round"] for r in runs])
        medians[name, players] = (rate["median"], decisions, decisions + chance)
        engine_rows.append([name, str(players), rate["median"], spread(rate),
                            f"{decisions:.2f}", f"{chance:.2f}", target or "-",
                            ratio(rate["median"], target)])
        engine_json.append({"game": name, "players": players, "rounds_per_s": rate,
                            "decisions_per_round": decisions, "chance_per_round": chance,
                            "target_rounds_per_s": target, "runs": runs})
    classic_rows, classic_json = [], []
    for players in ENGINE_PLAYERS:
        (jabba, jabba_decisions, jabba_actions), (classic, classic_decisions,
                                                  classic_actions) = (
            medians[name, players] for name in ENGINE_GAMES)
        per_round = classic / jabba
        per_decision = classic * classic_decisions / (jabba * jabba_decisions)
        per_action = classic * classic_actions / (jabba * jabba_actions)
        classic_rows.append([str(players), f"{per_round:.2f}", f"{per_decision:.2f}",
                             f"{per_action:.2f}",
                             "yes" if per_round >= CLASSIC_LEAST_RATIO else "NO"])
        classic_json.append({"players": players, "rounds_ratio": per_round,
                             "decisions_ratio": per_decision, "actions_ratio": per_action,
                             "within_20_percent": per_round >= CLASSIC_LEAST_RATIO})
    api_rows, api_json = [], []
    for label, _game, target in api_games:
        runs = api_runs[label]
        actions = summarize(runs, "actions_per_s")
        rounds = summarize(runs, "rounds_per_s")
        per_round = median([r["actions_per_round"] for r in runs])
        api_rows.append([label, actions["median"], spread(actions), rounds["median"],
                         f"{per_round:.2f}", target or "-", ratio(actions["median"], target)])
        api_json.append({"game": label, "actions_per_s": actions, "rounds_per_s": rounds,
                         "actions_per_round": per_round, "target_actions_per_s": target,
                         "runs": runs})

    print(f"### Compiled engine: random rounds (full deck; jabbas_palace exalted_one), "
          f"median of {args.repeats} × {args.seconds:g} s\n")
    print(markdown_table(["game", "players", "rounds/s", "min – max", "decisions/round",
                          "chance events/round", "target rounds/s", "ratio to target"],
                         engine_rows))
    print("\n### Classic Love Letter against Jabba's Palace on the engine (median "
          "ratios)\n")
    print(markdown_table(["players", "rounds/s ratio", "decisions/s ratio",
                          "actions/s ratio (decisions and chance)",
                          f"rounds/s within 20% (>= {CLASSIC_LEAST_RATIO})"], classic_rows))
    print(f"\n### Through the pyspiel API (actions include chance outcomes), "
          f"median of {args.repeats} × {args.seconds:g} s\n")
    print(markdown_table(["game", "actions/s", "min – max", "rounds/s", "actions/round",
                          "target actions/s", "ratio to target"], api_rows))
    han_solo_rows, han_solo_json = [], []
    for players, runs in han_solo_runs.items():
        rate = summarize(runs, "rounds_per_s")
        per_round = median([r["actions_per_round"] for r in runs])
        jabba = medians["jabbas_palace", players][0]
        han_solo_rows.append([str(players), rate["median"], spread(rate), f"{per_round:.1f}",
                              jabba, f"{rate['median'] / jabba:.2f}"])
        han_solo_json.append({"players": players, "rounds_per_s": rate,
                              "actions_per_round": per_round,
                              "jabbas_palace_rounds_per_s": jabba, "runs": runs})
    print(f"\n### han_solo on its compiled engine (full deck, default parameters) beside "
          f"jabbas_palace, median of {args.repeats} × {args.seconds:g} s\n")
    print(markdown_table(["players", "han_solo rounds/s", "min – max",
                          "actions/round (decisions and chance)", "jabbas_palace rounds/s",
                          "ratio"], han_solo_rows))
    print(f"\nwall time {wall.elapsed():.1f} s")

    result = {"args": vars(args), "machine": machine_info(), "engine": engine_json,
              "classic_v_jabba": classic_json, "api": api_json, "han_solo": han_solo_json,
              "wall_seconds": wall.elapsed()}
    if args.out:
        write_json_atomic(args.out, result)
    return result


if __name__ == "__main__":
    main()
