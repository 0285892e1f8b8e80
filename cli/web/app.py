"""`jabba serve`: the local web app (FastAPI on uvicorn). Pages: advice (`/`, one page for
every game, `/?game=NAME`: its form is built from the game's description, `GET
/api/meta?game=NAME`, that its adapter gives, solver/games/) and play (`/play`, the
terminal game with the coach), static files from static/. A game's former page route
(`/han-solo`) redirects to its advice page. The JSON API is in docs/play.md; FastAPI serves its
OpenAPI schema at /openapi.json and a browsable form of it at /docs.

- `POST /api/hint`: the body is a situation with the fields of a situation file
  (docs/hint.md; han_solo's: docs/han-solo.md "Hints", its form at `/?game=han_solo`), the
  query the command's other flags (seconds, resolve_seconds, seed, search,
  search_seconds, search_iterations, score, match_goal, rounds_played, opponent,
  exploit, confidence, rollouts); the answer is `jabba hint --json`'s, made
  by the same calls (cli/hint.py).
- `POST /api/play/new`, `GET /api/play/{id}`, `POST /api/play/{id}/act`,
  `POST /api/play/{id}/next`, `GET /api/play/{id}/log`: a game of solver/play/.

Robustness: a situation the hint refuses is a 422 with the command's message (a body that
is not a situation: 400), a body over MAX_BODY_BYTES a 413, a body nested deeper than
MAX_JSON_DEPTH a 400 (every route, before any JSON parser sees it), any other failure a
500 with a one-line message (never a traceback); tests/test_web_fuzz.py sends random and
mutated requests to every route. Hints and coached plays are CPU-bound: they run in worker
threads (the numba kernels release the GIL), at most `workers` at once. The compiled
kernels are warmed in a thread at start-up; `GET /api/status` says warming or ready, and
the pages show it.

The routes are module functions on `router`; what they share (the warm-up, the games, the
worker limit) is one `AppState` per app (`create_app`), which each route takes as `State`.
"""

from __future__ import annotations

import collections
import contextlib
import ipaddress
import json
import os
import re
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from solver.play import COACH_SEARCH_ITERATIONS, OPPONENT_SEARCH_ITERATIONS
from solver import games
from spiel_game.cards import GAMES

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY_BYTES = 64 * 1024
MAX_JSON_DEPTH = 64  # arrays and objects inside each other; a situation needs 3
MAX_HINT_SECONDS = 10.0  # a request's rollout and re-solve budgets, each
MAX_SESSIONS = 64  # games kept; the least recently used goes first
MAX_PLAY_ITERATIONS = 2000  # a game's search budgets per decision (the search's own cap)
_OPPONENT_QUERY = Query(None, description="SEAT=MODEL, repeatable (jabba hint --opponent)")
WARM_SITUATION = games.adapter(GAMES[0]).example_situation  # the schema's example

SITUATION_SCHEMA = {  # for the OpenAPI schema; the hint itself checks the fields
    "type": "object", "description": "A situation: the fields of a situation file "
    "(docs/hint.md, 'The situation'), e.g. the README's worked hint.",
    "properties": {
        "game": {"type": "string", "enum": list(games.taking("hint")), "default": GAMES[0],
                 "description": "love_letter: classic cards, no agenda; han_solo: the "
                 "fields of docs/han-solo.md 'Hints' (players, seat, hand, log, pot, turn, "
                 "params); sarlaccs_pit: those of docs/sarlaccs-pit.md 'Hints'"},
        "players": {"type": "integer", "minimum": 2, "maximum": 6, "default": 2},
        "agenda": {"type": "string", "default": "exalted_one"},
        "seat": {"type": "integer", "default": 0},
        "hand": {"type": "array", "items": {"type": "string"}},
        "face_up": {"type": "array", "items": {"type": "string"}},
        "areas": {"type": "object", "additionalProperties": {
            "type": "array", "items": {"type": "string"}}},
        "out": {"type": "array", "items": {"type": "integer"}},
        "protected": {"type": "array", "items": {"type": "integer"}},
        "saw": {"type": "object", "additionalProperties": {"type": "string"}},
        "seen_by": {"type": "object", "additionalProperties": {"type": "string"}},
        "set_aside": {"type": "string"},
        "bottom": {"type": "array", "items": {"type": "string"}},
        "deck": {"type": "integer"},
        "log": {"type": "string", "description": "events separated by ';', or a pasted "
                "information state"},
        "pot": {"type": "array", "items": {"type": "string"}},
        "turn": {"type": "integer"},
        "board": {"type": "string", "description": "sarlaccs_pit: default or a board file"},
        "positions": {"type": "array", "items": {"type": "string"}, "description":
                      "sarlaccs_pit: every hero's space by seat, or detention"},
        "jabba": {"type": "string"},
        "defeated": {"type": "array", "items": {"type": "string"}},
        "guards_left": {"type": "array", "items": {"type": "string"}},
        "points": {"type": "array", "items": {"type": "integer"}},
        "hand_sizes": {"type": "array", "items": {"type": "integer"}},
        "discard": {"type": "array", "items": {"type": "string"}},
        "decision": {"type": "string", "description": "sarlaccs_pit: play or jabba_move"}},
    "example": WARM_SITUATION}


class BadRequest(Exception):
    """A refusal with its HTTP status and the message the command line gives."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class _ErrorResponse(JSONResponse):
    """A refusal's JSON in ASCII (\\u escapes): a message that quotes what was sent renders
    whatever it holds, a lone surrogate too (UTF-8 cannot encode one)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("ascii")


class Warmup:
    """The start-up compilation of the kernels, in a thread: warming, ready or failed."""

    def __init__(self):
        self.state = "warming"
        self.detail = "compiling the engine and the hint's kernels (about 30 s the first time)"
        self.started = time.perf_counter()
        self.seconds = None

    def run(self, hint_fn, make_game, game: str = GAMES[0]) -> None:
        try:
            adapter = games.adapter(game)
            # The hint's kernels: the search's in one iteration, else a few rollouts.
            budget = dict(search_iterations=1) if adapter.capabilities.search else \
                dict(rollouts=8)
            hint_fn(dict(adapter.example_situation), seconds=0.01, resolve_seconds=0.01,
                    seed=0, **budget)
            if adapter.capabilities.play_page:
                played = make_game(NewGame(coach=True, coach_seconds=0.01,
                                           coach_search_iterations=1)).session
                played.act(played.legal()[0][0])  # the opponents' tables and the coach
            self.state, self.detail = "ready", "ready"
        except Exception as err:  # the server still answers; the page says what failed
            self.state, self.detail = "failed", f"warm-up failed: {type(err).__name__}: {err}"
        self.seconds = round(time.perf_counter() - self.started, 1)

    def to_json(self) -> dict:
        return {"state": self.state, "detail": self.detail, "seconds": self.seconds}


class NewGame(BaseModel):
    """A new game (the flags of `jabba play --seat`)."""

    game: str = Field("jabbas_palace", description="the pages play jabbas_palace only "
                      "(classic Love Letter: jabba play --game love_letter)")
    players: int = Field(2, ge=2, le=6)
    agenda: str = "exalted_one"
    seat: int = Field(0, ge=0, le=5, description="your seat (a match: your table seat)")
    against: str = Field("table", description="table, search or a heuristic name")
    opponent_search_iterations: int = Field(OPPONENT_SEARCH_ITERATIONS, ge=1,
                                            le=MAX_PLAY_ITERATIONS,
                                            description="against search: per decision")
    match: bool = False
    seed: int = Field(0, ge=0, lt=1 << 63)
    coach: bool = False
    coach_threshold: float = Field(0.05, gt=0, le=4)
    coach_seconds: float = Field(0.25, gt=0, le=MAX_HINT_SECONDS)
    coach_search: bool = Field(True, description="the coach's hint searches")
    coach_search_iterations: int = Field(COACH_SEARCH_ITERATIONS, ge=1,
                                         le=MAX_PLAY_ITERATIONS)


    def misplaced(self) -> str | None:
        """A field given where it does not apply (refused, as the command line refuses
        the flag), or None."""
        given = self.model_fields_set
        adapter = games.find(self.game)
        if adapter is None or not adapter.capabilities.play_page:
            return (f"game {self.game!r}: the web app plays jabbas_palace only; play "
                    f"{self.game} with jabba play --game {self.game} (its hints: "
                    f"/api/hint with \"game\": \"{self.game}\")")
        if "opponent_search_iterations" in given and self.against != "search":
            return "opponent_search_iterations: applies only with against search"
        coach_fields = ("coach_threshold", "coach_seconds", "coach_search",
                        "coach_search_iterations")
        if not self.coach and given & set(coach_fields):
            field = next(f for f in coach_fields if f in given)
            return f"{field}: applies only with coach true"
        if "coach_search_iterations" in given and not self.coach_search:
            return "coach_search_iterations: applies only with coach_search true"
        return None


class Act(BaseModel):
    action: int = Field(..., description="an action id from the view's `legal`")


class _Game:
    """A session, its log (kept in memory) and a lock: one request at a time per game."""

    def __init__(self, session, log):
        self.session = session
        self.log = log
        self.lock = threading.Lock()


class AppState:
    """What the routes share: the warm-up, the games kept (the least recently used goes
    first past MAX_SESSIONS), and the worker threads' limit."""

    def __init__(self, warm: bool, workers: int, game: str = GAMES[0]):
        self.warm = warm
        self.workers = workers
        self.page_game = game  # whose advice page `/` is
        self.warmup = Warmup()
        self.games: collections.OrderedDict[str, _Game] = collections.OrderedDict()
        self.games_lock = threading.Lock()
        self.limiter: anyio.CapacityLimiter | None = None  # made in the event loop, on use

    async def in_worker(self, fn, *args):
        if self.limiter is None:
            self.limiter = anyio.CapacityLimiter(self.workers)
        return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)

    def new_session(self, spec: NewGame) -> tuple[str, _Game]:
        entry = make_game(spec)
        key = uuid.uuid4().hex
        with self.games_lock:
            self.games[key] = entry
            while len(self.games) > MAX_SESSIONS:
                self.games.popitem(last=False)
        return key, entry

    def game(self, key: str) -> _Game:
        with self.games_lock:
            if key not in self.games:
                raise BadRequest(404, f"no game {key!r} (the server keeps the last "
                                 f"{MAX_SESSIONS} games); start a new one")
            self.games.move_to_end(key)
            return self.games[key]


def app_state(request: Request) -> AppState:
    return request.app.state.app


State = Annotated[AppState, Depends(app_state)]


def create_app(warm: bool = True, workers: int | None = None, game: str = GAMES[0]
               ) -> FastAPI:
    """The app; `warm` compiles the kernels in a thread at start-up; `workers`: hints
    and coached plays computed at once (default: the machine's cores)."""
    state = AppState(warm, workers or os.cpu_count() or 1, game)
    # max_body_size: the framework answers a longer body (announced or streamed) with 413.
    app = FastAPI(title="Jabba's Palace solver", lifespan=_lifespan,
                  description="Hints and games against the solver (docs/play.md).",
                  max_body_size=MAX_BODY_BYTES)
    app.state.app = state
    app.state.warmup = state.warmup
    app.add_exception_handler(BadRequest, _refused)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(Exception, _failed)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(router)
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI):
    state: AppState = app.state.app
    if state.warm:
        threading.Thread(target=state.warmup.run, args=(compute_hint, make_game, state.page_game),
                         name="warm-up", daemon=True).start()
    else:
        state.warmup.state, state.warmup.detail = "ready", "ready (not warmed)"
    yield


# Errors --------------------------------------------------------------------------------

async def _refused(request: Request, err: BadRequest):
    return _ErrorResponse({"detail": err.message}, status_code=err.status)


async def _invalid(request: Request, err: RequestValidationError):
    parts = []
    for e in err.errors():
        where = ".".join(str(x) for x in e["loc"] if x not in ("body", "query", "path"))
        parts.append(f"{where}: {e['msg']}" if where else e["msg"])
    return _ErrorResponse({"detail": "; ".join(parts)}, status_code=422)


async def _failed(request: Request, err: Exception):
    return _ErrorResponse({"detail": f"internal error: {type(err).__name__}: {err}"},
                          status_code=500)


_JSON_STRUCTURE = re.compile(rb'[][{}"\\]')  # the bytes that open, close, quote or escape


def _check_depth(body: bytes) -> None:
    """A 400 if `body` nests arrays and objects deeper than MAX_JSON_DEPTH. Python's json
    (and so FastAPI's body parsing) recurses once a level: a body of thousands of `[` would
    be a RecursionError. So this scan counts `[` and `{` outside strings, linearly and
    without recursion, before any parser sees the body; it refuses nothing a parser would
    take within the limit (malformed JSON is left to the parser's own message)."""
    depth = 0
    in_string = False
    escaped = -1  # the position of the byte a backslash in a string escapes
    for match in _JSON_STRUCTURE.finditer(body):
        at = match.start()
        byte = body[at]
        if in_string:
            if at == escaped:
                continue
            if byte == 0x5C:  # \
                escaped = at + 1
            elif byte == 0x22:  # "
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise BadRequest(400, f"JSON nested more than {MAX_JSON_DEPTH} levels deep "
                                 f"(byte {at}); allowed are at most {MAX_JSON_DEPTH} levels "
                                 "of arrays and objects inside each other (a situation "
                                 "or a game needs at most 3)")
        elif byte in b"]}":
            depth = max(depth - 1, 0)


class _DepthCheckedRoute(APIRoute):
    """A route whose request body is checked by _check_depth before FastAPI parses it (a
    pydantic model's body) or the route does (the hint's situation)."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def checked(request: Request):
            _check_depth(await request.body())  # read once: the handler reuses it
            return await handler(request)

        return checked


# Pages ---------------------------------------------------------------------------------

router = APIRouter(route_class=_DepthCheckedRoute)  # bodies of bounded depth


@router.get("/", include_in_schema=False)
def advice_page():
    """The advice page of every game: `?game=NAME`, else the served game (`/api/meta`)."""
    return FileResponse(STATIC / "index.html")


@router.get("/play", include_in_schema=False)
def play_page():
    return FileResponse(STATIC / "play.html")


def _redirect_to_advice(name: str):
    def former_page():
        """A game's former page: its advice page now."""
        return RedirectResponse(f"/?game={name}")

    return former_page


for _adapter in games.ADAPTERS.values():
    if _adapter.advice_route is not None:
        router.add_api_route(f"/{_adapter.advice_route}", _redirect_to_advice(_adapter.name),
                             include_in_schema=False)


@router.get("/api/status", summary="Warming up or ready")
def status(state: State) -> dict:
    return state.warmup.to_json()


@router.get("/api/meta", summary="The games and one game's description, for the pages")
def meta(state: State, game: str | None = Query(
        None, max_length=64, description="the game whose advice form to describe "
        "(default: the served one, jabba serve --game)")) -> dict:
    """`advice`: the game's description, from its adapter (its form, cards, player counts,
    example situation, hint options); `games`: every game's name, title and label; the
    rest is the play page's (Jabba's Palace's cards, agendas, opponents)."""
    from spiel_game.cards import AGENDA_NAMES, CHARACTERS

    from solver.evaluation.tournament import TOKEN_GOAL
    from solver.play.opponents import HEURISTIC_KINDS, OPPONENTS

    name = state.page_game if game is None else game
    try:
        advice = games.adapter(name).advice()
    except games.UnknownGame as err:
        raise BadRequest(400, f"game: {err}") from None
    return {"advice": advice, "default": state.page_game,
            "games": [{"name": a.name, "label": a.advice_label,
                       "title": a.advice()["title"]}
                      for a in map(games.adapter, games.taking("hint"))],
            "cards": [{"id": c.id, "name": c.name, "short": c.aliases[0],
                       "number": c.number, "side": c.side.name.lower(),
                       "copies": c.copies, "effect": c.effect.name.lower(), "text": c.text}
                      for c in CHARACTERS],
            "agendas": list(AGENDA_NAMES), "token_goal": TOKEN_GOAL,
            "opponents": [*OPPONENTS, *HEURISTIC_KINDS],
            "defaults": {"opponent_search_iterations": OPPONENT_SEARCH_ITERATIONS,
                         "coach_search_iterations": COACH_SEARCH_ITERATIONS},
            "max_hint_seconds": MAX_HINT_SECONDS, "max_body_bytes": MAX_BODY_BYTES}


# The hint ------------------------------------------------------------------------------

def compute_hint(data: dict, seconds: float, resolve_seconds: float, seed: int,
                 search: bool = True, search_seconds: float = 1.0,
                 search_iterations: int | None = None, score: str | None = None,
                 match_goal: int | None = None, rounds_played: int | None = None,
                 opponent: list[str] | None = None, exploit: str = "safe",
                 confidence: float = 0.5, prior_only: bool = False,
                 rollouts: int | None = None) -> dict:
    """`jabba hint --json` for the situation `data`: the command line's one pipeline
    (solver/hint/request.py, advice.answer), the game's tables shared by every request."""
    from solver.hint.advice import answer
    from solver.hint.request import HintInputError, HintRequest, situation_fields
    from solver.hint.situation import SituationError, from_mapping
    from solver.play.opponents import hint_policies

    try:
        try:
            request = HintRequest.from_inputs(
                data, policies_of=hint_policies, score=score, match_goal=match_goal,
                rounds_played=rounds_played, opponent=opponent, exploit=exploit,
                confidence=confidence, prior_only=prior_only, seconds=seconds,
                resolve_seconds=resolve_seconds,
                seed=seed, search=search, search_seconds=search_seconds,
                search_iterations=search_iterations, rollouts=rollouts)
        except TypeError:
            try:  # a field of a JSON type the library does not take: say which
                from_mapping(situation_fields(data))
            except TypeError:
                raise SituationError(_mistyped(data)) from None
            raise
        return answer(request).to_json()
    except SituationError as err:
        raise BadRequest(422, f"impossible situation: {err}") from None
    except HintInputError as err:
        raise BadRequest(400, f"{err.option}: {err}") from None
    except ValueError as err:  # a refused policy file, a bad seed
        raise BadRequest(400, str(err)) from None


@router.post("/api/hint", summary="Which card should I play? (jabba hint --json)",
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/json": {"schema": SITUATION_SCHEMA}}}})
async def api_hint(request: Request, state: State,
                   seconds: float = Query(0.25, gt=0, le=MAX_HINT_SECONDS),
                   resolve_seconds: float = Query(2.0, gt=0, le=MAX_HINT_SECONDS),
                   seed: int = Query(0, ge=0, lt=1 << 63),
                   search: bool = Query(True),
                   search_seconds: float = Query(1.0, gt=0, le=MAX_HINT_SECONDS),
                   search_iterations: int | None = Query(None, ge=1, le=100_000),
                   score: str | None = Query(None, max_length=64),
                   match_goal: int | None = Query(None, ge=1, le=50),
                   rounds_played: int | None = Query(None, ge=0, le=1000),
                   opponent: list[str] | None = _OPPONENT_QUERY,
                   exploit: str = Query("safe"),
                   confidence: float = Query(0.5, gt=0, le=1),
                   prior_only: bool = Query(False),
                   rollouts: int | None = Query(None, ge=1, le=100_000, description=(
                       "exactly this many rollouts (han_solo: default 1000)"))
                   ) -> dict:
    data = _situation(await request.body())
    return await state.in_worker(compute_hint, data, seconds, resolve_seconds, seed, search,
                                 search_seconds, search_iterations, score, match_goal,
                                 rounds_played, opponent, exploit, confidence, prior_only,
                                 rollouts)


# Games ---------------------------------------------------------------------------------

def make_game(spec: NewGame) -> _Game:
    """A new game of `spec`, played to the human's first decision."""
    import io

    import pyspiel

    import spiel_game
    from solver.hint.coach import Coach
    from solver.play.log import LogWriter, game_command, opponent_fields
    from solver.play.opponents import resolve
    from solver.play.session import Session, SessionError

    if spec.misplaced():
        raise BadRequest(422, spec.misplaced())
    try:
        game = spiel_game.load(spec.game, players=spec.players, agenda=spec.agenda)
        if spec.seat >= spec.players:
            raise SessionError(f"seat {spec.seat}: allowed is a seat from 0 to "
                               f"{spec.players - 1}")
        if spec.against.endswith(".npz"):
            raise ValueError("a policy file is the command line's (jabba play "
                             "--against FILE); the web app plays the named opponents")
        opponent = resolve(spec.against, game, spec.seed,
                           search_iterations=spec.opponent_search_iterations)
        coach = (Coach(game, threshold=spec.coach_threshold, seconds=spec.coach_seconds,
                       seed=spec.seed, search=spec.coach_search,
                       search_iterations=spec.coach_search_iterations)
                 if spec.coach else None)
    except (ValueError, pyspiel.SpielError) as err:
        raise BadRequest(422, str(err)) from None
    log = io.StringIO()
    writer = LogWriter(log)
    iterations = spec.opponent_search_iterations
    writer.header(game, command=game_command(game, spec.seat,
                                             spec.against, spec.seed, spec.match,
                                             iterations),
                  seat=spec.seat, against=spec.against, seed=spec.seed, match=spec.match,
                  **opponent_fields(spec.against, iterations))
    session = Session(game, spec.seat, opponent, seed=spec.seed, match=spec.match,
                      record=writer.write, coach=coach)
    session.advance()
    return _Game(session, log)


def answer(entry: _Game, verdict=None) -> dict:
    return {"view": entry.session.view(), "verdict": verdict,
            "coach": None if entry.session.coach is None
            else entry.session.coach.summary()}


@router.post("/api/play/new", summary="Start a game (jabba play --seat)")
async def play_new(spec: NewGame, state: State) -> dict:
    key, entry = await state.in_worker(state.new_session, spec)
    return {"id": key, **answer(entry)}


@router.get("/api/play/{key}", summary="A game as your seat sees it")
def play_view(key: str, state: State) -> dict:
    entry = state.game(key)
    with entry.lock:
        return {"id": key, **answer(entry)}


def act(entry: _Game, action: int) -> dict:
    from solver.play.session import SessionError

    with entry.lock:
        try:
            verdict = entry.session.act(action)
        except SessionError as err:
            raise BadRequest(422, str(err)) from None
        return answer(entry, verdict)


@router.post("/api/play/{key}/act", summary="Your choice: an action id of the view's legal")
async def play_act(key: str, body: Act, state: State) -> dict:
    return {"id": key, **await state.in_worker(act, state.game(key), body.action)}


def next_round(entry: _Game) -> dict:
    from solver.play.session import SessionError

    with entry.lock:
        try:
            entry.session.next_round()
        except SessionError as err:
            raise BadRequest(422, str(err)) from None
        entry.session.advance()
        return answer(entry)


@router.post("/api/play/{key}/next", summary="A match's next round")
async def play_next(key: str, state: State) -> dict:
    return {"id": key, **await state.in_worker(next_round, state.game(key))}


@router.get("/api/play/{key}/log", summary="The game's log (JSON lines; jabba play --replay)",
            response_class=PlainTextResponse)
def play_log(key: str, state: State):
    entry = state.game(key)
    with entry.lock:
        return PlainTextResponse(entry.log.getvalue(), media_type="application/x-ndjson",
                                 headers={"Content-Disposition":
                                          f'attachment; filename="jabba-play-{key[:8]}.jsonl"'})


def _schema_words(spec: dict, plural: bool = False) -> str:
    """A SITUATION_SCHEMA type in words: 'an array of strings', 'objects of strings'."""
    kind = spec["type"]
    inner = spec.get("items") or spec.get("additionalProperties")
    head = kind + "s" if plural else ("an " if kind[0] in "aeiou" else "a ") + kind
    return f"{head} of {_schema_words(inner, plural=True)}" if inner else head


def _fits(value: Any, spec: dict) -> bool:
    """Whether a JSON value is of a SITUATION_SCHEMA type (strictly: the library also
    takes a few others, e.g. a string of names for an array)."""
    kind = spec["type"]
    if kind == "array":
        return isinstance(value, list) and all(_fits(v, spec["items"]) for v in value)
    if kind == "object":
        return isinstance(value, dict) and all(_fits(v, spec["additionalProperties"])
                                               for v in value.values())
    return isinstance(value, str) if kind == "string" else (
        isinstance(value, int) and not isinstance(value, bool))


def _mistyped(data: dict) -> str:
    """What a situation whose parse raised TypeError has wrong: its fields not of their
    schema type, with the types allowed; or, if none, every field's type."""
    schema = SITUATION_SCHEMA["properties"]
    odd = [f for f in schema if f in data and not _fits(data[f], schema[f])] or list(schema)
    parts = []
    for field in odd:
        given = json.dumps(data[field]) if field in data else ""
        given = given if len(given) <= 40 else given[:37] + "..."
        parts.append(f"{field}: {given + ' ' if given else ''}(allowed is "
                     f"{_schema_words(schema[field])})")
    return ("a field of a JSON type a situation does not take (docs/hint.md, 'The "
            "situation'): " + "; ".join(parts))


def _situation(body: bytes) -> dict[str, Any]:
    """The request body as a situation mapping, or a 400 saying what a situation is."""
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise BadRequest(400, f"not UTF-8 text (byte {err.start})") from None
    except ValueError as err:  # also a number of over 4,300 digits
        raise BadRequest(400, f"not valid JSON: {err}") from None
    except RecursionError:  # the route's _check_depth prevents it; never a 500 if not
        raise BadRequest(400, f"JSON nested too deep; allowed are at most {MAX_JSON_DEPTH} "
                         "levels of arrays and objects inside each other") from None
    if not isinstance(data, dict):
        raise BadRequest(400, f"a JSON {type(data).__name__}; a situation is a table of "
                         "fields (docs/hint.md), e.g. {\"seat\": 0, \"hand\": [\"jabba\", "
                         "\"guard\"]}")
    return data


# Serving -----------------------------------------------------------------------------------

def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one); OSError says why not."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def is_loopback(sock: socket.socket) -> bool:
    return ipaddress.ip_address(sock.getsockname()[0]).is_loopback


def serve(sock: socket.socket, workers: int | None = None, warm: bool = True,
          game: str = GAMES[0]) -> None:
    """Serve the app on a bound socket until Ctrl-C (uvicorn's graceful shutdown)."""
    import uvicorn

    config = uvicorn.Config(create_app(warm=warm, workers=workers, game=game),
                            log_level="warning",
                            access_log=False, timeout_graceful_shutdown=5)
    uvicorn.Server(config).run(sockets=[sock])
