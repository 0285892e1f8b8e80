"""The hint of Battle at Sarlacc's Pit (`jabba hint --game sarlaccs_pit`, docs/sarlaccs-pit.md
"Hints"): the own-engine games' hint (solver/hint/engine_hint.py) over a position read by
solver/sarlaccs_pit/situation.py. Scripted positions with a known best answer, the
posterior against exact hypergeometric odds, every bad input refused naming the fault and
what is allowed, the command line and the web API giving one answer, 2-4 players."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from typer.testing import CliRunner

import spiel_game  # noqa: F401  (registers the games)
from cli.main import app
from solver import games
from solver.hint.advice import answer
from solver.hint.answer import without_wall_times
from solver.hint.parse import SituationError
from solver.hint.request import HintRequest
from spiel_game.sarlacc import engine
from spiel_game.sarlacc import layout as L

runner = CliRunner()
EVERY_POST = ["left1", "left2", "left3", "left4", "left5", "right1", "right2", "right3",
              "right4", "right5", "nikto", "boba"]


def _hint(data: dict, rollouts: int = 200, seed: int = 0) -> dict:
    return answer(HintRequest.from_inputs({"game": "sarlaccs_pit", **data},
                                          rollouts=rollouts, seed=seed)).to_json()


def said(result) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def test_a_sure_win_is_found_with_its_exact_value():
    """S11: every guard defeated, my hero on a6 with a 1 and The Force: 'play 1, move to
    grey_a' ends next to Jabba, and The Force then defeats him: 4 points, the game over,
    my margin exactly 12 - 6 = +6 in every rollout. No other full action does better."""
    out = _hint({"positions": ["a6", "c3"], "defeated": EVERY_POST, "points": [8, 6],
                 "hand": ["1", "force", "2", "change_places"]}, rollouts=60)
    best = max(p["ev"] for p in out["full_actions"])
    assert best == pytest.approx(6.0)
    chosen = next(p for p in out["full_actions"]
                  if p["action"] == out["recommendation"]["action"])
    assert chosen["ev"] == pytest.approx(6.0) and chosen["ev_ci95"] == pytest.approx(0.0)
    assert out["recommendation"]["action"].endswith("play The Force on Jabba")
    wins = {p["action"] for p in out["full_actions"] if p["ev"] == pytest.approx(6.0)}
    assert "play 1, move to grey_a, play The Force on Jabba" in wins
    # drawing against Jabba instead risks the hero: worth less than the sure win
    draw = next(p for p in out["full_actions"]
                if p["action"] == "play 1, move to grey_a, draw against Jabba")
    assert draw["ev"] < 6.0


def test_a_move_that_challenges_a_guard_beats_one_that_does_not():
    """S6: from b2 with three 1s, a 1 to a1 challenges the Gamorrean of left1 (won with a
    Number or The Force drawn: about 25 of the 31 cards); b1, b3, c1 and c2 challenge
    nobody. Every one-step move is the same card, so only the challenge tells them
    apart: the hint takes a challenge, and each challenging line is worth more than
    every quiet one."""
    out = _hint({"positions": ["b2", "e6"], "hand": ["1", "1", "1"],
                 "discard": ["2", "3"]}, rollouts=400, seed=3)
    assert "challenge" in out["recommendation"]["action"] or \
        out["recommendation"]["action"] == "play 1, move to a1"
    values = {p["action"]: p["ev"] for p in out["full_actions"]}
    quiet = [values[f"play 1, move to {s}"] for s in ("b1", "b3", "c1", "c2")]
    assert values["play 1, move to a1"] > max(quiet)


def test_the_posterior_is_the_exact_deal_of_the_unseen_cards():
    """2 players: every combination of the other's four cards, weighted by its deals; the
    chance it holds a Force is the hypergeometric 1 - C(N - F, 4) / C(N, 4), N the
    unseen cards besides Jabba's and F the unseen Forces."""
    out = _hint({"positions": ["c2", "a3"], "defeated": ["left2"], "points": [0, 1],
                 "hand": ["2", "4", "force", "change_places"], "discard": ["3", "5"]},
                rollouts=16)
    unseen = 19 + 6 + 6 - 4 - 2
    forces = 6 - 1
    p_force = 1 - math.comb(unseen - forces, 4) / math.comb(unseen, 4)
    hand = {c["card"]: c for c in out["opponents"][0]["hand"]}
    assert hand["The Force"]["probability"] == pytest.approx(p_force)
    assert hand["The Force"]["expected"] == pytest.approx(4 * forces / unseen)
    assert out["posterior"]["exact"] is True
    assert sum(c["expected"] for c in hand.values()) == pytest.approx(4.0)
    assert out["situation"]["deck"] == 35 - 4 - 4 - 2  # Jabba's 4 cards in the pile


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_hint_answers_at_every_table_size(players):
    """2-4 players: every full action valued, the choice the rule's (nothing above it by
    more than its interval), the others' expected cards adding up to their hands, and the
    seeded answer repeating."""
    data = {"players": players, "positions": ["c2", "a3", "detention", "e4"][:players],
            "defeated": ["left2"], "points": [0, 1, 0, 0][:players],
            "hand": ["2", "4", "force", "change_places"], "seat": players - 1}
    out = _hint(data, rollouts=12)
    assert out["situation"]["players"] == players
    assert {p["action"].split(",")[0] for p in out["full_actions"]} == {
        p["action"] for p in out["plays"]}
    chosen = next(p for p in out["plays"]
                  if p["full_action"] == out["recommendation"]["action"])
    assert -chosen["vs_best"] <= chosen["vs_best_ci95"] + 1e-12
    assert [o["seat"] for o in out["opponents"]] == list(range(players - 1))
    for o in out["opponents"]:
        assert sum(c["expected"] for c in o["hand"]) == pytest.approx(4.0)
    assert out["posterior"]["exact"] is (players == 2)
    assert without_wall_times(_hint(data, rollouts=12)) == without_wall_times(out)


def test_the_position_is_an_engine_state_whose_cards_add_up():
    """The state a position makes: every card in a hand, the pile or the discard pile
    (Jabba's among them), my hero's legal plays the engine's, the block of S9 read."""
    from solver.sarlaccs_pit.hint import load, posterior

    data = {"positions": ["b6", "a3"], "jabba": "grey_b", "hand": ["1", "6", "force", "3"],
            "discard": ["jabba", "2"]}
    sit, game, player = load(data)
    request = HintRequest(sit, game, player, rollouts=4)
    post = posterior(request)
    world = post.worlds[0]
    total = (world[L.S_PILE:L.S_PILE + L.NUM_KINDS] + world[L.S_DISCARD:L.S_DISCARD
                                                             + L.NUM_KINDS]
             + world[L.S_HAND:L.S_HAND + 2 * L.NUM_KINDS].reshape(2, -1).sum(axis=0))
    assert total.tolist() == [3, 3, 3, 4, 3, 3, 6, 2, 2, 2, 4]
    assert world[L.S_HAND_N + 1] == 4 and world[L.S_PILE_N] == 35 - 10
    assert world[L.S_BLOCKED] == 1  # b6's line ends at grey_b, Jabba's (S9)
    acts = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    legal = acts[:engine.legal_actions(world, acts)].tolist()
    assert L.encode_play(L.FORCE) in legal and L.encode_play(0) not in legal


@pytest.mark.parametrize("data, message", [
    ({"positions": ["z9", "a3"]}, "positions (p0): 'z9' is not a space of board default "
     "(its spaces: entry, a1"),
    ({"positions": ["c2", "c2"]}, "positions: p0 and p1 both on 'c2'; a space holds one "
     "hero (S5)"),
    ({"positions": ["c2"]}, "positions: 1 given for 2 players"),
    ({"positions": ["left1", "a3"]}, "positions: p0 on 'left1', where a guard stands"),
    ({"positions": ["grey_a", "a3"]}, "positions: p0 on the Top Deck ('grey_a') while "
     "guards stand"),
    ({"hand": ["1", "2", "3", "4", "5"]}, "hand: 5 cards; a hand at the start of a turn "
     "holds 4 (3 after a Take The Force, S7), 1 to 4"),
    ({"hand": []}, "hand: 0 cards"),
    ({"hand": ["6", "6", "6", "6"]}, "card '6': 4 in your hand and the discard pile, but "
     "the deck holds 3"),
    ({"hand": ["force", "1", "2", "3"], "discard": ["force"] * 6},
     "card 'The Force': 7 in your hand and the discard pile, but the deck holds 6"),
    ({"hand": ["1", "2", "3", "jabba"]}, "hand: a Jabba card never stays in a hand (S8)"),
    ({"defeated": ["nikto"], "points": [2, 0]}, "nikto (nikto) defeated while Gamorreans "
     "stand (left1, left2, left3, left4, left5, right1, right2, right3, right4, right5): "
     "every Gamorrean is defeated before Nikto and Boba Fett (S6)"),
    ({"defeated": ["c3"]}, "'c3' is not a guard's post; the posts are left1, left2"),
    ({"defeated": ["left1"]}, "points: give every seat's Jedi points; the defeated guards "
     "are worth 1 in all (S13)"),
    ({"defeated": ["left1"], "points": [1, 1]}, "points [1, 1] add up to 2, but the "
     "defeated guards are worth 1"),
    ({"defeated": ["left1"], "guards_left": ["left2"]}, "defeated and guards_left both "
     "given: give one"),
    ({"jabba": "c3"}, "jabba='c3': Jabba stands on his start 'jabba' or a grey space"),
    ({"hand": ["1", "wookiee"]}, "unknown card 'wookiee': the cards are 1, 2, 3, 4, 5, 6, "
     "force, any_space, change_places, take_force, jabba"),
    ({"players": 5}, "players=5: a whole number from 2 to 4"),
    ({"seat": 2}, "seat=2: a whole number from 0 to 1"),
    ({"log": "p0 draw"}, "unknown field(s) log for sarlaccs_pit; allowed: game, players"),
    ({"players": 4, "positions": ["c2", "a3", "a1", "e1"], "hand_sizes": [4, 4, 4, 4],
      "hand": ["1", "1", "1", "2"],
      "discard": ["2", "2", "3", "3", "3", "4", "4", "4", "4", "5", "5", "5", "6", "6", "6",
                  "force", "force", "force", "force", "force", "force"]},
     "the others hold 12 cards, but only 6 cards besides Jabba's are neither yours nor in "
     "the discard pile"),
    ({"board": "nowhere"}, "board='nowhere': no such board; named boards are default, tiny"),
    ({"decision": "jabba_move"}, "hand: 4 cards; drawing after a Jabba card, a hand holds 0 "
     "to 3 (S4)"),
    ({"decision": "jabba_move", "hand": ["1"]}, "decision=jabba_move: the Jabba card you "
     "drew lies face up on the discard pile (S8); give it in discard"),
    ({"decision": "fight"}, "decision='fight': allowed are play, jabba_move"),
])
def test_bad_input_is_refused_naming_the_fault_and_what_is_allowed(data, message):
    base = {"positions": ["c2", "a3"], "hand": ["2", "4", "force", "change_places"]}
    with pytest.raises(SituationError) as err:
        HintRequest.from_inputs({"game": "sarlaccs_pit", **base, **data}, rollouts=4)
    assert message in str(err.value)


def test_a_board_file_that_breaks_its_checks_is_refused(tmp_path):
    """A board of one's own is checked (S1) before anything is read from it."""
    path = tmp_path / "barge.toml"
    path.write_text('entry = "e"\njabba_start = "j"\ntop_deck = ["j", "g"]\n'
                    '[spaces]\ne = 0\nx = 1\ng = 2\nj = 3\n'
                    '[neighbours]\ne = ["x"]\nx = ["e", "g"]\ng = ["x", "j"]\nj = []\n'
                    '[[line]]\nspaces = ["x"]\ngrey = "g"\n[[post]]\nspace = "x"\n'
                    'guard = "gamorrean"\n')
    with pytest.raises(SituationError, match="adjacency is not symmetric"):
        HintRequest.from_inputs({"game": "sarlaccs_pit", "board": str(path),
                                 "hand": ["1"]}, rollouts=4)


def test_the_command_line_and_the_web_api_give_one_answer(tmp_path):
    """`jabba hint --game sarlaccs_pit --json` and POST /api/hint, one seeded situation:
    the same answer but for wall times; the text answer names the recommendation."""
    pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2")
    from fastapi.testclient import TestClient

    from cli.web.app import create_app

    flags = ["hint", "--game", "sarlaccs_pit", "--positions", "c2,a3", "--defeated", "left2",
             "--points", "0,1", "--hand", "2,4,force,change_places", "--discard", "3,5",
             "--rollouts", "8", "--seed", "5"]
    result = runner.invoke(app, [*flags, "--json"])
    assert result.exit_code == 0, result.output
    from_cli = json.loads(result.output)
    body = {"game": "sarlaccs_pit", "positions": ["c2", "a3"], "defeated": ["left2"],
            "points": [0, 1], "hand": ["2", "4", "force", "change_places"],
            "discard": ["3", "5"]}
    with TestClient(create_app(warm=False)) as client:
        reply = client.post("/api/hint?rollouts=8&seed=5", json=body)
        assert reply.status_code == 200, reply.text
        assert without_wall_times(reply.json()) == without_wall_times(from_cli)
        refused = client.post("/api/hint", json={**body, "hand": ["1", "wookiee"]})
        assert refused.status_code == 422 and "unknown card 'wookiee'" in refused.text
        advice = client.get("/api/meta?game=sarlaccs_pit").json()["advice"]
        assert advice["form"] == "board" and len(advice["board"]["names"]) == 49
    text = runner.invoke(app, flags)
    assert text.exit_code == 0, text.output
    assert f"Recommended: {from_cli['recommendation']['action']}" in said(text)
    refused = runner.invoke(app, ["hint", "--game", "sarlaccs_pit", "--hand", "1,2",
                                  "--positions", "a1,a1"])
    assert refused.exit_code == 2 and "both on 'a1'" in said(refused)
    other = runner.invoke(app, ["hint", "--game", "sarlaccs_pit", "--hand", "1",
                                "--face-up", "guard"])
    assert other.exit_code == 2 and "--face-up" in said(other)


def test_the_example_situation_answers():
    """The adapter's example (the advice page's and the warm-up's) is a valid position."""
    out = _hint(games.adapter("sarlaccs_pit").example_situation, rollouts=4)
    assert out["situation"]["positions"] == ["c2", "a3"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_played_position_described_and_read_back_is_the_same_state(players):
    """Turn starts and Jabba moves of seeded random games (uniform play, true chance): the
    turn player's
    description (`mapping_of`) read back, with every seat's true hand dealt in, is the
    engine state in every field the rules read: heroes, guards, Jabba, points, hands, the
    draw and discard piles, S9's block, and the same legal plays."""
    import pyspiel

    from solver.sarlaccs_pit.hint import load
    from solver.sarlaccs_pit.situation import hint_decisions, mapping_of, present_state

    game = pyspiel.load_game("sarlaccs_pit", {"players": players})
    rng = np.random.default_rng(players)
    checked = 0
    for _ in range(6):
        stop = int(rng.integers(5, 60))
        s = next((s for s in hint_decisions(game, rng) if s[L.S_TURN] >= stop), None)
        if s is None:  # the game ended first
            continue
        sit, loaded, _ = load(mapping_of(s, game.config.board))
        hands = [s[L.S_HAND + q * L.NUM_KINDS:L.S_HAND + (q + 1) * L.NUM_KINDS]
                 for q in range(players)]
        made = present_state(loaded, sit, hands)
        fields = [(L.S_PILE, L.NUM_KINDS * (2 + L.MAX_PLAYERS) + L.MAX_PLAYERS * 3),
                  (L.S_GUARD, L.MAX_SPACES), (L.S_JABBA, 3), (L.S_PILE_N, 1),
                  (L.S_CUR, 1), (L.S_PHASE, 1), (L.S_BLOCKED, 1), (L.S_TURN, 1)]
        for at, size in fields:
            assert made[at:at + size].tolist() == s[at:at + size].tolist(), at
        acts, again = np.empty(L.NUM_ACTIONS, np.int32), np.empty(L.NUM_ACTIONS, np.int32)
        n = engine.legal_actions(s, acts)
        assert engine.legal_actions(made, again) == n and (acts[:n] == again[:n]).all()
        checked += 1
    assert checked >= 3


def test_a_drawn_jabba_card_asks_where_he_goes():
    """S8: after drawing a Jabba card, the options are the grey spaces free of heroes (his
    own included), each valued; with every guard defeated and p1 on grey_b, Jabba cannot
    go there. p1 on b6 of line b: Jabba on grey_b would block it (S9), and a line with a
    hero is worth blocking more than an empty one to p0 at c2 (not on line b)."""
    data = {"decision": "jabba_move", "hand": ["1", "force"], "discard": ["jabba", "3"],
            "positions": ["c2", "b6"], "defeated": ["left1"], "points": [1, 0]}
    out = _hint(data, rollouts=60, seed=2)
    assert out["situation"]["decision"] == "jabba_move"
    assert [p["action"] for p in out["plays"]] == [f"Jabba to grey_{c}" for c in "abcde"]
    assert all(p["steps"] == [] for p in out["plays"])  # the draw follows: nothing more now
    gone = {**data, "defeated": EVERY_POST, "points": [8, 6], "positions": ["c2", "grey_b"]}
    options = [p["action"] for p in _hint(gone, rollouts=4)["plays"]]
    assert options == [f"Jabba to grey_{c}" for c in "acde"]


def test_serve_game_sarlaccs_pit_opens_its_board_and_warms_its_hint():
    """`jabba serve --game sarlaccs_pit`: `/` builds the board form from the game's
    description (its board's spaces, where each is drawn, its posts), and the warm-up
    answers the adapter's example."""
    pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2")
    from fastapi.testclient import TestClient

    from cli.web.app import Warmup, compute_hint, create_app, make_game

    with TestClient(create_app(warm=False, game="sarlaccs_pit")) as client:
        meta = client.get("/api/meta").json()
    advice = meta["advice"]
    assert meta["default"] == "sarlaccs_pit" and advice["form"] == "board"
    board = advice["board"]
    assert len(board["drawing"]) == len(board["names"]) == len(board["neighbours"]) == 49
    assert [p["guard"] for p in board["posts"]].count("gamorrean") == 10
    warm = Warmup()
    warm.run(compute_hint, make_game, "sarlaccs_pit")
    assert warm.state == "ready", warm.detail
