"""The web app's JSON API (cli/web/app.py) through FastAPI's test client: the hint answer
is the command line's, refusals are 4xx with the command line's message, games play to
their end and log what the terminal game logs, concurrent requests get their own answers,
the server warms up, stops on Ctrl-C and refuses a port in use."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app as cli_app
from solver.hint.answer import without_wall_times
from cli.web.app import MAX_BODY_BYTES, MAX_JSON_DEPTH, BadRequest, _situation, create_app
from solver.play import COACH_SEARCH_ITERATIONS, OPPONENT_SEARCH_ITERATIONS
from solver.play.log import LogWriter, opponent_fields, replay
from solver.play.opponents import resolve
from solver.play.session import Session
from tests.conftest import load

pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2")
from fastapi.testclient import TestClient  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = "1e-6"  # rollout seconds: the hint's minimum of 64 rollouts, the same every run
runner = CliRunner()
README = {"players": 2, "seat": 1, "hand": ["jabba", "guard"],
          "face_up": ["crumb", "bib", "merc"], "areas": {"0": ["han"]}}
PASTED = {"log": "p1 hand:[Jabba the Hutt,Bib Fortuna] | face-up Mercenary; face-up "
          "Salacious Crumb; face-up Bib Fortuna; p0 gets ? (deal); p1 gets Jabba the Hutt "
          "(deal); p0 gets ? (deck); p0 plays Han Solo; p1 gets Bib Fortuna (deck)"}
THREE = {"players": 3, "seat": 0, "hand": ["jabba", "bib"], "areas": {
    "0": ["crumb@2"], "1": ["guard"], "2": ["han"]}, "saw": {"2": "leia"}}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(warm=False)) as c:
        yield c


def timeless(answer: dict) -> dict:
    """An answer without its wall times (the only fields a rerun may change)."""
    return without_wall_times(json.loads(json.dumps(answer)))


def cli_hint(tmp_path: Path, situation: dict, *flags: str):
    path = tmp_path / "situation.json"
    path.write_text(json.dumps(situation))
    return runner.invoke(cli_app, ["hint", "--situation", str(path), *flags])


@pytest.mark.parametrize("situation", [README, PASTED, THREE], ids=["summary", "log", "3p"])
def test_the_hint_answer_is_the_command_lines(client, tmp_path, situation):
    cli = cli_hint(tmp_path, situation, "--seconds", TINY, "--seed", "7",
                   "--search-iterations", "8", "--json")
    assert cli.exit_code == 0, cli.output
    web = client.post(f"/api/hint?seconds={TINY}&seed=7&search_iterations=8", json=situation)
    assert web.status_code == 200, web.text
    assert timeless(web.json()) == timeless(json.loads(cli.stdout))


def test_prior_only_beliefs_are_the_command_lines_and_said(client, tmp_path):
    """--prior-only (web: prior_only): the chance odds alone, said in the basis; the same
    answer both ways."""
    cli = cli_hint(tmp_path, README, "--seconds", TINY, "--seed", "7",
                   "--search-iterations", "8", "--prior-only", "--json")
    assert cli.exit_code == 0, cli.output
    web = client.post(f"/api/hint?seconds={TINY}&seed=7&search_iterations=8&prior_only=true",
                      json=README)
    assert web.status_code == 200, web.text
    answer = web.json()
    assert timeless(answer) == timeless(json.loads(cli.stdout))
    assert answer["posterior"]["basis"].startswith("the chance odds alone")
    plain = client.post(f"/api/hint?seconds={TINY}&seed=7&search_iterations=8", json=README)
    assert plain.json()["posterior"]["basis"].startswith("Bayes")


BAD_SITUATIONS = [
    {**README, "hand": ["jabba", "jabba"]},  # more copies than exist
    {**README, "hand": ["jabba"]},  # a hand of one card
    {**README, "hand": ["jaba", "guard"]},  # an unknown card, with suggestions
    {**README, "out": [0], "protected": [0]},  # out and protected
    {**README, "deck": 3},  # a deck count that cannot be
    {**README, "saw": {"0": "luke"}},  # knowledge no event explains
    {**README, "players": 8},
    {**README, "agenda": "galactic"},
    {**README, "seat": 5},
    {**README, "colour": "red"},  # an unknown field
    {**PASTED, "seat": 0},  # the pasted information state is seat 1's
    {"log": "p0 dances"},  # not an event
]


def test_every_refused_situation_is_a_422_with_the_command_lines_message(client, tmp_path):
    for situation in BAD_SITUATIONS:
        web = client.post(f"/api/hint?seconds={TINY}", json=situation)
        assert web.status_code == 422, (situation, web.text)
        detail = web.json()["detail"]
        assert detail.startswith("impossible situation: ")
        cli = cli_hint(tmp_path, situation, "--seconds", TINY)
        assert cli.exit_code == 2
        assert cli.stderr.strip().splitlines()[-1] == f"Error: {detail}", situation


def test_bad_requests_are_4xx_never_500(client, tmp_path):
    array = tmp_path / "array.json"
    array.write_text("[1, 2]")
    cli = runner.invoke(cli_app, ["hint", "--situation", str(array)])
    not_a_table = client.post("/api/hint", content=b"[1, 2]")
    assert not_a_table.status_code == 400
    assert not_a_table.json()["detail"] in " ".join(cli.output.replace("│", " ").split())
    cases = [
        client.post("/api/hint", content=b"{oops"),
        client.post("/api/hint", content=b"\xff\xfe"),
        client.post("/api/hint?seconds=0", json=README),
        client.post("/api/hint?seconds=1e9", json=README),
        client.post("/api/hint?seed=-1", json=README),
        client.post("/api/play/new", json={"players": 9}),
        client.post("/api/play/new", json={"seat": 3}),
        client.post("/api/play/new", json={"against": "search", "players": 5}),
        client.post("/api/play/new", json={"against": "search", "players": 4}),
        client.post("/api/play/new", json={"against": "search",
                                           "opponent_search_iterations": 0}),
        client.post("/api/play/new", json={"coach": True, "coach_search_iterations": 1e6}),
        client.post("/api/hint?search_iterations=0", json=README),
        client.post("/api/play/new", json={"opponent_search_iterations": 8}),
        client.post("/api/play/new", json={"coach_seconds": 1}),
        client.post("/api/play/new", json={"coach": True, "coach_search": False,
                                           "coach_search_iterations": 8}),
        client.post("/api/play/new", json={"against": "results/x.npz"}),
        client.post("/api/play/new", json={"agenda": "galactic"}),
        client.post("/api/play/new", content=b"[]"),
        client.post("/api/play/nope/act", json={"action": 0}),
        client.get("/api/play/nope"),
        client.post("/api/hint", json={**README, "out": 1.5}),  # the fuzz's TypeError
    ]
    for response in cases:
        assert 400 <= response.status_code < 500, (response.request.url, response.text)
        assert "Traceback" not in response.text and response.json()["detail"]
    assert "the search plays up to 3 players, not 5" in cases[7].json()["detail"]
    assert "the search plays up to 3 players, not 4" in cases[8].json()["detail"]
    assert cases[9].json()["detail"].startswith("opponent_search_iterations: ")
    assert cases[10].json()["detail"].startswith("coach_search_iterations: ")
    assert cases[11].json()["detail"].startswith("search_iterations: ")
    assert cases[12].json()["detail"] == ("opponent_search_iterations: applies only with "
                                          "against search")
    assert cases[13].json()["detail"] == "coach_seconds: applies only with coach true"
    assert "applies only with coach_search true" in cases[14].json()["detail"]
    assert cases[-1].json()["detail"] == (
        "impossible situation: a field of a JSON type a situation does not take "
        "(docs/hint.md, 'The situation'): out: 1.5 (allowed is an array of integers)")


def test_request_bodies_are_size_limited(client):
    big = b'{"log": "' + b"x" * MAX_BODY_BYTES + b'"}'
    assert client.post("/api/hint", content=big).status_code == 413

    def streamed():  # no Content-Length: the limit counts the bytes as they come
        for _ in range(MAX_BODY_BYTES // 1000 + 2):
            yield b" " * 1000

    assert client.post("/api/hint", content=streamed()).status_code == 413


def test_deeply_nested_bodies_are_a_400_on_every_route(client):
    """5,000 levels of arrays (the tracker's RecursionError, a 500) are refused before any
    JSON parser recurses, on every route that takes a body; MAX_JSON_DEPTH levels and
    brackets inside strings are not."""
    key = client.post("/api/play/new", json={"seed": 1}).json()["id"]
    deep = b'{"a":' + b"[" * 5000 + b"]" * 5000 + b"}"
    for route in (f"/api/hint?seconds={TINY}", "/api/play/new", f"/api/play/{key}/act",
                  f"/api/play/{key}/next"):
        for content_type in ("application/json", None):
            headers = {"content-type": content_type} if content_type else {}
            reply = client.post(route, content=deep, headers=headers)
            assert reply.status_code == 400, (route, reply.text)
            assert reply.json()["detail"] == (
                f"JSON nested more than {MAX_JSON_DEPTH} levels deep (byte {4 + MAX_JSON_DEPTH})"
                f"; allowed are at most {MAX_JSON_DEPTH} levels of arrays and objects inside "
                "each other (a situation or a game needs at most 3)")
    within = "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1)
    reply = client.post(f"/api/hint?seconds={TINY}", content=f'{{"a": {within}}}')
    assert reply.status_code == 422 and "unknown field(s) ['a']" in reply.json()["detail"]
    quoted = json.dumps({**README, "log": "[{" * 5000 + '\\"'})  # in a string: no depth
    reply = client.post(f"/api/hint?seconds={TINY}", content=quoted)
    assert reply.status_code == 422 and "log" in reply.json()["detail"]
    closed = b'{"log": "\\\\"' + b"[" * (MAX_JSON_DEPTH + 1)  # an escaped \\, then "
    assert client.post(f"/api/hint?seconds={TINY}", content=closed).json()["detail"].startswith(
        "JSON nested more than")
    still_open = b'{"log": "\\"' + b"[" * (MAX_JSON_DEPTH + 1)  # an escaped ": in the string
    assert client.post(f"/api/hint?seconds={TINY}", content=still_open).json()[
        "detail"].startswith("not valid JSON: Unterminated string")
    with pytest.raises(BadRequest, match="nested too deep") as refused:  # the parser's own
        _situation(b"[" * 100_000)  # RecursionError, had a body got past the check
    assert refused.value.status == 400


def _play_first_choices(client, spec: dict) -> tuple[str, list[dict]]:
    """A game through the API, always the first choice; (id, every reply)."""
    reply = client.post("/api/play/new", json=spec)
    assert reply.status_code == 200, reply.text
    key, replies = reply.json()["id"], [reply.json()]
    while not replies[-1]["view"]["match_over"]:
        view = replies[-1]["view"]
        if view["round_over"]:
            reply = client.post(f"/api/play/{key}/next")
        else:
            assert view["waiting"] and view["legal"]
            reply = client.post(f"/api/play/{key}/act", json={"action": view["legal"][0]["action"]})
        assert reply.status_code == 200, reply.text
        replies.append(reply.json())
    return key, replies


@pytest.mark.parametrize("against", ["table", "search"])
def test_a_seeded_round_through_the_api_is_the_terminal_game(client, tmp_path, against):
    spec = {"seed": 3, "seat": 0, "coach": True, "coach_seconds": float(TINY),
            "coach_search_iterations": 4, "against": against,
            **({"opponent_search_iterations": 4} if against == "search" else {})}
    key, replies = _play_first_choices(client, spec)
    final = replies[-1]["view"]
    assert final["round_over"] and all(s["hand"] is not None for s in final["seats"])
    verdicts = [r["verdict"] for r in replies if r["verdict"]]
    assert verdicts and replies[-1]["coach"]["coached"] == sum(v["coached"] for v in verdicts)
    searched = [v["search"] for v in verdicts if v["coached"] and v["search"]["used"]]
    assert searched and all(s["iterations"] == 4 for s in searched)
    log = client.get(f"/api/play/{key}/log")
    assert log.status_code == 200 and log.headers["content-type"].startswith("application/x-ndjson")
    web_lines = log.text.splitlines()
    # The same game in the library (what `jabba play` runs), the same choices.
    game = load()
    own = tmp_path / "own.jsonl"
    with own.open("w") as stream:
        writer = LogWriter(stream)
        writer.header(game, seat=0, against=against, seed=3, match=False,
                      **opponent_fields(against, 4))
        session = Session(game, 0, resolve(against, game, 3, search_iterations=4), seed=3,
                          record=writer.write)
        session.advance()
        while not session.round_over:
            session.act(session.legal()[0][0])
    assert web_lines[1:] == own.read_text().splitlines()[1:]
    header = json.loads(web_lines[0])
    budget = " --opponent-search-iterations 4" if against == "search" else ""
    assert header["command"] == f"jabba play --seat 0 --against {against}{budget} --players " \
                                "2 --agenda exalted_one --seed 3"
    assert header.get("opponent_search_iterations") == (4 if against == "search" else None)
    path = tmp_path / "web.jsonl"
    path.write_text(log.text)
    assert replay(path).over
    refused = client.post(f"/api/play/{key}/act", json={"action": 0})
    assert refused.status_code == 422 and "not your turn" in refused.json()["detail"]
    assert client.post(f"/api/play/{key}/next").status_code == 422


def test_a_match_through_the_api_reaches_the_token_goal(client):
    key, replies = _play_first_choices(client, {"seed": 5, "players": 3, "seat": 2,
                                                "against": "agenda_expert", "match": True})
    final = replies[-1]["view"]
    assert max(final["totals"]) >= final["goal"] == 5 and final["match_over"]
    assert final["result"]["match_winners"] == [t for t, k in enumerate(final["totals"])
                                                if k >= 5]
    assert len({r["view"]["round"] for r in replies}) == final["round"] > 1


def test_concurrent_hints_each_get_their_own_answer(client):
    seeds = list(range(8))
    query = f"seconds={TINY}&search_iterations=8"  # repeatable: no time budget
    alone = {s: timeless(client.post(f"/api/hint?{query}&seed={s}", json=README).json())
             for s in seeds}
    answers, errors = {}, []

    def ask(seed):
        try:
            reply = client.post(f"/api/hint?{query}&seed={seed}", json=README)
            answers[seed] = (reply.status_code, timeless(reply.json()))
        except Exception as err:  # noqa: BLE001  (reported below)
            errors.append(err)

    threads = [threading.Thread(target=ask, args=(s,)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert {s: a for s, (code, a) in answers.items() if code == 200} == alone
    assert len({json.dumps(a["plays"]) for a in alone.values()}) > 1  # seeds differ


def test_warm_up_status_pages_and_schema():
    with TestClient(create_app(warm=True)) as c:
        deadline = time.time() + 300
        while c.get("/api/status").json()["state"] == "warming" and time.time() < deadline:
            time.sleep(0.2)
        status = c.get("/api/status").json()
        assert status["state"] == "ready" and status["seconds"] is not None, status
        assert "Click the cards" in c.get("/").text and 'id="legal"' in c.get("/play").text
        assert c.get("/static/app.js").headers["content-type"].startswith(
            ("application/javascript", "text/javascript"))
        meta = c.get("/api/meta").json()
        assert [card["name"] for card in meta["cards"]][:2] == ["Han Solo", "Guard"]
        assert {"table", "search", "agenda_expert"} <= set(meta["opponents"])
        assert meta["defaults"] == {"opponent_search_iterations": OPPONENT_SEARCH_ITERATIONS,
                                    "coach_search_iterations": COACH_SEARCH_ITERATIONS}
        schema = c.get("/openapi.json").json()
        for route in ("/api/hint", "/api/status", "/api/play/new", "/api/play/{key}",
                      "/api/play/{key}/act", "/api/play/{key}/next", "/api/play/{key}/log"):
            assert route in schema["paths"], route
        body = schema["paths"]["/api/hint"]["post"]["requestBody"]["content"]
        assert "hand" in body["application/json"]["schema"]["properties"]


def test_the_server_stops_cleanly_on_ctrl_c_and_refuses_a_port_in_use():
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--port", "0"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        first = server.stdout.readline()
        url = first.split()[1]
        assert url.startswith("http://127.0.0.1:"), first
        deadline = time.time() + 300
        while time.time() < deadline:
            with urllib.request.urlopen(url + "api/status", timeout=10) as r:
                if json.load(r)["state"] != "warming":
                    break
            time.sleep(0.5)
        request = urllib.request.Request(url + f"api/hint?seconds={TINY}",
                                         data=json.dumps(README).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as r:
            assert json.load(r)["recommendation"]["card"] == "Guard"
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        busy = runner.invoke(cli_app, ["serve", "--port", str(port)])
        assert busy.exit_code == 2 and "cannot listen on 127.0.0.1 port" in busy.output
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_every_static_file_is_package_data():
    """pyproject.toml's package data for cli.web takes static/* (no subfolders): so a
    non-editable install (`pip install .`) serves every page."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["cli.web"]
    static = ROOT / "cli" / "web" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.rglob("*") if p.is_file()]
    pages = {"static/index.html", "static/play.html", "static/app.js", "static/style.css"}
    assert pages <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) and "/" not in name[len("static/"):]
                   for pattern in patterns), name


@pytest.mark.parametrize("query, option", [
    ("exploit=best-response", "exploit"), ("confidence=0.7", "confidence"),
    ("match_goal=4", "match_goal"), ("rounds_played=2", "rounds_played"),
    ("score=3,x", "score"), ("score=6,0", "score"),
    ("opponent=1%3Dkeep_higher", "opponent")])
def test_a_hint_option_the_request_refuses_is_a_400_naming_it(client, query, option):
    """The web API reads its options through the command line's HintRequest: the same
    refusals (the web copy had skipped the exploit and confidence checks)."""
    from solver.hint.request import HintInputError, HintRequest

    answer = client.post(f"/api/hint?{query}", json=README)
    assert answer.status_code == 400, answer.text
    key, _, value = query.partition("=")
    value = {"exploit": value, "confidence": float(value) if key == "confidence" else None,
             "match_goal": 4, "rounds_played": 2, "score": value.replace("%2C", ","),
             "opponent": ["1=keep_higher"]}[key]
    with pytest.raises(HintInputError) as err:
        HintRequest.from_inputs(dict(README), **{key: value})
    assert err.value.option == option
    assert answer.json()["detail"] == f"{option}: {err.value}"


def test_the_advice_page_describes_every_game_from_its_adapter(client):
    """GET /api/meta?game=NAME: the one advice page's form for each game (its adapter's
    description); without a game, the served one's; the games for the picker."""
    from solver import games

    meta = client.get("/api/meta").json()
    assert meta["default"] == games.DEFAULT == meta["advice"]["game"]
    assert [g["name"] for g in meta["games"]] == list(games.taking("hint"))
    for name in games.taking("hint"):
        described = client.get(f"/api/meta?game={name}").json()["advice"]
        assert described == json.loads(json.dumps(games.adapter(name).advice()))
    classic = client.get("/api/meta?game=love_letter").json()["advice"]
    assert classic["form"] == "cards" and classic["agendas"] == []
    assert [c["name"] for c in classic["cards"]][:3] == ["Spy", "Guard", "Priest"]
    assert classic["numbers"] == list(range(10))  # the Princess is a 9
    page = client.get("/?game=love_letter").text
    assert '<template id="form-cards">' in page and '<template id="form-events">' in page


@pytest.mark.parametrize("path, status, detail", [
    ("/api/meta?game=chess", 400,
     "game: unknown game 'chess': the games are jabbas_palace, love_letter, han_solo, "
     "sarlaccs_pit"),
    ("/api/meta?game=" + "x" * 65, 422, "game: String should have at most 64 characters"),
])
def test_a_page_for_an_unknown_game_is_refused_naming_the_games(client, path, status,
                                                                 detail):
    reply = client.get(path)
    assert reply.status_code == status and reply.json()["detail"] == detail


@pytest.mark.parametrize("body, query, status, detail", [
    ({"game": "chess", "hand": ["guard"]}, "", 422,
     "impossible situation: game='chess': allowed are jabbas_palace, love_letter, han_solo, "
     "sarlaccs_pit"),
    ({"game": "sarlaccs_pit", "hand": ["guard"]}, "", 422,
     "impossible situation: unknown card 'guard': the cards are 1, 2, 3, 4, 5, 6, force, "
     "any_space, change_places, take_force, jabba"),
    ({"game": "love_letter", "agenda": "exalted_one", "hand": ["guard", "baron"]}, "", 422,
     "impossible situation: agenda='exalted_one': love_letter has no agendas (the highest "
     "card wins at the deck's end, docs/RULES.md C8); agendas are jabbas_palace's"),
    ({"game": "han_solo", "face_up": ["guard"], "log": "p0 draw"}, "", 422,
     "impossible situation: unknown field(s) ['face_up'] (face_up: Love Letter fields; "
     "han_solo has none); allowed for han_solo: ['game', 'hand', 'log', 'params', "
     "'players', 'pot', 'seat', 'turn', 'utility']"),
    ({"game": "han_solo", "players": 7, "log": "p0 draw"}, "", 422,
     "impossible situation: players=7: must be a whole number from 2 to 6"),
    ({"game": "han_solo", "hand": ["green +4"], "log": "p0 draw"}, "score=1,2", 400,
     "score: applies only to jabbas_palace or love_letter: han_solo has no match values "
     "or opponent models"),
])
def test_a_bad_hint_request_of_each_game_says_what_is_wrong(client, body, query, status,
                                                            detail):
    """What the pages send for another game's situation is refused, naming what was
    wrong and what is allowed."""
    reply = client.post(f"/api/hint?{query}", json=body)
    assert reply.status_code == status and reply.json()["detail"] == detail


def test_classic_love_letters_page_warms_its_own_hint():
    """`jabba serve --game love_letter`: its advice page at /, warmed by its example (the
    README's classic hint), which is the command line's answer."""
    from cli.web.app import Warmup, compute_hint, make_game
    from solver import games

    with TestClient(create_app(warm=False, game="love_letter")) as c:
        assert c.get("/api/meta").json()["advice"]["game"] == "love_letter"
        example = games.adapter("love_letter").example_situation
        reply = c.post(f"/api/hint?seconds={TINY}&search=false&seed=3", json=example)
        assert reply.status_code == 200, reply.text
        assert reply.json()["situation"]["game"] == "love_letter"
    warm = Warmup()
    warm.run(compute_hint, make_game, "love_letter")
    assert warm.state == "ready", warm.detail
