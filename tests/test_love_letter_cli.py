"""Classic Love Letter (`--game love_letter`) on the commands a player uses: the hint
(classic card names, the Countess forced, a Guard that can name only one card, the search
on the classic table), the strategy table's export, the terminal game and its replay, and
the refusals (an agenda, a Jabba's Palace card, what a classic summary cannot say)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyspiel
import pytest
from typer.testing import CliRunner

import spiel_game  # noqa: F401  (registers the games)
from cli.main import app
from spiel_game.cards import CLASSIC_CHARACTERS, CHARACTERS
from solver.hint import advice
from solver.hint.situation import SituationError, from_mapping
from solver.play.log import load_game as log_game
from solver.play.log import read_header, read_lines, replay

runner = CliRunner()
CLASSIC_NAMES = {c.name for c in CLASSIC_CHARACTERS}
JABBA_ONLY = {c.name for c in CHARACTERS} - CLASSIC_NAMES  # every card but the Guard
# Seat 1 saw seat 0's Princess with the Priest; seat 0's Guard then missed seat 1.
PRINCESS_SEEN = {"game": "love_letter", "players": 2, "seat": 1,
                 "hand": ["guard", "handmaid"], "face_up": ["guard", "baron", "king"],
                 "areas": {"0": ["spy", "guard@1:5"], "1": ["priest@0"]},
                 "saw": {"0": "princess"}}


def said(result) -> str:
    """The command's output with the error panel's frame and line breaks taken out."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def _hint(data: dict, **kw) -> dict:
    sit = from_mapping(dict(data))
    return advice.hint(sit, advice.check_game(sit), rollouts=256, search_iterations=8,
                       seed=1, **kw)


def _words(answer: dict) -> set[str]:
    """Every card name the answer's plays and beliefs use."""
    names = {p["card"] for p in answer["plays"]} | set(answer["situation"]["hand"])
    return names | {c["card"] for o in answer["opponents"] for c in o["hand"]}


@pytest.mark.parametrize("other", ["king", "prince"])
def test_the_countess_held_with_the_king_or_a_prince_is_the_only_play(other):
    data = {"game": "love_letter", "players": 2, "seat": 0, "hand": ["countess", other],
            "face_up": ["guard", "guard", "baron"]}
    answer = _hint(data)
    assert answer["recommendation"] == {"action": "play Countess", "card": "Countess",
                                        "chosen_by": "rules", "steps": []}
    assert [p["action"] for p in answer["plays"]] == ["play Countess"]
    assert answer["policy"]["source"] == "rules" and "C3" in answer["policy"]["detail"]
    assert answer["situation"]["game"] == "love_letter"
    assert answer["situation"]["agenda"] is None
    # Held with a card that does not force her, the Countess is a choice like any other.
    free = _hint({**data, "hand": ["countess", "guard"]}, search=False)
    assert {p["card"] for p in free["plays"]} == {"Countess", "Guard"}


def test_a_guard_names_the_one_card_the_opponent_can_hold():
    answer = _hint(PRINCESS_SEEN)
    (p0,) = answer["opponents"]
    assert p0["hand"] == [{"card": "Princess", "probability": 1.0}]
    assert answer["policy"]["source"] == "search"
    assert answer["recommendation"]["action"] == "play Guard, name 9"
    guard = next(p for p in answer["plays"] if p["card"] == "Guard")
    # Naming the Princess knocks seat 0 out: seat 1 wins the round (margin +1, no Spy
    # token for seat 0, who is out), in every rollout.
    assert guard["full_action"] == "play Guard, name 9"
    assert guard["ev"] == pytest.approx(1.0) and guard["ev_ci95"] == pytest.approx(0.0)
    names = {o["action"] for o in guard["steps"][0]["options"]} if guard["steps"] else set()
    assert "name 1" not in names  # the classic Guard may not name the Guard (C2)
    assert _words(answer) <= CLASSIC_NAMES


def test_a_classic_log_is_read_with_classic_names_and_answered_by_the_search():
    game = pyspiel.load_game("love_letter", {"players": 2})
    state = game.new_initial_state()
    # Face up Guard, Baron, King; p0 is dealt the Priest, p1 the Handmaid; p0 draws the
    # Spy and plays it; p1 draws a Guard (their turn, a real decision).
    for a in (1, 3, 7, 2, 4, 0, 0, 1):
        state.apply_action(a)
    assert state.current_player() == 1 and sorted(state.legal_actions()) == [1, 4]
    text = state.information_state_string(1)
    assert "Handmaid" in text and "p0 plays Spy" in text
    answer = _hint({"game": "love_letter", "players": 2, "log": text})
    assert answer["situation"]["hand"] == ["Guard", "Handmaid"]
    assert answer["situation"]["described_by"] == "log"
    assert answer["policy"]["source"] == "search" and answer["policy"]["search"]["used"]
    assert answer["policy"]["tables"][0]["file"].endswith(
        "policy_full_love_letter_2p_fine.npz")
    assert _words(answer) <= CLASSIC_NAMES


def test_a_chancellor_summary_with_its_returned_cards():
    data = {"game": "love_letter", "players": 2, "seat": 1, "hand": ["baron", "guard"],
            "face_up": ["guard", "guard", "king"], "areas": {"0": ["spy"], "1": []},
            "deck": 13}
    base = _hint(data, search=False)
    # p1 played the Chancellor last turn and returned both Priests: p0 cannot hold one.
    data = {**data, "areas": {"0": ["spy", "guard@1:7"], "1": ["chancellor"]},
            "bottom": ["priest", "priest"], "deck": 11}
    answer = _hint(data, search=False)
    (p0,) = answer["opponents"]
    assert "Priest" not in {c["card"] for c in p0["hand"]}
    assert "Priest" in {c["card"] for c in base["opponents"][0]["hand"]}
    assert answer["situation"]["deck"] == 11
    with pytest.raises(SituationError, match="Chancellor"):
        from_mapping_checked({**data, "areas": {"0": ["spy", "guard@1:7"], "1": ["baron"]}})


def from_mapping_checked(data: dict):
    sit = from_mapping(data)
    return advice.hint(sit, advice.check_game(sit), rollouts=64, search=False)


def test_refusals_name_what_is_allowed():
    with pytest.raises(SituationError, match="Jabba the Hutt is a card of Jabba's Palace, "
                       "not of classic Love Letter.*Known cards.*Spy, Guard, Priest"):
        from_mapping({**PRINCESS_SEEN, "hand": ["jabba", "guard"]})
    with pytest.raises(SituationError, match="love_letter has no agendas"):
        from_mapping({**PRINCESS_SEEN, "agenda": "exalted_one"})
    with pytest.raises(SituationError, match="game='uno'.*jabbas_palace, love_letter"):
        from_mapping({**PRINCESS_SEEN, "game": "uno"})
    with pytest.raises(SituationError, match="give the round's event log"):
        from_mapping_checked({**PRINCESS_SEEN, "areas": {"0": ["prince@1", "guard@1:5"],
                                                         "1": ["priest@0"]}})
    with pytest.raises(SituationError, match="no classic Love Letter card shows"):
        from_mapping_checked({**PRINCESS_SEEN, "set_aside": "king"})


def test_the_hint_command_refuses_an_agenda_and_says_the_game_in_json():
    flags = ["hint", "--game", "love_letter", "--seat", "1", "--hand", "guard,handmaid",
             "--face-up", "guard,baron,king", "--area", "0=spy,guard@1:5",
             "--area", "1=priest@0", "--saw", "0=princess"]
    result = runner.invoke(app, [*flags, "--agenda", "exalted_one"])
    assert result.exit_code == 2
    assert "applies only to --game jabbas_palace" in said(result)
    assert "love_letter has no agendas" in said(result)
    result = runner.invoke(app, [*flags[:5], "--hand", "jabba,guard"])
    assert result.exit_code == 2 and "not of classic Love Letter" in said(result)
    result = runner.invoke(app, [*flags, "--json", "--no-search", "--seconds", "1e-6"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output[result.output.index("{"):])
    assert answer["situation"]["game"] == "love_letter"
    assert answer["recommendation"]["action"] == "play Guard, name 9"
    forced = runner.invoke(app, ["hint", "--game", "love_letter", "--hand", "countess,king",
                                 "--face-up", "guard,guard,baron"])
    assert forced.exit_code == 0 and "Play: play Countess" in said(forced)


def test_export_writes_the_classic_table_with_classic_words(tmp_path):
    out = tmp_path / "classic.jsonl"
    result = runner.invoke(app, ["export", "--game", "love_letter", "--format", "jsonl",
                                 "--rounds", "40", "--out", str(out)])
    assert result.exit_code == 0, result.output
    header, *rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert header["header"]["game"]["name"] == "love_letter"
    assert header["header"]["policy_header"]["game"]["name"] == "love_letter"
    assert rows and {r["level"] for r in rows} == {"fine"}
    by_key: dict[str, float] = {}
    for r in rows:
        by_key[r["key"]] = by_key.get(r["key"], 0.0) + r["probability"]
        words = r["information_state"].replace(";", " ").replace("+", " ")
        assert not any(name in words for name in JABBA_ONLY), r
        kind, _, arg = r["action"].partition(" ")
        if kind == "play":
            assert arg in CLASSIC_NAMES
        assert r["action"] != "name 1"  # C2
    # The table's 8-bit probabilities of a key's actions sum to one.
    assert all(abs(total - 1.0) < 0.02 for total in by_key.values())
    result = runner.invoke(app, ["export", "--game", "love_letter", "--agenda",
                                 "jabbas_court", "--out", str(out)])
    assert result.exit_code == 2 and "has no agendas" in said(result)


def test_a_classic_game_plays_and_its_log_replays_as_classic(tmp_path):
    log = tmp_path / "classic.jsonl"
    result = runner.invoke(app, ["play", "--game", "love_letter", "--seat", "0",
                                 "--against", "classic_expert", "--seed", "2", "--log",
                                 str(log)], input="1\n" * 60)
    assert result.exit_code == 0, result.output
    assert "2 players, love_letter" in said(result) and "round 1 over" in said(result)
    header = read_header(log, read_lines(log))
    assert header["game"]["name"] == "love_letter"
    assert "agenda" not in header["game"]["parameters"]
    assert log_game(header).get_type().short_name == "love_letter"
    session = replay(log)
    assert session.over and session.game.get_type().short_name == "love_letter"
    again = tmp_path / "again.jsonl"
    result = runner.invoke(app, ["play", "--replay", str(log), "--log", str(again)])
    assert result.exit_code == 0, result.output
    assert again.read_text() == log.read_text()
    # The log's words are classic ones; --game with --replay is refused (the header says).
    texts = [json.loads(x).get("text", "") for x in log.read_text().splitlines()]
    assert any("Spy" in t or "Princess" in t or "Countess" in t for t in texts)
    result = runner.invoke(app, ["play", "--replay", str(log), "--game", "love_letter"])
    assert result.exit_code == 2 and "the log's header gives the game" in said(result)


def test_a_jabbas_palace_log_header_still_loads_jabbas_palace(tmp_path):
    log = tmp_path / "jabba.jsonl"
    result = runner.invoke(app, ["play", "--seat", "0", "--against", "agenda_expert",
                                 "--seed", "1", "--log", str(log)], input="1\n" * 60)
    assert result.exit_code == 0, result.output
    header = read_header(log, read_lines(log))
    assert log_game(header).get_type().short_name == "jabbas_palace"
    # A header from before the game had a name: jabbas_palace.
    old = {**header, "game": dict(header["game"]["parameters"])}
    assert log_game(old).get_parameters()["agenda"] == "exalted_one"
    assert replay(log).over


def test_search_commands_take_or_refuse_the_classic_game(tmp_path):
    result = runner.invoke(app, ["search-exact", "--game", "love_letter", "--agendas",
                                 "exalted_one"])
    assert result.exit_code == 2 and "has no agendas" in said(result)
    result = runner.invoke(app, ["search-duel", "--game", "love_letter", "--agendas",
                                 "exalted_one"])
    assert result.exit_code == 2 and "has no agendas" in said(result)
    out = tmp_path / "duel.csv"
    result = runner.invoke(app, ["search-duel", "--game", "love_letter", "--deals", "1",
                                 "--search-iterations", "2", "--opponents", "table",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads(Path(out.with_suffix(".json")).read_text())
    assert record["game"]["name"] == "love_letter"
    assert [r["agenda"] for r in record["rows"]] == ["love_letter"]
    # the search-aware LBR: its bound and how much of its belief the search weighed
    result = runner.invoke(app, ["search-duel", "--game", "love_letter", "--deals", "1",
                                 "--search-iterations", "2", "--opponents", "search-lbr",
                                 "--lbr-searches", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(Path(out.with_suffix(".json")).read_text())["rows"]
    assert [r["opponent"] for r in rows] == ["table", "search-lbr"]
    lbr = rows[1]
    assert lbr["lbr_lower_bound"] == -lbr["margin"] and "at most 2 searched" in lbr["lbr"]
    assert lbr["lbr_model"]["searches"] > 0 and lbr["lbr_model"]["decisions"] > 0


def test_the_web_api_hints_classic_love_letter_and_its_pages_refuse_it():
    pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2")
    from fastapi.testclient import TestClient

    from cli.web.app import create_app

    with TestClient(create_app(warm=False)) as client:
        answer = client.post("/api/hint?seconds=1e-6&search=false", json=PRINCESS_SEEN)
        assert answer.status_code == 200, answer.text
        assert answer.json()["situation"]["game"] == "love_letter"
        assert answer.json()["recommendation"]["action"] == "play Guard, name 9"
        refused = client.post("/api/hint", json={**PRINCESS_SEEN, "agenda": "exalted_one"})
        assert refused.status_code == 422 and "has no agendas" in refused.text
        game = client.post("/api/play/new", json={"game": "love_letter"})
        assert game.status_code == 422 and "jabbas_palace only" in game.text
