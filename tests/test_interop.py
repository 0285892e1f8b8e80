"""Interop with other tools: plain CSV and string keys in exports, table policies as
OpenSpiel policies (its exploitability and bots), pasted information-state strings."""

from __future__ import annotations

import csv
import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as openspiel_exploitability
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from open_spiel.python.bots.policy import PolicyBot

from conftest import load, random_action
from solver.abstraction import keys as abstraction
from solver.exact.best_response import exploitability
from solver.exact.tree import build_tree, infoset_states
from solver.exact.tree_policy import strategy_from_policy
from solver.hint.export import COLUMNS, export_header, export_rows, header_path, write_rows
from solver.hint.situation import SituationError, from_mapping
from solver.policies.compiled import TABLE_MISS, build_bank, probabilities
from solver.policies.table import TablePolicy, encode_keys, load_policy
from spiel_game import layout as L
from spiel_game.cards import CHARACTERS
from spiel_game.events import describe, events

SHIPPED_SMALL_TABLE = Path(__file__).resolve().parent.parent / \
    "results" / "policy_small_exalted_one_2p_identity.npz"


# Exports ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_export():
    game = load(deck="small")
    table = load_policy(SHIPPED_SMALL_TABLE, game)
    rows = export_rows(game, table, rounds=30, seed=3)
    header = export_header(game, table, SHIPPED_SMALL_TABLE, rounds=30, seed=3,
                           all_keys=False, seconds=0.0)
    return table, rows, header


def test_csv_export_is_plain_csv_with_the_header_beside_it(small_export, tmp_path):
    table, rows, header = small_export
    out = tmp_path / "table.csv"
    written = write_rows(rows, out, "csv", header)
    assert written == [out, tmp_path / "table.csv.json"] and header_path(out) == written[1]
    with open(out, newline="") as f:
        read = list(csv.reader(f))  # a plain reader: no line to skip
    assert read[0] == list(COLUMNS)
    assert len(read) == len(rows) + 1 and all(len(r) == len(COLUMNS) for r in read)
    assert all(int(r[0]) in set(table.keys.tolist()) for r in read[1:])
    assert json.loads(written[1].read_text()) == json.loads(json.dumps(header))


def test_jsonl_export_writes_keys_as_decimal_strings(small_export, tmp_path):
    """int64 keys above 2**53 do not survive JSON tools that read numbers as doubles."""
    table, rows, header = small_export
    out = tmp_path / "table.jsonl"
    assert write_rows(rows, out, "jsonl", header) == [out]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0] == {"header": json.loads(json.dumps(header))}
    keys = [line["key"] for line in lines[1:]]
    assert all(isinstance(k, str) and k.isdigit() for k in keys)
    assert [int(k) for k in keys] == [r["key"] for r in rows]
    assert any(int(k) > 2 ** 53 for k in keys)  # the keys that a double would round
    assert set(int(k) for k in keys) <= set(table.keys.tolist())


def test_export_refuses_an_unknown_format(small_export, tmp_path):
    _, rows, header = small_export
    with pytest.raises(ValueError, match="format 'xml': allowed are csv, jsonl"):
        write_rows(rows, tmp_path / "t.xml", "xml", header)
    assert not list(tmp_path.iterdir())


# Table policies as OpenSpiel policies --------------------------------------------------------

def _identity_table(game, seed: int, drop_every: int) -> TablePolicy:
    """A table policy over the whole tree of `game` with random rows, one key in
    `drop_every` left out (those decisions are played uniformly)."""
    tree = build_tree(game)
    level = abstraction.LEVELS["identity"]
    rows = {}
    for index, state in infoset_states(tree):
        key = int(abstraction.abstract_key(state._s, int(tree.infoset_player[index]), level))
        rows[key] = len(tree.infoset_actions[index])
    rng = np.random.default_rng(seed)
    keys = np.array(sorted(rows), dtype=np.int64)
    keys = keys[np.arange(len(keys)) % drop_every != 0]
    num_actions = np.array([rows[k] for k in keys.tolist()], dtype=np.uint8)
    probs = rng.integers(0, 256, int(num_actions.sum())).astype(np.uint8)
    arrays = {"key_gaps": encode_keys(keys), "num_actions": num_actions, "probs": probs}
    return TablePolicy({"abstraction": {"level": "identity"}}, arrays, game)


def _exploitability_equal_to_openspiels(game, tree, table) -> float:
    """Our exact exploitability of `table`, checked equal to OpenSpiel's Python and C++
    ones to 1e-9."""
    ours = exploitability(tree, strategy_from_policy(tree, table))
    assert abs(openspiel_exploitability.exploitability(game, table) - ours) < 1e-9
    theirs = pyspiel.exploitability(game, policy_lib.python_policy_to_pyspiel_policy(
        table.to_tabular()))
    assert abs(theirs - ours) < 1e-9
    return ours


def test_a_table_policy_is_an_openspiel_policy_with_its_exploitability():
    """On the tiny deck, OpenSpiel's exploitability (Python and C++) of a table policy
    equals ours (solver/exact/best_response.py), missing keys played uniformly."""
    game = load(deck="tiny")
    table = _identity_table(game, seed=5, drop_every=4)
    assert isinstance(table, policy_lib.Policy) and table.player_ids == [0, 1]
    tree = build_tree(game)
    ours = _exploitability_equal_to_openspiels(game, tree, table)
    uniform = exploitability(tree, strategy_from_policy(tree, policy_lib.UniformRandomPolicy(
        game)))
    assert abs(ours - uniform) > 1e-3  # the table's rows count, not only the misses
    misses = 0
    for _, state in infoset_states(tree):
        p = state.current_player()
        if table.lookup(state._s, p, len(state.legal_actions())) is None:
            misses += 1
            assert table.action_probabilities(state) == {
                a: 1 / len(state.legal_actions()) for a in state.legal_actions()}
    assert misses == len(tree.infoset_strings) - len(table)


def test_action_probabilities_are_the_tournaments_uniform_where_the_key_is_missing():
    game = load(deck="small")
    table = load_policy(SHIPPED_SMALL_TABLE, game)
    bank = build_bank([str(SHIPPED_SMALL_TABLE)], game)
    rng = random.Random(8)
    misses = 0
    for _ in range(300):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                p = state.current_player()
                probs = table.action_probabilities(state)
                assert table(state, p) == probs
                legal, expected, source = probabilities(bank, 0, state._s, p)
                assert list(probs) == legal.tolist() == state.legal_actions()
                assert np.allclose(list(probs.values()), expected, atol=1e-12)
                misses += source == TABLE_MISS
            state.apply_action(random_action(state, rng))
    assert misses > 0  # the shipped table lacks some keys: those were checked uniform


def test_action_probabilities_refuse_states_the_player_does_not_decide():
    table = load_policy(SHIPPED_SMALL_TABLE)  # the game its header records
    assert str(table.game) == "jabbas_palace(agenda=exalted_one,deck=small,players=2," \
                              "utility=margin)"
    state = table.game.new_initial_state()
    with pytest.raises(ValueError, match="no player decides at this state"):
        table.action_probabilities(state)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    other = 1 - state.current_player()
    with pytest.raises(ValueError, match=f"asked for player {other} where player"):
        table.action_probabilities(state, other)


def test_openspiel_policy_bots_play_rounds_with_a_shipped_table():
    table = load_policy(SHIPPED_SMALL_TABLE)
    game = table.game
    rng = np.random.RandomState(11)
    bots = [PolicyBot(p, np.random.RandomState(20 + p), table) for p in range(2)]
    totals = np.zeros(2)
    for _ in range(20):
        state = game.new_initial_state()
        returns = evaluate_bots(state, bots, rng)
        assert state.is_terminal() and returns == state.returns()
        totals += returns
    # Margin utility: p0's margin is p1's loss (R12), so the sum over seats is zero.
    assert totals.sum() == pytest.approx(0.0)


@pytest.mark.slow
def test_openspiel_exploitability_of_the_shipped_small_table_is_ours():
    """The shipped small table (MCCFR, identity keys): OpenSpiel's own exploitability,
    Python and C++, equals the exact one of solver/exact to 1e-9 (about 20 s: OpenSpiel
    asks for every information-state string)."""
    table = load_policy(SHIPPED_SMALL_TABLE)
    game = table.game
    tree = build_tree(game)
    ours = _exploitability_equal_to_openspiels(game, tree, table)
    assert 0 < ours < 0.01  # 1M iterations of MCCFR on the small deck


# Pasted information-state strings ------------------------------------------------------------

def _play_decisions(game, rng, rounds: int):
    """(state, player) at random players' play decisions (2 cards in hand) of random
    rounds."""
    for _ in range(rounds):
        state = game.new_initial_state()
        found = []
        while not state.is_terminal():
            if not state.is_chance_node() and state._s[L.S_PHASE] == L.PH_PLAY:
                found.append(state.clone())
            state.apply_action(random_action(state, rng))
        if found:
            chosen = rng.choice(found)
            yield chosen, chosen.current_player()


def _event_lines(state, player) -> list[str]:
    return [describe(e) for e in events(state._s, player)]


@pytest.mark.parametrize("players,agenda", [(2, "exalted_one"), (3, "jabbas_court"),
                                            (4, "rescue_mission")])
def test_a_pasted_information_state_reads_as_its_event_lines(players, agenda):
    """The seat and hand come from the prefix; the rest are the event lines."""
    game = load(players=players, agenda=agenda)
    rng = random.Random(players)
    for state, me in _play_decisions(game, rng, 15):
        pasted = state.information_state_string(me)
        assert pasted.startswith(f"p{me} hand:[")
        hand = _names(state.hand(me))
        lines = from_mapping({"players": players, "agenda": agenda, "seat": me,
                              "hand": hand, "log": _event_lines(state, me)})
        assert from_mapping({"players": players, "agenda": agenda, "log": pasted}) == lines
        assert from_mapping({"players": players, "agenda": agenda, "seat": me,
                             "hand": hand[::-1], "log": pasted}) == dataclasses.replace(
            lines, hand=lines.hand[::-1])  # agreeing in any order
        # Also as the first line of a log file.
        assert from_mapping({"players": players, "agenda": agenda,
                             "log": pasted.split("; ")}) == lines


def _names(cards) -> list[str]:
    return [CHARACTERS[c].name for c in cards]


def test_a_pasted_information_state_must_agree_with_the_given_seat_and_hand():
    game = load()
    state, me = next(_play_decisions(game, random.Random(2), 1))
    pasted = state.information_state_string(me)
    with pytest.raises(SituationError, match=f"seat is {1 - me}, but the pasted information "
                                             f"state is p{me}'s"):
        from_mapping({"players": 2, "seat": 1 - me, "log": pasted})
    held = set(_names(state.hand(me)))
    other = next(n for n in ("Guard", "Han Solo", "Jabba the Hutt") if n not in held)
    with pytest.raises(SituationError, match="but the pasted information state says"):
        from_mapping({"players": 2, "hand": [other, other], "log": pasted})
    with pytest.raises(SituationError, match="log: expected text or a list of lines"):
        from_mapping({"players": 2, "seat": 0, "log": 7})


def test_cli_hint_takes_a_pasted_information_state():
    """`jabba hint --log` with a random round's information_state_string gives the same
    situation, posterior and beliefs as the event lines with --seat and --hand."""
    from typer.testing import CliRunner

    from cli.main import app

    game = load()
    state, me = next(_play_decisions(game, random.Random(6), 1))
    fixed = ["hint", "--json", "--seconds", "0.05", "--seed", "3"]
    pasted = CliRunner().invoke(app, fixed + ["--log", state.information_state_string(me)])
    assert pasted.exit_code == 0, pasted.output
    lines = CliRunner().invoke(app, fixed + [
        # --hand splits at spaces too: one word of each name
        "--seat", str(me), "--hand", ",".join(n.split()[0] for n in _names(state.hand(me))),
        "--log", "; ".join(_event_lines(state, me))])
    assert lines.exit_code == 0, lines.output
    a, b = json.loads(pasted.output), json.loads(lines.output)
    for field in ("situation", "posterior", "opponents"):
        assert a[field] == b[field]
    assert a["situation"]["seat"] == me and a["situation"]["described_by"] == "log"
