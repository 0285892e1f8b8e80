"""Match values (solver/match, docs/match.md): the dynamic programme against a hand
computation and against brute-force value iteration of R14, its invariants, the round
utility table, the standings checks, the outcome counts, and the duplicate match harness."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver.match.duel import bank_policy, play_matches
from solver.match.outcomes import (RoundOutcomes, decode, encode, num_codes, round_outcomes,
                                   to_engine, to_table)
from solver.match.standings import check_standings, default_goal
from solver.match.value import (MatchValues, match_values, round_utility_table,
                                round_win_table, solve_match_values)


def _probs(players: int, rows: list[dict]) -> np.ndarray:
    """Per-starter probabilities from {(tokens, winners mask): p} per starter."""
    out = np.zeros((players, num_codes(players)))
    for s, row in enumerate(rows):
        for (tokens, mask), p in row.items():
            out[s, encode(tokens, mask)] += p
    return out


# A made-up 2-player distribution, by table seat (mask bit i: seat i won the round).
HAND = _probs(2, [
    {((1, 0), 0b01): 0.5,    # seat 0 wins
     ((0, 1), 0b10): 0.3,    # seat 1 wins
     ((0, 0), 0b00): 0.1,    # no winner (R7): random next starter
     ((2, 0), 0b01): 0.05,   # seat 0 wins holding Han Solo
     ((1, 1), 0b11): 0.05},  # a tie: both win, the next starter drawn among them
    {((0, 1), 0b10): 0.6,
     ((1, 0), 0b01): 0.3,
     ((0, 0), 0b00): 0.1},
])


def test_the_dp_on_a_hand_computed_two_token_match():
    """Goal 2. x_s = V(1,1,s)_0, y_s = V(1,1,s)_1 and so on; each line is R14 applied to
    HAND (a no-winner round restarts with a random starter, hence the halves).

    (1,1): x0 = .5 + .05 + .05 + .1 (x0 + x1)/2, x1 = .3 + .1 (x0 + x1)/2, so
      x0 + x1 = .9 + .1 (x0 + x1) = 1: x0 = .65, x1 = .35;
      y0 = .3 + .05 + .05 T, y1 = .6 + .05 T, T = y0 + y1 = .95/.9 = 19/18:
      y0 = 29/72, y1 = 47/72 (the tie lets both win: x0 + y0 > 1).
    (1,0): a0 = .5 + .3 x1 + .05 + .05 + .05 S, a1 = .6 x1 + .3 + .05 S (seat 1's win
      leads to (1,1) with seat 1 starting), S = a0 + a1 = 1.215/.9 = 1.35:
      a0 = .7725, a1 = .5775; seat 1 only wins through (1,1) started by seat 1:
      c0 = .3 y1 + .05 C, c1 = .6 y1 + .05 C, C = y1: c0 = .35 y1, c1 = .65 y1.
    (0,1): e0 = .5 x0 + .05 + .05 E (Han gives seat 0 two tokens; a tie gives seat 1
      the match), e1 = .3 x0 + .05 E, E = .57/.9 = 19/30: e0 = 61/150, e1 = 17/75.
    (0,0): g0 = .5 a0 + .3 e1 + .05 + .05 (x0 + x1)/2 + .05 G,
      g1 = .6 e1 + .3 a0 + .05 G, G = .897/.9 = 299/300:
      g0 = 6949/12000, g1 = 5011/12000.
    """
    win = match_values(HAND, 2)
    assert win.shape == (2, 2, 2, 2)
    expected_seat0 = {(1, 1): (0.65, 0.35), (1, 0): (0.7725, 0.5775),
                      (0, 1): (61 / 150, 17 / 75), (0, 0): (6949 / 12000, 5011 / 12000)}
    for (a, b), (s0, s1) in expected_seat0.items():
        assert win[a, b, 0, 0] == pytest.approx(s0, abs=1e-12)
        assert win[a, b, 1, 0] == pytest.approx(s1, abs=1e-12)
    y1 = 47 / 72
    assert win[1, 1, 0, 1] == pytest.approx(29 / 72, abs=1e-12)
    assert win[1, 1, 1, 1] == pytest.approx(y1, abs=1e-12)
    assert win[1, 0, 0, 1] == pytest.approx(0.35 * y1, abs=1e-12)
    assert win[1, 0, 1, 1] == pytest.approx(0.65 * y1, abs=1e-12)


def _value_iteration(probs: np.ndarray, goal: int, sweeps: int = 400) -> np.ndarray:
    """R14 by brute force: V <- E[terminal or V(next)] from V = 0, repeated; written
    from the rules, independently of the compiled solver."""
    n = probs.shape[0]
    states = list(itertools.product(range(goal), repeat=n))
    v = {(t, s): np.zeros(n) for t in states for s in range(n)}
    outcomes = [[(decode(c, n), probs[s, c]) for c in np.flatnonzero(probs[s])]
                for s in range(n)]
    for _ in range(sweeps):
        new = {}
        for t in states:
            for s in range(n):
                total = np.zeros(n)
                for (tokens, mask), p in outcomes[s]:
                    after = tuple(a + d for a, d in zip(t, tokens))
                    if max(after) >= goal:
                        total += p * np.array([a >= goal for a in after], dtype=float)
                        continue
                    winners = [j for j in range(n) if mask >> j & 1] or list(range(n))
                    for j in winners:
                        total += p / len(winners) * v[(after, j)]
                new[(t, s)] = total
        v = new
    out = np.zeros((goal,) * n + (n, n))
    for (t, s), value in v.items():
        out[t + (s,)] = value
    return out


@pytest.mark.parametrize("players,goal,seed", [(2, 3, 1), (3, 2, 2)])
def test_the_dp_equals_value_iteration_with_many_no_winner_rounds(players, goal, seed):
    """Self-loops (rounds without a token, 40-60% of them here) solved exactly equal the
    limit of value iteration, which converges geometrically."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(players):
        row = {((0,) * players, 0): rng.uniform(0.4, 0.6)}
        for _ in range(6):
            winners = rng.choice(players, size=rng.integers(1, players + 1), replace=False)
            tokens = [1 if i in winners else 0 for i in range(players)]
            tokens[rng.integers(players)] += 1 if rng.random() < 0.3 else 0
            mask = sum(1 << int(i) for i in winners)
            row[(tuple(min(t, 2) for t in tokens), mask)] = \
                row.get((tuple(min(t, 2) for t in tokens), mask), 0) + rng.random()
        total = sum(row.values()) - row[((0,) * players, 0)]
        scale = (1 - row[((0,) * players, 0)]) / total
        rows.append({k: (p if k == ((0,) * players, 0) else p * scale)
                     for k, p in row.items()})
    probs = _probs(players, rows)
    assert np.allclose(match_values(probs, goal), _value_iteration(probs, goal),
                       atol=1e-12, rtol=0)


def test_a_match_that_never_ends_is_refused():
    probs = _probs(2, [{((0, 0), 0): 1.0}, {((0, 0), 0): 1.0}])
    with pytest.raises(ValueError, match="never award a token"):
        match_values(probs, 3)
    with pytest.raises(ValueError, match="sum to 1"):
        match_values(probs * 0.5, 3)


@pytest.fixture(scope="module")
def game2():
    import pyspiel

    import spiel_game  # noqa: F401

    return pyspiel.load_game("jabbas_palace", {"players": 2})


@pytest.fixture(scope="module")
def outcomes2(game2) -> RoundOutcomes:
    return round_outcomes(game2, ["agenda_expert"], rounds=20_000, seed=3)


def test_outcome_counts_are_rounds_of_the_rules(outcomes2):
    """Independent rounds, every starter equally often; every code seen is one a round
    can end with: a winner gains 1 token plus Han Solo's, nobody else more than Han's,
    one Han at most, and a round without winner hands out nothing (R7, R11)."""
    assert outcomes2.symmetric and outcomes2.counts.shape == (1, num_codes(2))
    assert outcomes2.counts.sum() == outcomes2.rounds == 40_000
    han_tokens = 0
    for code in np.flatnonzero(outcomes2.counts[0]):
        tokens, mask = decode(int(code), 2)
        extra = [t - (mask >> i & 1) for i, t in enumerate(tokens)]
        assert all(e in (0, 1) for e in extra) and sum(extra) <= 1, (tokens, mask)
        assert mask or tokens == (0, 0)
        han_tokens += sum(extra) * outcomes2.counts[0, code]
    assert han_tokens > 0
    first = outcomes2.counts[0, encode((1, 0), 0b01)] / outcomes2.rounds
    assert 0.5 < first < 0.6  # the starter's edge
    record = RoundOutcomes.from_dict(outcomes2.to_dict())
    assert (record.counts == outcomes2.counts).all()
    codes = np.arange(num_codes(3))
    assert (to_engine(to_table(codes, 3, 2), 3, 2) == codes).all()
    assert to_table([encode((2, 0, 1), 0b001)], 3, 1)[0] == encode((1, 2, 0), 0b010)


@pytest.fixture(scope="module")
def values2(outcomes2) -> MatchValues:
    return solve_match_values(outcomes2, draws=100, seed=1)


def test_invariants_of_the_two_player_values(values2):
    win, goal = values2.win, values2.goal
    assert goal == 6 == default_goal(2)
    for a, b, s in itertools.product(range(goal), range(goal), range(2)):
        # one policy in both seats: the values are the same seen from either seat
        assert win[a, b, s, 0] == pytest.approx(win[b, a, 1 - s, 1], abs=1e-12)
        # both can reach the goal in one round (a tie, or a win beside Han Solo)
        assert win[a, b, s].sum() >= 1 - 1e-12
        if a + 1 < goal:  # more tokens, more wins; the opponent's fewer
            assert win[a + 1, b, s, 0] > win[a, b, s, 0]
            assert win[b, a + 1, s, 0] < win[b, a, s, 0]
        assert win[a, b, 0, 0] > win[a, b, 1, 0]  # starting is an edge
        assert values2.low[a, b, s, 0] <= win[a, b, s, 0] <= values2.high[a, b, s, 0]
    assert win[goal - 1, 0, 1, 0] > 0.9 > 0.1 > win[0, goal - 1, 0, 0]
    assert values2.match_start() == pytest.approx([win[0, 0, :, 0].mean()] * 2, abs=1e-12)
    assert 0 < (values2.high - values2.low).max() < 0.05


def test_two_player_values_sum_to_one_without_joint_wins(outcomes2):
    """Only rounds in which one player gains tokens: exactly one player wins a match."""
    counts = outcomes2.counts.copy()
    for code in np.flatnonzero(counts[0]):
        tokens, _ = decode(int(code), 2)
        if min(tokens) > 0:
            counts[0, code] = 0
    single = RoundOutcomes(2, outcomes2.lineup, True, counts, 0, int(counts.sum()))
    win = solve_match_values(single, draws=0).win
    assert np.allclose(win.sum(axis=-1), 1.0, atol=1e-12, rtol=0)


def test_the_values_predict_the_tournaments_match_win_rate(game2):
    """V from the outcome distribution of agenda_expert v uniform, at 0-0 with a random
    first starter, is the share of real matches (the tournament's compiled match loop,
    other seeds) that agenda_expert wins: rounds are independent given the starter."""
    from solver.evaluation.tournament import play_lineup
    from solver.policies.compiled import build_bank

    values = solve_match_values(round_outcomes(game2, ["agenda_expert", "uniform"],
                                               rounds=20_000, seed=5), draws=50, seed=2)
    bank = build_bank(["agenda_expert", "uniform"], game2)
    rate = play_lineup(game2, bank, [0, 1], deals=0, matches=3000, seed=9).win_rate((0,))
    predicted = values.match_start()[0]
    start = values.win[0, 0, :, 0]
    half = (values.high[0, 0, :, 0] - values.low[0, 0, :, 0]).mean() / 2
    assert 0.8 < predicted < 1.0
    assert abs(predicted - rate.mean) < rate.half_width + half, (predicted, rate, start)


def test_round_utility_table_against_a_direct_computation(values2):
    """Code by code, from seat 4-3 in a round that table seat 1 started: engine seat 0
    is table seat 1. The next standings and starter by R14, V looked up directly."""
    n, goal, win = 2, values2.goal, values2.win
    standings, starter = (4, 3), 1
    table = round_utility_table(values2, standings, starter)
    wins = round_win_table(values2, standings, starter)
    assert table.shape == (num_codes(2), 2) and table.dtype == np.float64
    for code in range(num_codes(2)):
        tokens, mask = decode(code, n)  # by engine seat
        after = list(standings)
        for p in range(n):
            after[(starter + p) % n] += tokens[p]
        winners = [(starter + p) % n for p in range(n) if mask >> p & 1]
        if max(after) >= goal:
            w_table = [1.0 if a >= goal else 0.0 for a in after]
        else:
            nxt = winners or list(range(n))
            w_table = [sum(win[tuple(after) + (s, i)] for s in nxt) / len(nxt)
                       for i in range(n)]
        w = [w_table[(starter + p) % n] for p in range(n)]
        assert wins[code] == pytest.approx(w, abs=1e-12)
        assert table[code] == pytest.approx([w[0] - w[1], w[1] - w[0]], abs=1e-12)
    # The engine seat 0 win of a round at 5-5 ends the match: u = +1.
    assert round_utility_table(values2, (5, 5))[encode((1, 0), 1)] == pytest.approx([1, -1])


def test_three_player_utilities_are_zero_sum():
    probs = _probs(3, [{((1, 0, 0), 1): 0.5, ((0, 1, 0), 2): 0.2, ((0, 0, 1), 4): 0.2,
                        ((0, 0, 0), 0): 0.1}] * 3)
    values = MatchValues(3, 2, match_values(probs, 2))
    table = round_utility_table(values, (1, 0, 1), starter=2)
    assert table.shape == (num_codes(3), 3)
    assert np.allclose(table.sum(axis=1), 0.0, atol=1e-12)
    # engine seat 1 (table seat 0, at 1 token) wins: the match is over, it alone won
    assert table[encode((0, 1, 0), 0b010)] == pytest.approx([-0.5, 1.0, -0.5])


@pytest.mark.parametrize("kwargs,message", [
    (dict(scores=[1, 2, 3], players=2, goal=6), "3 scores (1, 2, 3) for 2 players"),
    (dict(scores=[6, 2], players=2, goal=6), "score 6 of seat 0: allowed is a whole number "
                                             "from 0 to 5"),
    (dict(scores=[-1, 2], players=2, goal=6), "score -1 of seat 0"),
    (dict(scores=[1.5, 2], players=2, goal=6), "score 1.5 of seat 0"),
    (dict(scores=[4, 4], players=2, goal=6, rounds_played=2),
     "sum to 8, but 2 round(s) hand out at most 6 tokens"),
    (dict(scores=[3, 0], players=2, goal=6, rounds_played=1),
     "a player gains at most 2 tokens a round"),
    (dict(scores=[1, 0], players=2, goal=6, rounds_played=0), "hand out at most 0 tokens"),
    (dict(scores=[1, 0], players=2, goal=6, rounds_played=-1), "rounds played -1"),
    (dict(scores=[1, 0], players=2, goal=6, starter=2), "starter 2: allowed is a seat from "
                                                       "0 to 1"),
    (dict(scores=[0, 0], players=2, goal=0), "match goal 0"),
])
def test_check_standings_refusals(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_standings(**kwargs)


def test_check_standings_accepts_what_the_rules_allow():
    # 2 rounds: a tie with Han Solo (3 tokens) twice
    assert check_standings([4, 2], 2, 6, rounds_played=2, starter=1) == (4, 2)
    assert check_standings((0, 0, 0), 3, 5, rounds_played=3) == (0, 0, 0)  # Rancor rounds
    assert [default_goal(n) for n in range(2, 7)] == [6, 5, 4, 3, 3]
    with pytest.raises(ValueError, match="players 7: allowed is 2 to 6"):
        default_goal(7)


# The match harness ---------------------------------------------------------------------------

def test_duplicate_matches_replay_the_same_deals_with_the_seats_swapped(game2):
    seen = {}

    def record(match, rotation, round_index, state, starter):
        view = state.view()
        seen[(match, rotation, round_index)] = (tuple(view.face_up), starter)

    standings_seen = []

    def make_watching():
        inner = bank_policy(game2, "keep_higher")()

        def policy(state, player, standings, rng):
            standings_seen.append(standings)
            return inner(state, player, standings, rng)
        return policy

    result = play_matches(game2, make_watching, bank_policy(game2, "uniform"), 6, seed=4,
                          progress=None, on_round=record)
    assert result.games.shape == (6, 2, 3)
    for m in range(6):
        both = min(result.games[m, 0, 2], result.games[m, 1, 2])
        for k in range(both):  # the same k-th deal both ways
            assert seen[(m, 0, k)][0] == seen[(m, 1, k)][0]
        assert seen[(m, 0, 0)][1] == seen[(m, 1, 0)][1]  # the same first starter
    faces = {v[0] for v in seen.values()}
    assert len(faces) > 20  # different deals from round to round and match to match
    assert all(max(s) < 6 for s in standings_seen) and any(sum(s) > 0 for s in standings_seen)
    # every match ends with a winner at the goal, A's win is table seat r's
    assert (result.games[:, :, 1] >= 1).all()


def test_match_harness_intervals(game2):
    same = play_matches(game2, bank_policy(game2, "keep_higher"),
                        bank_policy(game2, "keep_higher"), 150, seed=1, progress=None)
    score = same.score()
    assert score.contains(0.5) and score.half_width < 0.12, score
    assert same.win_rate().mean >= score.mean  # a shared win counts whole there
    better = play_matches(game2, bank_policy(game2, "agenda_expert"),
                          bank_policy(game2, "uniform"), 60, seed=2, progress=None)
    assert better.score().low > 0.75, better.score()


def test_match_harness_resumes_and_keeps_an_interrupted_run(game2, tmp_path):
    a, b = bank_policy(game2, "card_counter"), bank_policy(game2, "uniform")
    path = tmp_path / "duel.json"
    whole = play_matches(game2, a, b, 12, seed=7, progress=None)
    calls = {"n": 0}

    def make_flaky():
        inner = a()

        def policy(state, player, standings, rng):
            calls["n"] += 1
            if calls["n"] == 300:
                raise KeyboardInterrupt
            return inner(state, player, standings, rng)
        return policy

    cut = play_matches(game2, make_flaky, b, 12, seed=7, checkpoint=path, progress=None)
    assert cut.interrupted and 0 < cut.matches < 12
    assert (cut.games == whole.games[:cut.matches]).all()
    resumed = play_matches(game2, a, b, 12, seed=7, checkpoint=path, resume=True,
                           progress=None)
    assert not resumed.interrupted and (resumed.games == whole.games).all()
    with pytest.raises(ValueError, match="a checkpoint of another run.*seed 7"):
        play_matches(game2, a, b, 12, seed=8, checkpoint=path, resume=True, progress=None)


def test_match_table_command_writes_a_record_that_reads_back(game2, tmp_path):
    """The CLI's record gives the library's values for the same seed, and is refused for
    another game."""
    import pyspiel
    from typer.testing import CliRunner

    from cli.main import app
    from solver.match.value import read_match_values

    out = tmp_path / "mv.csv"
    result = CliRunner().invoke(app, ["match-table", "--policy", "keep_higher", "--rounds",
                                      "3000", "--draws", "20", "--seed", "4", "--out",
                                      str(out)])
    assert result.exit_code == 0, result.output
    assert "my match-win probability, I start the next round" in result.output
    assert out.read_text().splitlines()[0].startswith("t0,t1,starter,p0_win,p0_low")
    read = read_match_values(out.with_suffix(".json"), game2)
    direct = solve_match_values(round_outcomes(game2, ["keep_higher"], 3000, 4), draws=20,
                                seed=4)
    assert np.allclose(read.win, direct.win, atol=1e-6)  # the CSV's 6 decimals
    assert np.allclose(read.low, direct.low, atol=1e-6)
    other = pyspiel.load_game("jabbas_palace", {"players": 2, "agenda": "jabbas_court"})
    with pytest.raises(ValueError, match="match values of jabbas_palace"):
        read_match_values(out.with_suffix(".json"), other)
