"""Playing against the solver (solver/play/, `jabba play`): seeded rounds and matches to
their end through scripted input and a pseudo-terminal, the seat's view, R14, the coach
(the hint's own answer), the log and its replay, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from solver.evaluation.tournament import TOKEN_GOAL
from solver.hint import advice
from solver.hint.answer import without_wall_times
from solver.hint.situation import from_mapping
from solver.hint.coach import Coach
from solver.play.log import LogError, LogWriter, replay
from solver.play.opponents import resolve
from solver.play.session import Session, SessionError
from solver.policies.compiled import TABLE_MISS, probabilities
from tests.conftest import load

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
TINY = "1e-6"  # rollout seconds: the hint's minimum of 64 rollouts, the same every run


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def timeless(search: dict) -> dict:
    """The search's account without its wall times (the fields a rerun changes)."""
    return without_wall_times({"policy": {"search": search}})["policy"]["search"]


def first_choices(session: Session) -> None:
    """Play the human's seat always taking the first choice, to the end of the game."""
    while not session.over:
        if session.round_over:
            session.next_round()
            session.advance()
        else:
            session.act(session.legal()[0][0])


def test_a_scripted_round_plays_to_its_end_and_its_log_replays(tmp_path):
    log = tmp_path / "game.jsonl"
    result = runner.invoke(app, ["play", "--seat", "1", "--seed", "3", "--log", str(log)],
                           input="1\n" * 60)
    assert result.exit_code == 0, result.output
    assert "round 1 over" in result.output and "round won by" in result.output
    records = lines(log)
    header, actions = records[0], [r for r in records if "action" in r]
    assert header["format"] == "jabbas-palace-play-log" and header["seed"] == 3
    assert header["seat"] == 1 and header["against"] == "table"
    assert header["game"]["parameters"]["players"] == 2 and header["code_version"]
    assert "round_end" in records[-1]
    # Every "1" took the first legal action of the menu, and only the seat's own.
    game = load()
    state = game.new_initial_state()
    for a in actions:
        if a["by"] == "you":
            assert a["player"] == 1 and state.current_player() == 1
            assert a["action"] == state.legal_actions()[0]
        assert a["text"] == state.action_to_string(a["player"], a["action"])
        state.apply_action(a["action"])
    assert state.is_terminal()
    # The end shows every hand.
    for seat, hand in enumerate(state.view().hands):
        shown = ", ".join(game_card(c) for c in hand) or "-"
        assert f"hand: {shown}" in result.output, (seat, hand)
    assert replay(log).over


def game_card(c: int) -> str:
    from spiel_game.cards import CHARACTERS
    return CHARACTERS[c].name


def test_the_view_is_what_the_seat_knows_and_the_hands_show_at_the_end():
    game = load(players=3)
    session = Session(game, 2, resolve("agenda_expert", game, 11), seed=11)
    session.advance()
    while not session.round_over:
        view = session.view()
        state = session.state
        # The events are the seat's information state, as the game writes it.
        assert view["information_state"] == state.information_state_string(2)
        assert "; ".join(view["events"]) == view["information_state"].split(" | ", 1)[1]
        assert view["hand"] == [game_card(c) for c in state.hand(2)]
        assert [s["hand"] is None for s in view["seats"]] == [True, True, False]
        assert [item["action"] for item in view["legal"]] == state.legal_actions()
        session.act(session.legal()[-1][0])
    view = session.view()
    assert [s["hand"] for s in view["seats"]] == [[game_card(c) for c in hand]
                                                  for hand in session.state.view().hands]
    with pytest.raises(SessionError, match="not your turn"):
        session.act(0)


def test_a_match_follows_r14_to_the_token_goal():
    for players, seed in ((2, 4), (3, 8)):
        game = load(players=players)
        session = Session(game, 0, resolve("agenda_expert", game, seed), seed=seed, match=True)
        session.advance()
        first_choices(session)
        rounds = session.rounds
        goal = TOKEN_GOAL[players]
        totals = np.cumsum([r["tokens"] for r in rounds], axis=0)
        assert totals[-1].tolist() == session.totals
        assert totals[-1].max() >= goal and (len(rounds) == 1 or totals[-2].max() < goal)
        with pytest.raises(SessionError, match="game is over"):
            session.next_round()


def test_the_next_round_starts_as_r14_says():
    game = load()
    session = Session(game, 0, resolve("agenda_expert", game, 1), seed=1, match=True)
    session.advance()
    for _ in range(4):
        while not session.round_over:
            session.act(session.legal()[0][0])
        allowed = session.allowed_starters()
        winners = session.rounds[-1]["winners"]
        assert allowed == (winners or [0, 1])
        if session.over:
            break
        wrong = [t for t in range(2) if t not in allowed]
        if wrong:
            with pytest.raises(SessionError, match="R14 allows"):
                session.start_round(wrong[0])
        session.next_round()
        assert session.starter in allowed
        assert session.me == (0 - session.starter) % 2
        session.advance()


def test_opponents_are_resolved_by_name_with_clear_refusals():
    game = load()
    with pytest.raises(ValueError, match="unknown opponent 'best'; allowed: table, search, "
                                         "uniform"):
        resolve("best", game, 0)
    with pytest.raises(ValueError, match="no shipped table for 3 players"):
        resolve("table", load(players=3, deck="small"), 0)
    with pytest.raises(ValueError, match="no shipped table for 3 players.*which the search "
                                         "needs as its blueprint"):
        resolve("search", load(players=3, deck="small"), 0)
    with pytest.raises(ValueError, match="the search plays up to 3 players, not 5; choose "
                                         "table"):
        resolve("search", load(players=5), 0)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="search iterations .*allowed is a whole number"):
            resolve("search", game, 0, search_iterations=bad)
    # The table opponent plays only what its table (or, where the table lacks the key,
    # agenda_expert) gives a positive probability.
    table = resolve("table", game, 2)
    bank = table.bank
    session = Session(game, 0, table, seed=2)
    decided = 0
    while not session.round_over:
        if session.to_act not in (-1, 0):
            state = session.state.clone()
            player = session.to_act
            action = table.decide(state, player)
            for policy in range(len(bank.names)):
                legal, probs, source = probabilities(bank, policy, state._s, player)
                if source != TABLE_MISS:
                    break
            assert probs[list(legal).index(action)] > 0
            decided += 1
            session.apply(action)
        elif session.waiting:
            session.apply(session.legal()[0][0])
        else:
            session.apply(session.state.chance_outcomes()[0][0])
    assert decided > 0
    assert bank.names[-1] == "agenda_expert"  # the fallback ends the chain


def test_against_search_plays_a_seeded_round_to_its_end(tmp_path):
    """`--against search`: every opponent decision by the search policy (a few
    iterations here), repeatable: the library's game with the same seed is the same."""
    log = tmp_path / "search.jsonl"
    args = ["play", "--seat", "0", "--seed", "4", "--against", "search",
            "--opponent-search-iterations", "4", "--log", str(log)]
    result = runner.invoke(app, args, input="1\n" * 60)
    assert result.exit_code == 0, result.output
    records = lines(log)
    assert records[0]["against"] == "search" and records[0]["opponent_search_iterations"] == 4
    assert "round_end" in records[-1] and replay(log).over
    game = load()
    opponent = resolve("search", game, 4, search_iterations=4)
    chosen = []  # the search's probability of each action the opponent took

    class Watched:
        name = opponent.name

        def decide(self, state, player):
            action = opponent.decide(state, player)
            legal, probs = opponent.policy.probabilities(state._s, player)  # its answer, kept
            chosen.append(float(probs[list(legal).index(action)]))
            return action

    own = []
    session = Session(game, 0, Watched(), seed=4, record=own.append)
    session.advance()
    while not session.round_over:
        session.act(session.legal()[0][0])
    assert own == records[1:]
    assert sum(r.get("by") == "search" for r in records) == len(chosen) > 0
    assert min(chosen) > 0 and opponent.policy.searches > 0


def test_the_coach_is_the_hint_on_the_seats_information_state():
    game = load()
    coach = Coach(game, threshold=0.05, seconds=float(TINY), seed=0, search_iterations=4)
    session = Session(game, 0, resolve("table", game, 5), seed=5, coach=coach)
    session.advance()
    verdicts = []
    while not session.round_over:
        before = session.state.information_state_string(0)
        phase = session.view()["phase"]
        verdict = session.act(session.legal()[-1][0])
        if phase == "play" and verdict is not None:
            verdicts.append((before, verdict))
    assert verdicts and any(v["search"]["used"] for _, v in verdicts)
    for info, v in verdicts:
        # The same answer as `jabba hint --log <the information state>`.
        sit = from_mapping({"players": 2, "log": info})
        answer = advice.hint(sit, advice.check_game(sit), coach.policies, seconds=float(TINY),
                             seed=0, search_iterations=4)
        assert v["recommendation"] == answer["recommendation"]["action"]
        assert v["chosen_by"] == answer["recommendation"]["chosen_by"]
        assert [p["ev"] for p in v["plays"]] == [p["ev"] for p in answer["plays"]]
        # The search's probabilities and values, when it ran, are the hint's too.
        assert timeless(v["search"]) == timeless(answer["policy"]["search"])
        assert [p["search_probability"] for p in v["plays"]] == \
            [p.get("search_probability") for p in answer["plays"]]
        assert [p["search_value"] for p in v["plays"]] == \
            [p.get("search_value") for p in answer["plays"]]
        # cost = EV(best) - EV(chosen) on the same rollouts, flagged above the threshold
        assert v["cost"] == pytest.approx(v["best_ev"] - v["chosen_ev"], abs=1e-12)
        assert v["cost"] >= 0 and v["flagged"] == (v["cost"] > 0.05)
    summary = coach.summary()
    assert summary["coached"] == len(verdicts)
    assert summary["cost"] == pytest.approx(sum(v["cost"] for _, v in verdicts))


def test_the_coach_without_the_search_shows_the_tables_answer(tmp_path):
    args = ["play", "--seat", "0", "--seed", "3", "--coach", "--coach-no-search",
            "--coach-seconds", TINY, "--log", str(tmp_path / "game.jsonl")]
    result = runner.invoke(app, args, input="1\n" * 60)
    assert result.exit_code == 0, result.output
    assert "the table, without its search" in result.output
    assert "coach: COSTLY" in result.output or "coach: fine" in result.output
    assert "table  EV" in result.output
    assert "search EV" not in result.output and "the search recommends" not in result.output


def test_the_coach_says_which_decisions_it_does_not_judge():
    """Leia's keep and order, Lando's trade, a number named back: not the hint's."""
    game = load()
    for seed in range(40):
        coach = Coach(game, seconds=float(TINY), search=False)
        session = Session(game, 0, resolve("agenda_expert", game, seed), seed=seed,
                          coach=coach)
        session.advance()
        while not session.round_over:
            phase = session.view()["phase"]
            verdict = session.act(session.legal()[-1][0])
            if phase not in ("play", "target", "name"):
                assert verdict["coached"] is False and verdict["decision"] == phase
                assert "after new information" in verdict["why"]
                with pytest.raises(ValueError, match="answers the full deck"):
                    Coach(load(deck="small"))
                return
    pytest.fail("no keep, order, trade or counter decision in 40 seeded rounds")


def test_a_play_the_hint_cannot_answer_is_said_once(monkeypatch):
    from solver.hint.situation import SituationError

    game = load(players=3)
    coach = Coach(game, seconds=float(TINY), search=False)

    def refuse(state, me):
        raise SituationError("past the search's limit")

    monkeypatch.setattr(coach, "advise", refuse)
    for seed in range(20):
        session = Session(game, 0, resolve("agenda_expert", game, seed), seed=seed,
                          coach=coach)
        session.advance()
        while not session.round_over:
            phase = session.view()["phase"]
            verdict = session.act(session.legal()[0][0])
            if phase == "play":
                assert verdict["coached"] is False
                assert verdict["why"] == "the hint could not answer: past the search's limit"
            elif phase in ("target", "name"):
                assert verdict is None  # the same play: said once
                return
    pytest.fail("no play with a target to choose in 20 seeded rounds")


def test_replay_gives_the_same_log_and_refuses_a_line_that_does_not_fit(tmp_path):
    game = load(players=3)
    original = tmp_path / "match.jsonl"
    with original.open("w") as stream:
        writer = LogWriter(stream)
        writer.header(game, seat=1, against="agenda_expert", seed=9, match=True)
        session = Session(game, 1, resolve("agenda_expert", game, 9), seed=9, match=True,
                          record=writer.write)
        session.advance()
        first_choices(session)
    again = tmp_path / "again.jsonl"
    result = runner.invoke(app, ["play", "--replay", str(original), "--log", str(again)])
    assert result.exit_code == 0, result.output
    assert again.read_text() == original.read_text()
    assert "match over" in result.output
    # An action changed on one line: refused, naming the line.
    records = original.read_text().splitlines()
    k = next(i for i, r in enumerate(records) if '"by": "agenda_expert"' in r)
    bad = json.loads(records[k])
    bad["action"] = 30  # keep Han Solo: legal only at a Leia keep
    records[k] = json.dumps(bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(records) + "\n")
    with pytest.raises(LogError, match=f"line {k + 1}: action 30 is not legal"):
        replay(broken)
    result = runner.invoke(app, ["play", "--replay", str(broken)])
    assert result.exit_code == 2 and f"line {k + 1}" in result.output
    # A prefix (a game stopped early) replays to where it stopped.
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text("\n".join(original.read_text().splitlines()[:40]) + "\n")
    assert not replay(prefix).over
    for text, message in (("", "empty"), ('{"format": "other"}\n', "not a play log"),
                          ("[1, 2]\n", "not an object"), ("{oops\n", "not JSON")):
        prefix.write_text(text)
        with pytest.raises(LogError, match=message):
            replay(prefix)


def test_bad_play_options_are_refused():
    cases = [(["play", "--seat", "2"], "--seat: 2: allowed is a seat from 0 to 1"),
             (["play", "--seat", "0", "--against", "search", "--players", "5"],
              "--against: the search plays up to 3 players, not 5"),
             (["play", "--seat", "0", "--against", "nobody"], "unknown opponent"),
             (["play", "--coach"], "--coach: applies only with --seat"),
             (["play", "--opponent-search-iterations", "4"],
              "--opponent-search-iterations: applies only with --seat"),
             (["play", "--seat", "0", "--coach", "--coach-search-iterations", "0"],
              "--coach-search-iterations"),
             (["play", "--seat", "0", "--opponent-search-iterations", "4"],
              "--opponent-search-iterations: applies only with --against search"),
             (["play", "--seat", "0", "--coach-seconds", "1"],
              "--coach-seconds: applies only with --coach"),
             (["play", "--seat", "0", "--coach", "--coach-no-search",
               "--coach-search-iterations", "4"], "not with --coach-no-search"),
             (["play", "--seat", "0", "--viewer", "1"], "--viewer: applies only to the random"),
             (["play", "--seat", "0", "--coach", "--deck", "small"], "answers the full deck")]
    for args, message in cases:
        result = runner.invoke(app, args, input="q\n")
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.replace("│", " ").split()), (args, result.output)


def _pexpect():
    return pytest.importorskip("pexpect", reason="pexpect drives the pseudo-terminal")


def _spawn(args: list[str], tmp_path: Path, preexec_fn=None):
    pexpect = _pexpect()
    env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": str(ROOT)}
    return pexpect.spawn(sys.executable, ["-m", "cli.main", "play", *args], cwd=str(tmp_path),
                         env=env, encoding="utf-8", timeout=120, preexec_fn=preexec_fn)


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_a_round_through_a_pseudo_terminal(tmp_path):
    child = _spawn(["--seat", "0", "--seed", "6", "--coach", "--coach-seconds", TINY,
                    "--coach-search-iterations", "4", "--log", "round.jsonl"], tmp_path)
    turns, searched = 0, 0
    while True:
        found = child.expect([r"your choice \(1-\d+", r"round won by: [^\r\n]*",
                              r"the search recommends [^\r\n]*\(4 iterations"])
        if found == 1:
            break
        if found == 2:
            searched += 1
            continue
        child.sendline("1")
        turns += 1
    child.expect(r"coach: \d+ plays coached")
    child.expect(_pexpect().EOF)
    child.close()
    assert child.exitstatus == 0 and turns > 0 and searched > 0
    records = lines(tmp_path / "round.jsonl")
    assert sum(r.get("by") == "you" for r in records) == turns
    assert replay(tmp_path / "round.jsonl").over


def test_ctrl_c_leaves_a_valid_log_of_the_moves_so_far(tmp_path):
    # Started with SIGINT ignored, as by a background job: Ctrl-C must stop it all the same.
    child = _spawn(["--seat", "0", "--seed", "6", "--log", "stopped.jsonl"], tmp_path,
                   preexec_fn=_ignore_sigint)
    child.expect(r"your choice")
    child.sendline("1")
    child.expect(r"your choice")
    child.sendintr()
    child.expect(r"stopped \(Ctrl-C\); the moves so far are in stopped.jsonl")
    child.expect(_pexpect().EOF)
    child.close()
    assert child.exitstatus == 130
    path = tmp_path / "stopped.jsonl"
    records = lines(path)  # every line whole
    assert sum(r.get("by") == "you" for r in records) == 1
    session = replay(path)
    assert not session.round_over and session.waiting  # stopped at the seat's decision


def test_a_killed_game_leaves_a_valid_log(tmp_path):
    """Each line is flushed as written: a kill mid-game leaves whole lines."""
    child = _spawn(["--seat", "1", "--seed", "2", "--log", "killed.jsonl"], tmp_path)
    child.expect(r"your choice")
    os.kill(child.pid, signal.SIGKILL)
    child.expect(_pexpect().EOF)
    child.close()
    records = lines(tmp_path / "killed.jsonl")
    assert records[0]["format"] == "jabbas-palace-play-log" and "action" in records[-1]
    assert replay(tmp_path / "killed.jsonl").waiting


def test_the_random_round_is_kept(tmp_path):
    result = runner.invoke(app, ["play", "--seed", "3", "--players", "3", "--viewer", "1"])
    assert result.exit_code == 0 and "returns (margin)" in result.output
    assert "information state of player 1" in result.output
