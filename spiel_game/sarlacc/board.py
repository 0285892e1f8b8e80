"""The board of Battle at Sarlacc's Pit as data (docs/RULES.md S1): a TOML or JSON file of
spaces, adjacency, lines and guard posts, loaded and checked here.

    board = load_board("default")          # boards/default.toml, the reconstruction
    board = load_board("my_barge.toml")    # a user's own board, checked the same way

A file holds `entry`, `jabba_start`, `top_deck` (names of spaces), `[spaces]` (each space's
row: half-rows from the entry, larger nearer the Top Deck), `[neighbours]` (each space's
adjacent spaces, symmetric), `[[line]]` (`spaces` from the entry end, and the `grey` space at
its end) and `[[post]]` (`space` and `guard`: gamorrean, nikto or boba_fett); optionally
`[layout]`, where each space is drawn (`name = [x, y]`: x in columns, y in half-rows up
from the entry; for the web page only, the rules never read it). A file that breaks a
check raises `BoardError` naming the file and the fault.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

from . import layout as L

BOARDS = Path(__file__).resolve().parent / "boards"
KEYS = ("entry", "jabba_start", "top_deck", "spaces", "neighbours", "line", "post")
OPTIONAL_KEYS = ("layout",)


class BoardError(ValueError):
    """A board file that cannot be read or breaks a check."""


@dataclasses.dataclass(frozen=True)
class Board:
    """A checked board; spaces are ids 0.. in the file's order of `[spaces]`."""

    source: str
    names: tuple[str, ...]
    rows: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]
    entry: int
    jabba_start: int
    top_deck: frozenset[int]
    lines: tuple[tuple[int, ...], ...]
    greys: tuple[int, ...]  # greys[i]: the grey space at the end of line i
    posts: tuple[tuple[int, int], ...]  # (space, guard kind: L.GAMORREAN, ...)
    layout: tuple[tuple[float, float], ...] | None = None  # where each space is drawn

    def drawing(self) -> list[tuple[float, float]]:
        """Where each space is drawn, (x in columns, y in half-rows up from the entry):
        the file's `[layout]`, else derived: y the space's row; x its line's number (from
        1) for a line's spaces and its grey space, for any other space the mean x of its
        neighbours placed so, pushed one column outward where they are all on one side
        line (the guards' posts along the Main Deck)."""
        if self.layout is not None:
            return list(self.layout)
        xs: dict[int, float] = {}
        for i, line in enumerate(self.lines):
            for s in (*line, self.greys[i]):
                xs[s] = float(i + 1)
        centre = (len(self.lines) + 1) / 2
        for s in range(self.size):
            if s in xs:
                continue
            placed = [xs[j] for j in self.neighbours[s] if j in xs]
            x = sum(placed) / len(placed) if placed else centre
            if placed and len(set(placed)) == 1 and x != centre and (
                    x in (1.0, float(len(self.lines)))):
                x += 1.0 if x > centre else -1.0
            xs[s] = x
        return [(xs[s], float(self.rows[s])) for s in range(self.size)]

    @property
    def size(self) -> int:
        return len(self.names)

    def space(self, name: str) -> int:
        """The id of the space called `name`."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no space {name!r} on board {self.source}") from None

    def line_of(self, space: int) -> int:
        """The line `space` is on, or -1."""
        return next((i for i, line in enumerate(self.lines) if space in line), -1)

    def guard_points(self) -> int:
        return sum(L.GUARD_POINTS[kind] for _, kind in self.posts)

    def kinds(self) -> list[int]:
        """Each space's kind: L.SPACE_TAN, SPACE_POST or SPACE_TOP."""
        kind = [L.SPACE_TAN] * self.size
        for space, _ in self.posts:
            kind[space] = L.SPACE_POST
        for space in self.top_deck:
            kind[space] = L.SPACE_TOP
        return kind


def load_board(name_or_path: str) -> Board:
    """A board by name (a file of boards/, without its suffix) or by path (.toml, .json)."""
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise BoardError(f"board={name_or_path!r}: give 'default' or the path of a .toml or "
                         ".json board file")
    path = Path(name_or_path)
    if path.suffix not in (".toml", ".json"):
        path = BOARDS / f"{name_or_path}.toml"
        if not path.is_file():
            known = sorted(p.stem for p in BOARDS.glob("*.toml"))
            raise BoardError(f"board={name_or_path!r}: no such board; named boards are "
                             f"{', '.join(known)}, or give the path of a .toml or .json file")
    try:
        text = path.read_bytes()
    except OSError as err:
        raise BoardError(f"board file {path}: cannot be read ({err.strerror})") from None
    try:
        data = (tomllib.loads(text.decode("utf-8")) if path.suffix == ".toml"
                else json.loads(text))
    except (ValueError, UnicodeDecodeError) as err:
        raise BoardError(f"board file {path}: not valid {path.suffix[1:].upper()}: "
                         f"{err}") from None
    return check_board(data, str(path) if path.parent != BOARDS else path.stem)


def check_board(data: dict, source: str = "<board>") -> Board:
    """The Board `data` describes, or BoardError naming the first fault found."""

    def fail(message: str):
        raise BoardError(f"board {source}: {message}")

    if not isinstance(data, dict):
        fail("the file must hold a table of keys")
    missing = [k for k in KEYS if k not in data]
    unknown = sorted(set(data) - set(KEYS) - set(OPTIONAL_KEYS))
    if missing:
        fail(f"missing {', '.join(missing)}; a board needs {', '.join(KEYS)}")
    if unknown:
        fail(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(KEYS + OPTIONAL_KEYS)}")

    spaces = data["spaces"]
    if not isinstance(spaces, dict) or not spaces:
        fail("[spaces] must map each space's name to its row")
    if len(spaces) > L.MAX_SPACES:
        fail(f"{len(spaces)} spaces; at most {L.MAX_SPACES} are supported")
    names = tuple(spaces)
    ids = {n: i for i, n in enumerate(names)}
    for n, row in spaces.items():
        if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row <= 999:
            fail(f"space {n!r}: row {row!r} must be a whole number from 0 to 999")

    def space_id(name, where: str) -> int:
        if not isinstance(name, str) or name not in ids:
            fail(f"{where}: {name!r} is not a space of [spaces]")
        return ids[name]

    table = data["neighbours"]
    if not isinstance(table, dict):
        fail("[neighbours] must map each space to the list of its adjacent spaces")
    neighbours: list[list[int]] = [[] for _ in names]
    for n, adjacent in table.items():
        i = space_id(n, "[neighbours]")
        if not isinstance(adjacent, list):
            fail(f"neighbours of {n!r} must be a list of space names")
        for m in adjacent:
            j = space_id(m, f"neighbours of {n!r}")
            if j == i:
                fail(f"space {n!r} lists itself as a neighbour")
            if j in neighbours[i]:
                fail(f"neighbours of {n!r} list {m!r} twice")
            neighbours[i].append(j)
    for i, adjacent in enumerate(neighbours):
        if len(adjacent) > L.MAX_DEGREE:
            fail(f"space {names[i]!r} has {len(adjacent)} neighbours; at most "
                 f"{L.MAX_DEGREE} are supported")
        for j in adjacent:
            if i not in neighbours[j]:
                fail(f"adjacency is not symmetric: {names[i]!r} lists {names[j]!r}, but "
                     f"{names[j]!r} does not list {names[i]!r}")

    entry = space_id(data["entry"], "entry")
    jabba_start = space_id(data["jabba_start"], "jabba_start")
    if not isinstance(data["top_deck"], list) or not data["top_deck"]:
        fail("top_deck must list the Top Deck's spaces")
    top_deck = frozenset(space_id(n, "top_deck") for n in data["top_deck"])
    if jabba_start not in top_deck:
        fail(f"jabba_start {names[jabba_start]!r} is not on the Top Deck")
    if entry in top_deck:
        fail(f"the entry {names[entry]!r} is on the Top Deck")

    posts: list[tuple[int, int]] = []
    if not isinstance(data["post"], list):
        fail("post must be a list of [[post]] tables (space, guard)")
    for k, post in enumerate(data["post"], 1):
        if not isinstance(post, dict) or set(post) != {"space", "guard"}:
            fail(f"post {k} must give exactly space and guard")
        s = space_id(post["space"], f"post {k}")
        if post["guard"] not in L.GUARD_NAMES:
            fail(f"post {k} ({post['space']}): guard {post['guard']!r}; allowed: "
                 f"{', '.join(L.GUARD_NAMES)}")
        if s in (entry, *top_deck) or any(s == p for p, _ in posts):
            fail(f"post {k}: {post['space']!r} is the entry, on the Top Deck or another "
                 "post")
        if not neighbours[s]:
            fail(f"post {k}: no space touches {post['space']!r}")
        posts.append((s, L.GUARD_NAMES.index(post["guard"])))
    post_spaces = {s for s, _ in posts}
    if len(posts) > L.MAX_POSTS:
        fail(f"{len(posts)} guard posts; at most {L.MAX_POSTS} are supported")

    if not isinstance(data["line"], list) or not data["line"]:
        fail("line must list the lines of spaces ([[line]] tables: spaces, grey)")
    if len(data["line"]) > L.MAX_LINES:
        fail(f"{len(data['line'])} lines; at most {L.MAX_LINES} are supported")
    lines, greys, on_line = [], [], set()
    for k, line in enumerate(data["line"], 1):
        if not isinstance(line, dict) or set(line) != {"spaces", "grey"}:
            fail(f"line {k} must give exactly spaces and grey")
        if not isinstance(line["spaces"], list) or not line["spaces"]:
            fail(f"line {k}: spaces must list at least one space")
        path = [space_id(n, f"line {k}") for n in line["spaces"]]
        grey = space_id(line["grey"], f"line {k}'s grey")
        for s in path:
            if s in on_line:
                fail(f"line {k}: {names[s]!r} is on another line too")
            if s in top_deck or s in post_spaces or s == entry:
                fail(f"line {k}: {names[s]!r} is the entry, a post or on the Top Deck")
            on_line.add(s)
        for a, b in zip(path, path[1:]):
            if b not in neighbours[a]:
                fail(f"line {k}: {names[a]!r} and {names[b]!r} are not adjacent")
        if grey not in top_deck or grey == jabba_start:
            fail(f"line {k}: its grey space {names[grey]!r} must be on the Top Deck and "
                 "not Jabba's start")
        if grey in greys:
            fail(f"line {k}: grey space {names[grey]!r} ends another line too")
        if grey not in neighbours[path[-1]]:
            fail(f"line {k} does not end at its grey space: {names[path[-1]]!r} is not "
                 f"adjacent to {names[grey]!r}")
        lines.append(tuple(path))
        greys.append(grey)

    everything = _reachable(entry, neighbours, lambda s: True)
    if len(everything) < len(names):
        lost = sorted(names[i] for i in set(range(len(names))) - everything)
        fail(f"not connected: no path from the entry to {', '.join(lost)}")
    # S1: every guard can be challenged from the start: some space touching its post is
    # reachable from the entry while every guard stands and the Top Deck is closed.
    open_deck = _reachable(entry, neighbours,
                           lambda s: s not in post_spaces and s not in top_deck)
    for s, _ in posts:
        if not open_deck & set(neighbours[s]):
            fail(f"guard post {names[s]!r} cannot be reached: no space touching it can be "
                 "reached from the entry while the guards stand")
    layout = _layout(data.get("layout"), names, fail)
    return Board(source, names, tuple(spaces.values()), tuple(map(tuple, neighbours)), entry,
                 jabba_start, top_deck, tuple(lines), tuple(greys), tuple(posts), layout)


def _layout(table, names: tuple[str, ...], fail):
    """The optional [layout]: every space's [x, y], numbers, no two spaces at one place."""
    if table is None:
        return None
    if not isinstance(table, dict):
        fail("[layout] must map each space's name to its [x, y]")
    missing = [n for n in names if n not in table]
    extra = sorted(set(table) - set(names))
    if extra:
        fail(f"[layout]: {', '.join(map(repr, extra))} not a space of [spaces]")
    if missing:
        fail(f"[layout] must place every space; missing {', '.join(missing)}")
    out, seen = [], {}
    for n in names:
        xy = table[n]
        if (not isinstance(xy, list) or len(xy) != 2 or any(
                isinstance(v, bool) or not isinstance(v, (int, float)) or not -99 <= v <= 999
                for v in xy)):
            fail(f"[layout] {n!r}: {xy!r} must be [x, y], two numbers from -99 to 999")
        place = (float(xy[0]), float(xy[1]))
        if place in seen:
            fail(f"[layout]: {n!r} and {seen[place]!r} are drawn at the same place {xy}")
        seen[place] = n
        out.append(place)
    return tuple(out)


def _reachable(start: int, neighbours, passable) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        for j in neighbours[todo.pop()]:
            if j not in seen and passable(j):
                seen.add(j)
                todo.append(j)
    return seen
