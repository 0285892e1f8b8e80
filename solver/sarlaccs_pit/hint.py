"""The hint for sarlaccs_pit: at the start of my turn, which card to play and where to
move (whom to swap with, which guard to challenge, whether to play The Force on Jabba),
each option's EV, and what the others hold. The own-engine games' hint
(solver/hint/engine_hint.py) with this game's part, `HINT`:

1. Worlds: the position (solver/sarlaccs_pit/situation.py) with the others' hands filled
   in from the deck less what I see (my hand, the discard pile), dealt consistently and
   weighted uniformly (every deal of the unseen cards alike: there is no log to condition
   on): every combination of hands, weighted by its number of deals, where they are at
   most EXACT_WORLDS; else PARTICLES seeded deals of the shuffled unseen cards.
2. Values: every full action chosen now (the card, then where to move, whom to choose,
   which guard to challenge, The Force on Jabba or a draw) rolled out from worlds drawn
   by weight, everybody then playing the policy chain of the game's tournament (the
   shipped table with save_force where it has no key; save_force where no table ships),
   common random numbers; 95% intervals (solver/hint/choice.py).
3. The choice: every hint's rule (solver/hint/options.py, choice.py).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from spiel_game.sarlacc import engine
from spiel_game.sarlacc import layout as L
from spiel_game.sarlacc.game import action_to_string

from solver.hint import engine_hint
from solver.hint import options as hint_options
from solver.hint.answer import HintAnswer
from solver.hint.engine_hint import EngineHintGame
from solver.hint.parse import SituationError
from solver.sarlaccs_pit import situation as situation_lib
from solver.policies.engine_player import hint_player
from solver.sarlaccs_pit.players import PLAYERS, make_player
from solver.sarlaccs_pit.playout import SARLACC_PLAYOUT
from solver.sim.rng import check_seed

STREAM_SP_HINT = 54  # a sarlaccs_pit hint's rollouts (index: the rollout); 52, 53: playout
EXACT_WORLDS = 20000  # every combination of the others' hands within so many
PARTICLES = 2048  # else so many seeded deals
# Rollouts with no count asked for: about ROLLOUT_GAMES games over all the full actions,
# at least MIN_ROLLOUTS per action (a fixed count for a situation: the same seed gives the
# same answer anywhere): about 1 s warm at 4 players on a shared machine
# (benchmarks/sarlaccs_pit_hint.py; docs/sarlaccs-pit.md "Hints").
ROLLOUT_GAMES = 1600
MIN_ROLLOUTS = 16
DECISIONS_NOW = (L.PH_MOVE, L.PH_TARGET, L.PH_GUARD, L.PH_JABBA_FIGHT, L.PH_JABBA_MOVE)


def load(data: dict, policy_files=None):
    """(situation, game, player) for a sarlaccs_pit situation mapping; SituationError for
    one that cannot be, ValueError for a refused policy file."""
    import pyspiel

    import spiel_game  # noqa: F401 (registers the game)

    def game_of(params):
        try:
            return pyspiel.load_game("sarlaccs_pit", params)
        except pyspiel.SpielError as err:
            raise ValueError(str(err)) from None

    sit, game = situation_lib.from_mapping({k: v for k, v in data.items() if k != "game"},
                                           game_of)
    _present(game, sit)  # refused here, with the request's other faults, not at the answer
    return sit, game, hint_player(PLAYERS, game, policy_files, make_player)


def _present(game, sit) -> np.ndarray:
    """The position's state with my hand and the others' hands still in the pile."""
    mine = np.bincount(np.array(sit.hand, dtype=np.int64), minlength=L.NUM_KINDS)
    hands = [mine if q == sit.seat else np.zeros(L.NUM_KINDS, np.int64)
             for q in range(sit.players)]
    try:
        return situation_lib.present_state(game, sit, hands)
    except ValueError as err:
        raise SituationError(str(err)) from None


@dataclasses.dataclass
class SarlaccPosterior:
    """The others' hands: `hands[w, q]` card counts of seat q in world w (mine fixed),
    `weights[w]`; `worlds[w]` the engine state of world w (made when indexed)."""

    present: np.ndarray  # the position with my hand, the others' hands empty
    hands: np.ndarray  # (worlds, players, NUM_KINDS)
    weights: np.ndarray
    exact: bool

    @property
    def ess(self) -> float:
        w = self.weights / self.weights.sum()
        return float(1.0 / (w ** 2).sum())

    @property
    def worlds(self):
        return _Worlds(self)


class _Worlds:
    """The posterior's worlds as a sequence of engine states, each made when indexed."""

    def __init__(self, post: SarlaccPosterior):
        self.post = post

    def __len__(self) -> int:
        return len(self.post.hands)

    def __getitem__(self, w: int) -> np.ndarray:
        s = self.post.present.copy()
        counts = self.post.hands[w]
        for q in range(len(counts)):
            at = L.S_HAND + q * L.NUM_KINDS
            s[at:at + L.NUM_KINDS] += counts[q]
            s[L.S_HAND_N + q] += int(counts[q].sum())
        s[L.S_PILE:L.S_PILE + L.NUM_KINDS] -= counts.sum(axis=0).astype(np.int32)
        s[L.S_PILE_N] -= int(counts.sum())
        return s


def _multisets(pool: np.ndarray, size: int):
    """Every multiset of `size` cards from `pool` (counts), with its number of ways."""
    kinds = [k for k in range(len(pool)) if pool[k] > 0]
    for combo in itertools.combinations_with_replacement(kinds, size):
        counts = np.bincount(np.array(combo, dtype=np.int64), minlength=len(pool))
        if (counts <= pool).all():
            yield counts, math.prod(math.comb(int(pool[k]), int(counts[k]))
                                    for k in kinds)


def posterior(request) -> SarlaccPosterior:
    """The others' hands: uniform over the deals of the unseen cards (module docstring)."""
    sit, game = request.situation, request.game
    seed = check_seed(request.seed)
    present = _present(game, sit)
    pool = present[L.S_PILE:L.S_PILE + L.NUM_KINDS].astype(np.int64).copy()
    pool[L.JABBA] = 0  # a Jabba card never stays in a hand (S8)
    others = [q for q in range(sit.players) if q != sit.seat]
    sizes = [sit.hand_sizes[q] for q in others]
    if _combinations(pool, sizes) <= EXACT_WORLDS:
        hands, weights = _enumerated(pool, others, sizes, sit.players)
        exact = True
    else:
        hands, weights = _sampled(pool, others, sizes, sit.players, seed)
        exact = False
    return SarlaccPosterior(present, hands, weights, exact)


def _combinations(pool: np.ndarray, sizes: list[int]) -> int:
    """An upper bound on the joint combinations of hands: the product of each hand's."""
    return math.prod(sum(1 for _ in _multisets(pool, n)) for n in sizes)


def _enumerated(pool, others, sizes, players):
    """Every joint combination of the others' hands, weighted by its number of deals."""
    hands, weights = [], []

    def deal(i, left, counts, ways):
        if i == len(others):
            hands.append(np.stack(counts))
            weights.append(ways)
            return
        for hand, w in _multisets(left, sizes[i]):
            counts[others[i]] = hand
            deal(i + 1, left - hand, counts, ways * w)
        counts[others[i]] = np.zeros(len(pool), np.int64)

    deal(0, pool.copy(), [np.zeros(len(pool), np.int64) for _ in range(players)], 1)
    return np.array(hands), np.array(weights, dtype=np.float64)


def _sampled(pool, others, sizes, players, seed):
    """PARTICLES deals of the shuffled unseen cards (seeded), weighted alike."""
    rng = np.random.default_rng(seed)
    cards = np.repeat(np.arange(len(pool)), pool)
    hands = np.zeros((PARTICLES, players, len(pool)), np.int64)
    for w in range(PARTICLES):
        order = rng.permutation(cards)
        at = 0
        for q, n in zip(others, sizes):
            hands[w, q] = np.bincount(order[at:at + n], minlength=len(pool))
            at += n
    return hands, np.ones(PARTICLES)


def option_tree(player, seat: int, board) -> hint_options.OptionTree:
    """sarlaccs_pit's decisions at a hint: the card (or a retreat, S9; a card without
    effect, S4), then every decision of mine before the next card is drawn: where the
    hero moves, whom to choose (S7), which guard to challenge (S6), The Force on Jabba or a
    draw (S11). The player's table breaks the rule's ties."""

    return engine_hint.player_option_tree(
        player, chosen_now=lambda s, prefix: (int(s[L.S_PHASE]) in DECISIONS_NOW
                                              and int(s[L.S_CUR]) == seat),
        words=lambda a: action_to_string(a, board),
        decision=lambda s: L.PHASE_NAMES[int(s[L.S_PHASE])])


def _where(space: int, board) -> str:
    return situation_lib.DETENTION_NAME if space == L.DETENTION else board.names[space]


def _situation(request, post: SarlaccPosterior) -> dict:
    sit, s0 = request.situation, post.present
    board = request.game.config.board
    return {"game": "sarlaccs_pit", "players": sit.players, "agenda": None,
            "seat": sit.seat, "hand": [L.card_name(c) for c in sit.hand],
            "deck": int(s0[L.S_PILE_N]) - sum(sit.hand_sizes) + len(sit.hand),  # the
            # present state holds the others' hands in its pile: every world deals them
            "described_by": "position",
            "board": board.source, "turn": sit.turn,
            "decision": L.PHASE_NAMES[int(s0[L.S_PHASE])],
            "positions": [_where(p, board) for p in sit.positions],
            "jabba": board.names[sit.jabba],
            "guards_left": [board.names[s] for s, _ in board.posts
                            if s not in sit.defeated],
            "points": list(sit.points), "hand_sizes": list(sit.hand_sizes),
            "discard": [L.card_name(c) for c in sit.discard],
            "blocked": bool(s0[L.S_BLOCKED])}


def _posterior_record(request, post: SarlaccPosterior) -> dict:
    how = ("every combination of hands, weighted by its deals" if post.exact else
           f"{PARTICLES} seeded deals")
    return {"basis": "uniform: every deal of the cards neither in your hand nor in the "
                     f"discard pile alike, no log to condition on ({how}; "
                     f"{'exact' if post.exact else 'sampled'})",
            "worlds": len(post.hands), "exact": post.exact,
            "effective_sample_size": round(post.ess, 1),
            "particles": None if post.exact else PARTICLES, "policy": None}


def _opponent(request, post: SarlaccPosterior, q: int) -> dict:
    """A seat's hero, points and hand size, and each card's chance to be in the hand
    (with its expected number there)."""
    sit, board = request.situation, request.game.config.board
    w = post.weights / post.weights.sum()
    counts = post.hands[:, q, :]
    holds = w @ (counts > 0)
    expected = w @ counts
    return {"seat": q, "status": "in", "position": _where(sit.positions[q], board),
            "points": sit.points[q], "hand_size": sit.hand_sizes[q],
            "hand": [{"card": L.card_name(int(k)), "probability": float(holds[k]),
                      "expected": float(expected[k])}
                     for k in np.argsort(-holds, kind="stable") if holds[k] > 0]}


def _rollouts(request, paths) -> int:
    return max(MIN_ROLLOUTS, ROLLOUT_GAMES // max(len(paths), 1))


HINT = EngineHintGame(
    name="sarlaccs_pit", engine=engine.ENGINE, hooks=SARLACC_PLAYOUT, stream=STREAM_SP_HINT,
    rollouts=_rollouts, posterior=posterior,
    option_tree=lambda player, seat: option_tree(player, seat, player.game.config.board),
    situation=_situation, posterior_record=_posterior_record, opponent=_opponent)


def answer(request) -> HintAnswer:
    """The HintAnswer for a sarlaccs_pit HintRequest (its `policies` an EnginePlayer)."""
    return engine_hint.answer(HINT, request)
