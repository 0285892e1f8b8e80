"""The hint for han_solo: the value of every option at the seat's decision and what the
others hold, answered as every game's hint is (solver/hint/request.py in,
solver/hint/answer.py's HintAnswer out, `advice.answer` dispatching here).

1. Worlds: the seat's log replayed over the others' hidden cards (solver/han_solo/
   belief.py): Bayes with the policy's probability of every choice they were seen to
   make; exact where the worlds fit PARTICLES, else sampled (the answer says which, with
   the effective sample size). `prior_only`: the chance odds alone.
2. Values: each full option (draw; take then keep or each discard; stand; at a discard
   decision, keep or each discard) rolled out `rollouts` times from worlds drawn by
   weight, everybody then playing the policy (the shipped table, closest_to_zero where
   it has no key; with no table for these parameters, closest_to_zero), common random
   numbers across options; 95% intervals cluster-robust (solver/hint/choice.py).
3. The choice: every hint's rule, step by step (solver/hint/options.py `decide` over
   this game's `option_tree`; solver/hint/choice.py `choose`): the best mean, or the
   table's likeliest of the options within the interval of their difference to it.

Steps 2 and 3 and the answer are the own-engine games' hint (solver/hint/engine_hint.py);
this module gives it han_solo's part (`HINT`).
"""

from __future__ import annotations

import numpy as np

from spiel_game.han_solo import engine
from spiel_game.han_solo import layout as L

from solver.han_solo import belief
from solver.han_solo.players import PLAYERS, HanSoloPlayer
from solver.han_solo.playout import HAN_SOLO_PLAYOUT, STREAM_HS_HINT
from solver.han_solo.situation import HanSoloSituation, from_mapping
from solver.hint import engine_hint
from solver.hint import options as hint_options
from solver.hint.answer import HintAnswer
from solver.hint.engine_hint import EngineHintGame
from solver.hint.parse import SituationError
from solver.policies.engine_player import hint_player
from solver.sim.rng import check_seed

DEFAULT_ROLLOUTS = 1000  # a fixed count: the same seed gives the same answer anywhere
PARTICLES = 16384  # the posterior: exact within so many worlds, else sampled (seeded)


def load(data: dict, policy_files=None):
    """(situation, game, player) for a han_solo situation mapping; SituationError for
    one that cannot be, ValueError for a refused policy file."""
    import pyspiel

    sit = from_mapping(data)
    try:
        game = pyspiel.load_game("han_solo", sit.game_params())
    except (ValueError, pyspiel.SpielError) as err:
        raise SituationError(str(err)) from None
    cfg = game.config
    if sit.turn is not None and sit.turn > cfg.turns:
        raise SituationError(f"turn={sit.turn}: a round has {cfg.turns} turns (H2); "
                             f"turns are 1 to {cfg.turns}")
    return sit, game, hint_player(PLAYERS, game, policy_files, HanSoloPlayer)


def _public_discards(events, seat: int) -> list:
    """The events with my takes' cards filled in from the public discard pile."""
    pile, out = [], []
    for kind, who, value in events:
        if kind in (L.E_FLIP, L.E_DISCARD):
            pile.append(value)
        elif kind == L.E_TAKE:
            if value == L.HIDDEN:
                if not pile:
                    raise SituationError(f"log: p{who} takes from an empty discard pile")
                value = pile[-1]
            elif pile and pile[-1] != value:
                raise SituationError(f"log: p{who} takes {L.card_name(value)}, but the "
                                     f"discard pile's top is {L.card_name(pile[-1])}")
            if pile:
                pile.pop()
        elif kind == L.E_RESHUFFLE:
            pile = pile[-1:]
        out.append((kind, who, value))
    return out


def own_deal(sit: HanSoloSituation, events) -> tuple[int, ...]:
    """My dealt cards where the log leaves them out: my hand less what I took or drew,
    plus what I discarded (before any match)."""
    mine = [e for e in events if e[1] == sit.seat]
    if any(k == L.E_DEAL for k, _, _ in mine):
        return ()
    if any(k == L.E_DICE and v == 1 for k, _, v in events):
        raise SituationError(f"the log has a dice match: give your dealt cards ('p{sit.seat} "
                             "deal CARD' lines) and your redealt ones ('redeal')")
    if sit.hand is None:
        raise SituationError(f"give your hand (hand) or your deal ('p{sit.seat} deal CARD' "
                             "lines)")
    held = list(sit.hand)
    for kind, _, value in reversed(mine):
        if kind in (L.E_TAKE, L.E_DRAW):
            if value == L.HIDDEN:
                raise SituationError(f"log: your own draw: say the card you drew, e.g. "
                                     f"'p{sit.seat} draw green +4'")
            if value not in held:
                raise SituationError(f"hand {_names(sit.hand)}: it has no "
                                     f"{L.card_name(value)}, which the log says you took "
                                     "and kept")
            held.remove(value)
        elif kind == L.E_DISCARD:
            held.append(value)
    if len(held) != 2:
        raise SituationError(f"hand {_names(sit.hand)}: with what the log says you took and "
                             f"discarded, you were dealt {len(held)} cards, not 2 (H1)")
    return tuple(held)


def _names(cards) -> str:
    return ", ".join(L.card_name(int(c)) for c in cards)


def replayed_worlds(game, events, seat: int, player: HanSoloPlayer | None, seed: int,
                    own: tuple[int, ...]) -> belief.HanSoloPosterior:
    """The hint's one call of the belief (solver/han_solo/belief.py `replay`): the worlds
    of the seat's log, weighted by `player`'s choices (None: the chance odds alone), within
    PARTICLES. A HanSoloPosterior: `present`, `worlds`, `weights`, `exact`, `ess`,
    `events`, and the opponents' hand totals (`hand_total_distribution`)."""
    return belief.replay(game, events, seat, player, PARTICLES, seed, own)


def posterior(sit: HanSoloSituation, game, player: HanSoloPlayer, prior_only: bool,
              seed: int) -> belief.HanSoloPosterior:
    """The seat's posterior at the log's end, checked: its decision, its hand, its turn."""
    events = _public_discards(sit.events, sit.seat)
    if sit.pot is not None:
        if any(k == L.E_POT for k, _, _ in events):
            raise SituationError("pot: given twice, as a field and in the log; give one")
        events = [(L.E_POT, -1, k) for k in sit.pot] + events
    post = replayed_worlds(game, events, sit.seat, None if prior_only else player, seed,
                           own_deal(sit, events))
    s = post.present
    phase, me = int(s[L.S_PHASE]), sit.seat
    if phase not in (L.PH_TURN, L.PH_DISCARD) or int(s[L.S_CUR]) != me:
        where = ("the round is over" if phase == L.PH_TERMINAL else
                 "the round is over, the hands are shown and the tokens are being taken "
                 "(H6)" if int(s[L.S_CYCLE]) >= int(s[L.S_TURNS]) else
                 f"p{int(s[L.S_CUR])} is to act" if phase != L.PH_CHANCE else
                 f"a {L.CHANCE_NAMES[int(s[L.S_CHANCE_KIND])]} comes next")
        raise SituationError(f"the log ends where it is not your (p{me}'s) decision: "
                             f"{where}; a hint is for your turn (draw, take or stand) or "
                             "your discard after a draw or a take")
    hand = tuple(sorted(int(c) for c in s[L.S_HAND + me * L.MAX_HAND:
                                          L.S_HAND + me * L.MAX_HAND + s[L.S_HAND_N + me]]))
    if sit.hand is not None and hand != tuple(sorted(sit.hand)):
        raise SituationError(f"hand is {_names(sorted(sit.hand))}, but the log leaves you "
                             f"{_names(hand)}")
    turn = int(s[L.S_CYCLE]) + 1
    if sit.turn is not None and sit.turn != turn:
        raise SituationError(f"turn={sit.turn}, but the log ends in turn {turn}")
    return post


def option_tree(player: HanSoloPlayer) -> hint_options.OptionTree:
    """han_solo's decisions at a hint (solver/hint/options.py): a turn's draw (its discard
    left to the policy: the card is not seen yet), take with each discard or keep, stand;
    a discard decision's each. The player's table breaks the rule's ties."""
    return engine_hint.player_option_tree(
        player, chosen_now=lambda s, prefix: prefix[-1] == L.TAKE, words=L.action_to_string,
        decision=lambda s: L.PHASE_NAMES[int(s[L.S_PHASE])])


def _situation(request, post: belief.HanSoloPosterior) -> dict:
    """The answer's situation: the seat's hand and total, turn, decision, discard top,
    pot (where the log shows it)."""
    sit, s0, me = request.situation, post.present, request.situation.seat
    cfg = request.game.config
    hand = sorted(int(c) for c in s0[L.S_HAND + me * L.MAX_HAND:
                                     L.S_HAND + me * L.MAX_HAND + s0[L.S_HAND_N + me]])
    view_discard = s0[L.S_DISCARD:L.S_DISCARD + s0[L.S_DISCARD_N]].tolist()
    return {"game": "han_solo", "players": sit.players, "agenda": None, "seat": me,
            "hand": [L.card_name(c) for c in hand],
            "hand_total": sum(L.card_value(c) for c in hand),
            "deck": int(s0[L.S_PILE_N]), "described_by": "log",
            "turn": int(s0[L.S_CYCLE]) + 1, "turns": cfg.turns,
            "decision": L.PHASE_NAMES[int(s0[L.S_PHASE])],
            "discard_top": L.card_name(view_discard[-1]) if view_discard else None,
            "pot": [L.TOKEN_NAMES[k] for k in range(L.NUM_TOKEN_KINDS)
                    for _ in range(int(s0[L.S_POT + k]))]
            if all(e[2] != L.HIDDEN for e in post.events if e[0] == L.E_POT) else None}


def _posterior_record(request, post: belief.HanSoloPosterior) -> dict:
    basis = ("Bayes: the others' hidden cards weighted by the policy's probability of "
             "every choice they were seen to make" if not request.prior_only else
             "prior only: the chance odds of the hidden cards, no inference from choices")
    return {"basis": f"{basis} ({'exact' if post.exact else 'sampled'})",
            "worlds": len(post.worlds), "exact": post.exact,
            "effective_sample_size": round(post.ess, 1), "particles": PARTICLES,
            "policy": None if request.prior_only else request.policies.describe()}


HINT = EngineHintGame(
    name="han_solo", engine=engine.ENGINE, hooks=HAN_SOLO_PLAYOUT, stream=STREAM_HS_HINT,
    rollouts=lambda request, paths: DEFAULT_ROLLOUTS,
    posterior=lambda r: posterior(r.situation, r.game, r.policies, r.prior_only,
                                  check_seed(r.seed)),
    option_tree=lambda player, seat: option_tree(player), situation=_situation,
    posterior_record=_posterior_record,
    opponent=lambda request, post, q: _opponent(post, q))


def answer(request) -> HintAnswer:
    """The HintAnswer for a han_solo HintRequest (its `policies` a HanSoloPlayer): the
    own-engine games' hint (solver/hint/engine_hint.py) with han_solo's `HINT`."""
    return engine_hint.answer(HINT, request)


def _opponent(post: belief.HanSoloPosterior, q: int) -> dict:
    """An opponent's hand total and card count under the posterior, and the chance each
    card is in the hand."""
    dist = belief.hand_total_distribution(post, q)
    holds = np.zeros(L.NUM_CARD_KINDS)
    for s, w in zip(post.worlds, post.weights):
        base = L.S_HAND + q * L.MAX_HAND
        for c in set(s[base:base + s[L.S_HAND_N + q]].tolist()):
            holds[c] += w
    return {"seat": q, "status": "in",
            "total": [{"total": t, "probability": p} for t, p in dist["total"].items()],
            "cards": [{"cards": k, "probability": p} for k, p in dist["cards"].items()],
            "hand": [{"card": L.card_name(int(c)), "probability": float(holds[c])}
                     for c in np.argsort(-holds, kind="stable") if holds[c] > 0]}
