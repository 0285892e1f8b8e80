"""Battle at Sarlacc's Pit's board as data (docs/RULES.md S1): the default reconstruction,
a user's own file in TOML or JSON, and a clear error naming each fault a file can have."""

from __future__ import annotations

import copy
import json
import tomllib

import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers sarlaccs_pit)
from spiel_game.sarlacc import layout as L
from spiel_game.sarlacc.board import BOARDS, BoardError, check_board, load_board


def default_data() -> dict:
    return tomllib.loads((BOARDS / "default.toml").read_text(encoding="utf-8"))


def test_s1_the_default_board_is_the_reconstruction():
    board = load_board("default")
    assert board.size == 49
    assert len(board.lines) == 5 and all(len(line) == 6 for line in board.lines)
    kinds = [kind for _, kind in board.posts]
    assert kinds.count(L.GAMORREAN) == 10
    assert kinds.count(L.NIKTO) == 1 and kinds.count(L.BOBA_FETT) == 1
    assert board.guard_points() + L.JABBA_POINTS == 18  # ten 1s, two 2s and the 4 (S13)
    names = board.names
    assert sorted(names[i] for i in board.neighbours[board.entry]) == ["b1", "c1", "d1"]
    assert names[board.jabba_start] == "jabba" and board.jabba_start in board.top_deck
    jabba = board.neighbours[board.jabba_start]
    assert sorted(names[i] for i in jabba) == [f"grey_{c}" for c in "abcde"]
    for line, grey in zip(board.lines, board.greys):  # each line ends at its grey space
        assert grey in board.neighbours[line[-1]]
        assert [board.rows[s] for s in line] == sorted(board.rows[s] for s in line)
    # Gamorreans on either side of the Main Deck, Nikto and Boba Fett below the Top Deck.
    touch = {names[s]: sorted(names[i] for i in board.neighbours[s]) for s, _ in board.posts}
    assert touch["left2"] == ["a2", "a3"] and touch["right5"] == ["e5", "e6"]
    assert touch["nikto"] == ["b6", "c6"] and touch["boba"] == ["c6", "d6"]


def test_s1_a_users_board_in_json_loads_the_same(tmp_path):
    path = tmp_path / "barge.json"
    path.write_text(json.dumps(default_data()))
    mine, default = load_board(str(path)), load_board("default")
    assert mine.neighbours == default.neighbours and mine.posts == default.posts
    assert mine.source == str(path)
    game = pyspiel.load_game("sarlaccs_pit", {"board": str(path)})
    assert game.config.board.names == default.names


def test_s1_a_smaller_board_of_ones_own_plays(tmp_path):
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(MINI))
    game = pyspiel.load_game("sarlaccs_pit", {"board": str(path), "players": 3})
    assert game.config.total_points == 1 + 2 + 2 + 4
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


# A board of 11 spaces: two lines of two, a Gamorrean, Nikto, Boba Fett (tests/S6-S11).
MINI = {
    "entry": "entry", "jabba_start": "jabba", "top_deck": ["grey_a", "grey_b", "jabba"],
    "spaces": {"entry": 0, "a1": 2, "b1": 1, "a2": 4, "b2": 3, "gam": 3, "nikto": 5,
               "boba": 4, "grey_a": 6, "grey_b": 6, "jabba": 8},
    "neighbours": {"entry": ["a1", "b1"], "a1": ["entry", "b1", "a2", "gam"],
                   "b1": ["entry", "a1", "b2"], "a2": ["a1", "b2", "grey_a", "gam", "nikto"],
                   "b2": ["b1", "a2", "grey_b", "boba"], "gam": ["a1", "a2"],
                   "nikto": ["a2"], "boba": ["b2"], "grey_a": ["a2", "grey_b", "jabba"],
                   "grey_b": ["b2", "grey_a", "jabba"], "jabba": ["grey_a", "grey_b"]},
    "line": [{"spaces": ["a1", "a2"], "grey": "grey_a"},
             {"spaces": ["b1", "b2"], "grey": "grey_b"}],
    "post": [{"space": "gam", "guard": "gamorrean"}, {"space": "nikto", "guard": "nikto"},
             {"space": "boba", "guard": "boba_fett"}],
}


def _edited(edit) -> dict:
    data = copy.deepcopy(default_data())
    edit(data)
    return data


def _drop_neighbour(data, space, gone):
    data["neighbours"][space].remove(gone)


def _add_loft(data):
    data["spaces"]["loft"] = 9
    data["neighbours"]["loft"] = []


def _share_grey_a(data):
    data["neighbours"]["b6"].append("grey_a")
    data["neighbours"]["grey_a"].append("b6")
    data["line"][1]["grey"] = "grey_a"


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("entry"), "missing entry"),
    (lambda d: d.update(colour="tan"), "unknown key.s. colour"),
    (lambda d: _drop_neighbour(d, "c3", "c4"), "not symmetric: 'c4' lists 'c3'"),
    (lambda d: d["neighbours"]["c3"].append("c9"), "neighbours of 'c3': 'c9' is not a space"),
    (lambda d: d["neighbours"]["c3"].append("c3"), "'c3' lists itself"),
    (_add_loft, "not connected: no path from the entry to loft"),
    (_share_grey_a, "line 2: grey space 'grey_a' ends another line"),
    (lambda d: d["neighbours"]["right3"].clear() or d["neighbours"]["e3"].remove("right3")
     or d["neighbours"]["e4"].remove("right3"), "post 8: no space touches 'right3'"),
    (lambda d: d["line"][2]["spaces"].pop(), "line 3 does not end at its grey space"),
    (lambda d: d["line"][1]["spaces"].insert(0, "a1"), "'a1' is on another line too"),
    (lambda d: d["line"][1]["spaces"].reverse(), "line 2 does not end at its grey space"),
    (lambda d: d["line"][1]["spaces"].remove("b3"), "'b2' and 'b4' are not adjacent"),
    (lambda d: d["post"][0].update(guard="rancor"), "guard 'rancor'; allowed: gamorrean"),
    (lambda d: d["post"][0].update(space="grey_a"), "on the Top Deck or another post"),
    (lambda d: d.update(jabba_start="c3"), "jabba_start 'c3' is not on the Top Deck"),
    (lambda d: d["spaces"].update(c3=-1), "row -1 must be a whole number"),
    (lambda d: d["line"].append({"spaces": ["c1"]}), "line 6 must give exactly spaces"),
])
def test_s1_a_bad_board_names_its_fault(edit, message):
    with pytest.raises(BoardError, match=message):
        check_board(_edited(edit), "edited")


def test_s1_every_guard_must_be_reachable_while_the_guards_stand():
    """A guard whose post touches only other posts and the Top Deck cannot be challenged."""
    data = copy.deepcopy(MINI)
    data["spaces"]["hidden"] = 7
    data["neighbours"]["hidden"] = ["grey_a"]
    data["neighbours"]["grey_a"].append("hidden")
    data["post"].append({"space": "hidden", "guard": "gamorrean"})
    with pytest.raises(BoardError, match="guard post 'hidden' cannot be reached"):
        check_board(data, "mini")
    assert check_board(MINI, "mini").size == 11


def test_s1_files_that_cannot_be_read_say_so(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("entry = \n")
    with pytest.raises(BoardError, match="bad.toml: not valid TOML"):
        load_board(str(bad))
    with pytest.raises(BoardError, match="cannot be read"):
        load_board(str(tmp_path / "absent.json"))
    with pytest.raises(BoardError, match="no such board; named boards are default"):
        load_board("deluxe")
    with pytest.raises((ValueError, pyspiel.SpielError), match="no such board"):
        pyspiel.load_game("sarlaccs_pit", {"board": "deluxe"})
    with pytest.raises(BoardError, match="the file must hold a table"):
        check_board([1, 2], "list")


def test_s1_where_each_space_is_drawn_is_the_files_layout_or_derived():
    """The optional [layout] (the web page's drawing, never the rules'): the default
    board's is every space's, no two at one place; a board without one is drawn from its
    lines and rows: a line's spaces in its column, the row as height, a post beside the
    one line it touches."""
    board = load_board("default")
    drawn = board.drawing()
    assert len(drawn) == board.size and len(set(drawn)) == board.size
    at = dict(zip(board.names, drawn))
    assert at["a1"] == (1.0, 2.0) and at["left1"] == (0.0, 3.0) and at["right1"] == (6.0, 3.0)
    data = default_data()
    del data["layout"]
    derived = dict(zip(board.names, check_board(data).drawing()))
    assert derived["a1"] == at["a1"] and derived["left1"] == at["left1"]
    assert derived["grey_c"] == (3.0, 14.0) and derived["jabba"] == (3.0, 16.0)
    tiny = load_board("tiny")
    assert tiny.layout is None and tiny.drawing()[tiny.space("a2")] == (1.0, 2.0)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["layout"].pop("a1"), r"\[layout\] must place every space; missing a1"),
    (lambda d: d["layout"].update(x9=[1, 1]), r"\[layout\]: 'x9' not a space of \[spaces\]"),
    (lambda d: d["layout"].update(a1=[1]), r"\[layout\] 'a1': \[1\] must be \[x, y\]"),
    (lambda d: d["layout"].update(a1=[1, "up"]), r"must be \[x, y\], two numbers"),
    (lambda d: d["layout"].update(a2=[1, 2]), r"\[layout\]: 'a2' and 'a1' are drawn at the "
     r"same place"),
    (lambda d: d.update(layout=[1, 2]), r"\[layout\] must map each space's name"),
])
def test_s1_a_layout_that_breaks_its_checks_is_refused(change, message):
    data = default_data()
    change(data)
    with pytest.raises(BoardError, match=message):
        check_board(data)
