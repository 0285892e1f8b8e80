"""A small load test of `jabba serve` on loopback: hint requests from concurrent clients.

Starts `jabba serve` (this checkout) on a free loopback port, waits until it is warm, then
sends --requests POST /api/hint (the README's worked hint, a different seed each, the
default 0.25 s of rollouts and the default search: 1 s, or --search-iterations N, or
--no-search) from --clients threads, each waiting for its answer before the next;
records every latency and every error (a non-200 answer or a failed request). In the
same run, the command line's warm hint time: repeat `jabba hint ... --json` calls
(numba's cache already warm), and the hint's warm time inside one process (the server's
work per request). Bounded: the load stops after --max-seconds. Then Ctrl-C stops the
server, timed. Target: 0 errors; p50 within 1.5x the command line's warm hint time.

Last, what a game costs (solver/play/, in one process): --play-rounds seeded rounds
against `search` with the coach, both at their default budgets, the human always taking
the first choice; the seconds of each opponent decision and of each coached play (the
first round, which loads the kernels, not counted).

    python benchmarks/web_load.py [--requests 200] [--clients 8] [--out figures.json]
    python benchmarks/web_load.py --play-only      # only what a game costs
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from _common import add_output_args, load_jabba, machine_info, median, markdown_table, \
    write_json_atomic

ROOT = Path(__file__).resolve().parent.parent
SITUATION = {"players": 2, "seat": 1, "hand": ["jabba", "guard"],
             "face_up": ["crumb", "bib", "merc"], "areas": {"0": ["han"]}}
CLI = [sys.executable, "-m", "cli.main", "hint", "--seat", "1", "--hand", "jabba,guard",
       "--face-up", "crumb,bib,merc", "--area", "0=han", "--json"]


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation between order statistics."""
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def start_server() -> tuple[subprocess.Popen, str, float]:
    """`jabba serve --port 0`, warmed: (process, base URL, seconds to ready)."""
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--port", "0"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    url = server.stdout.readline().split()[1]
    while time.perf_counter() - start < 300:
        with urllib.request.urlopen(url + "api/status", timeout=10) as r:
            status = json.load(r)
        if status["state"] != "warming":
            if status["state"] != "ready":
                raise RuntimeError(status["detail"])
            return server, url, time.perf_counter() - start
        time.sleep(0.25)
    server.kill()
    raise RuntimeError("the server did not warm up in 300 s")


def search_query(args) -> str:
    if args.no_search:
        return "&search=false"
    return "" if args.search_iterations is None else f"&search_iterations={args.search_iterations}"


def search_flags(args) -> list[str]:
    if args.no_search:
        return ["--no-search"]
    return [] if args.search_iterations is None else ["--search-iterations",
                                                      str(args.search_iterations)]


def hint_request(url: str, seed: int, query: str = "") -> tuple[float, str | None]:
    """(latency in seconds, error or None) of one POST /api/hint."""
    request = urllib.request.Request(f"{url}api/hint?seed={seed}{query}",
                                     data=json.dumps(SITUATION).encode(),
                                     headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            answer = json.load(r)
        error = None if answer.get("recommendation") else "answer without recommendation"
    except urllib.error.HTTPError as err:
        error = f"HTTP {err.code}: {err.read()[:200]!r}"
    except OSError as err:
        error = f"{type(err).__name__}: {err}"
    return time.perf_counter() - start, error


def load(url: str, requests: int, clients: int, max_seconds: float, seed: int,
         query: str) -> dict:
    latencies, errors, lock = [], [], threading.Lock()
    next_seed = iter(range(seed, seed + requests))
    deadline = time.perf_counter() + max_seconds

    def client() -> None:
        while time.perf_counter() < deadline:
            with lock:
                seed = next(next_seed, None)
            if seed is None:
                return
            seconds, error = hint_request(url, seed, query)
            with lock:
                latencies.append(seconds)
                if error:
                    errors.append(error)

    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {"requests": len(latencies), "clients": clients, "errors": len(errors),
            "error_samples": errors[:5], "wall_s": wall,
            "p50_s": percentile(latencies, 0.5), "p99_s": percentile(latencies, 0.99),
            "max_s": max(latencies), "throughput_per_s": len(latencies) / wall}


def cli_warm(calls: int, flags: list[str]) -> list[float]:
    """Seconds of repeat `jabba hint` calls (the first, which may load caches, dropped)."""
    times = []
    for _ in range(calls + 1):
        start = time.perf_counter()
        subprocess.run(CLI + flags, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times[1:]


def in_process_warm(calls: int, args) -> list[float]:
    """The hint's own time in a warm process (what one request costs the server)."""
    from solver.hint import advice
    from solver.hint.situation import from_mapping
    from solver.policies.chain import load_policies

    sit = from_mapping(SITUATION)
    game = load_jabba(2)  # the situation's game, recorded in the header
    policies = load_policies(game)
    search = dict(search=not args.no_search, search_iterations=args.search_iterations)
    advice.hint(sit, game, policies, **search)  # compile or load the kernels
    times = []
    for seed in range(calls):
        start = time.perf_counter()
        advice.hint(sit, game, policies, seed=seed, **search)
        times.append(time.perf_counter() - start)
    return times


def play_costs(rounds: int, seed: int) -> dict:
    """Seconds of each decision of the `search` opponent that searched (the rest of its
    turn is answered from the same solve, at no cost) and of each coached play, over
    seeded rounds (default budgets; the first round, which loads the kernels, dropped)."""
    from solver.hint.coach import Coach
    from solver.play.opponents import resolve
    from solver.play.session import Session

    game = load_jabba(2)
    decisions, plays = [], []

    def timed(fn, into, work=None):
        """fn, its seconds appended to `into` (only calls that changed `work()`, if given)."""
        def run(*a):
            before, start = work and work(), time.perf_counter()
            out = fn(*a)
            if work is None or work() != before:
                into.append(time.perf_counter() - start)
            return out
        return run

    for r in range(rounds + 1):
        opponent = resolve("search", game, seed + r)
        coach = Coach(game, seed=seed + r)
        kept = r > 0
        solved = opponent.policy

        def searched(solved=solved):
            return solved.searches + solved.fallbacks

        opponent.decide = timed(opponent.decide, decisions if kept else [], searched)
        coach.advise = timed(coach.advise, plays if kept else [])
        session = Session(game, r % 2, opponent, seed=seed + r, coach=coach)
        session.advance()
        while not session.round_over:
            session.act(session.legal()[0][0])
    return {"rounds": rounds, "opponent_searched_decisions": len(decisions),
            "opponent_decision_median_s": median(decisions),
            "opponent_decision_max_s": max(decisions), "coached_plays": len(plays),
            "coached_play_median_s": median(plays), "coached_play_max_s": max(plays)}


def play_line(play: dict) -> str:
    return (f"a game: {play['rounds']} rounds against search with the coach: "
            f"{play['opponent_searched_decisions']} opponent decisions that searched, median "
            f"{play['opponent_decision_median_s']:.2f} s (max "
            f"{play['opponent_decision_max_s']:.2f} s); {play['coached_plays']} coached "
            f"plays, median {play['coached_play_median_s']:.2f} s (max "
            f"{play['coached_play_max_s']:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--cli-calls", type=int, default=5)
    parser.add_argument("--search-iterations", type=int, default=None,
                        help="the hints' search: exactly N iterations (default: its 1 s)")
    parser.add_argument("--no-search", action="store_true", help="hints without the search")
    parser.add_argument("--play-rounds", type=int, default=8)
    parser.add_argument("--play-only", action="store_true",
                        help="only what a game costs: no server, no hints")
    parser.add_argument("--max-seconds", type=float, default=300.0,
                        help="stop sending after this long (default %(default)s)")
    add_output_args(parser)
    args = parser.parse_args()
    if args.play_only:
        play = play_costs(args.play_rounds, args.seed)
        print(play_line(play))
        if args.out:
            write_json_atomic(args.out, {"machine": machine_info(), "play": play})
        return
    server, url, ready = start_server()
    try:
        query = search_query(args)
        hint_request(url, 0, query)  # the first request after warming: not counted
        figures = load(url, args.requests, args.clients, args.max_seconds, args.seed, query)
    finally:
        stop = time.perf_counter()
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=60)
        stopped = time.perf_counter() - stop
    cli = cli_warm(args.cli_calls, search_flags(args))
    warm = in_process_warm(20, args)
    play = play_costs(args.play_rounds, args.seed)
    figures.update({"machine": machine_info(), "ready_s": ready, "stop_s": stopped,
                    "search": ("off" if args.no_search else
                               f"{args.search_iterations} iterations"
                               if args.search_iterations else "default (1 s)"),
                    "play": play,
                    "stop_exit_code": code, "cli_warm_median_s": median(cli),
                    "cli_warm_calls": len(cli), "in_process_warm_median_s": median(warm),
                    "p50_over_cli": figures["p50_s"] / median(cli)})
    print(markdown_table(
        ["requests", "clients", "errors", "p50", "p99", "max", "requests/s",
         "CLI warm hint (median)", "p50 / CLI", "hint in process (median)"],
        [[figures["requests"], args.clients, figures["errors"],
          f"{figures['p50_s']:.2f} s", f"{figures['p99_s']:.2f} s", f"{figures['max_s']:.2f} s",
          f"{figures['throughput_per_s']:.1f}", f"{median(cli):.2f} s",
          f"{figures['p50_over_cli']:.2f}x", f"{median(warm) * 1000:.0f} ms"]]))
    print(f"\nhints' search: {figures['search']}; server ready after {ready:.1f} s; "
          f"{figures['wall_s']:.1f} s of load; stopped by Ctrl-C in {stopped:.1f} s (exit "
          f"code {code})")
    print("\n" + play_line(play))
    for error in figures["error_samples"]:
        print(f"error: {error}")
    if args.out:
        write_json_atomic(args.out, figures)


if __name__ == "__main__":
    sys.exit(main())
