"""The advice harness (solver/studies/advice_seat.py): duplicate deals, seat rotation
and matches, cross-checked game for game against the compiled tournament; the hint seat
plays the hint's answer."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load

from spiel_game import engine

from solver.studies.advice_seat import HintSeat, PolicySeat, play_advice
from solver.evaluation.tournament import margins, play_lineup
from solver.policies.compiled import build_bank


@pytest.mark.parametrize("players,deck", [(2, "small"), (3, "full"), (4, "full")])
def test_a_bank_policy_seated_plays_the_tournaments_games(players, deck):
    """The advised seat playing a bank policy (`PolicySeat`) at each seat in turn against
    another: the very games of the tournament's lineup [advised, opponent, ...] (the same
    deal and decision streams per deal and rotation, the same matches), so its per-deal
    margins and per-match wins are the tournament's, number for number."""
    game = load(players=players, deck=deck, agenda="jabbas_court")
    bank = build_bank(["card_counter", "agenda_expert"], game)
    deals, matches, seed = 12, 3, 5
    seated = play_advice(game, PolicySeat(bank, 0), bank, 1, deals, matches, seed)
    lineup = play_lineup(game, bank, [0] + [1] * (players - 1), deals, matches, seed)
    per_deal = margins(lineup.tokens.astype(float))[:, :, 0].mean(axis=1)
    assert np.allclose(seated.deal_margins, per_deal)
    assert np.allclose(seated.match_wins, lineup.wins[:, :, 0].mean(axis=1))
    assert seated.margin.mean == pytest.approx(lineup.margin((0,)).mean)
    # Duplicate deals are not one game: the rotations of a deal differ (seat and cards).
    assert len(set(map(tuple, lineup.tokens[:, :, 0].tolist()))) > 1


def test_seat_rotation_moves_the_advised_seat_over_every_seat():
    """Rotation r puts the advised seat at engine seat r with the same cards: a seat that
    records where it is asked sees every seat once per deal, at each seat's first
    decision of the same shuffled deck."""
    game = load(players=3, deck="full", agenda="exalted_one")
    bank = build_bank(["agenda_expert"], game)

    class Recorder(PolicySeat):
        def __init__(self):
            super().__init__(bank, 0)
            self.seats = []

        def action(self, s, seat, rng):
            if not self.seats or self.seats[-1] != seat:
                self.seats.append(seat)
            return super().action(s, seat, rng)

    recorder = Recorder()
    play_advice(game, recorder, bank, 0, deals=2, seed=3)
    assert recorder.seats == [0, 1, 2, 0, 1, 2]


def test_the_hint_seat_plays_the_hints_recommendation():
    """At a play decision the hint seat plays the hint's recommended full action (card,
    target, number) step by step: the answer of `advice.answer` for the seat's log."""
    import random

    from conftest import random_play_stop

    from solver.hint import advice
    from solver.hint.request import HintRequest
    from solver.hint.situation import from_mapping
    from solver.policies.chain import load_policies

    game = load(players=4, deck="full", agenda="my_kind_of_scum")
    policies = load_policies(game)
    rng = random.Random(11)
    checked = 0
    while checked < 3:
        state = random_play_stop(game, rng)
        if state is None:
            continue
        seat = state.current_player()
        hint_seat = HintSeat(game, policies, seed=4, rollouts=64)
        path = hint_seat.recommend(state._s.copy(), seat)
        sit = from_mapping({"game": "jabbas_palace", "players": 4,
                            "agenda": "my_kind_of_scum", "utility": "margin",
                            "log": state.information_state_string(seat)})
        answer = advice.answer(HintRequest(sit, game, policies, rollouts=64,
                                           seed=(4 * 1_000_003) % (1 << 31)))
        ids = {f["action"]: f["action_ids"] for f in answer.full_actions}
        assert path == list(ids[answer.recommendation["action"]])
        # and it is played: the play now, then its target and number
        s = state._s.copy()
        hint_seat.path = []
        stream = np.zeros(1, dtype=np.uint64)
        for step in path:
            hint_seat.answers = 0  # the same seed as the answer above
            assert hint_seat.action(s, seat, stream) == step
            engine.apply_action(s, step)
        checked += 1


@pytest.mark.parametrize("players,agenda", [(3, "rescue_mission"), (4, "exalted_one"),
                                            (6, "jabbas_court")])
def test_the_hint_answers_from_the_many_table_at_3_to_6_players(players, agenda):
    """With 3-6 players the shipped `many` table answers (the search answers only with 2
    players, and the answer says so): the table has the situation's key, and the
    rollouts follow the tables."""
    import random

    from conftest import random_play_stop

    from solver.hint import advice
    from solver.hint.situation import from_mapping
    from solver.policies.chain import load_policies

    game = load(players=players, agenda=agenda)
    policies = load_policies(game)
    assert policies.levels == ["many"]
    state = None
    rng = random.Random(players)
    while state is None:
        state = random_play_stop(game, rng)
    seat = state.current_player()
    sit = from_mapping({"game": "jabbas_palace", "players": players, "agenda": agenda,
                        "utility": "margin", "log": state.information_state_string(seat)})
    answer = advice.hint(sit, game, policies, rollouts=64, seed=1)
    assert answer["policy"]["source"] == "table"
    assert answer["policy"]["level"] == "many"
    search = answer["policy"]["search"]
    assert not search["used"] and "up to 2 players" in search["reason"]
    assert answer["rollouts"]["from_table"] > 0.9


def test_the_hint_searches_past_its_default_table_size_when_asked():
    # search_max_players (the advice benchmark's `hint-search`): the search answers a
    # 4-player situation; by default the table does, and says why
    from solver.hint import advice
    from solver.hint.request import HintRequest
    from solver.hint.situation import from_mapping
    from solver.policies.chain import load_policies

    sit = from_mapping({"players": 4, "agenda": "exalted_one", "seat": 0,
                        "hand": ["guard", "jabba"]})
    game = advice.check_game(sit)
    policies = load_policies(game)
    limits = dict(rollouts=64, search_iterations=8, search_samples=64)
    plain = advice.answer(HintRequest(sit, game, policies, seed=1, **limits))
    assert plain.policy["source"] == "table"
    assert "answers up to 2 players" in plain.policy["search"]["reason"]
    searched = advice.answer(HintRequest(sit, game, policies, seed=1, search_max_players=4,
                                         **limits))
    assert searched.policy["source"] == "search"
