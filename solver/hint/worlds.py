"""Engine states from a summary: the hidden cards dealt from the unseen ones.

An engine state is written directly (`_write_world`), with a log made up of the
summary's facts (draws, plays, steals, outs, looks), and each world deals the opponents'
unknown cards from the unseen ones (card counting; equal weights).

No longer needed as a fallback: past its exact limit the belief engine samples
(solver/hint/log.py `summary_log_worlds`), and beliefs without inference from the
opponents' choices are `solver.hint.log.prior_worlds` (chance odds only). Kept while
solver/hint/advice.py (its card-counting path) and tests still call `summary_worlds`;
`_timeline` is the summary's turn order, which `summary_pattern` reads.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from spiel_game import layout as L
from spiel_game.cards import Effect

from solver.hint.situation import R2_D2, Situation, SituationError, card_with, plays
from solver.hint.validate import check


def _timeline(sit: Situation):
    """Turns in order: (seat, index of the play in their area list, or None where an out
    player's turn would be) until my turn."""
    n, me = sit.players, sit.seat
    plays = [[i for i, a in enumerate(sit.areas[p]) if a.how == "played"] for p in range(n)]
    turns = []
    cycle = 0
    while True:
        for p in range(n):
            if p == me and cycle == len(plays[me]):
                return turns
            if cycle < len(plays[p]):
                turns.append((p, plays[p][cycle]))
            elif p in sit.out and cycle == len(plays[p]):
                turns.append((p, None))  # out by now: their discard goes here
        cycle += 1


def summary_worlds(sit: Situation, game, count: int, rng: np.random.Generator
                   ) -> tuple[list[np.ndarray], Counter]:
    """`count` engine states for the summary, opponents' unknown cards dealt at random
    from the unseen cards (each world equally likely); and the unseen cards."""
    cfg = game.config
    deck_counts = tuple(int(c) for c in cfg.deck.counts)
    sit = check(sit, deck_counts, cfg.face_up)
    n, me = sit.players, sit.seat
    turns = _timeline(sit)
    leia = card_with(Effect.DRAW_KEEP_RETURN, sit.rules)  # or the Chancellor
    opp_leia = {p: sum(a.card == leia for a in plays(sit.areas[p]))
                for p in range(n) if p != me}
    unseen = Counter({c: k for c, k in enumerate(deck_counts) if k})
    for c in sit.hand + sit.face_up + sit.bottom + tuple(sit.saw.values()):
        unseen[c] -= 1
    for area in sit.areas:
        for a in area:
            unseen[a.card] -= 1
    if sit.set_aside is not None:
        unseen[sit.set_aside] -= 1
    unseen_list = sorted(unseen.elements())
    hidden_hands = [p for p in range(n) if p != me and p not in sit.out and p not in sit.saw]
    hidden_bottom = 2 * sum(opp_leia.values())
    set_aside_unseen = 0 if sit.set_aside is not None else 1
    # Every unseen card outside the hands and the set-aside is still to draw, the
    # opponents' Leia returns included.
    deck_left = len(unseen_list) - len(hidden_hands) - set_aside_unseen + len(sit.bottom)
    # The deck is drawn shuffled part first, returned cards last (R9): returns beyond what
    # the deck still holds were drawn since (the first ones returned).
    returns_in_deck = max(0, min(hidden_bottom, deck_left - len(sit.bottom)))
    needed = len(hidden_hands) + returns_in_deck
    if deck_left < 0:
        raise SituationError(
            f"the situation places too many cards: {len(unseen_list)} unseen card(s) cannot "
            f"fill {len(hidden_hands)} unknown hand(s), {hidden_bottom} opponents' Leia "
            f"return(s) and the set-aside card")
    if sit.deck is not None and sit.deck != deck_left:
        raise SituationError(
            f"deck={sit.deck} cannot be: the cards placed leave {deck_left} to draw "
            f"({cfg.deck.size} in the deck, minus face-up, set-aside, hands, play areas; "
            "Leia's returned cards count as deck)")
    worlds = []
    for _ in range(count):
        order = rng.permutation(len(unseen_list))
        drawn = [unseen_list[i] for i in order[:needed]]
        hands = {p: drawn[i] for i, p in enumerate(hidden_hands)}
        hands.update(sit.saw)
        returns = drawn[len(hidden_hands):]
        worlds.append(_write_world(sit, game, turns, hands, returns, deck_left,
                                   hidden_bottom - returns_in_deck))
    return worlds, +unseen


def _write_world(sit, game, turns, hands, opp_returns, deck_left, drawn_returns=0
                 ) -> np.ndarray:
    """One engine state: the summary, the opponents' hands and Leia returns filled in.
    `opp_returns`: the opponents' returned cards still in the deck; `drawn_returns`: how
    many they returned before those that were drawn since (the log's last deck draws)."""
    n, me = sit.players, sit.seat
    s = game.initial_array.copy()
    s[L.S_EVENT_N] = 0
    s[L.S_LOGGING] = 1
    log = []

    def event(kind, actor=-1, other=-1, c=-1, extra=-1):
        log.append((kind, actor, other, c, extra))

    for c in sorted(sit.face_up):
        event(L.E_FACE_UP, c=c)
    steal_at = {}  # (thief, area index of their Boba Fett play) -> (victim, card)
    for p in range(n):
        for i, a in enumerate(sit.areas[p]):
            if a.how == "took":
                steal_at[(p, i - 1)] = (a.victim, a.card)
    # What each seat must hold next, in time order: the card of each play and each card
    # taken from them, then their hand now (or their discard). The made-up log deals the
    # first of these and draws the next one at each turn and after each theft.
    needs = {p: [] for p in range(n)}
    for p, i in turns:
        if i is None:
            continue
        needs[p].append(sit.areas[p][i].card)
        if (p, i) in steal_at:
            victim, c = steal_at[(p, i)]
            needs[victim].append(c)
    for p in range(n):
        if p == me:
            needs[p] += list(sit.hand)
        elif p in sit.out:
            needs[p].append(sit.areas[p][-1].card)
        else:
            needs[p].append(hands[p])
    pointer = {p: 0 for p in range(n)}

    def next_need(p):
        c = needs[p][pointer[p]]
        pointer[p] += 1
        return c

    for p in range(n):
        event(L.E_DRAW, p, -1, next_need(p), L.SRC_DEAL)
    # A returned card drawn since is a placeholder -1 - j until the pass below.
    returns_left = [-1 - j for j in range(drawn_returns)] + list(opp_returns)
    turn_count = 0
    gone = set()
    for p, i in turns:
        if i is None:  # p is out by now
            event(L.E_OUT, p, -1, sit.areas[p][-1].card, -1)
            gone.add(p)
            continue
        turn_count += 1
        played = sit.areas[p][i].card
        d = next_need(p)
        event(L.E_DRAW, p, -1, d, L.SRC_DECK)
        event(L.E_PLAY, p, -1, played, -1)
        if played == card_with(Effect.DRAW_KEEP_RETURN, sit.rules):
            if p == me:
                back = list(sit.bottom)
            else:
                back, returns_left = returns_left[:2], returns_left[2:]
            for c in sorted(back):
                event(L.E_DRAW, p, -1, c, L.SRC_DECK)
            event(L.E_KEEP, p, -1, d, -1)  # keeps the card they hold next
            if len(back) == 2:
                event(L.E_RETURN, p, 2, back[0], back[1])
            elif back:
                event(L.E_RETURN, p, 1, back[0], -1)
        if (p, i) in steal_at:
            victim, c = steal_at[(p, i)]
            event(L.E_TARGET, p, victim, -1, -1)
            event(L.E_STEAL, p, victim, c, -1)
            new = next_need(victim)
            event(L.E_DRAW, victim, -1, new, L.SRC_DECK)
        if played == R2_D2 and p == me and sit.set_aside is not None and \
                i == max(k for k, a in enumerate(sit.areas[me])
                         if a.card == R2_D2 and a.how == "played"):
            event(L.E_TARGET_SET_ASIDE, p)
            event(L.E_SEE_SET_ASIDE, p, -1, sit.set_aside, -1)
    for p in sorted(sit.out - gone):  # out since their last turn
        event(L.E_OUT, p, -1, sit.areas[p][-1].card, -1)
    for q, c in sit.saw.items():
        event(L.E_SEE, me, q, c, -1)
    for q, c in sit.seen_by.items():
        event(L.E_SEE, q, me, c, -1)
    # My turn now: I drew my second card.
    turn_count += 1
    event(L.E_DRAW, me, -1, sit.hand[1], L.SRC_DECK)
    if drawn_returns:
        _draw_returns_last(log, drawn_returns)
    if len(log) > L.MAX_EVENTS:
        raise SituationError("the situation is longer than any round can be")
    for k, e in enumerate(log):
        s[L.S_EVENTS + k * L.EVENT_SIZE:L.S_EVENTS + (k + 1) * L.EVENT_SIZE] = e
    s[L.S_EVENT_N] = len(log)
    # The table.
    s[L.S_FACE_UP_N] = len(sit.face_up)
    s[L.S_FACE_UP_LEFT] = 0
    for k, c in enumerate(sorted(sit.face_up)):
        s[L.S_FACE_UP + k] = c
    s[L.S_DEAL_NEXT] = n
    for p in range(n):
        s[L.S_IN_ROUND + p] = 0 if p in sit.out else 1
        s[L.S_PROTECTED + p] = 1 if p in sit.protected else 0
        held = list(sit.hand) if p == me else ([] if p in sit.out else [hands[p]])
        s[L.S_HAND_N + p] = len(held)
        for k in range(L.MAX_HAND):
            s[L.S_HAND + p * L.MAX_HAND + k] = held[k] if k < len(held) else 0
        area = [a.card for a in sit.areas[p]]
        s[L.S_AREA_N + p] = len(area)
        for k, c in enumerate(area):
            s[L.S_AREA + p * L.MAX_AREA + k] = c
    queue = list(sit.bottom) + [c for c in opp_returns]
    s[L.S_QUEUE_LEN] = len(queue)
    for k, c in enumerate(queue):
        s[L.S_QUEUE + k] = c
    # The pool: the unseen deck part plus the set-aside card while nobody saw it.
    pool = game.config.deck.engine_counts().astype(np.int64)  # MAX_CHARS entries
    for p in range(n):
        for k in range(int(s[L.S_HAND_N + p])):
            pool[s[L.S_HAND + p * L.MAX_HAND + k]] -= 1
        for k in range(int(s[L.S_AREA_N + p])):
            pool[s[L.S_AREA + p * L.MAX_AREA + k]] -= 1
    for c in list(sit.face_up) + queue:
        pool[c] -= 1
    if sit.set_aside is not None:
        pool[sit.set_aside] -= 1
        s[L.S_SET_ASIDE] = sit.set_aside
    else:
        s[L.S_SET_ASIDE] = -1
    assert (pool >= 0).all(), "card accounting"
    s[L.S_POOL:L.S_POOL + L.MAX_CHARS] = pool
    s[L.S_POOL_SIZE] = int(pool.sum())
    s[L.S_UNKNOWN_DECK] = deck_left - len(queue)
    assert s[L.S_UNKNOWN_DECK] == s[L.S_POOL_SIZE] - (sit.set_aside is None)
    s[L.S_TURNS] = turn_count
    s[L.S_TURN_PLAYER] = me
    s[L.S_PHASE] = L.PH_PLAY
    s[L.S_ACTOR] = me
    s[L.S_PENDING_CARD] = -1
    s[L.S_PENDING_TARGET] = -1
    return s


def _draw_returns_last(log, drawn_returns):
    """The log's last `drawn_returns` deck draws took the opponents' returned cards, in
    the order returned (R9): mark them as bottom draws and name the placeholders -1 - j
    of the Leia events by those cards."""
    draws = [k for k, e in enumerate(log) if e[0] == L.E_DRAW and e[4] == L.SRC_DECK
             and e[3] >= 0][-drawn_returns:]
    if len(draws) < drawn_returns:
        raise SituationError("the opponents' Leia returns cannot have been drawn: too few "
                             "draws after them")
    card_of = {-1 - j: log[k][3] for j, k in enumerate(draws)}
    for k in draws:
        kind, actor, other, c, _ = log[k]
        log[k] = (kind, actor, other, c, L.SRC_BOTTOM)
    for k, (kind, actor, other, c, extra) in enumerate(log):
        if kind == L.E_DRAW and c < 0:
            log[k] = (kind, actor, other, card_of[c], extra)
        elif kind == L.E_RETURN:
            log[k] = (kind, actor, other, card_of.get(c, c),
                      card_of.get(extra, extra) if other >= 2 else extra)
