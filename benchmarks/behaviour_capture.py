"""Behaviour capture: the answers of the hint, the tournament and MCCFR, deterministically,
to compare a checkout before and after a refactor ("behaviour must not change").

Captured (every random choice seeded, no time budget deciding anything):

- 40 hints (`jabba hint --json`'s answer, from the library call behind it, in-process:
  solver.hint.advice `hint`, as cli/hint.py calls it) with `--search-iterations` fixed and
  a fixed number of rollouts (the library's `rollouts`, which the command line leaves to
  `--seconds`): 2, 3 and 4 players, Jabba's Palace's four agendas and classic Love Letter,
  situations from seeded random rounds described as event logs (a few as pasted
  information-state strings) and as summaries (areas, face-up, what the table saw), the
  docs' hand-written ones (saw, seen-by, bottom, a situation file's), a few
  `--no-search`, forced plays (love_letter's Countess), one `--score` and one
  `--opponent`. Each hint's input is stored beside its answer (`--inputs` replays an
  earlier capture's inputs instead of making them anew).
- 2 tournaments through `jabba tournament` in-process (typer's CliRunner): 2-player
  jabbas_palace, the shipped table against heuristics; 2-player love_letter, its shipped
  table against its heuristics; their result rows.
- 1 MCCFR run through `jabba solve --algorithm mccfr --deck small --threads 1`
  in-process: the sha256 of the exported table's arrays and the file's header.

Fields that legitimately vary are dropped (DROPPED below: wall-clock seconds, dates, the
code version, the command line that ran, the machine's cores). `--compare BEFORE AFTER`
prints each item identical or different (with the first differing field) and exits 1 if
any differs or is missing.

    python benchmarks/behaviour_capture.py --out capture.json [--seed 1]
    python benchmarks/behaviour_capture.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

# Fields dropped from what is captured, per kind of item: dotted paths, `*` for every
# element of a list. Everything else an answer, row or header holds is compared.
DROPPED = {
    "hint": ["seconds",  # the answer's wall time
             "rollouts.seconds",  # the rollouts' wall time
             "policy.search.seconds",  # the search's wall time
             "policy.search.phase_seconds"],  # and its parts' (added after the first capture)
    "tournament": ["rows.*.seconds",  # each cell's wall time
                   # the provenance header (solver/provenance.py header):
                   "header.seconds", "header.created", "header.cores",
                   "header.code_version", "header.code_diff_sha256"],
    "mccfr": ["header.seconds", "header.created", "header.cores", "header.code_version",
              "header.code_diff_sha256",
              "header.command",  # sys.argv of the process: this script's, with its paths
              "header.curve.*.seconds"],  # the training curve's wall time at each point
}
HINT_ROLLOUTS = 256  # rollouts per hint (the library's `rollouts`: no time budget)
HINT_SEARCH_ITERATIONS = 24  # `--search-iterations`
TOURNAMENT_DEALS, TOURNAMENT_MATCHES = 300, 20
MCCFR_ITERATIONS = 3000
SCHEMA = "behaviour-capture"


# Situations -----------------------------------------------------------------------------

def _random_stop(game, rng: random.Random):
    """A seeded random round stopped at a random play decision after the round's first
    (tests/conftest.py random_play_stop, which may stop at the first): the state there,
    or None if the round gave none."""

    from solver.sim.random_round import play_decisions

    stops = [state.clone() for state in play_decisions(game, rng)]
    return rng.choice(stops[1:] or stops) if stops else None


def _log_of(state, seat: int, game) -> list[str]:
    """The seat's event log, in the game's card names (spiel_game/events.py)."""
    from spiel_game.events import describe, events

    names = tuple(c.name for c in game.characters)
    return [describe(e, names) for e in events(state._s, seat)]


def _summary_of(state, me: int) -> dict:
    """What the table saw of a Jabba's Palace round, as a summary (a frozen copy of
    solver/hint/describe.py annotated_summary, so the inputs do not move with it)."""
    from spiel_game import engine
    from spiel_game import layout as L
    from spiel_game.cards import CHARACTERS, Effect, character_id
    from spiel_game.events import events

    n = int(state._s[L.S_NUM_PLAYERS])
    name = lambda c: CHARACTERS[c].aliases[0]  # noqa: E731
    card_of = lambda text: character_id(text.partition("@")[0])  # noqa: E731
    areas = [[] for _ in range(n)]
    face_up, bottom, set_aside = [], [], None
    out = set()
    current = None
    for e in events(state._s):
        if e.kind == L.E_FACE_UP:
            face_up.append(name(e.card))
        elif e.kind == L.E_PLAY:
            areas[e.actor].append([name(e.card)])
            current = (e.actor, len(areas[e.actor]) - 1)
        elif current is None:
            continue
        else:
            item = areas[current[0]][current[1]]
            if e.kind == L.E_TARGET:
                item[0] += f"@{e.other}"
            elif e.kind == L.E_TARGET_SET_ASIDE:
                item[0] += "@set-aside"
            elif e.kind == L.E_NAME:
                item.append(str(e.extra))
            elif e.kind == L.E_OUT:
                areas[e.actor].append([name(e.card)])
                out.add(e.actor)
                merc = CHARACTERS[card_of(item[0])].effect == Effect.COMPARE
                if (e.actor != current[0] or merc) and "@" in item[0]:
                    item.append("hit")
            elif e.kind == L.E_SEE and me in (e.actor, e.other):
                item.append(name(e.card))
            elif e.kind == L.E_SEE_SET_ASIDE and e.actor == me:
                set_aside = name(e.card)
            elif e.kind == L.E_TRADE:
                item.append("traded")
                if me in (e.actor, e.other):
                    item.append(name(e.card))
            elif e.kind == L.E_STEAL:
                areas[e.actor].append([f"took:{name(e.card)}@{e.other}"])
            elif e.kind == L.E_RETURN and e.actor == me:
                bottom = [name(e.card)] + ([name(e.extra)] if e.other == 2 else [])
    hand = sorted(int(x) for x in state._s[L.S_HAND + me * L.MAX_HAND:
                                           L.S_HAND + me * L.MAX_HAND + 2])
    data = {"players": n, "seat": me, "hand": [name(c) for c in hand], "face_up": face_up,
            "areas": {str(p): [":".join(x) for x in a] for p, a in enumerate(areas)},
            "out": sorted(out), "deck": int(engine.deck_size(state._s))}
    queue = [name(c) for c in state._s[L.S_QUEUE:L.S_QUEUE + state._s[L.S_QUEUE_LEN]]]
    if bottom and queue == bottom:
        data["bottom"] = bottom
    if set_aside is not None and state._s[L.S_SET_ASIDE] >= 0:
        data["set_aside"] = set_aside
    return data


# (game, players, agenda, form, search): form "log", "pasted" (an information-state
# string) or "summary". Agendas rotate through the four where None.
RANDOM_CASES = (
    [("jabbas_palace", 2, None, "log", True)] * 4
    + [("jabbas_palace", 2, None, "log", False)] * 2
    + [("jabbas_palace", 2, "jabbas_court", "pasted", True)]
    + [("jabbas_palace", 2, None, "summary", True)] * 4
    + [("jabbas_palace", 2, None, "summary", False)] * 2
    + [("jabbas_palace", 3, None, "log", True)] * 3
    + [("jabbas_palace", 3, None, "log", False)]
    + [("jabbas_palace", 3, None, "summary", True)] * 3
    + [("jabbas_palace", 4, None, "log", True)] * 3
    + [("jabbas_palace", 4, None, "summary", True)] * 2
    + [("love_letter", 2, None, "log", True), ("love_letter", 2, None, "pasted", True),
       ("love_letter", 3, None, "log", True)])

# Hand-written situations: README.md and docs/hint.md's, tests/test_love_letter_cli.py's.
WORKED = {"players": 2, "seat": 1, "hand": ["jabba", "guard"],
          "face_up": ["crumb", "bib", "merc"], "areas": {"0": ["han"]}}
HAND_WRITTEN = [
    ("readme_worked", WORKED, {}),
    ("docs_saw_r2", {"players": 2, "seat": 1, "hand": ["jabba", "bib"],
                     "face_up": ["crumb", "bib", "merc"],
                     "areas": {"0": ["han", "guard"], "1": ["r2"]}, "saw": {"0": "luke"}}, {}),
    ("docs_3p_crumb", {"players": 3, "seat": 0, "hand": ["jabba", "bib"],
                       "areas": {"0": ["crumb@2"], "1": ["guard"], "2": ["han"]},
                       "saw": {"2": "leia"}}, {}),
    ("docs_situation_file_seen_by", {
        "players": 2, "agenda": "jabbas_court", "seat": 1, "hand": ["boba", "guard"],
        "face_up": ["crumb", "bib", "mercenary"],
        "areas": {"0": ["boba", "took:han", "crumb"], "1": ["r2d2"]},
        "seen_by": {"0": "guard"}}, {}),
    ("docs_log", {"players": 2, "seat": 1, "log": (
        "face-up Mercenary; face-up Salacious Crumb; face-up Bib Fortuna; p0 gets ? (deal); "
        "p1 gets Jabba the Hutt (deal); p0 gets ? (deck); p0 plays Han Solo; "
        "p1 gets Bib Fortuna (deck)")}, {"search": False}),
    ("readme_worked_score", WORKED, {"score": [3, 5]}),
    ("readme_worked_opponent", WORKED, {"opponent": "0=agenda_expert"}),
    ("ll_readme_seen_by", {"game": "love_letter", "players": 2, "seat": 1,
                           "hand": ["guard", "baron"], "face_up": ["guard", "guard", "handmaid"],
                           "areas": {"0": ["spy", "guard@1:5", "priest@1"],
                                     "1": ["guard@0:7", "guard@0:3"]},
                           "seen_by": {"0": "baron"}}, {}),
    ("ll_princess_seen", {"game": "love_letter", "players": 2, "seat": 1,
                          "hand": ["guard", "handmaid"], "face_up": ["guard", "baron", "king"],
                          "areas": {"0": ["spy", "guard@1:5"], "1": ["priest@0"]},
                          "saw": {"0": "princess"}}, {}),
    ("ll_chancellor_bottom", {"game": "love_letter", "players": 2, "seat": 1,
                              "hand": ["baron", "guard"], "face_up": ["guard", "guard", "king"],
                              "areas": {"0": ["spy", "guard@1:7"], "1": ["chancellor"]},
                              "bottom": ["priest", "priest"], "deck": 11}, {"search": False}),
    ("ll_forced_countess_prince", {"game": "love_letter", "players": 2, "seat": 0,
                                   "hand": ["countess", "prince"],
                                   "face_up": ["guard", "priest", "baron"]}, {}),
    ("ll_forced_countess_king", {"game": "love_letter", "players": 3, "seat": 1,
                                 "hand": ["countess", "king"],
                                 "areas": {"0": ["guard@2:3"]}}, {}),
]


def make_hint_inputs(seed: int) -> list[dict]:
    """The 40 hint inputs: {id, data (the situation mapping), search, seed, score,
    opponent}."""
    import pyspiel

    import spiel_game  # noqa: F401  (registers the games)
    from spiel_game.cards import AGENDAS

    games: dict = {}
    cases = []
    for i, (name, players, agenda, form, search) in enumerate(RANDOM_CASES):
        rng = random.Random(seed * 1_000_003 + i)
        has_agendas = spiel_game.ruleset(name).has_agendas
        if has_agendas and agenda is None:
            agenda = AGENDAS[i % len(AGENDAS)]
        params = {"players": players, **({"agenda": agenda} if agenda else {})}
        key = (name, players, agenda)
        if key not in games:
            games[key] = pyspiel.load_game(name, params)
        game = games[key]
        while True:
            state = _random_stop(game, rng)
            if state is None:
                continue
            seat = state.current_player()
            if form == "summary":
                data = {**_summary_of(state, seat), "agenda": agenda}
                if len(data["out"]) >= 2:  # maybe what a summary cannot say (docs/hint.md)
                    continue
            elif form == "pasted":
                data = {"players": players, "log": state.information_state_string(seat)}
            else:
                data = {"players": players, "seat": seat, "log": _log_of(state, seat, game)}
            break
        if name != spiel_game.GAMES[0]:  # the situation's default game needs no field
            data = {"game": name, **data}
        elif form != "summary" and has_agendas:
            data = {**data, "agenda": agenda}
        cases.append({"id": f"random_{i:02d}_{name}_{players}p_{agenda or ''}_{form}"
                            f"{'' if search else '_nosearch'}".replace("__", "_"),
                      "data": data, "search": search, "seed": rng.randrange(1 << 30)})
    for j, (name, data, extra) in enumerate(HAND_WRITTEN):
        cases.append({"id": f"hand_{j:02d}_{name}", "data": data,
                      "search": extra.get("search", True), "seed": seed + j,
                      **{k: v for k, v in extra.items() if k != "search"}})
    return cases


# Capturing ------------------------------------------------------------------------------

def _drop(value, path: list[str]):
    """`value` without the field at `path` (in place; `*`: every list element)."""
    if not path:
        return
    head, rest = path[0], path[1:]
    if head == "*":
        for x in value if isinstance(value, list) else []:
            _drop(x, rest)
    elif isinstance(value, dict) and head in value:
        if rest:
            _drop(value[head], rest)
        else:
            del value[head]


def _dropped(kind: str, value):
    for path in DROPPED[kind]:
        _drop(value, path.split("."))
    return value


def _jsonable(value):
    """As `--json` prints it and a reader gets it back (tuples as lists, keys as text)."""
    return json.loads(json.dumps(value))


def _error(err: BaseException) -> dict:
    return {"error": f"{type(err).__name__}: {err}"}


class Hinter:
    """`jabba hint`'s library calls (cli/hint.py), with the tables of each game loaded
    once."""

    def __init__(self):
        self.policies: dict = {}

    def __call__(self, case: dict) -> dict:
        from solver.hint import advice as hint_lib
        from solver.hint.situation import from_mapping

        sit = from_mapping(json.loads(json.dumps(case["data"])))
        game = hint_lib.check_game(sit)
        key = json.dumps(dict(game.get_parameters()), sort_keys=True) + \
            game.get_type().short_name
        if key not in self.policies:
            self.policies[key] = hint_lib.load_policies(game, None)
        policies = self.policies[key]
        match = None
        if case.get("score") is not None:
            match = hint_lib.match_context(game, list(case["score"]), None, None, None)
        modelled = None
        if case.get("opponent"):
            from solver.opponent_model.model import parse_opponents

            (seat, model), = parse_opponents([case["opponent"]], game, sit.seat).items()
            modelled = hint_lib.OpponentModelUse(seat, model, "safe", 0.5)
        return hint_lib.hint(sit, game, policies, seconds=0.25, resolve_seconds=2.0,
                             seed=case["seed"], rollouts=HINT_ROLLOUTS, search=case["search"],
                             search_seconds=1.0, search_iterations=HINT_SEARCH_ITERATIONS,
                             match=match, opponent=modelled)


def _cli(args: list[str]):
    """`jabba ARGS` in this process; (exit code, output)."""
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


TOURNAMENTS = [
    ("tournament_jabbas_palace_2p_table", ["--players", "2", "--agenda", "exalted_one",
                                           "--policies", "table,agenda_expert,card_counter",
                                           "--seed", "11"]),
    ("tournament_love_letter_2p_table", ["--game", "love_letter", "--players", "2",
                                         "--policies", "table,classic_expert,keep_higher",
                                         "--seed", "12"]),
]


def capture_tournament(args: list[str], folder: Path) -> dict:
    out = folder / "tournament"
    code, output = _cli(["tournament", *args, "--deals", str(TOURNAMENT_DEALS),
                         "--matches", str(TOURNAMENT_MATCHES), "--out", str(out)])
    if code != 0:
        return {"exit_code": code, "output": output[-2000:]}
    record = json.loads(out.with_suffix(".json").read_text())
    header_keys = ("game", "code_version", "code_diff_sha256", "command", "seconds",
                   "cores", "created")
    result = {"exit_code": code,
              "header": {k: record[k] for k in header_keys if k in record},
              **{k: v for k, v in record.items() if k not in header_keys}}
    return _dropped("tournament", result)


def capture_mccfr(seed: int, folder: Path) -> dict:
    import numpy as np

    path = folder / "mccfr.npz"
    code, output = _cli(["solve", "--algorithm", "mccfr", "--deck", "small", "--iterations",
                         str(MCCFR_ITERATIONS), "--seed", str(seed), "--threads", "1",
                         "--out", str(path)])
    if code != 0:
        return {"exit_code": code, "output": output[-2000:]}
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
        arrays = {k: data[k] for k in sorted(data.files) if k != "header"}
    digest = hashlib.sha256()
    described = {}
    for name, array in arrays.items():
        raw = np.ascontiguousarray(array)
        part = hashlib.sha256(f"{raw.dtype.str}{raw.shape}".encode() + raw.tobytes())
        described[name] = {"dtype": raw.dtype.str, "shape": list(raw.shape),
                           "sha256": part.hexdigest()}
        digest.update(name.encode() + part.digest())
    return _dropped("mccfr", {"exit_code": code, "arrays_sha256": digest.hexdigest(),
                              "arrays": described, "header": header})


def capture(args) -> None:
    import _common  # noqa: F401  (puts this checkout first on sys.path)

    import solver

    started = time.perf_counter()
    print(f"code: {Path(solver.__file__).resolve().parent.parent}", file=sys.stderr)
    if args.inputs:
        before = json.loads(Path(args.inputs).read_text())
        cases = [item["input"] for item in before["items"] if item["kind"] == "hint"]
    else:
        cases = make_hint_inputs(args.seed)
    items, timings = [], {}

    def record(kind: str, item_id: str, inp, run) -> None:
        start = time.perf_counter()
        try:
            result = run()
        except Exception as err:  # noqa: BLE001  (a refusal or a crash is behaviour too)
            result = _error(err)
            if args.verbose:
                traceback.print_exc()
        timings[item_id] = round(time.perf_counter() - start, 3)
        items.append({"id": item_id, "kind": kind, "input": inp, "result": result})
        print(f"{item_id}: {timings[item_id]:.2f} s"
              + (f" ({result['error'][:120]})" if "error" in result else ""), file=sys.stderr)

    hinter = Hinter()
    for case in cases:
        record("hint", case["id"], case,
               lambda c=case: _dropped("hint", _jsonable(hinter(c))))
    with tempfile.TemporaryDirectory() as tmp:
        for i, (item_id, cli_args) in enumerate(TOURNAMENTS):
            folder = Path(tmp) / str(i)
            folder.mkdir()
            record("tournament", item_id, {"args": cli_args, "deals": TOURNAMENT_DEALS,
                                           "matches": TOURNAMENT_MATCHES},
                   lambda a=cli_args, f=folder: _jsonable(capture_tournament(a, f)))
        folder = Path(tmp) / "mccfr"
        folder.mkdir()
        mccfr_seed = args.seed + 4
        record("mccfr", "mccfr_small_2p", {"deck": "small", "iterations": MCCFR_ITERATIONS,
                                           "seed": mccfr_seed, "threads": 1},
               lambda: _jsonable(capture_mccfr(mccfr_seed, folder)))
    counts: dict[str, int] = {}
    for item in items:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    data = {"what": SCHEMA, "dropped_fields": DROPPED, "counts": counts,
            "settings": {"seed": args.seed, "hint_rollouts": HINT_ROLLOUTS,
                         "hint_search_iterations": HINT_SEARCH_ITERATIONS},
            "code_root": str(Path(solver.__file__).resolve().parent.parent),
            "machine": _common.machine_info(),
            "capture_seconds": round(time.perf_counter() - started, 1),
            "item_seconds": timings, "items": items}
    try:
        _common.write_json_atomic(args.out, data)
    except Exception as err:  # noqa: BLE001  (a broken provenance header: keep the capture)
        print(f"provenance header failed ({type(err).__name__}: {err}); writing without it",
              file=sys.stderr)
        Path(args.out).write_text(json.dumps(data, indent=2) + "\n")
    errors = sum("error" in item["result"] for item in items)
    print(f"captured {counts} ({errors} answered with an error) in "
          f"{time.perf_counter() - started:.0f} s -> {args.out}", file=sys.stderr)


# Comparing ------------------------------------------------------------------------------

def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def first_difference(a, b, path: str = "") -> str | None:
    """The first field where a and b differ ('path: before != after'), or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            here = f"{path}.{k}" if path else str(k)
            if k not in a:
                return f"{here}: absent before, {_short(b[k])} after"
            if k not in b:
                return f"{here}: {_short(a[k])} before, absent after"
            found = first_difference(a[k], b[k], here)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {len(a)} elements before, {len(b)} after"
        return None
    if _same(a, b):
        return None
    return f"{path or '(value)'}: {_short(a)} != {_short(b)}"


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def compare(before_path: str, after_path: str) -> int:
    before = json.loads(Path(before_path).read_text())
    after = json.loads(Path(after_path).read_text())
    a_items = {item["id"]: item for item in before["items"]}
    b_items = {item["id"]: item for item in after["items"]}
    differ = 0
    width = max(map(len, list(a_items) + list(b_items)))
    for item_id in list(a_items) + [i for i in b_items if i not in a_items]:
        if item_id not in b_items:
            verdict = "missing after"
        elif item_id not in a_items:
            verdict = "missing before"
        else:
            found = (first_difference(a_items[item_id]["input"], b_items[item_id]["input"],
                                      "input")
                     or first_difference(a_items[item_id]["result"],
                                         b_items[item_id]["result"], "result"))
            verdict = "identical" if found is None else f"different: {found}"
        differ += verdict != "identical"
        print(f"{item_id:<{width}}  {verdict}")
    print(f"\n{len(a_items)} items before, {len(b_items)} after: "
          f"{'all identical' if not differ else f'{differ} different or missing'}")
    if before.get("dropped_fields") != after.get("dropped_fields"):
        print("note: the two captures dropped different fields")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="FILE", help="write the capture to FILE (JSON)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the situations, the "
                        "hints and the MCCFR run (default %(default)s)")
    parser.add_argument("--inputs", metavar="CAPTURE", help="hint the inputs of this "
                        "earlier capture instead of making them from --seed")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="compare two captures; exit 1 if any item differs")
    parser.add_argument("--verbose", action="store_true", help="print the traceback of "
                        "an item that raised")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("give --out FILE (capture) or --compare BEFORE AFTER")
    capture(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
