"""The simulation core (solver/sim/): the generator, the sampler, the play-out loop, and
that tournaments, hint rollouts, LBR and MCCFR all run on it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load

from solver.mccfr.solver import MCCFRSolver
from solver.policies.compiled import TABLE_MISS, build_bank, probabilities
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.sim.playout import dealt_card, deck_cards, play_out, run_playouts, shuffled
from solver.sim.rng import (STREAM_DEAL, STREAM_DECISIONS, STREAM_HINT_ROLLOUT,
                            STREAM_LBR_ROLLOUT, STREAM_MCCFR, check_seed, next_below,
                            next_float, stream_seed)
from solver.sim.sampler import chance_card, sample
from spiel_game import engine
from spiel_game import layout as L

_NO_STATE = np.empty(0, np.uint64)  # a Love Letter deal has no state of its own
# 99.9th percentiles of chi-square by degrees of freedom.
CHI2_999 = {2: 13.82, 3: 16.27, 5: 20.52, 9: 27.88, 13: 34.53}


def _stream(seed: int, purpose: int, index: int) -> np.ndarray:
    return np.array([stream_seed(seed, purpose, index)], dtype=np.uint64)


def _chi2(counts: np.ndarray, probs: np.ndarray) -> float:
    expected = counts.sum() * probs
    return float(((counts - expected) ** 2 / expected).sum())


# The generator ----------------------------------------------------------------------------

def test_streams_are_deterministic_and_independent_by_purpose_and_index():
    def draws(purpose, index, k=2000):
        rng = _stream(7, purpose, index)
        return np.array([next_float(rng) for _ in range(k)])

    a = draws(STREAM_DEAL, 3)
    assert np.array_equal(a, draws(STREAM_DEAL, 3))  # the same key, the same numbers
    others = [draws(STREAM_DEAL, 4), draws(STREAM_DECISIONS, 3), draws(STREAM_MCCFR, 3)]
    for other in others:
        assert not np.isin(a, other).any()  # no shared values: not shifted copies
        # Independent uniforms: correlation ~ N(0, 1/2000), |r| < 0.1 is 4.5 sigma.
        assert abs(np.corrcoef(a, other)[0, 1]) < 0.1
    assert 0 <= a.min() and a.max() < 1
    assert stream_seed(7, STREAM_DEAL, 3) != stream_seed(8, STREAM_DEAL, 3)


def test_next_below_is_uniform():
    rng = _stream(1, STREAM_DECISIONS, 0)
    counts = np.bincount([next_below(rng, 10) for _ in range(50_000)], minlength=10)
    assert len(counts) == 10
    assert _chi2(counts, np.full(10, 0.1)) < CHI2_999[9]


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "3", True])
def test_seeds_out_of_range_are_refused_with_the_range(seed):
    with pytest.raises(ValueError, match=r"seed must be an integer from 0 to 2\*\*63 - 1"):
        check_seed(seed)
    with pytest.raises(ValueError, match="seed must be"):
        MCCFRSolver(load(deck="tiny"), seed=seed)


# The sampler ------------------------------------------------------------------------------

def test_sample_never_picks_probability_zero_and_has_the_odds():
    probs = np.array([0.0, 0.5, 0.0, 0.3, 0.2, 0.0])
    rng = _stream(2, STREAM_DECISIONS, 0)
    counts = np.bincount([sample(probs, 6, rng) for _ in range(60_000)], minlength=6)
    assert counts[[0, 2, 5]].sum() == 0
    positive = probs > 0
    assert _chi2(counts[positive], probs[positive]) < CHI2_999[2]


def test_sample_falls_back_to_the_last_positive_index_when_u_exceeds_the_sum():
    """Probabilities summing below 1 (as rounding can leave them): a draw above the sum
    goes to the last index of positive probability, never to a trailing zero."""
    probs = np.array([0.1, 0.0, 0.1, 0.0, 0.0])
    rng = _stream(3, STREAM_DECISIONS, 0)
    picks = np.array([sample(probs, 5, rng) for _ in range(5000)])
    assert set(picks.tolist()) == {0, 2}
    assert (picks == 2).mean() > 0.85  # 0.1 + the 0.8 above the sum


def test_chance_card_has_the_engine_odds():
    """At the first chance node: card c with probability pool[c] / pool size."""
    game = load(players=2)
    s = game.initial_array.copy()
    pool = s[L.S_POOL:L.S_POOL + L.MAX_CHARS].astype(float)
    assert engine.is_chance(s) and pool.sum() == s[L.S_POOL_SIZE]
    rng = _stream(4, STREAM_DEAL, 0)
    counts = np.bincount([chance_card(s, rng) for _ in range(40_000)],
                         minlength=L.MAX_CHARS)
    assert counts[pool == 0].sum() == 0
    odds = pool[pool > 0] / pool.sum()
    assert _chi2(counts[pool > 0], odds) < CHI2_999[len(odds) - 1]


# The play-out loop -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def partial_table(tmp_path_factory):
    """A small-deck table from a short MCCFR run: it has some keys of a round, not all."""
    from solver.policies.table import export_policy

    game = load(deck="small")
    solver = MCCFRSolver(game, seed=3)
    solver.run(30)
    path = tmp_path_factory.mktemp("sim") / "partial.npz"
    export_policy(solver, path)
    return game, path


def _play(game, bank, chains, seed, deal, rows=None, stop_seat=-1, index=None):
    """One round through play_out: the deal's cards, the seats' chains, decisions from
    the stream (seed, STREAM_DECISIONS, index, by default the deal); (state, counts)."""
    n = game.num_players()
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1
    cards = deck_cards(initial)
    order = np.empty_like(cards)
    shuffled(cards, seed, STREAM_DEAL, deal, order)
    s = initial.copy()
    chains = np.array(chains, dtype=np.int32)
    rows = np.arange(n, dtype=np.int32) if rows is None else np.array(rows, np.int32)
    counts = np.zeros((rows.max() + 1, chains.shape[1] + 1), dtype=np.int64)
    rng = _stream(seed, STREAM_DECISIONS, deal if index is None else index)
    play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, s, order, _NO_STATE, chains, bank.arrays(),
             rng, np.empty(L.NUM_ACTIONS, np.int32), np.empty(L.NUM_ACTIONS), counts, rows,
             stop_seat)
    return s, counts


def _replay(game, bank, chains, seed, deal):
    """The same round by hand, in Python: per seat, which chain element decided."""
    n = game.num_players()
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1
    cards = deck_cards(initial)
    order = np.empty_like(cards)
    shuffled(cards, seed, STREAM_DEAL, deal, order)
    s = initial.copy()
    counts = np.zeros((n, len(chains[0]) + 1), dtype=np.int64)
    rng = _stream(seed, STREAM_DECISIONS, deal)
    while not engine.is_terminal(s):
        if engine.is_chance(s):
            engine.apply_action(s, dealt_card(s, order))
            continue
        p = int(engine.current_actor(s))
        decided = len(chains[p])
        for k, policy in enumerate(chains[p]):
            legal, probs, source = probabilities(bank, policy, s, p)
            if source != TABLE_MISS:
                decided = k
                break
        counts[p, decided] += 1
        engine.apply_action(s, int(legal[sample(probs, len(legal), rng)]))
    return s, counts


def test_chain_counts_and_fallback_on_scripted_rounds(partial_table):
    game, path = partial_table
    bank = build_bank([str(path), "keep_higher"], game)
    table, keep_higher = 0, 1
    totals = np.zeros((2, 3), dtype=np.int64)
    for deal in range(40):
        # Seat 0 falls back to keep_higher; seat 1 has the table alone (misses: uniform).
        chains = [[table, keep_higher], [table, table]]
        s, counts = _play(game, bank, chains, 5, deal)
        expected_state, expected = _replay(game, bank, chains, 5, deal)
        assert np.array_equal(counts, expected)
        assert np.array_equal(s, expected_state)
        assert counts[0, 2] == 0 and counts[1, 1] == 0  # keep_higher never misses
        totals += counts
    # The table had some keys and lacked others, in both seats.
    assert totals[0, 0] > 0 and totals[0, 1] > 0 and totals[1, 0] > 0 and totals[1, 2] > 0


def test_a_chain_that_always_misses_plays_its_fallback_exactly(tmp_path):
    """A table with none of the game's keys (solved for other cards) in front of a
    heuristic: the round is the heuristic's, decision by decision; alone, it is uniform."""
    from solver.policies.table import export_policy

    game = load(deck="small")
    solver = MCCFRSolver(game, seed=1)
    solver.run(1)
    solver.tables.keys[solver.tables.keys != 0] ^= 1 << 61  # keys of no state (checked below)
    export_policy(solver, tmp_path / "none.npz")
    bank = build_bank([str(tmp_path / "none.npz"), "card_counter", "uniform"], game)
    for deal in range(10):
        fallback, counts = _play(game, bank, [[0, 1], [0, 1]], 2, deal)
        alone, alone_counts = _play(game, bank, [[1], [1]], 2, deal)
        assert np.array_equal(fallback, alone)
        assert counts[:, 0].sum() == 0 and np.array_equal(counts[:, 1], alone_counts[:, 0])
        missed, miss_counts = _play(game, bank, [[0], [0]], 2, deal)
        uniform, uniform_counts = _play(game, bank, [[2], [2]], 2, deal)
        assert np.array_equal(missed, uniform)
        assert np.array_equal(miss_counts[:, 1], uniform_counts[:, 0])
        assert miss_counts[:, 0].sum() == 0


def test_rows_gather_seats_and_a_stop_seat_hands_back_its_decision():
    game = load(players=3)
    bank = build_bank(["card_counter"], game)
    full, by_seat = _play(game, bank, [[0]] * 3, 4, 0)
    _, together = _play(game, bank, [[0]] * 3, 4, 0, rows=[0, 0, 0])
    assert together[0, 0] == by_seat[:, 0].sum() > 0 and together.shape == (1, 2)
    stopped, before = _play(game, bank, [[0]] * 3, 4, 0, stop_seat=2)
    assert not engine.is_terminal(stopped) and engine.current_actor(stopped) == 2
    assert before[2].sum() == 0 and engine.is_terminal(full)


def test_random_playouts_are_seeded():
    initial = load(players=2).initial_array
    a, b, c = (run_playouts(initial, 200, seed) for seed in (1, 1, 2))
    assert a[0] == b[0] and np.array_equal(a[2], b[2])
    assert (a[0], a[1]) != (c[0], c[1])
    assert a[2][:2].sum() > 0


# Everybody calls the one loop ------------------------------------------------------------

def test_a_tournament_round_is_a_direct_play_out():
    from solver.evaluation.tournament import play_lineup

    game = load(players=2)
    bank = build_bank(["card_counter", "uniform"], game)
    result = play_lineup(game, bank, [0, 1], deals=3, seed=11)
    deal, rotation = 2, 1  # role 0 (card_counter) in seat 1, role 1 (uniform) in seat 0
    s, counts = _play(game, bank, [[1], [0]], 11, deal, rows=[1, 0], index=deal * 2 + rotation)
    assert result.tokens[deal, rotation].tolist() == [s[L.S_TOKENS + 1], s[L.S_TOKENS]]


def test_a_seeded_hint_rollout_is_a_direct_play_out():
    from solver.hint.advice import rollout_values

    game = load(players=3)
    bank = build_bank(["keep_lower", "agenda_expert"], game)
    chain = np.array([0, 1], dtype=np.int64)
    s = game.initial_array.copy()
    s[L.S_LOGGING] = 1
    rng = _stream(0, STREAM_DEAL, 9)
    while engine.is_chance(s):
        engine.apply_action(s, chance_card(s, rng))
    me = int(engine.current_actor(s))
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, legal)
    worlds = s[None, :].copy()
    counts = np.zeros((1, 3), dtype=np.int64)
    values = rollout_values(worlds, np.zeros(4, np.int64), legal[:n, None], me, 21, 100,
                            bank.arrays(), chain, counts, np.zeros((0, 1, 1)), -1,
                            np.zeros((1, 2), np.int32), np.ones(1))[0]
    direct = np.zeros((1, 3), dtype=np.int64)
    out = np.empty(3)
    for a in range(n):
        for r in range(4):
            t = s.copy()
            engine.apply_action(t, legal[a])
            play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, t, np.empty(0, np.int32), _NO_STATE,
                     np.array([[0, 1]] * 3, np.int32), bank.arrays(),
                     _stream(21, STREAM_HINT_ROLLOUT, 100 + r),
                     np.empty(L.NUM_ACTIONS, np.int32), np.empty(L.NUM_ACTIONS), direct,
                     np.zeros(3, np.int32), -1)
            engine.returns(t, out)
            assert values[a, r] == out[me]
    assert np.array_equal(counts, direct) and counts[0, 2] == 0  # no miss: a heuristic


def test_lbr_rollouts_are_direct_play_outs():
    from solver.evaluation.lbr import lbr_action

    game = load(players=2)
    bank = build_bank(["card_counter", "keep_higher"], game)
    s = game.initial_array.copy()
    s[L.S_LOGGING] = 1
    rng = _stream(0, STREAM_DEAL, 1)
    while engine.is_chance(s):
        engine.apply_action(s, chance_card(s, rng))
    viewer = int(engine.current_actor(s))
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, legal)
    values = np.empty(L.NUM_ACTIONS)
    key = np.uint64(12345)
    best = lbr_action(engine.ENGINE, LOVE_LETTER_PLAYOUT, s[None, :].copy(), np.ones(1), 1,
                      viewer, bank.arrays(), 0, 1, 8, key, legal, n, values)
    chains = np.zeros((2, 1), np.int32)
    chains[viewer, 0] = 1  # the continuation policy in LBR's seat
    out = np.empty(2)
    for a in range(n):
        total = 0.0
        for r in range(8):
            t = s.copy()
            engine.apply_action(t, legal[a])
            play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, t, np.empty(0, np.int32), _NO_STATE,
                     chains, bank.arrays(),
                     _stream(key, STREAM_LBR_ROLLOUT, r + 1),
                     np.empty(L.NUM_ACTIONS, np.int32), np.empty(L.NUM_ACTIONS),
                     np.zeros((2, 2), np.int64), np.arange(2, dtype=np.int32), -1)
            engine.returns(t, out)
            total += out[viewer]
        assert values[a] == total / 8
    assert values[best] == values[:n].max()


def test_mccfr_draws_from_its_streams_and_is_deterministic():
    game = load(deck="small")
    a, b = MCCFRSolver(game, seed=6, threads=2), MCCFRSolver(game, seed=6)
    assert a.rngs[:, 0].tolist() == [stream_seed(6, STREAM_MCCFR, k) for k in range(2)]
    assert a.rngs.dtype == np.uint64
    b.run(500)
    again = MCCFRSolver(game, seed=6)
    again.run(500)
    other = MCCFRSolver(game, seed=7)
    other.run(500)
    used = int(b.tables.meta[0])
    assert np.array_equal(b.tables.keys, again.tables.keys)
    assert np.array_equal(b.tables.regret[:used], again.tables.regret[:used])
    assert b.nodes_touched == again.nodes_touched != other.nodes_touched
