"""Web fuzz: seeded random and mutated requests against every `/api/*` route of the web app
(cli/web/app.py) through FastAPI's test client; no answer may be a 5xx. The bodies are
mutated from valid ones (app.WARM_SITUATION, a game, an action): flipped, cut and inserted
bytes, deep nesting, huge numbers, NaN and Infinity, wrong types, unicode (lone
surrogates too), duplicated keys, big arrays, and purely random bytes; the GETs take odd
game ids and queries. A valid hint is made cheap by its query (the fewest rollouts, no
search), so the default run stays well under 30 seconds."""

from __future__ import annotations

import json
import random
import time

import pytest

from cli.web.app import MAX_JSON_DEPTH, WARM_SITUATION, create_app

pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2")
from fastapi.testclient import TestClient  # noqa: E402

TINY = "1e-6"  # as tests/test_web_api.py: the hint's minimum of 64 rollouts
CHEAP = f"seconds={TINY}&resolve_seconds={TINY}&search=false"  # a valid hint in ~0.05 s
GAME = {"seed": 3, "players": 2, "seat": 0, "against": "table"}
DEADLINE_SECONDS = 25.0  # a safety stop, far above the measured time (docs: --durations)

# Odd JSON values, as the text that goes into a body (so NaN, Infinity, a number of 5,000
# digits and a lone surrogate stay as sent, not as json.dumps would write them).
ODD_VALUES = [
    "null", "true", "false", "0", "1", "2", "5", "7", "-1", "-0", "1.5", "2.0", "1e-6",
    "1e308", "1e400", "-1e400", "NaN", "Infinity", "-Infinity", str(1 << 63),
    str(-(1 << 63) - 1), "9" * 40, "9" * 5000, '""', '" "', '"0"', '"1"', '"jabba"',
    '"guard"', '"han@2"', '"table"', '"search"', '"agenda_expert"', '"exalted_one"',
    '"love_letter"', '"jabbas_palace"', '"results/x.npz"', '"../../etc/passwd"',
    '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"\\u00e9t\\u00e9"', json.dumps("🂡 Jabba"),
    json.dumps("x" * 5000), "[]", "{}", '["jabba", "guard"]', '["jabba"]', '[0, 1]',
    '[null]', '[[]]', '{"0": ["han"]}', '{"0": "leia"}', '{"9": ["han"]}', '{"": []}',
    "[" + ", ".join(['"guard"'] * 2000) + "]", "[" + ", ".join(map(str, range(3000))) + "]",
    "{" + ", ".join(f'"{i}": ["han"]' for i in range(500)) + "}",
    "[" * (MAX_JSON_DEPTH - 2) + "]" * (MAX_JSON_DEPTH - 2),
    "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "[" * 5000 + "]" * 5000,
    '{"a":' * 3000 + "0" + "}" * 3000, '"p0 plays Han Solo; p1 gets ? (deck)"',
    '"p1 hand:[Jabba the Hutt,Bib Fortuna] | p0 plays"', '"p0 dances"',
]
KEYS = [*WARM_SITUATION, "log", "out", "protected", "saw", "seen_by", "set_aside", "bottom",
        "deck", "agenda", "game", *GAME, "coach", "coach_seconds", "coach_search",
        "coach_search_iterations", "coach_threshold", "match", "opponent_search_iterations",
        "action", "colour", "", "\u00e9", "\ud800"]
CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", None,
                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                 "application/vnd.api+json", "application/json; charset=utf-16", "*/*"]
ODD_IDS = ["nope", "", "%00", "%ff", "%2e%2e", "..", "a" * 2000, "%F0%9F%82%A1", "0" * 32,
           "null", "-1", "%20", "x%2Fy", "new", "new/act", "%ud800"]
HINT_QUERIES = {  # the query's odd values; a valid time budget is only ever the tiny one
    "seconds": ["0", "-1", "nan", "inf", "1e9", "11", "x", "", TINY],
    "resolve_seconds": ["0", "nan", "-inf", "1e400", TINY],
    "search_seconds": ["0", "nan", "10.5", "x"],
    "search": ["false", "0", "off", "no", "maybe", "", "2", "nan"],  # never a search
    "search_iterations": ["0", "-1", "100001", "1e3", "x", str(1 << 64)],
    "seed": ["-1", str(1 << 63), str((1 << 63) - 1), "1.5", "x", "0", "7"],
    "score": ["3,5", "0,0", "a,b", ",", "6,0", "1,2,3", "5,5", "9" * 30 + ",1", "\u00e9",
              "x" * 65, "-1,2"],
    "match_goal": ["0", "4", "51", "x", "1e3"],
    "rounds_played": ["-1", "0", "2", "1001", "x"],
    "opponent": ["0=keep_higher", "1=keep_higher", "0=table", "0=uniform", "x", "0=",
                 "=x", "9=uniform", "0=results/nope.json", "0=../../etc/passwd",
                 "0=keep_higher&opponent=0=uniform", "0=\u00e9"],
    "exploit": ["safe", "max", "full", "", "x"],
    "confidence": ["0", "0.5", "1", "1.5", "nan", "-1", "x"],
}


def _body(rng: random.Random, fields: dict) -> str:
    """A JSON object's text from `fields` (values as Python) with odd values mixed in:
    some fields replaced, dropped, added or given twice."""
    items = [(k, json.dumps(v)) for k, v in fields.items()]
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.5 and items:
            i = rng.randrange(len(items))
            items[i] = (items[i][0], rng.choice(ODD_VALUES))
        elif roll < 0.65 and items:
            items.pop(rng.randrange(len(items)))
        elif roll < 0.85:
            items.append((rng.choice(KEYS), rng.choice(ODD_VALUES)))
        elif items:
            items.append((rng.choice(items)[0], rng.choice(ODD_VALUES)))  # a duplicated key
    text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in items) + "}"
    return text if rng.random() < 0.9 else rng.choice(["[" + text + "]", text + text,
                                                       text + " junk", " \n" + text + "\n"])


def _mangle(rng: random.Random, raw: bytes) -> bytes:
    """`raw` with a few bytes flipped, removed, inserted or repeated, or cut short."""
    data = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        at = rng.randrange(len(data) + 1)
        if roll < 0.3 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif roll < 0.5:
            del data[at:at + rng.randint(1, 8)]
        elif roll < 0.7:
            data[at:at] = rng.choice([b"[", b"{", b"]", b"}", b'"', b"\\", b",", b":",
                                      b"\x00", b"\xff", b"\xc3", b"NaN", b"-", b"e9",
                                      "\u00e9".encode(), rng.randbytes(3)])
        elif roll < 0.85:
            data[at:at] = data[at:at + rng.randint(1, 16)] * rng.randint(2, 50)
        else:
            del data[at:]
    return bytes(data)


def _random_bytes(rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return rng.randbytes(rng.randint(0, 300))
    alphabet = b'[]{}",:0123456789.eE+-truefalsnNIiy\\ \n\t'
    return bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))


def _post(client, rng: random.Random, url: str, body: bytes):
    content_type = "application/json" if rng.random() < 0.8 else rng.choice(CONTENT_TYPES)
    headers = {"content-type": content_type} if content_type else {}
    return client.post(url, content=body, headers=headers)


def _hint_query(rng: random.Random) -> str:
    """A hint query with a few odd parameters; a valid one never asks for a search or
    more than the tiny time budget."""
    query = {"seconds": TINY, "resolve_seconds": TINY, "search": "false"}
    for name in rng.sample(sorted(HINT_QUERIES), rng.randint(1, 3)):
        query[name] = rng.choice(HINT_QUERIES[name])
    if rng.random() < 0.1:
        query[rng.choice(["x", "seconds", "\u00e9", ""])] = rng.choice(["1", "%ff", ""])
    return "&".join(f"{k}={v}" for k, v in query.items())


def _case(client, rng: random.Random, games: list[str]):
    """One random request; its response."""
    situation = json.dumps(WARM_SITUATION).encode()
    kind = rng.randrange(12)
    key = rng.choice(games) if rng.random() < 0.7 else rng.choice(ODD_IDS)
    if kind == 0:
        return _post(client, rng, f"/api/hint?{CHEAP}", _body(rng, WARM_SITUATION).encode())
    if kind == 1:
        return _post(client, rng, f"/api/hint?{CHEAP}", _mangle(rng, situation))
    if kind == 2:
        return _post(client, rng, f"/api/hint?{_hint_query(rng)}",
                     situation if rng.random() < 0.7 else _body(rng, WARM_SITUATION).encode())
    if kind == 3:
        return _post(client, rng, "/api/play/new", _body(rng, GAME).encode())
    if kind == 4:
        return _post(client, rng, "/api/play/new", _mangle(rng, json.dumps(GAME).encode()))
    if kind == 5:
        action = {"action": rng.choice([0, 1, 7, 12, 100, -1, 1 << 31, 1 << 63])}
        return _post(client, rng, f"/api/play/{key}/act", _body(rng, action).encode())
    if kind == 6:
        return _post(client, rng, f"/api/play/{key}/act", _mangle(rng, b'{"action": 3}'))
    if kind == 7:
        body = b"" if rng.random() < 0.5 else _body(rng, {}).encode()
        return _post(client, rng, f"/api/play/{key}/next", body)
    if kind == 8:
        route = rng.choice([f"/api/hint?{CHEAP}", "/api/play/new", f"/api/play/{key}/act",
                            f"/api/play/{key}/next"])
        return _post(client, rng, route, _random_bytes(rng))
    if kind == 9:
        depth = rng.choice([MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 1000,
                            rng.randint(2, 20_000)])
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}"), ('[{"a":', "}]")])
        body = opener * depth + "0" + closer * depth  # [{"a": is two levels a time
        route = rng.choice([f"/api/hint?{CHEAP}", "/api/play/new", f"/api/play/{key}/act",
                            f"/api/play/{key}/next"])
        return _post(client, rng, route, body.encode()[:60_000])
    if kind == 10:
        path = rng.choice([f"/api/play/{key}", f"/api/play/{key}/log", "/api/status",
                           "/api/meta", "/api/hint", "/api/play", "/api/nope", "/api/play/new"])
        query = rng.choice(["", "?x=1", "?seconds=nan", "?%ff=%00", "?" + "a=1&" * 200])
        return client.get(path + query)
    method = rng.choice(["PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
    return client.request(method, rng.choice(["/api/hint", f"/api/play/{key}", "/api/meta"]))


def _fuzz(client, cases: int, seed: int, deadline: float = DEADLINE_SECONDS) -> dict[int, int]:
    """`cases` random requests (stopping after `deadline` seconds); the count of each status.
    Any 5xx, or an exception out of the app, fails with the request that caused it."""
    rng = random.Random(seed)
    games = []
    for seat in (0, 1):  # real games for act and next, played against the shipped table
        reply = client.post("/api/play/new", json={**GAME, "seat": seat})
        assert reply.status_code == 200, reply.text
        games.append(reply.json()["id"])
    statuses: dict[int, int] = {}
    started = time.perf_counter()
    for case in range(cases):
        if time.perf_counter() - started > deadline:
            break
        state = rng.getstate()
        try:
            response = _case(client, rng, games)
        except Exception as err:  # the test client re-raises what the app did not answer
            rng.setstate(state)
            raise AssertionError(f"case {case} (seed {seed}): the app raised "
                                 f"{type(err).__name__}: {err}") from err
        assert response.status_code < 500, (case, response.request.method,
                                            str(response.request.url)[:300],
                                            response.request.content[:300], response.text)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
    return statuses


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(warm=False)) as c:
        yield c


def test_web_fuzz_no_request_gets_a_5xx(client):
    statuses = _fuzz(client, 400, seed=1)
    assert sum(statuses.values()) >= 100, statuses  # the deadline stops a slow machine only
    assert statuses.get(200) and statuses.get(400) and statuses.get(422), statuses


@pytest.mark.slow
def test_web_fuzz_4000_requests(client):
    assert sum(_fuzz(client, 4000, seed=2, deadline=600).values()) == 4000
