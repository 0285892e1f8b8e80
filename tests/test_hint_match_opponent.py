"""`jabba hint --score` (match-aware advice) and `--opponent` (exploiting a model), on the
command line and through the web API (docs/match.md, docs/opponents.md)."""

import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from solver.hint.answer import without_wall_times

runner = CliRunner()
SPOT = ["hint", "--hand", "jabba,guard", "--face-up", "crumb,bib,merc", "--area", "0=han",
        "--seat", "1", "--seconds", "0.05", "--search-iterations", "8", "--seed", "3"]
SITUATION = {"players": 2, "seat": 1, "hand": ["jabba", "guard"],
             "face_up": ["crumb", "bib", "mercenary"], "areas": {"0": ["han"]}}


def hint_json(*flags):
    result = runner.invoke(app, [*SPOT, *flags, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def refused(*flags) -> str:
    result = runner.invoke(app, [*SPOT, *flags], env={"COLUMNS": "300"}, terminal_width=300)
    assert result.exit_code == 2, result.output
    return result.output


def test_a_hint_with_the_score_plays_for_the_match():
    from solver.match.value import read_match_values, shipped_match_values

    import pyspiel

    a = hint_json("--score", "2,4")
    assert a["schema_version"] == 5
    match = a["match"]
    assert match["standings"] == [2, 4] and match["goal"] == 6
    game = pyspiel.load_game("jabbas_palace", {"players": 2})
    values = read_match_values(shipped_match_values(game), game)
    assert match["match_win_now"] == pytest.approx(list(values.at((2, 4), 0)), abs=1e-12)
    for play in a["plays"]:
        assert 0.0 <= play["match_win"] <= 1.0 and 0.0 <= play["search_match_win"] <= 1.0
        assert -1.0 <= play["search_value"] <= 1.0  # the match utility w_me - w_other
    best = max(a["plays"], key=lambda p: p["ev"])
    assert match["disagrees"] == (best["card"] != a["recommendation"]["card"])
    assert "match_win" not in hint_json()["plays"][0]  # without --score: the round


@pytest.mark.parametrize("flags, message", [
    (("--score", "6,0"), "--score: score 6 of seat 0: allowed is a whole number from 0 to 5"),
    (("--score", "1,2,3"), "--score: 3 scores (1, 2, 3) for 2 players"),
    (("--score", "a,b"), "--score: 'a,b': expected whole numbers"),
    (("--score", "5,5", "--rounds-played", "2"), "2 round(s) hand out at most 6 tokens"),
    (("--match-goal", "4",), "--match-goal: applies only with --score"),
    (("--exploit", "best-response"), "--exploit: applies only with --opponent"),
    (("--opponent", "1=keep_higher"), "--opponent: '1=keep_higher': seat '1'"),
    (("--opponent", "0=nobody"), "--opponent: unknown model 'nobody'"),
    (("--opponent", "0=keep_higher", "--exploit", "greedy"), "--exploit: 'greedy'"),
    (("--opponent", "0=keep_higher", "--confidence", "1.5"), "--confidence: 1.5"),
])
def test_bad_match_and_model_flags_are_refused(flags, message):
    assert message in refused(*flags)


def test_opponent_models_need_two_players():
    result = runner.invoke(app, ["hint", "--players", "3", "--hand", "jabba,guard",
                                 "--seat", "0", "--opponent", "1=keep_higher"])
    assert result.exit_code == 2 and "2 players" in result.output


@pytest.mark.parametrize("model", ["keep_higher", "keep_lower"])
def test_the_best_response_to_a_model_gains_against_it(model):
    """The best response's line is the best against the model, so its expected gain over
    the unexploiting search is never negative; the types' weights are a posterior."""
    a = hint_json("--opponent", f"0={model}", "--exploit", "best-response")
    m = a["opponent_model"]
    assert m["used"] and m["seat"] == 0 and m["mode"] == "best-response"
    assert sum(m["types"].values()) == pytest.approx(1.0)
    assert m["expected_gain"] >= -1e-9
    assert all("unexploiting_probability" in p for p in a["plays"])
    safe = hint_json("--opponent", f"0={model}", "--confidence", "0.3")["opponent_model"]
    assert safe["mode"] == "safe" and set(safe["types"]) == {"0", "free"}


def test_the_web_api_answers_as_the_command_line():
    from fastapi.testclient import TestClient

    from cli.web.app import create_app

    flags = ["--score", "3,1", "--opponent", "0=keep_higher"]
    cli = hint_json(*flags)
    with TestClient(create_app(warm=False)) as client:
        web = client.post("/api/hint?seconds=0.05&search_iterations=8&seed=3&score=3,1"
                          "&opponent=0=keep_higher", json=SITUATION)
        assert web.status_code == 200, web.text
        bad = client.post("/api/hint?score=9,9", json=SITUATION)
        assert bad.status_code == 400 and "from 0 to 5" in bad.text
    got, cli = without_wall_times(web.json()), without_wall_times(cli)
    assert got["match"] == cli["match"] and got["opponent_model"] == cli["opponent_model"]
    assert got["recommendation"] == cli["recommendation"]
