"""Bad input to `jabba`: every class of docs/bad-input.md is refused with a message naming
the option, the value and what is allowed, exit code 2 and no traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
DOCS = Path(__file__).resolve().parents[1] / "docs" / "bad-input.md"
HINT = ["hint", "--hand", "jabba,guard", "--face-up", "crumb,bib,merc"]
LOVE_LETTER_HINT = ["hint", "--game", "love_letter", "--seat", "1", "--face-up",
                    "guard,guard,king", "--hand", "guard,baron"]

# (id, arguments, what the message says); {name} is a file made by `files` below.
HINT_SPOT = ["hint", "--hand", "jabba,guard", "--face-up", "crumb,bib,merc", "--area",
             "0=han", "--seat", "1"]
CASES = [
    ("solve-iterations-negative", ["solve", "--iterations", "-5"],
     "Invalid value for '--iterations': '-5': allowed is an integer from 0 to 2**63 - 1"),
    ("solve-mccfr-iterations-negative", ["solve", "--algorithm", "mccfr", "--iterations",
                                         "-5"], "'--iterations': '-5': allowed is"),
    ("solve-no-budget", ["solve", "--iterations", "0"], "needs --seconds or --target"),
    ("solve-iterations-not-integer", ["solve", "--iterations", "1e3"],
     "'--iterations': '1e3': allowed is an integer"),
    ("solve-seconds-zero", ["solve", "--seconds", "0"],
     "'--seconds': '0': allowed is a number of seconds above 0 and at most 1e9"),
    ("solve-seconds-negative", ["solve", "--seconds", "-1"], "'--seconds': '-1': allowed"),
    ("solve-seconds-huge", ["solve", "--seconds", "1e308"], "'--seconds': '1e308': allowed"),
    ("solve-seconds-nan", ["solve", "--seconds", "nan"], "'--seconds': 'nan': allowed"),
    ("solve-seconds-inf", ["solve", "--seconds", "inf"], "'--seconds': 'inf': allowed"),
    ("solve-seconds-text", ["solve", "--seconds", "soon"], "'--seconds': 'soon': allowed"),
    ("solve-target-zero", ["solve", "--target", "0"],
     "'--target': '0': allowed is a number above 0"),
    ("solve-checkpoint-every-zero", ["solve", "--algorithm", "mccfr", "--checkpoint-every",
                                     "0"], "'--checkpoint-every': '0': allowed"),
    ("solve-seed-negative", ["solve", "--algorithm", "mccfr", "--seed", "-5"],
     "'--seed': '-5': allowed is an integer from 0 to 2**63 - 1"),
    ("solve-seed-too-large", ["solve", "--algorithm", "mccfr", "--seed",
                              "99999999999999999999"], "'--seed': '99999999999999999999'"),
    ("solve-threads-zero", ["solve", "--algorithm", "mccfr", "--threads", "0"],
     "'--threads': '0': allowed is an integer from 1 to 1024"),
    ("solve-mccfr-option-with-exact", ["solve", "--threads", "4"],
     "--threads: applies only to --algorithm mccfr"),
    ("solve-exact-option-with-mccfr", ["solve", "--algorithm", "mccfr", "--target", "0.1"],
     "--target: applies only to the exact algorithms"),
    ("solve-resume-without-checkpoint", ["solve", "--algorithm", "mccfr", "--resume"],
     "--resume: needs --checkpoint"),
    ("solve-max-keys-zero", ["solve", "--algorithm", "mccfr", "--max-keys", "0"],
     "'--max-keys': '0': allowed is an integer from 1 to 2**63 - 1"),
    ("solve-max-keys-with-exact", ["solve", "--max-keys", "1000"],
     "--max-keys: applies only to --algorithm mccfr"),
    ("solve-out-is-a-folder", ["solve", "--out", "{folder}"], "is a directory"),
    ("solve-ship-and-out", ["solve", "--ship", "--out", "x.json.gz"], "give one"),
    ("solve-unknown-algorithm", ["solve", "--algorithm", "cfr++"],
     "allowed are cfr, cfr+, dcfr, mccfr"),
    ("solve-exact-on-full-deck", ["solve", "--deck", "full"], "use --algorithm mccfr"),
    ("solve-unknown-abstraction", ["solve", "--algorithm", "mccfr", "--abstraction",
                                   "finest"], "allowed are identity, counting, fine, coarse"),
    ("play-players-out-of-range", ["play", "--players", "7"], "from 2 to 6"),
    ("play-unknown-agenda", ["play", "--agenda", "galactic"], "galactic"),
    ("play-seed-negative", ["play", "--seed", "-5"], "'--seed': '-5': allowed"),
    ("play-viewer-out-of-range", ["play", "--viewer", "5"],
     "--viewer: 5: allowed is -1 (none) or a seat from 0 to 1"),
    ("rules-unknown-card", ["rules", "chewbaca"], "Did you mean Chewbacca"),
    ("exploit-iterations-zero", ["exploit", "--iterations", "0"],
     "'--iterations': '0': allowed is an integer from 1"),
    ("exploit-unknown-agenda", ["exploit", "--agendas", "galactic"], "unknown agenda"),
    ("hint-situation-missing", ["hint", "--situation", "{missing}"], "does not exist"),
    ("hint-situation-folder", ["hint", "--situation", "{folder}"], "is a directory"),
    ("hint-situation-not-utf8", ["hint", "--situation", "{garbage}"],
     "--situation: {garbage}: not UTF-8 text"),
    ("hint-situation-bad-toml", ["hint", "--situation", "{bad_toml}"], "not valid TOML"),
    ("hint-situation-bad-json", ["hint", "--situation", "{bad_json}"], "not valid JSON"),
    ("hint-situation-not-a-table", ["hint", "--situation", "{array}"],
     "a JSON list; a situation is a table of fields"),
    ("hint-situation-areas-not-a-table", [*HINT, "--situation", "{areas_list}", "--area",
                                          "1=guard"], "'areas' is a list, not a table"),
    ("hint-seconds-zero", [*HINT, "--seconds", "0"], "'--seconds': '0': allowed"),
    ("hint-seconds-huge", [*HINT, "--seconds", "1e308"], "'--seconds': '1e308': allowed"),
    ("hint-resolve-seconds-nan", [*HINT, "--resolve-seconds", "nan"],
     "'--resolve-seconds': 'nan': allowed"),
    ("hint-seed-too-large", [*HINT, "--seed", str(2**63)], "'--seed': '9223372036854775808'"),
    ("hint-area-repeated", [*HINT, "--area", "1=guard", "--area", "1=han"],
     "--area: seat 1 given twice (1=guard and 1=han)"),
    ("hint-saw-repeated", [*HINT, "--saw", "1=luke", "--saw", "1=han"],
     "--saw: seat 1 given twice"),
    ("hint-area-without-seat", [*HINT, "--area", "guard"], "expected SEAT=CARDS"),
    ("hint-log-and-log-file", [*HINT, "--log", "p0 plays Guard", "--log-file", "{log}"],
     "--log and --log-file both given; give one"),
    ("hint-log-file-not-utf8", [*HINT, "--log-file", "{garbage}"],
     "--log-file: {garbage}: not UTF-8 text"),
    ("hint-policy-missing", [*HINT, "--policy", "{missing}"], "does not exist"),
    ("export-out-is-a-folder", ["export", "--out", "{folder}"], "is a directory"),
    ("export-rounds-zero", ["export", "--out", "x.csv", "--rounds", "0"],
     "'--rounds': '0': allowed is an integer from 1"),
    ("export-unknown-format", ["export", "--out", "x.xml", "--format", "xml"],
     "allowed are csv, jsonl"),
    ("tournament-no-games", ["tournament", "--deals", "0", "--matches", "0"],
     "--deals and --matches are both 0"),
    ("tournament-deals-negative", ["tournament", "--deals", "-1"], "'--deals': '-1'"),
    ("lbr-rollouts-zero", ["lbr", "--policy", "uniform", "--rollouts", "0"],
     "'--rollouts': '0': allowed is an integer from 1"),
    ("lbr-exact-on-full-deck", ["lbr", "--policy", "uniform", "--exact"],
     "--exact needs a reduced deck"),
    ("evaluate-scale-nan", ["evaluate", "--scale", "nan"], "'--scale': 'nan': allowed"),
    ("evaluate-unknown-part", ["evaluate", "--parts", "lbr,speed"], "unknown part"),
    ("game-unknown", ["solve", "--game", "chess"],
     "'--game': 'chess': allowed are jabbas_palace, love_letter"),
    ("love-letter-agenda", ["solve", "--game", "love_letter", "--agenda", "jabbas_court"],
     "--agenda: applies only to --game jabbas_palace: love_letter has no agendas"),
    ("love-letter-evaluate-agendas", ["evaluate", "--game", "love_letter", "--agendas",
                                      "exalted_one"], "--agendas: applies only to --game"),
    ("love-letter-deck-with-a-jabba-card", ["solve", "--game", "love_letter", "--deck",
                                            "jabba+guard:3+faceup:0"],
     "Jabba the Hutt is a card of Jabba's Palace, not of classic Love Letter"),
    ("love-letter-guards-only", ["solve", "--game", "love_letter", "--deck",
                                 "guard:6+faceup:0"], "the Guard could name no number"),
    ("rules-classic-card-without-game", ["rules", "countess"],
     "Countess is a card of classic Love Letter, not of Jabba's Palace"),
    ("model-fit-not-a-log", ["model", "fit", "--log", "{log}", "--seat", "1"],
     "line 1: not JSON"),
    ("model-fit-out-not-json", ["model", "fit", "--log", "{log}", "--seat", "1", "--out",
                                "m.txt"], "a model file ends in .json"),
    ("model-sample-rounds-zero", ["model", "sample", "--policy", "uniform", "--rounds", "0",
                                  "--out", "x.jsonl"],
     "'--rounds': '0': allowed is an integer from 1"),
    ("model-sample-unknown-policy", ["model", "sample", "--policy", "best", "--out",
                                     "x.jsonl"], "unknown opponent 'best'"),
    ("model-sample-seat-out-of-range", ["model", "sample", "--policy", "uniform", "--seat",
                                        "2", "--out", "x.jsonl"],
     "2: allowed is a table seat from 0 to 1"),
    ("model-accuracy-unknown-agenda", ["model", "accuracy", "--agendas", "galactic"],
     "allowed are 'all' or exalted_one"),
    ("hint-love-letter-agenda", [*LOVE_LETTER_HINT, "--agenda", "exalted_one"],
     "--agenda: applies only to --game jabbas_palace: love_letter has no agendas"),
    ("hint-love-letter-jabba-card", [*LOVE_LETTER_HINT[:-2], "--hand", "jabba,guard"],
     "Jabba the Hutt is a card of Jabba's Palace, not of classic Love Letter"),
    ("hint-love-letter-summary-prince", [*LOVE_LETTER_HINT, "--area", "0=prince@1"],
     "not said by a summary of classic Love Letter"),
    ("export-love-letter-agenda", ["export", "--game", "love_letter", "--agenda",
                                   "jabbas_court", "--out", "x.csv"],
     "--agenda: applies only to --game jabbas_palace"),
    ("search-exact-love-letter-agendas", ["search-exact", "--game", "love_letter",
                                          "--agendas", "exalted_one"],
     "--agendas: applies only to --game jabbas_palace"),
    ("hint-score-out-of-range", [*HINT_SPOT, "--score", "6,0"],
     "score 6 of seat 0: allowed is a whole number from 0 to 5"),
    ("hint-score-impossible-sum", [*HINT_SPOT, "--score", "5,5", "--rounds-played", "2"],
     "2 round(s) hand out at most 6 tokens"),
    ("hint-match-goal-without-score", [*HINT_SPOT, "--match-goal", "4"],
     "--match-goal: applies only with --score"),
    ("hint-opponent-own-seat", [*HINT_SPOT, "--opponent", "1=keep_higher"],
     "allowed is a seat other than yours"),
    ("hint-opponent-three-players", ["hint", "--players", "3", "--hand", "jabba,guard",
                                     "--opponent", "1=keep_higher"],
     "opponent models take 2 players"),
    ("hint-confidence-out-of-range", [*HINT_SPOT, "--opponent", "0=keep_higher",
                                      "--confidence", "1.5"],
     "the safe mode's weight on the model is strictly between 0 and 1"),
    ("search-exact-unknown-leaves", ["search-exact", "--decks", "tiny", "--leaves",
                                     "single,biased"],
     "allowed are 'all' or a comma list of single, multi, multi-heuristic"),
    ("search-duel-love-letter-agendas", ["search-duel", "--game", "love_letter",
                                         "--agendas", "exalted_one"],
     "--agendas: applies only to --game jabbas_palace"),
    ("search-duel-lbr-three-players", ["search-duel", "--players", "3", "--agendas",
                                       "exalted_one", "--opponents", "lbr"],
     "--opponents: LBR against the search takes 2 players, not 3"),
    ("search-duel-search-lbr-three-players", ["search-duel", "--players", "3", "--agendas",
                                              "exalted_one", "--opponents", "search-lbr"],
     "--opponents: the search-aware LBR takes 2 players, not 3"),
    ("search-duel-timed-search-lbr", ["search-duel", "--agendas", "exalted_one",
                                      "--opponents", "search-lbr", "--search-seconds", "1"],
     "--search-seconds: search-lbr models a search of a fixed number of iterations"),
    ("match-table-goal-zero", ["match-table", "--goal", "0"],
     "'--goal': '0': allowed is an integer from 1"),
    ("match-table-policies-per-seat", ["match-table", "--policy", "uniform,uniform,uniform"],
     "3 policies for 2 players: give one for every seat, or one per seat"),
    ("match-duel-unknown-agenda", ["match-duel", "--agendas", "exalted_one,jabba"],
     "--agendas: jabba: allowed are exalted_one, my_kind_of_scum, jabbas_court, "
     "rescue_mission"),
    ("match-duel-sampling-option-exact", ["match-duel", "--deck", "small", "--seed", "3"],
     "--seed: applies only with --deck full"),
    ("match-duel-iterations-full-deck", ["match-duel", "--deck", "full", "--iterations", "10"],
     "--iterations: applies only on a reduced deck"),
    ("hint-policy-other-players", [*HINT, "--players", "5", "--policy", "{table_4p}"],
     "policy is for game {{'agenda': 'exalted_one', 'deck': 'full', 'players': 4, "
     "'utility': 'margin'}}, not {{'agenda': 'exalted_one', 'deck': 'full', 'players': 5"),
    ("hint-han-solo-policy-other-players",
     ["hint", "--game", "han_solo", "--players", "3", "--seat", "2", "--hand", "+4,-2",
      "--log", "flip +9; p0 draw; p0 discard -2; p1 draw; p1 discard +7", "--policy",
      "{han_solo_2p}"], "policy_full_han_solo_2p_compact.npz: made for han_solo players=2, "
     "not players=3"),
]


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    made = {"folder": tmp_path, "missing": tmp_path / "missing.toml",
            "table_4p": DOCS.parents[1] / "results" / "policy_full_exalted_one_4p_many.npz",
            "han_solo_2p": DOCS.parents[1] / "results" / "policy_full_han_solo_2p_compact.npz"}
    for name, suffix, data in (("garbage", ".toml", b"seat = 0\n\xff\xfe\x00garbage"),
                               ("bad_toml", ".toml", b"seat = = 0"),
                               ("bad_json", ".json", b"{seat: 0"),
                               ("array", ".json", b"[1, 2]"),
                               ("areas_list", ".json", b'{"areas": ["guard"]}'),
                               ("log", ".txt", b"p0 plays Guard\n")):
        made[name] = tmp_path / f"{name}{suffix}"
        made[name].write_bytes(data)
    return {k: str(v) for k, v in made.items()}


def _unboxed(output: str) -> str:
    return " ".join(re.sub("[\u2500-\u257f]", " ", output).split())


@pytest.mark.parametrize("args, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused(args, message, files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing a case might write lands in the checkout
    result = runner.invoke(app, [a.format(**files) for a in args])
    text = _unboxed(result.output)
    assert result.exit_code == 2, result.output
    # Spaces aside: the error box wraps a long path (a deep temporary folder) mid-word.
    assert "".join(message.format(**files).split()) in "".join(text.split()), result.output
    assert isinstance(result.exception, (SystemExit, type(None))), result.exception
    assert list(tmp_path.glob("jabbas_palace_*")) == []  # refused before any work


def test_help_is_clean_for_every_command():
    """-h works everywhere; no typer-style <bool>/<str> metavars; no default text split
    over lines."""
    from typer.main import get_command

    for name in ["", *get_command(app).commands]:
        result = runner.invoke(app, [name, "-h"] if name else ["-h"], env={"COLUMNS": "100"},
                               terminal_width=100)
        assert result.exit_code == 0, (name, result.output)
        assert "Usage: " in result.output
        assert not re.search(r"<\w[\w\[\]]*>", result.output), (name, result.output)
        for line in result.output.splitlines():
            assert not re.search(r"\[default:[^\]]*$", line), (name, line)
            assert "[default: (" not in line, (name, line)


def test_a_closed_pipe_ends_the_command_quietly():
    """`jabba play | head -1`: the reader leaves; exit 141 (as a Unix tool), nothing on
    stderr. Many lines, so the writer meets the closed pipe whatever the timing."""
    script = ("from cli.main import app\nimport typer\n"
              "@app.command()\ndef flood():\n"
              "    for i in range(200_000):\n        typer.echo(f'line {i}')\n"
              "app(['flood'])\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout.readline() == b"line 0\n"
    child.stdout.close()
    stderr = child.stderr.read()
    assert child.wait(timeout=60) == 141, stderr
    assert stderr == b""


def _table_rows() -> list[tuple[str, str]]:
    """(class, test) of every row of docs/bad-input.md."""
    rows = []
    for line in DOCS.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 4 and cells[-1].startswith("`tests/"):
            rows.append((cells[1], cells[-1].strip("`")))
    return rows


def test_the_table_and_the_tests_agree():
    """Every row of docs/bad-input.md names a test that exists; every case here has a row;
    at least 40 classes."""
    import ast

    rows = _table_rows()
    assert len(rows) >= 40
    root = DOCS.parents[1]
    case_ids = {c[0] for c in CASES}
    for klass, test in rows:
        path, _, name = test.partition("::")
        function, _, case = name.partition("[")
        tree = ast.parse((root / path).read_text())
        functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert function in functions, (klass, test)
        if case:
            assert path == "tests/test_bad_input.py" and case.rstrip("]") in case_ids, test
    listed = {t.partition("[")[2].rstrip("]") for _, t in rows if "[" in t}
    assert case_ids <= listed, case_ids - listed
