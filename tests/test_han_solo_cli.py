"""The Han Solo card game (`--game han_solo`) on the commands: the hint (the EV of every
option from rollouts over posterior worlds, each opponent's hand-total posterior), its
reference (tests/han_solo_replay.py, the Python Bayes replay the compiled filter is
checked against), the refusals (cards of another game,
impossible hands, a turn that does not exist, Love Letter's options), and the other
commands taking --game han_solo."""

from __future__ import annotations

import json
import re

import numpy as np
import pyspiel
import pytest
from typer.testing import CliRunner

import spiel_game  # noqa: F401  (registers the games)
from cli.main import app
import han_solo_replay as belief
from solver.han_solo.heuristics import HanSoloHeuristic
from solver.han_solo.situation import from_mapping
from solver.hint.advice import answer
from solver.hint.answer import without_wall_times
from solver.hint.parse import SituationError
from solver.hint.request import HintInputError, HintRequest
from spiel_game.han_solo import layout as L

runner = CliRunner()
# Seat 1 on the last turn (no dice): p0 drew and put down a red -2; with green +4 and
# red -2, taking it makes a three-card zero, which only a Best or a bigger zero beats.
LAST_TURN = {"game": "han_solo", "seat": 1, "hand": ["green +4", "red -2"],
             "pot": ["green", "gold"], "params": {"dice": 0},
             "log": "flip green +9; p0 stand; p1 stand; p0 stand; p1 stand; p0 draw; "
                    "p0 discard red -2"}
# Every green +10 is seen by seat 1 (two in hand, one turned up): p0 holds none.
TENS_SEEN = {"game": "han_solo", "seat": 1, "hand": ["+10", "g10"], "pot": "green,gold",
             "log": "flip green +10; p0 stand"}


def said(result) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def _hint(data: dict, rollouts: int = 400, **kw) -> dict:
    return answer(HintRequest.from_inputs(dict(data), rollouts=rollouts, seed=0, **kw)
                  ).to_json()


# The seats before mine in turn 1, each with what it did (the others' policy makes these).
_EARLIER = ["p0 draw; p0 discard red -2", "p1 draw; p1 discard green +7",
            "p2 draw; p2 discard green +1"]


# 5 and 6 players (20-25 s each) run with the slow tests; the default run keeps 2-4, and
# test_the_hint_at_n_players_takes_the_card_that_makes_the_best_hand covers 5 and 6.
@pytest.mark.parametrize("players", [2, 3, 4, *(pytest.param(n, marks=pytest.mark.slow)
                                               for n in (5, 6))])
def test_the_hint_answers_at_every_table_size_by_the_one_rule(players):
    """2-6 players: every option now is valued (draw, take, stand; a take's every discard
    as its step), the recommendation is the one rule's (no option's mean is above the
    recommended one's by more than its interval), and the seeded answer repeats."""
    seat = min(players - 1, len(_EARLIER))
    data = {"game": "han_solo", "players": players, "seat": seat,
            "hand": ["green +4", "red -2"],
            "log": "; ".join(["flip green +9", *_EARLIER[:seat]])}
    out = _hint(data, rollouts=120)
    assert out["situation"]["players"] == players and out["situation"]["seat"] == seat
    assert [p["action"] for p in out["plays"]] == [
        "draw from the pile", "take the discard", "stand"]
    take = out["plays"][1]  # then keep all, or put down any card held (the taken one too)
    top = out["situation"]["discard_top"]
    discards = {"discard nothing"} | {f"discard {c}" for c in ("green +4", "red -2", top)}
    assert {o["action"] for o in take["steps"][0]["options"]} == discards
    assert len(out["full_actions"]) == 2 + len(discards)  # draw, stand, take's each
    chosen = next(p for p in out["plays"]
                  if p["full_action"] == out["recommendation"]["action"])
    assert -chosen["vs_best"] <= chosen["vs_best_ci95"] + 1e-12
    assert [o["seat"] for o in out["opponents"]] == [q for q in range(players) if q != seat]
    assert without_wall_times(_hint(data, rollouts=120)) == without_wall_times(out)


def test_take_that_makes_zero_is_recommended_on_the_last_turn():
    out = _hint(LAST_TURN)
    assert out["situation"]["turn"] == 3 and out["situation"]["discard_top"] == "red -2"
    assert out["recommendation"]["action"] == "take the discard, discard nothing"
    plays = {p["action"]: p for p in out["plays"]}
    assert set(plays) == {"draw from the pile", "take the discard", "stand"}
    take, stand = plays["take the discard"], plays["stand"]
    # Every discard choice after the take is valued; keeping the zero is the best.
    step = take["steps"][0]
    assert {o["action"] for o in step["options"]} == {
        "discard nothing", "discard green +4", "discard red -2"}
    assert step["chosen"] == "discard nothing"
    assert take["ev"] - stand["ev"] > stand["vs_best_ci95"] >= 0
    assert take["ev"] > 0 > stand["ev"]
    # No table ships for dice=0: the heuristic plays and the answer says so.
    assert out["policy"]["source"] == "heuristic"
    assert out["posterior"]["exact"] is True


def best_ten_on_the_last_turn(n: int) -> dict:
    """The last seat's last turn at n players: it stood twice on green +10 and blue 0, the
    others drew and put down high cards, and the seat before it puts down the red -10:
    taking it makes the Best hand of 10s (H4), which only another Best of 10s ties."""
    cards = ["green +9", "red -9", "green +8", "red -8", "green +7", "red -7", "green +6",
             "red -6"]
    me, lines, used = n - 1, ["flip green +5"], 0
    for cycle in range(3):
        for q in range(n - 1):
            card = "red -10" if (cycle, q) == (2, n - 2) else cards[used % len(cards)]
            used += card != "red -10"
            lines += [f"p{q} draw", f"p{q} discard {card}"]
        if cycle < 2:
            lines += [f"p{me} stand", "dice differ"]
    return {"game": "han_solo", "players": n, "seat": me, "hand": ["green +10", "blue 0"],
            "log": "; ".join(lines)}


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_the_hint_at_n_players_takes_the_card_that_makes_the_best_hand(n):
    """At 3-6 players the hint plays the n-player table where one ships (results/
    policy_full_han_solo_<n>p_*.npz, made for n players), else closest_to_zero, and takes
    the red -10 to a Best of 10s; standing on +10 is far worse. The odds alone
    (--prior-only): the belief's reading of the others' choices is another test's."""
    from solver.han_solo.players import shipped_tables

    out = _hint(best_ten_on_the_last_turn(n), rollouts=64, prior_only=True)
    assert out["situation"]["players"] == n and out["situation"]["turn"] == 3
    game = pyspiel.load_game("han_solo", {"players": n})
    if shipped_tables(game):
        assert out["policy"]["source"] == "table"
        assert f"policy_full_han_solo_{n}p_" in out["policy"]["detail"]
    else:
        assert out["policy"]["source"] == "heuristic"
        assert "closest_to_zero" in out["policy"]["detail"]
    plays = {p["action"]: p for p in out["plays"]}
    assert out["recommendation"]["action"].startswith("take the discard")
    take, stand = plays["take the discard"], plays["stand"]
    assert take["ev"] - stand["ev"] > stand["vs_best_ci95"] > 0


def test_posterior_puts_no_weight_on_cards_all_seen():
    out = _hint(TENS_SEEN, rollouts=64, prior_only=True)  # card counting alone
    (p0,) = out["opponents"]
    assert "green +10" not in {c["card"] for c in p0["hand"]}
    totals = {t["total"]: t["probability"] for t in p0["total"]}
    assert max(totals) == 18  # two green +9: +10 +10 and +10 +9 cannot be
    assert min(totals) == -20 and sum(totals.values()) == pytest.approx(1.0)
    assert p0["cards"] == [{"cards": 2, "probability": pytest.approx(1.0)}]
    assert out["posterior"]["exact"] and out["posterior"]["worlds"] > 100


def test_a_stand_is_explained_by_the_hands_the_policy_stands_on(monkeypatch):
    """Bayes on a choice: closest_to_zero (the policy without a table: dice=0) draws on
    every first turn but with both blue 0s (a draw can then only tie, the drawn card put
    down again). Without the floor on a stray choice, p0's stand leaves one world: blue
    0, blue 0; with the hint's floor (hint.stray: 0.1 for a heuristic) the other hands
    stay, each weighed down to a tenth of a stand's likelihood on blue 0, blue 0."""
    from solver.han_solo import hint

    data = {**TENS_SEEN, "params": {"dice": 0}}
    prior = _hint(data, rollouts=16, prior_only=True)["opponents"][0]
    out = _hint(data, rollouts=16)
    assert out["policy"]["source"] == "heuristic"
    (p0,) = out["opponents"]
    chance = {c["card"]: c["probability"] for c in p0["hand"]}
    before = {c["card"]: c["probability"] for c in prior["hand"]}
    assert len(chance) == len(before) > 1 and out["posterior"]["exact"]
    assert chance["blue 0"] > before["blue 0"]
    assert all(chance[c] <= before[c] for c in chance if c != "blue 0")
    monkeypatch.setattr(hint, "stray", lambda player: 0.0)
    strict = _hint(data, rollouts=16)
    (p0,) = strict["opponents"]
    assert p0["hand"] == [{"card": "blue 0", "probability": pytest.approx(1.0)}]
    assert p0["total"] == [{"total": 0, "probability": pytest.approx(1.0)}]
    assert strict["posterior"]["worlds"] == 1


def test_a_choice_the_policy_never_makes_is_weighed_not_refused(monkeypatch):
    """At 4 players (closest_to_zero weighing the others) p2 takes a green +9 and puts
    down a green +1, which closest_to_zero never does: the hint answers; without the
    floor on a stray choice no history is left and it refuses."""
    from solver.han_solo import hint

    data = {"game": "han_solo", "players": 4, "seat": 3, "hand": ["green +4", "red -2"],
            "log": "flip green +9; p0 draw; p0 discard red -2; p1 draw; "
                   "p1 discard green +7; p2 take; p2 discard green +1"}
    out = _hint(data, rollouts=16)
    assert out["situation"]["players"] == 4 and out["posterior"]["worlds"] > 1
    monkeypatch.setattr(hint, "stray", lambda player: 0.0)
    with pytest.raises(SituationError, match="no history of the log was found"):
        _hint(data, rollouts=16)


def test_belief_keeps_the_true_hand_and_weighs_choices():
    """On rounds played by a heuristic, the exact posterior gives the opponent's true
    hand a positive weight, and Bayes on the choices moves the weights off the prior."""
    game = pyspiel.load_game("han_solo")
    policy = HanSoloHeuristic(game, "closest_to_zero")
    rng = np.random.default_rng(5)
    moved = checked = 0
    while checked < 3:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(10, 24))):
            if state.is_terminal():
                break
            items = (state.chance_outcomes() if state.is_chance_node() else
                     list(policy.action_probabilities(state).items()))
            actions, probs = zip(*items)
            state.apply_action(int(rng.choice(actions, p=np.array(probs) / sum(probs))))
        if state.is_terminal():
            continue
        post = belief.posterior(game, state, 1, policy, particles=4096, seed=0)
        prior = belief.posterior(game, state, 1, None, particles=4096, seed=0)
        if not (post.exact and prior.exact):
            continue
        checked += 1
        true = sorted(state.hand(0))
        weight = sum(w for s, w in zip(post.worlds, post.weights)
                     if sorted(s[L.S_HAND:L.S_HAND + s[L.S_HAND_N]].tolist()) == true)
        assert weight > 0
        dist = belief.hand_total_distribution(post, 0)
        assert sum(dist["total"].values()) == pytest.approx(1.0)
        a = belief.hand_total_distribution(prior, 0)["total"]
        moved += any(abs(dist["total"].get(t, 0) - p) > 1e-9 for t, p in a.items())
    assert moved > 0


@pytest.mark.parametrize("change, words", [
    ({"hand": ["jabba", "+3"]}, "card of Jabba's Palace"),
    ({"hand": ["+3", "+3", "+3", "+3"]}, "4 x green +3, but the deck has 3"),
    ({"hand": ["guard"]}, "card of Jabba's Palace"),
    ({"turn": 4}, "a round has 3 turns"),
    ({"turn": 2}, "the log ends in turn 3"),
    ({"hand": ["+4", "-2", "-2"]}, "you were dealt 3 cards, not 2"),
    ({"log": LAST_TURN["log"] + "; p1 stand; p0 stand"}, "turns are over"),
    ({"log": "flip green +9; p1 stand"}, "p0's turn"),
    ({"log": "flip green +9; p0 discard red -2"}, "p0 has to draw, take or stand"),
    ({"face_up": ["+3"]}, "Love Letter fields"),
    ({"pot": ["green"]}, "one per player"),
])
def test_bad_situations_are_refused(change, words):
    with pytest.raises(SituationError, match=re.escape(words)):
        _hint({**LAST_TURN, **change}, rollouts=8)


def test_a_copy_too_many_in_the_log_is_refused():
    data = {**LAST_TURN, "hand": ["+9", "-9"], "log": "flip green +9; p0 draw; "
            "p0 discard green +9; p1 take; p1 discard green +9; p0 draw; "
            "p0 discard green +9"}
    with pytest.raises(SituationError, match="p0 cannot hold a green \\+9"):
        _hint(data, rollouts=8)


def test_match_and_opponent_options_are_refused():
    with pytest.raises(HintInputError, match="han_solo has no match values"):
        HintRequest.from_inputs(dict(LAST_TURN), score="1,2")


def test_cli_hint_json_is_the_one_answer():
    args = ["hint", "--game", "han_solo", "--seat", "1", "--hand", "green +4,red -2",
            "--pot", "green,gold", "--log", TENS_SEEN["log"].replace("p0 stand",
                                                                     "p0 stand"),
            "--rollouts", "200", "--seed", "3", "--json"]
    args[args.index("--hand") + 1] = "+10,g10"
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    want = answer(HintRequest.from_inputs(dict(TENS_SEEN), rollouts=200, seed=3)).to_json()
    assert without_wall_times(got) == without_wall_times(want)
    text = runner.invoke(app, args[:-1])
    assert text.exit_code == 0 and "Recommended:" in text.output and "P(zero)" in text.output


@pytest.mark.parametrize("args, words", [
    (["--face-up", "+3"], "applies only to --game jabbas_palace or love_letter"),
    (["--agenda", "exalted_one"], "applies only"),
    (["--hand", "boba,+3"], "card of Jabba's Palace"),
])
def test_cli_hint_refusals(args, words):
    base = ["hint", "--game", "han_solo", "--seat", "1", "--log", "flip +9; p0 stand",
            "--hand", "+3,-2"]
    result = runner.invoke(app, base + args)
    assert result.exit_code == 2 and words in said(result), said(result)


def test_cli_han_solo_options_refused_for_love_letter():
    result = runner.invoke(app, ["hint", "--game", "love_letter", "--hand", "spy,guard",
                                 "--pot", "green,gold"])
    assert result.exit_code == 2 and "with --game han_solo" in said(result)


def test_commands_without_han_solo_say_which_have_it():
    result = runner.invoke(app, ["rules", "--game", "han_solo"])
    assert result.exit_code == 2
    assert "han_solo's commands are hint, play" in said(result)


def test_web_api_answers_han_solo_as_the_command_line():
    from fastapi.testclient import TestClient

    from cli.web.app import create_app

    with TestClient(create_app(warm=False)) as client:
        body = dict(TENS_SEEN, pot=["green", "gold"])
        reply = client.post("/api/hint?rollouts=100&seed=4", json=body)
        assert reply.status_code == 200, reply.text
        want = answer(HintRequest.from_inputs(dict(body), rollouts=100, seed=4)).to_json()
        assert without_wall_times(reply.json()) == without_wall_times(want)
        refused = client.post("/api/hint", json={**body, "hand": ["luke", "+3"]})
        assert refused.status_code == 422
        assert "card of Jabba's Palace" in refused.json()["detail"]
        # Its former page redirects to the one advice page, which builds its form from
        # the game's description.
        page = client.get("/han-solo", follow_redirects=False)
        assert page.status_code == 307 and page.headers["location"] == "/?game=han_solo"
        assert 'id="form-events"' in client.get(page.headers["location"]).text
        meta = client.get("/api/meta?game=han_solo").json()["advice"]
        assert meta["form"] == "events" and meta["players"] == [2, 3, 4, 5, 6]
        assert len(meta["cards"]) == 21 and meta["cards"][0] == "blue 0"


def test_tournament_plays_duplicate_deals(tmp_path):
    out = tmp_path / "t"
    result = runner.invoke(app, ["tournament", "--game", "han_solo", "--policies",
                                 "uniform,closest_to_zero", "--deals", "200", "--no-diagonal",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads(out.with_suffix(".json").read_text())
    (row,) = record["rows"]
    assert (row["policy"], row["opponent"], row["deals"]) == ("uniform", "closest_to_zero", 200)
    assert row["margin"]["high"] < 0  # uniform loses to a heuristic (docs/han-solo.md)
    assert record["game"]["name"] == "han_solo"
    refused = runner.invoke(app, ["tournament", "--game", "han_solo", "--matches", "5"])
    assert refused.exit_code == 2 and "not han_solo" in said(refused)


def test_export_writes_the_tables_rows(tmp_path):
    from solver.han_solo.players import resolve

    try:  # the shipped table, where this code reads it; else a small one made here
        table = resolve("table", pyspiel.load_game("han_solo")).source
    except ValueError:
        table = str(tmp_path / "full.npz")
        made = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "full",
                                   "--algorithm", "mccfr", "--iterations", "300", "--out",
                                   table])
        assert made.exit_code == 0, made.output
    out = tmp_path / "table.csv"
    result = runner.invoke(app, ["export", "--game", "han_solo", "--policy", table,
                                 "--rounds", "20", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines[0].startswith("key,level,seat,decision,information_state")
    assert any("hand " in line and "total" in line for line in lines[1:])
    header = json.loads((tmp_path / "table.csv.json").read_text())
    assert header["game"]["name"] == "han_solo" and header["policy_header"]["format"] == \
        "han-solo-table-policy"


def test_solve_exactly_and_refusals(tmp_path):
    result = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                 "--algorithm", "cfr+", "--iterations", "300"])
    assert result.exit_code == 0, result.output
    # docs/han-solo.md: CFR+ reaches NashConv 0.00049 in 300 iterations; seat 0 is worth +1.6
    conv = float(re.search(r"NashConv ([0-9.e-]+)", said(result))[1])
    value = float(re.search(r"game value ([-+0-9.]+)", said(result))[1])
    assert conv < 1e-3 and value == pytest.approx(1.6, abs=0.01)
    refused = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                  "--algorithm", "mccfr", "--ray"])
    assert refused.exit_code == 2 and "not han_solo" in said(refused)
    refused = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "medium"])
    assert refused.exit_code == 2 and "han_solo's decks are full, tiny" in said(refused)
    refused = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                  "--threads", "1"])
    assert refused.exit_code == 2 and "applies only to --algorithm mccfr" in said(refused)
    refused = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                  "--strategy", "current"])
    assert refused.exit_code == 2 and "applies only to --algorithm mccfr" in said(refused)
    refused = runner.invoke(app, ["solve", "--game", "love_letter", "--algorithm", "mccfr",
                                  "--strategy", "current"])
    assert refused.exit_code == 2 and "applies only to --game han_solo" in said(refused)


def test_mccfr_for_many_players_writes_its_current_strategy(tmp_path, monkeypatch):
    """3 players at `many`: the pot_mean utility, the current strategy, and the table
    read back for 3 players only, the refusal naming the player count it was made for."""
    out = tmp_path / "t3.npz"
    result = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "full",
                                 "--players", "3", "--algorithm", "mccfr", "--abstraction",
                                 "many", "--strategy", "current", "--threads", "1",
                                 "--iterations", "30", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "MCCFR (many, pot_mean utility, current strategy): 30 iterations" in said(result)
    from solver.han_solo.table_policy import load_table

    table = load_table(out, pyspiel.load_game("han_solo", {"players": 3}))
    assert len(table) > 0 and table.header["strategy"] == "current"
    assert table.header["utility"] == "pot_mean"
    with pytest.raises(ValueError, match="made for han_solo players=3, not players=4"):
        load_table(out, pyspiel.load_game("han_solo", {"players": 4}))
    # The shipped-table lookup: the 3-player file under the 3-player name is the table
    # of 3 players; under the 4-player name it is not used for 4 players.
    import shutil

    from solver.han_solo import players
    from solver.policies import shipped

    folder = tmp_path / "results"
    folder.mkdir()
    for n in (3, 4):
        shutil.copy(out, folder / f"policy_full_han_solo_{n}p_many.npz")
    monkeypatch.setattr(shipped, "shipped_folder", lambda: folder)
    three = players.resolve("table", pyspiel.load_game("han_solo", {"players": 3}))
    assert three.table is not None and three.source.endswith("_3p_many.npz")
    four = pyspiel.load_game("han_solo", {"players": 4})
    with pytest.raises(ValueError, match="no shipped han_solo table for 4 players"):
        players.resolve("table", four)
    assert players.default_player(four).table is None  # closest_to_zero plays
    refused = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "full",
                                  "--algorithm", "mccfr", "--strategy", "best"])
    assert refused.exit_code == 2 and "allowed are average, current" in said(refused)


def test_mccfr_checkpoint_resume_and_memory_limit_from_the_command_line(tmp_path):
    """`jabba solve --game han_solo --algorithm mccfr` trains on the shared driver: a run
    resumed from its checkpoint writes the table of a run never stopped."""
    solve = ["solve", "--game", "han_solo", "--deck", "tiny", "--algorithm", "mccfr",
             "--abstraction", "exact", "--threads", "1", "--seed", "5"]
    checkpoint = tmp_path / "run_ck.npz"
    first = runner.invoke(app, [*solve, "--iterations", "400", "--checkpoint",
                                str(checkpoint), "--out", str(tmp_path / "a.npz")])
    assert first.exit_code == 0, first.output
    resumed = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                  "--algorithm", "mccfr", "--iterations", "1000",
                                  "--checkpoint", str(checkpoint), "--resume", "--out",
                                  str(tmp_path / "b.npz")])
    assert resumed.exit_code == 0, resumed.output
    assert "MCCFR (exact, returns utility, average strategy): 1,000 iterations" in said(
        resumed)  # the checkpoint's level
    straight = runner.invoke(app, [*solve, "--iterations", "1000", "--out",
                                   str(tmp_path / "c.npz")])
    assert straight.exit_code == 0, straight.output
    with np.load(tmp_path / "b.npz") as b, np.load(tmp_path / "c.npz") as c:
        for name in ("key_gaps", "num_actions", "probs"):
            assert np.array_equal(b[name], c[name]), name
    refused = runner.invoke(app, [*solve, "--max-memory", "lots"])
    assert refused.exit_code == 2 and "'lots' is not a size" in said(refused)
    stopped = runner.invoke(app, [*solve, "--max-memory", "1K", "--out",
                                  str(tmp_path / "d.npz")])
    assert stopped.exit_code == 2 and "over the memory limit of 0.0 MiB" in said(stopped)


def test_a_warm_start_takes_another_player_counts_tables_at_a_count_free_level(tmp_path):
    """`--warm-start`: a new 4-player run whose tables start as a 3-player run's, at
    `many` (its keys read no player count); its header says what it started from. A
    level that reads the count, and --resume beside it, are refused."""
    from solver.mccfr.solver import MCCFRSolver

    base = ["solve", "--game", "han_solo", "--deck", "full", "--algorithm", "mccfr",
            "--threads", "1", "--strategy", "current"]
    three = tmp_path / "ck3.npz"
    first = runner.invoke(app, [*base, "--players", "3", "--abstraction", "many",
                                "--iterations", "60", "--checkpoint", str(three),
                                "--out", str(tmp_path / "t3.npz")])
    assert first.exit_code == 0, first.output
    out = tmp_path / "t4.npz"
    warm = runner.invoke(app, [*base, "--players", "4", "--iterations", "30",
                               "--warm-start", str(three), "--out", str(out)])
    assert warm.exit_code == 0, warm.output
    assert "MCCFR (many, pot_mean utility, current strategy): 30 iterations" in said(warm)
    with np.load(out) as table:
        header = json.loads(str(table["header"]))
    assert header["game"]["parameters"]["players"] == 4 and header["iterations"] == 30
    assert header["warm_start"]["players"] == 3
    assert header["warm_start"]["iterations"] == 60
    four = pyspiel.load_game("han_solo", {"players": 4})
    started = MCCFRSolver.warm_started(four, three, level=4)
    source = MCCFRSolver.from_checkpoint(pyspiel.load_game("han_solo", {"players": 3}), three)
    assert started.iterations == 0 and started.num_keys == source.num_keys
    assert np.array_equal(started.tables.regret, source.tables.regret)
    compact = tmp_path / "ck3c.npz"
    assert runner.invoke(app, [*base, "--players", "3", "--abstraction", "compact",
                               "--iterations", "20", "--checkpoint", str(compact), "--out",
                               str(tmp_path / "c3.npz")]).exit_code == 0
    refused = runner.invoke(app, [*base, "--players", "4", "--iterations", "10",
                                  "--warm-start", str(compact)])
    assert refused.exit_code == 2 and "a 3-player run's tables; the keys of level compact " \
        "read the player count" in said(refused), said(refused)
    both = runner.invoke(app, [*base, "--players", "3", "--iterations", "10", "--warm-start",
                               str(three), "--checkpoint", str(three), "--resume"])
    assert both.exit_code == 2 and "give one of them" in said(both), said(both)
    exact = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                "--warm-start", str(three)])
    assert exact.exit_code == 2 and "to --algorithm mccfr" in said(exact), said(exact)


@pytest.mark.slow  # compiles the MCCFR kernel (about 10 s a process)
def test_solve_by_mccfr_writes_a_table(tmp_path):
    out = tmp_path / "p.npz"
    result = runner.invoke(app, ["solve", "--game", "han_solo", "--deck", "tiny",
                                 "--algorithm", "mccfr", "--iterations", "500", "--out",
                                 str(out)])
    assert result.exit_code == 0, result.output
    from cli.options import load_game
    from solver.han_solo.table_policy import load_table

    assert len(load_table(out, load_game("han_solo", 2, "tiny"))) > 0


def test_exploit_study_of_a_reduced_deck(tmp_path):
    result = runner.invoke(app, ["exploit", "--game", "han_solo", "--deck", "tiny",
                                 "--iterations", "5", "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "exploitability_han_solo_tiny_2p.json").read_text())
    rows = {r["policy"]: r["value"] for r in record["rows"]}
    assert rows["uniform"] == pytest.approx(7.317, abs=1e-3)  # docs/han-solo.md's table


def _played_round(tmp_path):
    """`jabba play` of one seeded round at seat 1, always answering 1, logged."""
    log = tmp_path / "game.jsonl"
    result = runner.invoke(app, ["play", "--game", "han_solo", "--seat", "1", "--seed", "3",
                                 "--against", "closest_to_zero", "--log", str(log)],
                           input="1\n" * 20)
    assert result.exit_code == 0, result.output
    return result, log


def test_play_a_round_and_replay_it(tmp_path):
    result, log = _played_round(tmp_path)
    assert "--- round over ---" in result.output and "your hand:" in result.output
    replayed = runner.invoke(app, ["play", "--replay", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert result.output.split("--- round over ---")[1].strip() in replayed.output
    refused = runner.invoke(app, ["play", "--game", "han_solo", "--seat", "0", "--coach"])
    assert refused.exit_code == 2 and "not han_solo" in said(refused)


def _finished_round():
    """A scripted round (no dice; every chance outcome chosen): p0 dealt green +4, red -2,
    p1 green +9, red -9; p0 draws red -5 and puts down the green +4; then everybody
    stands. The hands shown at the end (H6): p0 red -5, red -2 (-7), p1 a zero, who takes
    the green token. p1's information states at its last turn, at its pick and at the
    end."""
    green, red = (lambda n: L.GREEN - 1 + n), (lambda n: L.RED - 1 + n)
    game = pyspiel.load_game("han_solo", {"dice": 0})
    state = game.new_initial_state()
    for a in (0, 1, green(4), green(9), red(2), red(9), green(1), L.DRAW, red(5),
              L.encode_discard(green(4)), L.STAND, L.STAND, L.STAND, L.STAND):
        state.apply_action(a)
    last_turn = state.information_state_string(1)
    state.apply_action(L.STAND)
    assert state.view().phase == "pick" and state.current_player() == 1
    at_pick = state.information_state_string(1)
    state.apply_action(L.encode_pick(0))
    assert state.is_terminal()
    return game, last_turn, at_pick, state.information_state_string(1)


def test_a_log_read_after_the_round_shows_and_checks_the_final_hands(tmp_path):
    game, last_turn, at_pick, end = _finished_round()
    assert at_pick.endswith("p1 stand; p0 show red -5; p0 show red -2; p1 show red -9; "
                            "p1 show green +9")
    assert end.endswith("p1 show green +9; p1 pick green; p0 pick gold")

    def read(log: str):  # the hint's reading: the compiled filter, the chance odds alone
        from solver.han_solo import hint

        sit = from_mapping({"game": "han_solo", "seat": 1, "log": log})
        return hint.replayed_worlds(game, sit.events, 1, None, 0, ())

    before = belief.hand_total_distribution(read(last_turn), 0)["total"]
    assert len(before) > 20  # p0's hand unknown before the end
    shown = [(L.E_SHOW, 0, L.RED + 4), (L.E_SHOW, 0, L.RED + 1), (L.E_SHOW, 1, L.RED + 8),
             (L.E_SHOW, 1, L.GREEN + 8)]
    # A seat may write only the other's hand, its cards in any order: its own shows are
    # left to the filter (the engine writes them by itself).
    mine_left_out = shown[:2]
    for log, events in ((at_pick, shown), (end, shown),
                        (last_turn + "; p1 stand; p0 show red -2; p0 show red -5",
                         mine_left_out)):
        post = read(log)
        assert post.exact and len(post.worlds) == 1
        assert belief.hand_total_distribution(post, 0) == {"total": {-7: 1.0},
                                                            "cards": {2: 1.0}}
        assert [e for e in post.events if e[0] == L.E_SHOW] == events
    with pytest.raises(SituationError, match=r"ends with the hands shown \(H6\)$"):
        read(at_pick.replace("p1 show green +9", "p1 show green +8"))  # p1 holds no +8
    # No hint past the turns: the log is read, and refused as no decision of the seat.
    data = {"game": "han_solo", "params": {"dice": 0}}
    for log, words in ((at_pick, "the hands are shown and the tokens are being taken"),
                       (end, "the round is over")):
        with pytest.raises(SituationError, match=words):
            _hint({**data, "log": log}, rollouts=8, prior_only=True)
        path = tmp_path / "situation.json"
        path.write_text(json.dumps({**data, "log": log}))
        result = runner.invoke(app, ["hint", "--situation", str(path), "--prior-only"])
        assert result.exit_code == 2 and words in said(result), said(result)
    # closest_to_zero (no table for dice=0) never stands on -7: the stray choice is weighed
    # (not refused), and the log refused as no decision of the seat.
    with pytest.raises(SituationError, match="the hands are shown and the tokens"):
        _hint({**data, "log": at_pick}, rollouts=8)


def test_the_play_log_records_the_hands_shown_and_the_replay_checks_them(tmp_path):
    result, log = _played_round(tmp_path)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    hands = lines[-1]["hands"]
    assert "round_end" in lines[-1] and len(hands) == 2
    for seat, hand in enumerate(hands):  # as the terminal showed them, before the tokens
        assert hand and all(f"  . p{seat} show {c}" in result.output for c in hand)
        assert f"hand: {', '.join(hand)} (total" in result.output
    lines[-1]["hands"] = [hands[1], hands[0]]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(x) + "\n" for x in lines))
    replayed = runner.invoke(app, ["play", "--replay", str(bad)])
    assert replayed.exit_code != 0 and "the log says hands" in said(replayed), \
        said(replayed)


def test_play_shows_the_other_hands_at_your_token_choice():
    from cli.han_solo import play_table as _han_solo_table
    from solver.han_solo.session import HanSoloSession

    game, *_ = _finished_round()
    green, red = (lambda n: L.GREEN - 1 + n), (lambda n: L.RED - 1 + n)
    session = HanSoloSession(game, 1)  # a replay: every action applied as scripted
    for a in (0, 1, green(4), green(9), red(2), red(9), green(1), L.DRAW, red(5),
              L.encode_discard(green(4)), L.STAND, L.STAND, L.STAND, L.STAND):
        table = "\n".join(_han_solo_table(session.view()))
        assert " holds " in table and " shows " not in table, table
        session.apply(a, by="script")
    session.apply(L.STAND, by="script")  # the last turn: the hands are shown, p1 chooses a token
    assert session.waiting and session.view()["phase"] == "pick"
    table = "\n".join(_han_solo_table(session.view()))
    assert "p0        shows red -2, red -5 (total -7)" in table, table
    assert "p0 show red -5" in session.events()


def test_lbr_runs():
    result = runner.invoke(app, ["lbr", "--game", "han_solo", "--policy", "uniform",
                                 "--deals", "1", "--rollouts", "4"])
    assert result.exit_code == 0, result.output
    assert "exploitability >=" in result.output


def test_serve_game_han_solo_opens_its_form_and_warms_its_hint():
    from fastapi.testclient import TestClient

    from cli.web.app import Warmup, compute_hint, create_app, make_game

    with TestClient(create_app(warm=False, game="han_solo")) as client:
        meta = client.get("/api/meta").json()  # what `/` builds its form from
        assert meta["default"] == "han_solo" and meta["advice"]["game"] == "han_solo"
    warm = Warmup()
    warm.run(compute_hint, make_game, "han_solo")
    assert warm.state == "ready", warm.detail


def test_a_pasted_information_state_is_the_seats_own_log():
    """The information-state string a seat sees (`jabba play`, OpenSpiel) pasted as the
    log gives the posterior of that seat's own events, world for world."""
    game = pyspiel.load_game("han_solo")
    policy = HanSoloHeuristic(game, "closest_to_zero")
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node() and state.current_player() == 1 and \
                    rng.random() < 0.3:
                break
            items = (state.chance_outcomes() if state.is_chance_node() else
                     list(policy.action_probabilities(state).items()))
            actions, probs = zip(*items)
            state.apply_action(int(rng.choice(actions, p=np.array(probs) / sum(probs))))
        if state.is_terminal() or state.view().phase not in ("turn", "discard"):
            continue
        pasted = state.information_state_string(1)
        out = _hint({"game": "han_solo", "log": pasted}, rollouts=8, prior_only=True)
        assert out["situation"]["seat"] == 1
        assert out["situation"]["hand"] == [L.card_name(c) for c in sorted(state.hand(1))]
        post = belief.posterior(game, state, 1, None, particles=4096, seed=0)
        want = belief.hand_total_distribution(post, 0)["total"]
        got = {t["total"]: t["probability"] for t in out["opponents"][0]["total"]}
        assert got == pytest.approx(want)
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_web_han_solo_bodies_mutated_at_random_are_never_a_500():
    """Seeded mutations of a han_solo situation (fields dropped or given values of every
    JSON type, out-of-range numbers, other games' fields): a 200 or a 4xx, never a 5xx."""
    import random

    from fastapi.testclient import TestClient

    from cli.web.app import create_app

    values = [None, 1, -1, 2.5, True, "x", "", [], {}, [1, 2], {"a": 1}, ["green"],
              "p0 draw", "+3,-3", ["+3"] * 6, 10 ** 30, "p9 stand", "flip", "pot purple",
              ["jabba"], {"dice": 0}, {"players": 3}, {"dice": "x"}, {"dice": 10 ** 30}]
    fields = ["game", "seat", "hand", "pot", "log", "players", "turn", "params", "utility",
              "agenda", "face_up"]
    rng = random.Random(0)
    codes = set()
    with TestClient(create_app(warm=False), raise_server_exceptions=False) as client:
        for _ in range(40):
            body = dict(TENS_SEEN)
            for _ in range(rng.randint(1, 3)):
                field = rng.choice(fields)
                if rng.random() < 0.2:
                    body.pop(field, None)
                else:
                    body[field] = rng.choice(values)
            reply = client.post("/api/hint?rollouts=4", json=body)
            assert reply.status_code < 500, (body, reply.text)
            codes.add(reply.status_code)
    assert 200 in codes and 422 in codes



# A 4-player round of random play (benchmarks/han_solo_hint.py, seed 1) to p3's turn after
# a dice match: every hand revealed (H3), then redealt.
MATCHED = ("pot gold; pot green; pot red; pot gold; p0 deal ?; p1 deal ?; p2 deal ?; "
           "p3 deal red -1; p0 deal ?; p1 deal ?; p2 deal ?; p3 deal red -3; flip green +7; "
           "p0 draw ?; p0 discard red -7; p1 stand; p2 stand; p3 draw red -10; p3 keep; "
           "dice match; p0 reveal red -4; p0 reveal green +5; p1 reveal red -4; "
           "p1 reveal red -1; p2 reveal red -9; p2 reveal red -4; p3 reveal red -10; "
           "p3 reveal red -3; p3 reveal red -1; p0 redeal ?; p0 redeal ?; p1 redeal ?; "
           "p1 redeal ?; p2 redeal ?; p2 redeal ?; p3 redeal red -10; p3 redeal red -5; "
           "p3 redeal green +9; p0 stand; p1 draw ?; p1 discard green +6; p2 stand")


def test_the_hidden_cards_before_a_revealed_match_are_filled_in():
    """fill_before_matches: each other player's hidden receipts before the match get the
    cards it then put down or revealed (p0: drew the red -7 it discarded, was dealt the
    two it revealed); the ones after the match stay hidden. With its deals left out of
    the log, they are written first, round-robin (H1)."""
    from solver.han_solo.hint import fill_before_matches
    from solver.han_solo.situation import from_mapping

    sit = from_mapping({"game": "han_solo", "players": 4, "seat": 3, "log": MATCHED})
    rows = fill_before_matches(list(sit.events), 3, 4)
    match = next(i for i, e in enumerate(rows) if e[0] == L.E_DICE and e[2] == 1)
    for q in range(3):
        before = [e for e in rows[:match] if e[1] == q and e[0] in L.PRIVATE_EVENTS]
        put_down = [e[2] for e in rows[:match] if e[1] == q and e[0] == L.E_DISCARD]
        revealed = [e[2] for e in rows[match:] if e[1] == q and e[0] == L.E_REVEAL]
        assert sorted(e[2] for e in before) == sorted(put_down + revealed)
    after = [e for e in rows[match:] if e[1] != 3 and e[0] in L.PRIVATE_EVENTS]
    assert after and all(e[2] == L.HIDDEN for e in after)
    no_deals = [e for e in sit.events if not (e[0] == L.E_DEAL and e[1] != 3)]
    assert fill_before_matches(no_deals, 3, 4) == rows


def test_a_log_past_a_revealed_match_is_answered_at_4_players(monkeypatch):
    """Dealt by chance, almost no deal of the others' hidden cards meets every revealed
    hand: without the filling the log is refused; with it the posterior after the match
    holds the redealt cards only."""
    from solver.han_solo import hint

    data = {"game": "han_solo", "players": 4, "seat": 3, "log": MATCHED}
    out = _hint(data, rollouts=16)
    assert sorted(out["situation"]["hand"]) == ["green +9", "red -10", "red -5"]
    assert [o["cards"] for o in out["opponents"]] == [
        [{"cards": 2, "probability": pytest.approx(1.0)}],
        [{"cards": 2, "probability": pytest.approx(1.0)}],
        [{"cards": 2, "probability": pytest.approx(1.0)}]]
    for o in out["opponents"]:  # every red -4 was revealed, so no one holds one now
        held = {c["card"] for c in o["hand"]}
        assert len(held) > 5 and "red -4" not in held
    monkeypatch.setattr(hint, "fill_before_matches", lambda rows, seat, players: rows)
    # (the sample of chance deals keeps none past the reveals: the refusal says so)
    with pytest.raises(SituationError, match=r"no history of the log was found past "
                                             r"event \d+ 'p\d reveal .* sampled histories"):
        _hint(data, rollouts=16)
