"""The hint as users get it: the timed default answer at several search budgets, quiet
and with both cores busy, judged by its own rollouts.

A *contradiction* is an answer whose recommended full action is more than 0.10 (token
margin) below the best full action by the answer's own rollouts, with the paired 95%
interval below 0 (advice.search_overruled). The guard (docs/hint.md "When search and
rollouts disagree") keeps contradictions out of the answer, so the script counts three
things per budget: the answer's contradictions; the search's own (its choice before
the guard: how often the guard fired); and searches that declined as unfinished. Also
the mean EV given up against the best full action by the answer's own rollouts, and
the answer's time.

Situations, all 2 players, the four agendas in turn, each with its own seed:
- `random`: random rounds (uniform play) stopped at a random play decision, told as the
  seat's event log (even) or its summary as a person tells it (odd: each play with its
  target, number, hit and trade, and the cards they know; solver/hint/describe.py);
- `sharp`: rounds played by agenda_expert, stopped where the seat knows an opponent's
  card (a look, a compare, a trade or a reveal told it) and holds a Guard, C-3PO or
  Mercenary: the spots where a sharp posterior meets a naming or a compare.

    python benchmarks/hint_consistency.py [--random 300] [--sharp 50]
        [--budgets 0.1,0.25,0.5,1] [--load quiet,busy] [--out FILE]

Busy: two processes spin on the two cores while the hints run (their load is reported).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

import numpy as np
from _common import AGENDAS, add_output_args, guard_outputs, load_jabba, machine_info, \
    markdown_table, write_json_atomic

from solver.hint import advice
from solver.hint.request import HintRequest
from solver.hint.describe import person_summary
from solver.hint.parse import SituationError
from solver.hint.situation import from_mapping
from solver.policies.chain import default_heuristic, load_policies
from solver.policies.knowledge import knowledge
from solver.sim.random_round import play_decisions
from spiel_game import layout as L
from spiel_game.events import describe, events

SHARP_CARDS = ("Guard", "C-3PO", "Mercenary")


def _told(state, seat: int, as_log: bool, agenda: str):
    """The Situation a player at `seat` would give of `state`: its log or its summary."""
    if as_log:
        return from_mapping({"players": 2, "agenda": agenda, "seat": seat,
                             "log": [describe(e) for e in events(state._s, seat)]})
    return from_mapping({**person_summary(state, seat), "agenda": agenda})


def random_situations(count: int, rng: random.Random) -> list[tuple]:
    """(agenda, situation, kind) of random rounds stopped at a random play decision."""
    out = []
    while len(out) < count:
        agenda = AGENDAS[len(out) % len(AGENDAS)]
        game = load_jabba(2, agenda)
        stops = [(s.current_player(), s.clone())
                 for s in play_decisions(game, random.Random(rng.randrange(1 << 30)))]
        if not stops:
            continue
        seat, state = rng.choice(stops)
        out.append((agenda, _told(state, seat, len(out) % 2 == 0, agenda), "random"))
    return out


def _expert_round(game, rng: random.Random):
    """The live states of a round played by the game's best heuristic at each of its
    play decisions (chance by its odds)."""
    from solver.policies.heuristics import heuristics_for

    expert = heuristics_for(game)[default_heuristic(game)](game)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        if state._s[L.S_PHASE] == L.PH_PLAY:
            yield state
        acts, probs = zip(*expert.action_probabilities(state).items())
        state.apply_action(rng.choices(acts, probs)[0])


def sharp_situations(count: int, rng: random.Random) -> list[tuple]:
    """(agenda, situation, kind) where the seat knows an opponent's hand and holds a
    Guard, C-3PO or Mercenary, at its play decision."""
    out = []
    while len(out) < count:
        agenda = AGENDAS[len(out) % len(AGENDAS)]
        game = load_jabba(2, agenda)
        chars = game.characters
        for state in _expert_round(game, random.Random(rng.randrange(1 << 30))):
            seat = state.current_player()
            k = knowledge(state, seat)
            if k.known_hands and any(chars[c].name in SHARP_CARDS for c in k.hand):
                out.append((agenda, _told(state, seat, len(out) % 2 == 0, agenda), "sharp"))
                break
    return out


def judge(a: dict) -> dict:
    """An answer's figures: its contradiction, the search's own, the EV given up."""
    full = {f["action"]: f for f in a["full_actions"]}
    chosen = full[a["recommendation"]["action"]]
    search = a["policy"]["search"]
    if search.get("used"):
        own = search["overruled"]["search_choice"] if search["overruled"] else \
            a["recommendation"]["action"]
        search_contradicts = advice.search_overruled(full[own])
    else:
        search_contradicts = None
    return {"contradiction": advice.search_overruled(chosen),
            "search_contradiction": search_contradicts,
            "ev_lost": -chosen["vs_best"], "seconds": a["seconds"],
            "searched": bool(search.get("used")),
            "unfinished": (not search.get("used")
                           and str(search.get("reason", "")).startswith("unfinished")),
            "overruled": bool(search.get("overruled"))}


def run(situations, budgets, policies_of, seed: int, progress: bool) -> dict:
    """{budget: [judge(answer) per situation]}."""
    rng = random.Random(seed)
    seeds = [rng.randrange(1 << 30) for _ in situations]
    out = {b: [] for b in budgets}
    for i, (agenda, sit, kind) in enumerate(situations):
        for b in budgets:
            game, policies = policies_of(agenda)
            try:
                a = advice.answer(HintRequest(sit, game, policies, seed=seeds[i],
                                              search_seconds=b)).to_json()
            except SituationError as err:  # counted, and said: a summary it should take
                out[b].append({"kind": kind, "refused": str(err)})
                continue
            out[b].append({"kind": kind, "refused": None, **judge(a)})
        if progress and (i + 1) % 25 == 0:
            print(f"  {i + 1}/{len(situations)}", file=sys.stderr, flush=True)
    return out


def summarise(rows: list[dict]) -> dict:
    refused = [r["refused"] for r in rows if r["refused"]]
    rows = [r for r in rows if not r["refused"]]
    searched = [r for r in rows if r["searched"]]
    times = np.array([r["seconds"] for r in rows])
    return {"situations": len(rows), "refused": len(refused), "refusals": refused[:5],
            "contradictions": sum(r["contradiction"] for r in rows),
            "search_contradictions": sum(bool(r["search_contradiction"]) for r in searched),
            "searched": len(searched),
            "unfinished": sum(r["unfinished"] for r in rows),
            "mean_ev_lost": float(np.mean([r["ev_lost"] for r in rows])),
            "seconds_p50": float(np.percentile(times, 50)),
            "seconds_p95": float(np.percentile(times, 95))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=300, help="random situations")
    parser.add_argument("--sharp", type=int, default=50, help="sharp-posterior situations")
    parser.add_argument("--budgets", default="0.1,0.25,0.5,1",
                        help="search budgets in seconds (--search-seconds)")
    parser.add_argument("--load", default="quiet,busy", help="quiet, busy or both")
    add_output_args(parser)
    args = parser.parse_args()
    guard_outputs(parser, args.out)
    budgets = [float(b) for b in args.budgets.split(",")]
    loads = [x.strip() for x in args.load.split(",")]
    if not budgets or any(b <= 0 for b in budgets):
        parser.error("--budgets: positive seconds, comma separated")
    if any(x not in ("quiet", "busy") for x in loads):
        parser.error(f"--load {args.load!r}: allowed are quiet, busy or both")
    rng = random.Random(args.seed)
    situations = random_situations(args.random, rng) + sharp_situations(args.sharp, rng)
    games = {}

    def policies_of(agenda):
        if agenda not in games:
            game = load_jabba(2, agenda)
            games[agenda] = (game, load_policies(game))
        return games[agenda]

    agenda, sit, _ = situations[0]
    game, policies = policies_of(agenda)
    advice.answer(HintRequest(sit, game, policies))  # kernels loaded before any clock
    figures = {"machine": machine_info(), "budgets": budgets, "random": args.random,
               "sharp": args.sharp, "margin": advice.GUARD_MARGIN, "loads": {}}
    table = []
    for load in loads:
        hogs = []
        if load == "busy":  # two processes spinning, for at most 6 hours
            spin = "import time\nstop = time.time() + 6 * 3600\nwhile time.time() < stop: pass"
            hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
        start = time.perf_counter()
        try:
            rows = run(situations, budgets, policies_of, args.seed, progress=True)
        finally:
            loadavg = os.getloadavg()[0]
            for hog in hogs:
                hog.kill()
                hog.wait()
        seconds = time.perf_counter() - start
        figures["loads"][load] = {"seconds": seconds, "load_average": loadavg}
        for b in budgets:
            for kind in ("random", "sharp"):
                s = summarise([r for r in rows[b] if r["kind"] == kind])
                figures["loads"][load][f"{b:g}s {kind}"] = s
                table.append([load, f"{b:g}", kind, s["situations"],
                              f"{s['contradictions']}", f"{s['search_contradictions']} / "
                              f"{s['searched']}", s["unfinished"], f"{s['mean_ev_lost']:+.4f}",
                              f"{s['seconds_p50']:.2f} / {s['seconds_p95']:.2f}"])
        print(f"{load}: {seconds:.0f} s, load average {loadavg:.1f}", file=sys.stderr)
    print(markdown_table(["load", "budget (s)", "situations", "count",
                          "contradictions (answer)", "search's own / searched",
                          "unfinished", "mean EV given up", "seconds p50 / p95"], table))
    if args.out:
        write_json_atomic(args.out, figures)


if __name__ == "__main__":
    main()
