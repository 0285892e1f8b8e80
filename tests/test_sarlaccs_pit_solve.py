"""Battle at Sarlacc's Pit on the shared solver layer (docs/sarlaccs-pit.md): its adapter,
heuristics, exact CFR against OpenSpiel's own exploitability, MCCFR through the shared
driver, its table files and the shared tournament."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401
from spiel_game.sarlacc import engine
from spiel_game.sarlacc import layout as L

from solver import games
from solver.sarlaccs_pit import abstraction
from solver.sarlaccs_pit.features import (ALWAYS_CHALLENGE, BLOCK_LEADER, HEURISTIC_NAMES,
                                          SAVE_FORCE, heuristic_action, leader,
                                          next_to_challenge)


def _random_decisions(game, seed: int, games_: int = 20):
    """Every decision state of `games_` games of uniform random play (the engine's own
    state arrays, copied)."""
    rng = np.random.default_rng(seed)
    buf = np.empty(L.NUM_ACTIONS, np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    for _ in range(games_):
        s = game.initial_array.copy()
        while not engine.is_terminal(s):
            if engine.is_chance(s):
                m = engine.chance_outcomes(s, buf, probs)
                a = buf[rng.choice(m, p=probs[:m] / probs[:m].sum())]
            else:
                m = engine.legal_actions(s, buf)
                yield s.copy(), buf[:m].copy()
                a = buf[rng.integers(m)]
            engine.apply_action(s, a)


def test_the_adapter_loads_the_game_and_its_hooks_answer():
    adapter = games.adapter("sarlaccs_pit")
    game = adapter.load(3)
    assert game.get_type().short_name == "sarlaccs_pit" and games.of(game) is adapter
    assert game.num_players() == 3
    assert adapter.levels() == ("exact", "compact")
    assert adapter.heuristics() == HEURISTIC_NAMES
    assert adapter.mccfr().levels == adapter.levels()
    assert adapter.playout().engine is adapter.mccfr().engine
    assert not any(getattr(adapter.capabilities, c) for c in (
        "agendas", "match", "opponent_models", "search", "coach", "policy_bank", "exact_lp",
        "ray", "compiled_tree", "play_page"))
    tiny = adapter.load(2, deck="tiny1")
    assert tiny.get_parameters()["board"] == "tiny"
    with pytest.raises(games.OptionError, match="sarlaccs_pit's decks are full, tiny1"):
        adapter.load(2, deck="medium")
    assert adapter.name in games.taking("hint")  # tests/test_sarlaccs_pit_hint.py
    with pytest.raises(ValueError, match="sarlaccs_pit has no play session yet"):
        adapter.session_class()


def test_heuristics_choose_legal_actions_and_do_what_they_say():
    game = pyspiel.load_game("sarlaccs_pit", {"players": 2})
    checked = {"challenge": 0, "saved": 0, "blocked": 0}
    for s, legal in _random_decisions(game, seed=3):
        n = len(legal)
        p = s[L.S_CUR]
        for kind in (ALWAYS_CHALLENGE, SAVE_FORCE, BLOCK_LEADER):
            assert 0 <= heuristic_action(s, kind, legal, n) < n
        ph = s[L.S_PHASE]
        if ph == L.PH_MOVE and s[L.S_MOVE_CARD] != L.MOVE_RETREAT:
            # always_challenge ends a move next to a guard whenever one end is (S6)
            force = s[L.S_HAND + p * L.NUM_KINDS + L.FORCE] > 0
            ends = [a - L.MOVE for a in legal]
            if any(next_to_challenge(s, e, force) for e in ends):
                chosen = legal[heuristic_action(s, ALWAYS_CHALLENGE, legal, n)] - L.MOVE
                assert next_to_challenge(s, chosen, force)
                checked["challenge"] += 1
        if ph == L.PH_PLAY and L.PLAY + L.FORCE in legal:
            others = [a for a in legal if a < L.DISCARD and a != L.PLAY + L.FORCE]
            if others:  # save_force keeps The Force while another card has an effect
                assert legal[heuristic_action(s, SAVE_FORCE, legal, n)] != L.PLAY + L.FORCE
                checked["saved"] += 1
        if ph == L.PH_JABBA_MOVE:
            q = leader(s, p)
            pos = s[L.S_POS + q]
            line = -1 if pos < 0 else s[L.S_LINE + pos]
            own = -1 if s[L.S_POS + p] < 0 else s[L.S_LINE + s[L.S_POS + p]]
            if line >= 0 and line != own and L.JABBA_TO + line in legal:
                chosen = legal[heuristic_action(s, BLOCK_LEADER, legal, n)]
                assert chosen == L.JABBA_TO + line  # S9: the leader's line blocked
                checked["blocked"] += 1
    assert min(checked.values()) > 0, checked


@pytest.mark.slow  # about 60 s: the default run keeps within its 10 minutes
def test_cfr_exploitability_falls_and_matches_openspiel():
    from open_spiel.python.algorithms import exploitability as spiel_exploitability

    from solver.exact.solve import solve
    from solver.exact.tree import build_tree
    from solver.exact.tree_policy import tabular_policy
    from solver.sarlaccs_pit import exact

    game = exact.load("tiny1")
    tree = build_tree(game)
    figures = []
    for iterations in (1, 10, 100):
        outcome = solve(tree, "cfr", iterations=iterations)
        ours = exact.figures(tree, outcome.strategy)["exploitability"]
        theirs = spiel_exploitability.exploitability(
            game, tabular_policy(tree, outcome.strategy))
        assert ours == pytest.approx(theirs, abs=1e-9)
        figures.append(ours)
    assert figures[0] > figures[1] > figures[2] and figures[2] < 1e-3
    uniform = exact.heuristic_strategy(tree, "uniform")
    assert exact.figures(tree, uniform)["exploitability"] == pytest.approx(
        spiel_exploitability.exploitability(game, tabular_policy(tree, uniform)), abs=1e-9)


def test_mccfr_trains_through_the_shared_driver_with_resume(tmp_path):
    from solver.mccfr.train import train
    from solver.sarlaccs_pit.table_policy import export_table, load_table

    game = pyspiel.load_game("sarlaccs_pit", {"players": 2, "max_turns": 8})
    level = abstraction.level_id("compact")
    straight = train(game, level, 60, None, threads=1, seed=5).solver
    ckpt = tmp_path / "run.npz"
    train(game, level, 30, None, threads=1, seed=5, checkpoint=ckpt)
    resumed = train(game, level, 60, None, threads=1, seed=5, checkpoint=ckpt,
                    resume=True).solver
    assert resumed.iterations == straight.iterations == 60
    assert resumed.num_keys == straight.num_keys > 0
    path = tmp_path / "table.npz"
    header = export_table(resumed, path)
    table = load_table(path, game)
    assert len(table) == header["keys"] > 0
    other = pyspiel.load_game("sarlaccs_pit", {"players": 2})
    with pytest.raises(ValueError, match="made for sarlaccs_pit"):
        load_table(path, other)
    state = game.new_initial_state()  # the table's probabilities are a distribution
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = table.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == \
        pytest.approx(1.0)


def test_a_heuristic_against_itself_breaks_even_on_duplicate_deals():
    from solver.sarlaccs_pit.commands import duplicate_match

    game = pyspiel.load_game("sarlaccs_pit", {"players": 2})
    for kind in (ALWAYS_CHALLENGE, SAVE_FORCE):
        r = duplicate_match(game, kind, kind, 30, seed=2)
        assert r["margin"]["mean"] == pytest.approx(0.0, abs=1e-12)
        assert r["win_rate"]["mean"] == pytest.approx(0.5)
    r = duplicate_match(game, ALWAYS_CHALLENGE, 0, 30, seed=2)  # against uniform play
    assert r["margin"]["low"] > 0


def test_the_command_line_solves_and_refuses_what_the_game_lacks(tmp_path):
    from typer.testing import CliRunner

    from cli.main import app

    runner = CliRunner()
    done = runner.invoke(app, ["solve", "--game", "sarlaccs_pit", "--deck", "tiny1",
                               "--algorithm", "cfr", "--iterations", "100"])
    assert done.exit_code == 0, done.output
    assert "39,375 histories" in done.output and "NashConv 0.00069" in done.output
    # Without --deck, the game's smallest reduced game (its adapter's solve_deck).
    default = runner.invoke(app, ["solve", "--game", "sarlaccs_pit", "--algorithm", "cfr",
                                  "--iterations", "100"])
    assert default.exit_code == 0, default.output
    assert "sarlaccs_pit tiny1: 39,375 histories" in default.output
    refused = runner.invoke(app, ["solve", "--game", "sarlaccs_pit", "--deck", "tiny1",
                                  "--ray"])
    assert refused.exit_code != 0 and "not sarlaccs_pit" in refused.output
    ckpt, out = tmp_path / "run.npz", tmp_path / "table.npz"
    for extra in ([], ["--resume"]):
        run = runner.invoke(app, ["solve", "--game", "sarlaccs_pit", "--deck", "full",
                                  "--algorithm", "mccfr", "--iterations",
                                  "20" if not extra else "40", "--threads", "1",
                                  "--checkpoint", str(ckpt), "--out", str(out), *extra])
        assert run.exit_code == 0, run.output
    assert "40 iterations" in run.output and out.is_file()
