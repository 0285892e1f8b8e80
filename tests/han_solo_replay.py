"""The tests' reference for what one han_solo seat believes the others hold: Bayes over
the hidden cards, replayed in plain Python, world by world. The product reads a log with
the compiled particle filter (solver/han_solo/filter.py, solver/belief/kernel.py); this
replay is what tests/test_han_solo_filter.py holds it to, exactly where the worlds fit.

The hidden cards of a round, for a seat, are the others' deals, draws and redeals (H2,
H3); everything else is public (the pot, the flips, takes, discards, stands, the dice, the
reveals after a match, the hands shown at the round's end, H6) or the seat's own: a log
that goes past the end keeps only the worlds whose hands are the ones shown. `replay`
walks the seat's event log over a set of worlds (engine states that agree with it): a
hidden card branches a world into one per card kind the pile could give (weight: the
pile's odds), a public chance outcome weighs each world by its odds there (card
counting), and another player's decision weighs it by the probability `policy` gives that
decision in that world (Bayes: their hidden cards explain what they chose). Worlds that
end with the same hands (and so the same pile) are merged: exact for any policy that
reads the present (hand, discard pile, turn, pot), as the heuristics and the MCCFR
tables' `fine` and `coarse` keys do. Past `particles` worlds the set is resampled
(seeded, systematic): `exact` is then False and `ess` says how many independent worlds the
weights are worth.

    post = posterior(game, state, player=1, policy=table, particles=4096, seed=0)
    hand_total_distribution(post, 0)   # {"total": {-3: 0.12, ...}, "cards": {2: 1.0}}

A log that cannot happen raises `LogError` naming the event (a SituationError).

The worlds and weights are this module's own; the posterior's record, the shows' order
and the hand totals are the product's (solver/han_solo/hint.py).
"""

from __future__ import annotations

import types

import numpy as np

from spiel_game.han_solo import engine
from spiel_game.han_solo import layout as L

from solver.han_solo.hint import HanSoloPosterior, hand_total_distribution, show_order  # noqa: F401
from solver.hint.parse import SituationError

_CHANCE_EVENT = {L.CH_POT: L.E_POT, L.CH_DEAL: L.E_DEAL, L.CH_FLIP: L.E_FLIP,
                 L.CH_DRAW: L.E_DRAW, L.CH_DICE: L.E_DICE, L.CH_REDEAL: L.E_REDEAL,
                 L.CH_TIE: L.E_TIE}
# Events a log may leave out, filled in as hidden: the engine writes them by itself (a
# show left out leaves that card unchecked).
_IMPLIED = (L.E_REVEAL, L.E_RESHUFFLE, L.E_SHOW)
BRANCHING = 4  # a hidden card may branch the worlds to at most this many times `particles`
_DECISION_EVENT = {L.E_DRAW: L.DRAW, L.E_RESHUFFLE: L.DRAW, L.E_TAKE: L.TAKE,
                   L.E_STAND: L.STAND, L.E_KEEP: L.KEEP}


class LogError(SituationError):
    """A log that cannot happen under the rules (or under any hidden cards)."""


def event_text(event) -> str:
    from spiel_game.han_solo.game import describe

    return describe(event)


def _canonical(s: np.ndarray) -> bytes:
    """A world's key for merging: everything but the event log (and the card taken this
    turn, kept for the log only), hands as multisets."""
    n = int(s[L.S_NUM_PLAYERS])
    hands = [np.sort(s[L.S_HAND + p * L.MAX_HAND:L.S_HAND + p * L.MAX_HAND + s[L.S_HAND_N + p]])
             for p in range(n)]
    public = s[:L.S_HAND].copy()
    public[L.S_TOOK] = -1  # written for the log only: a hidden draw's card
    return b"".join([public.tobytes(), *(h.tobytes() + b"|" for h in hands),
                     s[L.S_NEED:L.S_EVENTS].tobytes()])


def _probability(policy, s: np.ndarray, action: int) -> float:
    """The policy's probability of `action` in world s, given as a state that holds it (a
    policy reads `state.array`, ArrayState's; some still `state._s`)."""
    world = types.SimpleNamespace(array=s, _s=s)
    return float(policy.action_probabilities(world).get(action, 0.0))


def _chance_probability(s: np.ndarray, outcome: int) -> float:
    acts = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    n = engine.chance_outcomes(s, acts, probs)
    for i in range(n):
        if acts[i] == outcome:
            return float(probs[i])
    return 0.0


def _branches(s: np.ndarray) -> list[tuple[int, float]]:
    acts = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    n = engine.chance_outcomes(s, acts, probs)
    return [(int(acts[i]), float(probs[i])) for i in range(n) if probs[i] > 0]


def _events_of(s: np.ndarray, start: int) -> list[tuple[int, int, int]]:
    out = []
    for e in range(start, int(s[L.S_EVENT_N])):
        at = L.S_EVENTS + e * L.EVENT_SIZE
        out.append((int(s[at]), int(s[at + 1]), int(s[at + 2])))
    return out


def _agrees(world, logged) -> bool:
    kind, player, value = logged
    return (world[0] == kind and world[1] == player
            and (value == L.HIDDEN or world[2] == value))


def _where(log, i: int) -> str:
    return (f"event {i + 1} '{event_text(log[i])}'" if i < len(log)
            else "the log's end")


def _decision_action(s: np.ndarray, log, i: int) -> int:
    """The decision the log's event i says the player to act took (in every world)."""
    p, phase = int(s[L.S_CUR]), int(s[L.S_PHASE])
    turn = {L.PH_TURN: "draw, take or stand", L.PH_DISCARD: "discard a card or keep",
            L.PH_PICK: "take a token"}[phase]
    kind, who, value = log[i]
    if phase == L.PH_PICK and kind != L.E_PICK:
        raise LogError(f"{_where(log, i)}: the round's {int(s[L.S_TURNS])} turns are over "
                       "(H2); the players take their tokens now (H6)")
    if who != p and kind != L.E_RESHUFFLE:
        raise LogError(f"{_where(log, i)}: it is p{p}'s turn to {turn} here (turns go "
                       f"p0, p1, ... from the dealer's left, H1/H2)")
    fits = {L.PH_TURN: (L.E_DRAW, L.E_RESHUFFLE, L.E_TAKE, L.E_STAND),
            L.PH_DISCARD: (L.E_DISCARD, L.E_KEEP), L.PH_PICK: (L.E_PICK,)}[phase]
    if kind not in fits:
        raise LogError(f"{_where(log, i)}: p{p} has to {turn} here (H2)")
    if kind == L.E_DISCARD:
        return L.DISCARD + value
    if kind == L.E_PICK:
        return L.PICK + value
    return _DECISION_EVENT[kind]


def replay(game, events, player: int, policy, particles: int = 4096, seed: int = 0,
           dealt: tuple[int, ...] = ()) -> HanSoloPosterior:
    """The posterior of seat `player` after `events` (engine events (kind, player,
    value), another player's private cards L.HIDDEN), the others playing `policy` (an
    OpenSpiel-style policy of han_solo: `action_probabilities(state)` reading
    `state.array`; None: no inference from their choices, the chance odds alone).
    `dealt`: the player's dealt cards where the log leaves its deal out."""
    if particles < 1:
        raise ValueError(f"particles={particles}: at least 1")
    rng = np.random.default_rng(seed)
    log = show_order(events)
    worlds: list[tuple[np.ndarray, float]] = [(game.initial_array.copy(), 1.0)]
    exact = True
    i = 0
    try:
        while i < len(log):
            s0 = worlds[0][0]
            phase = int(s0[L.S_PHASE])
            if phase == L.PH_TERMINAL:
                raise LogError(f"{_where(log, i)}: the round is over (after "
                               f"{int(s0[L.S_TURNS])} turns each, H2/H3)")
            if phase == L.PH_CHANCE:
                kind = int(s0[L.S_CHANCE_KIND])
                want, who = _CHANCE_EVENT[kind], int(s0[L.S_CUR])
                who = who if want in (L.E_DEAL, L.E_DRAW, L.E_REDEAL) else -1
                k, p, _ = log[i]
                if not (k == want and (who < 0 or p == who)):
                    if want == L.E_DEAL and who == player and dealt:
                        log.insert(i, (want, who, dealt[0]))
                        dealt = dealt[1:]
                    elif want == L.E_POT or (want in (L.E_DEAL, L.E_REDEAL) and who != player):
                        log.insert(i, (want, who, L.HIDDEN))  # not written: unknown to me
                    else:
                        expected = {L.E_DEAL: f"p{who} deal CARD", L.E_FLIP: "flip CARD",
                                    L.E_DRAW: f"p{who} draw CARD", L.E_DICE: "dice differ|match",
                                    L.E_REDEAL: f"p{who} redeal CARD", L.E_TIE: "a tie draw"}
                        raise LogError(f"{_where(log, i)}: next comes {expected[want]} "
                                       f"({L.CHANCE_NAMES[kind]}, H1-H3)")
                value = log[i][2]
                if value == L.HIDDEN and len(worlds) * len(_branches(s0)) > BRANCHING * particles:
                    # Bounded memory: so many worlds branching are resampled first.
                    worlds = _resample(worlds, max(1, BRANCHING * particles
                                                   // len(_branches(s0))), rng)
                    exact = False
                children = _chance_children(worlds, log[i], want)
                empty = lambda i=i: (  # noqa: E731  (said only if no world has a child)
                    f"{_where(log, i)}: no such card is left to come (every copy is seen "
                    "elsewhere: in a hand, the discard pile or the log, H9)")
            else:
                p = int(s0[L.S_CUR])
                action = _decision_action(s0, log, i)
                if log[i][0] == L.E_RESHUFFLE and p != log[i][1] and log[i][1] >= 0:
                    raise LogError(f"{_where(log, i)}: it is p{p}'s turn here")
                children = _decision_children(worlds, action, None if p == player else policy)
                empty = lambda i=i, worlds=worlds, p=p, action=action: _no_decision(  # noqa: E731
                    log, i, worlds, p, player, action)
            # Each child as it is made: the events the step wrote checked against the log (the
            # implied ones, reveals and reshuffles, filled in from the first), then merged.
            start = i
            merged: dict[bytes, list] = {}
            written = None
            for t, w in children:
                if written is None:
                    written = _events_of(t, start)
                    for j, e in enumerate(written):
                        at = start + j
                        if (at >= len(log) or log[at][:2] != e[:2]) and e[0] in _IMPLIED:
                            log.insert(at, (e[0], e[1], L.HIDDEN))
                if all(at < len(log) and _agrees(e, log[at])
                       for at, e in enumerate(_events_of(t, start), start)):
                    key = _canonical(t)
                    if key in merged:
                        merged[key][1] += w
                    else:
                        merged[key] = [t, w]
            if written is None:
                raise LogError(empty())
            if not merged and any(e[0] == L.E_SHOW for e in written):
                raise LogError(f"{_where(log, start)}: no deal of the hidden cards that the log "
                               "leaves ends with the hands shown (H6)" + (
                                   "" if policy is None else ", with the choices the others' "
                                   "policy makes (prior only: without them)"))
            if not merged:
                said = "; ".join(event_text(e) for e in written) or "nothing"
                raise LogError(f"{_where(log, start)}: cannot happen here (the rules and the "
                               f"cards seen so far give: {said}; H2/H3)")
            i = start + len(written)  # a draw decision writes nothing: its chance follows
            worlds = [(t, w) for t, w in merged.values()]
            if len(worlds) > particles:
                worlds = _resample(worlds, particles, rng)
                exact = False
    except LogError as err:
        if exact:
            raise
        raise LogError(f"{err}, in a sample of the worlds (past {particles:,} the replay "
                       "samples): the log may still be possible; give more of it (the pot, "
                       "your dealt cards)") from None
    weights = np.array([w for _, w in worlds], dtype=np.float64)
    total = weights.sum()
    if not total > 0:
        raise LogError("no deal of the hidden cards explains this log")
    weights /= total
    return HanSoloPosterior([s for s, _ in worlds], weights, exact,
                            float(1.0 / np.sum(weights ** 2)), player, log)


def _chance_children(worlds, event, want):
    """Each world's children at a chance node: every outcome a hidden event allows
    (weight: its odds), or the one it names."""
    value = event[2]
    for s, w in worlds:
        if value == L.HIDDEN:
            outcomes = _branches(s)
        else:
            o = event[1] if want == L.E_TIE else value
            outcomes = [(o, _chance_probability(s, o))]
        for o, prob in outcomes:
            if prob > 0:
                t = s.copy()
                engine.apply_action(t, o)
                yield t, w * prob


def _decision_children(worlds, action, policy):
    """Each world where `action` is legal, after it, weighed by the policy's probability
    of it (policy None: my own decision, or no inference)."""
    for s, w in worlds:
        if not engine.is_legal(s, action):
            continue
        if policy is not None:
            w *= _probability(policy, s, action)
        if w > 0:
            t = s.copy()
            engine.apply_action(t, action)
            yield t, w


def _no_decision(log, i, worlds, p, player, action) -> str:
    """Why no world allows the logged decision."""
    if p != player and action >= L.DISCARD and any(
            engine.is_legal(s, L.KEEP) for s, _ in worlds[:1]):
        if not any(engine.is_legal(s, action) for s, _ in worlds):
            return (f"{_where(log, i)}: p{p} cannot hold a {L.card_name(action - L.DISCARD)}"
                    " here in any deal of the cards not seen (every copy is seen "
                    "elsewhere, H9)")
    legal = any(engine.is_legal(s, action) for s, _ in worlds)
    why = ("no hidden cards make it a choice the others' policy would ever make" if legal
           else f"not legal here ({L.action_to_string(action)}: "
           + ("a card not in the hand" if action >= L.DISCARD else
              "H2 allows draw, take or stand, then a discard or keep") + ")")
    return f"{_where(log, i)}: {why}"


def _resample(worlds, particles: int, rng) -> list[tuple[np.ndarray, float]]:
    """Systematic resampling to `particles` draws, duplicates merged (weights: counts)."""
    w = np.array([w for _, w in worlds])
    total = w.sum()
    positions = (rng.random() + np.arange(particles)) / particles
    picks = np.searchsorted(np.cumsum(w) / total, positions, side="right")
    picks = np.minimum(picks, len(worlds) - 1)
    counts = np.bincount(picks, minlength=len(worlds))
    return [(worlds[j][0], total * counts[j] / particles) for j in np.flatnonzero(counts)]


def posterior(game, state, player: int, policy, particles: int = 4096, seed: int = 0
              ) -> HanSoloPosterior:
    """The posterior of `player` at `state` (a HanSoloState): its own redacted event log
    replayed (`replay`)."""
    return replay(game, state.events(player), player, policy, particles, seed)
