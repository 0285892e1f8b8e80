"""The replayable log of a played game: JSON lines, one flushed per event.

Line 1 is the header: `format` (FORMAT), `format_version`, then the provenance header of
solver/provenance.py (game parameters, code version, command; its `seconds` is 0: the
log is written as the game goes) with the game's `seat`, `against`, `seed` and `match`
(and `opponent_search_iterations` against `search`).
Then, as the game goes:

- `{"round": R, "starter": T}`: round R starts, table seat T first (engine seat 0);
- `{"round": R, "player": P, "by": B, "action": A, "text": W}`: an action, P the engine
  seat (-1 chance), B `chance`, `you` or the opponent's name, A the action id, W its words;
- `{"round_end": R, "end": ..., "tokens": [...], "totals": [...], "winners": [...]}`
  (per table seat; a match's last round adds `match_winners`; han_solo's adds `hands`,
  every hand as shown at the round's end, H6).

Each line is flushed as it is written, so a game stopped by Ctrl-C or a kill leaves a
valid prefix. `replay` plays a log again through a `Session` (solver/play/session.py),
checking that every action is legal where it stands, every round starts as R14 allows
and every round ends as the log says; a line that does not fit is refused with its
number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

from solver import games, provenance
from solver.play.session import CHANCE, Session, SessionError

FORMAT = "jabbas-palace-play-log"
FORMAT_VERSION = 1
GAME_FIELDS = ("seat", "against", "seed", "match")


class LogError(ValueError):
    """A log that cannot be replayed; the message names the line."""


class LogWriter:
    """Writes the lines to a text stream, each flushed at once."""

    def __init__(self, stream):
        self.stream = stream

    def header(self, game, command: str | None = None, **fields) -> dict:
        record = {"format": FORMAT, "format_version": FORMAT_VERSION,
                  **provenance.header(game, seconds=0.0, command=command, **fields)}
        self.write(record)
        return record

    def write(self, line: dict) -> None:
        self.stream.write(json.dumps(line) + "\n")
        self.stream.flush()


def opponent_fields(against: str, search_iterations: int) -> dict:
    """The header's record of the opponents' budget (the search's only)."""
    return {"opponent_search_iterations": search_iterations} if against == "search" else {}


def game_command(game, seat: int, against: str, seed: int, match: bool,
                 search_iterations: int | None = None) -> str:
    """The `jabba play` command that starts this game."""
    params = game.get_parameters()
    words = ["jabba", "play", "--seat", str(seat), "--against", against]
    if against == "search" and search_iterations is not None:
        words += ["--opponent-search-iterations", str(search_iterations)]
    variant = provenance.game_flags(game.get_type().short_name, params.get("agenda"))
    words += ["--players", str(params["players"]), *variant, "--seed", str(seed)]
    if params.get("deck", "full") != "full":
        words += ["--deck", params["deck"]]
    if params.get("utility", "margin") != "margin":
        words += ["--utility", params["utility"]]
    return " ".join(words + (["--match"] if match else []))


def read_lines(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) of each non-blank line; LogError for one that is not a JSON
    object."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise LogError(f"{path}: not UTF-8 text (byte {err.start})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as err:
            raise LogError(f"{path}, line {number}: not JSON ({err})") from None
        if not isinstance(value, dict):
            raise LogError(f"{path}, line {number}: a JSON {type(value).__name__}, not an "
                           "object")
        yield number, value


def read_header(path: Path, lines: Iterator[tuple[int, dict]]) -> dict:
    first = next(lines, None)
    if first is None:
        raise LogError(f"{path}: empty; a play log starts with its header line")
    number, header = first
    if header.get("format") != FORMAT:
        raise LogError(f"{path}, line {number}: not a play log (its first line's format is "
                       f"{header.get('format')!r}, expected {FORMAT!r})")
    if header.get("format_version") != FORMAT_VERSION:
        raise LogError(f"{path}, line {number}: format version {header.get('format_version')!r}"
                       f"; this code reads version {FORMAT_VERSION}")
    missing = [f for f in GAME_FIELDS if f not in header]
    if missing or "game" not in header:
        raise LogError(f"{path}, line {number}: the header lacks {missing or ['game']}")
    return header


def load_game(header: dict):
    """The pyspiel game a header names."""
    import pyspiel

    import spiel_game

    params = provenance.game_parameters(header)
    name = provenance.game_name(header)  # jabbas_palace in a log from before love_letter
    game = games.find(name)
    if game is None:
        raise LogError(f"the header's game {name!r}: allowed are "
                       f"{', '.join(spiel_game.REGISTERED)}")
    try:
        return game.load_parameters(params)
    except (ValueError, pyspiel.SpielError) as err:
        raise LogError(f"the header's game parameters {params}: {err}") from None


def replay(path: Path, record: Callable[[dict], None] | None = None, coach_factory=None,
           on_step: Callable[[Session, dict, dict | None], None] | None = None) -> Session:
    """Play the log at `path` again. `record` gets the log's header, then the lines the
    replay makes (so a log this code wrote comes out the same, line for line);
    `coach_factory(game)`, if
    given, coaches the human's plays again; `on_step(session, line, verdict)` is called
    after each line. Returns the session where the log ends (a prefix: where it stopped)."""
    path = Path(path)
    lines = read_lines(path)
    header = read_header(path, lines)
    game = load_game(header)
    session_class = games.of(game).session_class()  # its adapter's (solver/games/)
    if record is not None:
        record(header)
    coach = coach_factory(game) if coach_factory else None
    session = None
    for number, line in lines:
        where = f"{path}, line {number}"
        try:
            if "starter" in line:
                starter = _int(line, "starter", where)
                if session is None:
                    session = session_class(game, _int(header, "seat", where), None,
                                      seed=_int(header, "seed", where),
                                      match=bool(header["match"]), record=record,
                                      coach=coach, first_starter=starter)
                else:
                    session.start_round(starter)
                verdict = None
            elif "action" in line:
                if session is None:
                    raise LogError(f"{where}: an action before the first round's start")
                verdict = _replay_action(session, line, where)
            elif "round_end" in line:
                if session is None or not session.round_over or \
                        line["round_end"] != session.round:
                    raise LogError(f"{where}: round {line['round_end']} ends here, but the "
                                   "replayed round has not ended")
                _check_result(session, line, where)
                verdict = None
            else:
                raise LogError(f"{where}: neither a round start, an action nor a round end")
        except SessionError as err:
            raise LogError(f"{where}: {err}") from None
        if on_step is not None:
            on_step(session, line, verdict)
    if session is None:
        raise LogError(f"{path}: the log stops before its first round starts")
    return session


def _int(line: dict, field: str, where: str) -> int:
    value = line.get(field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise LogError(f"{where}: {field} is {value!r}, not a whole number")
    return value


def _replay_action(session: Session, line: dict, where: str):
    if session.round_over:
        raise LogError(f"{where}: round {session.round} is over, but the log has another "
                       "action")
    if line.get("round") != session.round:
        raise LogError(f"{where}: the action is of round {line.get('round')!r}, the game is "
                       f"in round {session.round}")
    player, action = _int(line, "player", where), _int(line, "action", where)
    if player != session.to_act:
        who = "chance" if session.to_act == CHANCE else f"p{session.to_act}"
        raise LogError(f"{where}: the log has p{player} act, but {who} is to act")
    if session.waiting:
        return session.act(action)
    session.apply(action, by=line.get("by"))
    return None


def _check_result(session: Session, line: dict, where: str) -> None:
    result = session.rounds[-1]
    # han_solo's hands shown at the end (H6); a log written before they were recorded
    # has none to check.
    shown = ("hands",) if "hands" in result and "hands" in line else ()
    for field in ("tokens", "totals", "winners", *shown):
        if line.get(field) != result[field]:
            raise LogError(f"{where}: the log says {field} {line.get(field)}, the replayed "
                           f"round gives {result[field]}")
