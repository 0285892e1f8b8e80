"""The rules of one round, compiled with numba over a flat int32 state (layout.py).

This is the one place the rules live, for every rule set: the state names its rule set
(S_RULES) and the engine reads that rule set's card table (cards.card_tables), its
effect kinds and flags, never a card's name. The OpenSpiel wrapper (game.py), the solvers and
the hint engine all call these functions. With NUMBA_DISABLE_JIT=1 they run as plain
Python, for debugging and coverage.

Chance is explicit and lazy. Every chance node draws one card from the *pool*: the
cards nobody has seen yet, i.e. the shuffled part of the deck plus the face-down
set-aside card while it is unrevealed. These are exchangeable, so a draw from the deck
is distributed as a uniform pick from the pool (outcome c with probability
pool[c] / pool_size), and the set-aside card is only drawn from the pool when someone
first sees it (R2-D2) or takes it (Boba Fett with an empty deck, R8). Order of chance
events: 2-player face-up cards, deals in seat order, then draws as they happen.

A node with exactly one legal action or chance outcome is resolved automatically
(`settle`): e.g. the only possible target in a 2-player game. It still appears in the
event log, so information states are unchanged by it.
"""

import numpy as np
from numba import njit

from .cards import (COL_EFFECT, COL_FORCED_BY, COL_NAMES_BARRED, COL_NUMBER,
                    COL_OUT_IF_DISCARDED, COL_PARAM_A, COL_PARAM_B, COL_SIDE,
                    COL_TOKEN_IF_ALONE, COL_TOKEN_IF_HELD, JABBAS_PALACE, RULESETS, card_tables,
                    Agenda, Effect, Side)
from .interface import engine_interface
from .layout import (CH_DEAL, CH_FACE_UP, CH_LEIA_DRAW, CH_REDRAW, CH_SET_ASIDE_LOOK,
                     CH_TURN_DRAW, END_DECK, END_LAST_PLAYER, END_NOBODY, EVENT_SIZE, EV_CARD,
                     EV_EXTRA, E_DISCARD, E_DRAW, E_FACE_UP, E_KEEP, E_MISS, E_NAME, E_NO_EFFECT,
                     E_NO_TRADE, E_OUT, E_PLAY, E_RETURN, E_ROUND_END, E_SEE, E_SEE_SET_ASIDE,
                     E_STEAL, E_TARGET, E_TARGET_SET_ASIDE, E_TIE, E_TRADE, KEEP, MAX_AREA,
                     MAX_CHARS, MAX_EVENTS, MAX_FACEUP, MAX_HAND, MAX_PLAYERS, MAX_QUEUE, NAME,
                     NAMES_IN_FIRST_BLOCK, NAME_HIGH, NO_TRADE, NUM_ACTIONS, NUM_NUMBERS, ORDER,
                     PH_CHANCE, PH_COUNTER, PH_KEEP, PH_NAME, PH_ORDER, PH_PLAY, PH_TARGET,
                     PH_TERMINAL, PH_TRADE, PLAY, SRC_BOTTOM, SRC_DEAL, SRC_DECK, SRC_SET_ASIDE,
                     STATE_SIZE, S_ACTOR, S_AGENDA, S_AREA, S_AREA_N, S_CHANCE_FOR, S_CHANCE_KIND,
                     S_DEAL_NEXT, S_DECK_COUNTS, S_DRAWS_LEFT, S_END_KIND, S_EVENTS, S_EVENT_N,
                     S_FACE_UP, S_FACE_UP_LEFT, S_FACE_UP_N, S_HAND, S_HAND_N, S_IN_ROUND,
                     S_LOGGING, S_NAMEABLE, S_NUM_PLAYERS, S_PENDING_CARD, S_PENDING_TARGET,
                     S_PHASE, S_POOL, S_POOL_SIZE, S_PROTECTED, S_QUEUE, S_QUEUE_LEN, S_RETURN,
                     S_RETURN_N, S_RULES, S_SET_ASIDE, S_SET_ASIDE_GONE, S_TOKENS, S_TURNS,
                     S_TURN_PLAYER, S_UNKNOWN_DECK, S_UTILITY, S_WINNERS, TARGET,
                     TARGET_SET_ASIDE, TRADE, UTIL_MARGIN)

# Effect kinds and sides as plain ints for numba.
EF_NONE = int(Effect.NONE)
EF_GUESS = int(Effect.GUESS)
EF_GUESS_COUNTER = int(Effect.GUESS_COUNTER)
EF_PEEK = int(Effect.PEEK)
EF_PEEK_OR_SET_ASIDE = int(Effect.PEEK_OR_SET_ASIDE)
EF_COMPARE = int(Effect.COMPARE)
EF_ELIMINATE_IF_SIDE = int(Effect.ELIMINATE_IF_SIDE)
EF_PROTECT = int(Effect.PROTECT)
EF_LOOK_MAY_TRADE = int(Effect.LOOK_MAY_TRADE)
EF_STEAL_HAND = int(Effect.STEAL_HAND)
EF_DRAW_KEEP_RETURN = int(Effect.DRAW_KEEP_RETURN)
EF_ELIMINATE_LOWEST = int(Effect.ELIMINATE_LOWEST)
EF_DISCARD_REDRAW = int(Effect.DISCARD_REDRAW)
EF_TRADE_HANDS = int(Effect.TRADE_HANDS)
SIDE_PALACE = int(Side.PALACE)
SIDE_REBEL = int(Side.REBEL)
AG_EXALTED_ONE = int(Agenda.EXALTED_ONE)
AG_MY_KIND_OF_SCUM = int(Agenda.MY_KIND_OF_SCUM)
AG_JABBAS_COURT = int(Agenda.JABBAS_COURT)
AG_RESCUE_MISSION = int(Agenda.RESCUE_MISSION)

# The card tables are a global, so numba freezes them into the compiled code: passing them
# as an argument costs a reference-count round trip on every call (measured: ~15% of a
# playout). CARD_TABLES[rules, card, column]; `_card` reads the state's rule set.
CARD_TABLES = card_tables()
CARDS = CARD_TABLES[JABBAS_PALACE.id]  # Jabba's Palace's alone, for code written for it
# Per rule set: which of the classic rules (C3, C7, C2, C9) its cards use, so that Jabba's
# Palace skips their checks (measured: 5% of a random playout without this).
RULE_FORCED_PLAY, RULE_OUT_IF_DISCARDED, RULE_NAMES_BARRED, RULE_TOKEN_IF_ALONE = 1, 2, 4, 8
RULE_FLAGS = np.array([
    RULE_FORCED_PLAY * any(c.forced_by for c in r.characters)
    | RULE_OUT_IF_DISCARDED * any(c.out_if_discarded for c in r.characters)
    | RULE_NAMES_BARRED * any(c.names_barred for c in r.characters)
    | RULE_TOKEN_IF_ALONE * any(c.token_if_alone for c in r.characters)
    for r in RULESETS], dtype=np.int64)
_JIT = dict(cache=True, nogil=True, error_model="numpy")
# The hottest small functions (`legal_actions`, `settle`, `_only_option`, `returns`) are
# inlined by numba (inline="always"): a call that passes an array costs a reference-count
# call pair and the call itself. Measured: MCCFR +10% on the small deck, +5% on the full
# deck; random playouts +10%; ~1 s more to compile the MCCFR kernel.


# Setup ----------------------------------------------------------------------------------

def new_state(num_players, agenda, utility, deck_counts, face_up, logging=True, rules=0):
    """A fresh round at its first chance node (R1). `deck_counts` per character id of
    the rule set `rules` (cards.RULESETS, 0: Jabba's Palace)."""
    if not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError(f"players must be 2 to {MAX_PLAYERS}, got {num_players}")
    if not 0 <= face_up <= MAX_FACEUP:
        raise ValueError(f"face-up count must be 0 to {MAX_FACEUP}, got {face_up}")
    counts = np.asarray(deck_counts, dtype=np.int32)
    if counts.shape != (MAX_CHARS,) or (counts < 0).any():
        raise ValueError(f"deck_counts must be {MAX_CHARS} non-negative counts")
    if not 0 <= rules < len(RULESETS):
        raise ValueError(f"rules must be a rule set id, 0 to {len(RULESETS) - 1}")
    if counts[len(RULESETS[rules].characters):].any():
        raise ValueError(f"deck_counts: {RULESETS[rules].title} has no card id past "
                         f"{len(RULESETS[rules].characters) - 1}")
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[S_NUM_PLAYERS] = num_players
    s[S_RULES] = rules
    s[S_AGENDA] = agenda
    s[S_UTILITY] = utility
    s[S_LOGGING] = 1 if logging else 0
    s[S_DECK_COUNTS:S_DECK_COUNTS + MAX_CHARS] = counts
    s[S_POOL:S_POOL + MAX_CHARS] = counts
    for c in range(MAX_CHARS):
        if counts[c] > 0:
            s[S_NAMEABLE] |= 1 << int(CARD_TABLES[rules, c, COL_NUMBER])
    total = int(counts.sum())
    s[S_POOL_SIZE] = total
    s[S_UNKNOWN_DECK] = total - 1  # one card is set aside face down, undetermined (R1)
    s[S_SET_ASIDE] = -1
    s[S_FACE_UP_LEFT] = face_up
    s[S_TURN_PLAYER] = 0
    s[S_ACTOR] = -1
    for p in range(num_players):
        s[S_IN_ROUND + p] = 1
    _setup_continue(s)
    settle(s)
    return s


@njit(**_JIT)
def _enter_chance(s, kind, player):
    s[S_PHASE] = PH_CHANCE
    s[S_ACTOR] = -1
    s[S_CHANCE_KIND] = kind
    s[S_CHANCE_FOR] = player


@njit(**_JIT)
def _setup_continue(s):
    """R1: face-up cards (2 players), then one card to each seat, then seat 0 starts."""
    if s[S_FACE_UP_LEFT] > 0:
        _enter_chance(s, CH_FACE_UP, -1)
    elif s[S_DEAL_NEXT] < s[S_NUM_PLAYERS]:
        _enter_chance(s, CH_DEAL, s[S_DEAL_NEXT])
    else:
        _start_turn(s, 0)  # seats are numbered in turn order from the first player


# Small helpers --------------------------------------------------------------------------

@njit(inline="always", **_JIT)
def _card(s, c, column):
    """Column `column` of card c in the state's rule set."""
    return CARD_TABLES[s[S_RULES], c, column]


@njit(inline="always", **_JIT)
def _uses(s, rule):
    """Whether the state's rule set has a card with this rule (RULE_FLAGS)."""
    return RULE_FLAGS[s[S_RULES]] & rule != 0


@njit(**_JIT)
def log_event(s, kind, actor, other, card, extra):
    if s[S_LOGGING] == 0:
        return
    n = s[S_EVENT_N]
    if n >= MAX_EVENTS:
        raise RuntimeError("event log overflow")
    base = S_EVENTS + n * EVENT_SIZE
    s[base] = kind
    s[base + 1] = actor
    s[base + 2] = other
    s[base + 3] = card
    s[base + 4] = extra
    s[S_EVENT_N] = n + 1


@njit(**_JIT)
def deck_size(s):
    """Cards left to draw: the shuffled part plus Leia's returned cards (R9)."""
    return s[S_UNKNOWN_DECK] + s[S_QUEUE_LEN]


@njit(**_JIT)
def hand_card(s, p):
    """The card of a player holding exactly one."""
    return s[S_HAND + p * MAX_HAND]


@njit(**_JIT)
def _add_to_hand(s, p, c):
    n = s[S_HAND_N + p]
    s[S_HAND + p * MAX_HAND + n] = c
    s[S_HAND_N + p] = n + 1


@njit(**_JIT)
def _remove_from_hand(s, p, c):
    n = s[S_HAND_N + p]
    base = S_HAND + p * MAX_HAND
    for i in range(n):
        if s[base + i] == c:
            s[base + i] = s[base + n - 1]
            s[base + n - 1] = 0
            s[S_HAND_N + p] = n - 1
            return
    raise RuntimeError("card not in hand")


@njit(**_JIT)
def _add_to_area(s, p, c):
    n = s[S_AREA_N + p]
    s[S_AREA + p * MAX_AREA + n] = c
    s[S_AREA_N + p] = n + 1


@njit(**_JIT)
def _receive(s, p, c, source):
    _add_to_hand(s, p, c)
    log_event(s, E_DRAW, p, -1, c, source)


@njit(**_JIT)
def _sort_cards(s, start, stride, count):
    """Sort the `count` values at s[start], s[start + stride], ... in place."""
    for i in range(1, count):
        j = i
        while j > 0 and s[start + (j - 1) * stride] > s[start + j * stride]:
            a, b = start + (j - 1) * stride, start + j * stride
            s[a], s[b] = s[b], s[a]
            j -= 1


@njit(**_JIT)
def _pop_queue(s):
    c = s[S_QUEUE]
    n = s[S_QUEUE_LEN]
    for i in range(n - 1):
        s[S_QUEUE + i] = s[S_QUEUE + i + 1]
    s[S_QUEUE + n - 1] = 0
    s[S_QUEUE_LEN] = n - 1
    return c


@njit(**_JIT)
def _push_queue(s, c):
    n = s[S_QUEUE_LEN]
    if n >= MAX_QUEUE:
        raise RuntimeError("bottom queue overflow")
    s[S_QUEUE + n] = c
    s[S_QUEUE_LEN] = n + 1


@njit(**_JIT)
def _take_from_pool(s, c):
    s[S_POOL + c] -= 1
    s[S_POOL_SIZE] -= 1


@njit(inline="always", **_JIT)
def _choice_action(s, p, effect, i):
    """Who may be chosen: the target action of p's choice slot i resolving a card of
    `effect`, or -1 if p may not choose it. Slots 0 .. players - 1 are the seats, slot
    `players` the face-down set-aside card; their actions come in slot order (the
    sorted legal actions). R4 (C4): another player still in the round and not protected
    (R13); C4/C5: the Prince's player may also choose themself; R4: R2-D2 may look at
    the set-aside card while it is still set aside (R8)."""
    if i == s[S_NUM_PLAYERS]:
        if effect == EF_PEEK_OR_SET_ASIDE and s[S_SET_ASIDE_GONE] == 0:
            return TARGET_SET_ASIDE
        return -1
    if i == p:
        return TARGET + i if effect == EF_DISCARD_REDRAW else -1
    if s[S_IN_ROUND + i] == 1 and s[S_PROTECTED + i] == 0:
        return TARGET + i
    return -1


@njit(**_JIT)
def _players_in(s):
    count = 0
    for p in range(s[S_NUM_PLAYERS]):
        count += s[S_IN_ROUND + p]
    return count


@njit(**_JIT)
def _knock_out(s, p):
    """R3: hand face up into own play area, out of the round."""
    n = s[S_HAND_N + p]
    for i in range(n):
        c = s[S_HAND + p * MAX_HAND + i]
        _add_to_area(s, p, c)
        log_event(s, E_OUT, p, -1, c, -1)
        s[S_HAND + p * MAX_HAND + i] = 0
    s[S_HAND_N + p] = 0
    s[S_IN_ROUND + p] = 0
    s[S_PROTECTED + p] = 0


# Turn flow ------------------------------------------------------------------------------

@njit(**_JIT)
def _start_turn(s, p):
    s[S_TURN_PLAYER] = p
    s[S_PROTECTED + p] = 0  # R13: protection ends at the start of one's own turn
    s[S_TURNS] += 1
    if s[S_UNKNOWN_DECK] > 0:
        _enter_chance(s, CH_TURN_DRAW, p)
    else:
        _receive(s, p, _pop_queue(s), SRC_BOTTOM)
        _enter_decision(s, PH_PLAY, p)


@njit(**_JIT)
def _enter_decision(s, phase, actor):
    s[S_PHASE] = phase
    s[S_ACTOR] = actor


@njit(**_JIT)
def _end_turn(s):
    """R11: one player left ends the round at once; an empty deck ends it after a turn."""
    players_in = _players_in(s)
    if players_in <= 1:
        _finish_round(s, END_NOBODY if players_in == 0 else END_LAST_PLAYER)
        return
    if deck_size(s) == 0:
        _finish_round(s, END_DECK)
        return
    n = s[S_NUM_PLAYERS]
    q = (s[S_TURN_PLAYER] + 1) % n
    while s[S_IN_ROUND + q] == 0:
        q = (q + 1) % n
    _start_turn(s, q)


@njit(**_JIT)
def _agenda_score(s, p):
    """A player's agenda score at the deck end (R12); higher wins, ties all win."""
    agenda = s[S_AGENDA]
    if agenda == AG_EXALTED_ONE:
        return _card(s, hand_card(s, p), COL_NUMBER)
    if agenda == AG_MY_KIND_OF_SCUM:
        return _card(s, hand_card(s, p), COL_NUMBER)  # compared within the card's side
    score = 0
    for i in range(s[S_AREA_N + p]):
        c = s[S_AREA + p * MAX_AREA + i]
        if agenda == AG_JABBAS_COURT:
            if _card(s, c, COL_SIDE) == SIDE_PALACE:
                score += _card(s, c, COL_NUMBER)
        elif _card(s, c, COL_SIDE) == SIDE_REBEL:
            score += 1
    return score


@njit(**_JIT)
def _token_if_alone(s, n):
    """C9 (the Spy): +1 token to the only player still in the round with such a card in
    their play area (played or discarded), at most 1; nobody if two or more have one."""
    holder = -1
    for p in range(n):
        if s[S_IN_ROUND + p] == 1:
            for i in range(s[S_AREA_N + p]):
                if _card(s, s[S_AREA + p * MAX_AREA + i], COL_TOKEN_IF_ALONE) == 1:
                    if holder >= 0:
                        return
                    holder = p
                    break
    if holder >= 0:
        s[S_TOKENS + holder] += 1


@njit(**_JIT)
def _finish_round(s, end_kind):
    n = s[S_NUM_PLAYERS]
    if end_kind == END_LAST_PLAYER:
        for p in range(n):
            if s[S_IN_ROUND + p] == 1:
                s[S_TOKENS + p] += 1
                s[S_WINNERS] |= 1 << p
    elif end_kind == END_DECK:
        # My Kind of Scum compares within each side; the others have one group.
        groups = 2 if s[S_AGENDA] == AG_MY_KIND_OF_SCUM else 1
        for g in range(groups):
            best = -1
            for p in range(n):
                if s[S_IN_ROUND + p] == 1:
                    if groups == 2 and _card(s, hand_card(s, p), COL_SIDE) != g:
                        continue
                    best = max(best, _agenda_score(s, p))
            for p in range(n):
                if s[S_IN_ROUND + p] == 1:
                    if groups == 2 and _card(s, hand_card(s, p), COL_SIDE) != g:
                        continue
                    if _agenda_score(s, p) == best:
                        s[S_TOKENS + p] += 1
                        s[S_WINNERS] |= 1 << p
    # Han Solo: +1 to everyone still in holding a token card (R11), whatever the end.
    for p in range(n):
        if s[S_IN_ROUND + p] == 1:
            for i in range(s[S_HAND_N + p]):
                if _card(s, s[S_HAND + p * MAX_HAND + i], COL_TOKEN_IF_HELD) == 1:
                    s[S_TOKENS + p] += 1
    if _uses(s, RULE_TOKEN_IF_ALONE):
        _token_if_alone(s, n)
    s[S_END_KIND] = end_kind
    s[S_PHASE] = PH_TERMINAL
    s[S_ACTOR] = -1
    log_event(s, E_ROUND_END, -1, -1, -1, end_kind)


@njit(**_JIT)
def _play(s, c):
    p = s[S_TURN_PLAYER]
    _remove_from_hand(s, p, c)
    _add_to_area(s, p, c)
    log_event(s, E_PLAY, p, -1, c, -1)
    s[S_PENDING_CARD] = c
    s[S_PENDING_TARGET] = -1
    effect = _card(s, c, COL_EFFECT)
    if _uses(s, RULE_OUT_IF_DISCARDED) and _card(s, c, COL_OUT_IF_DISCARDED) == 1:
        _knock_out(s, p)  # C7: playing the Princess puts one out
        _end_turn(s)
    elif effect == EF_NONE:
        _end_turn(s)
    elif effect == EF_PROTECT:
        s[S_PROTECTED + p] = 1
        _end_turn(s)
    elif effect == EF_ELIMINATE_LOWEST:
        _resolve_lowest(s, p)
    elif effect == EF_DRAW_KEEP_RETURN:
        draws = min(_card(s, c, COL_PARAM_A), deck_size(s))
        if draws == 0:
            log_event(s, E_NO_EFFECT, p, -1, c, -1)  # R9: empty deck
            _end_turn(s)
        else:
            s[S_DRAWS_LEFT] = draws
            _continue_leia(s)
    else:
        options = 0
        for i in range(s[S_NUM_PLAYERS] + 1):
            if _choice_action(s, p, effect, i) >= 0:
                options += 1
        if options == 0:
            log_event(s, E_NO_EFFECT, p, -1, c, -1)  # R4: nobody may be chosen
            _end_turn(s)
        else:
            _enter_decision(s, PH_TARGET, p)


@njit(**_JIT)
def _resolve_lowest(s, p):
    """R7: lowest non-0 hand among everyone in the round is out, all ties."""
    lowest = 1 << 20
    n = s[S_NUM_PLAYERS]
    for q in range(n):
        if s[S_IN_ROUND + q] == 1:
            number = _card(s, hand_card(s, q), COL_NUMBER)
            if 0 < number < lowest:
                lowest = number
    if lowest == 1 << 20:
        log_event(s, E_NO_EFFECT, p, -1, s[S_PENDING_CARD], -1)
    else:
        for q in range(n):
            if s[S_IN_ROUND + q] == 1 and _card(s, hand_card(s, q), COL_NUMBER) == lowest:
                _knock_out(s, q)
    _end_turn(s)


@njit(**_JIT)
def _continue_leia(s):
    """R9: draw the remaining Leia cards (shuffled part first), then decide what to keep."""
    p = s[S_TURN_PLAYER]
    while s[S_DRAWS_LEFT] > 0:
        s[S_DRAWS_LEFT] -= 1
        if s[S_UNKNOWN_DECK] > 0:
            _enter_chance(s, CH_LEIA_DRAW, p)
            return
        _receive(s, p, _pop_queue(s), SRC_BOTTOM)
    # Leia's two cards are drawn together: order them, so that their order is no
    # information (only when both came from the same place).
    n = s[S_EVENT_N]
    last = S_EVENTS + (n - 1) * EVENT_SIZE
    previous = last - EVENT_SIZE
    if (s[S_LOGGING] and n >= 2 and s[previous] == E_DRAW and s[last] == E_DRAW
            and s[previous + EV_EXTRA] == s[last + EV_EXTRA]):
        _sort_cards(s, previous + EV_CARD, EVENT_SIZE, 2)
    _enter_decision(s, PH_KEEP, p)


@njit(**_JIT)
def _redraw(s, t):
    """R8, C5: t, who lost their hand to Boba Fett or a Prince, draws a new one; the
    set-aside card if the deck is empty."""
    if s[S_UNKNOWN_DECK] > 0:
        _enter_chance(s, CH_REDRAW, t)
        return
    if s[S_QUEUE_LEN] > 0:
        _receive(s, t, _pop_queue(s), SRC_BOTTOM)
    else:
        c = s[S_SET_ASIDE]
        if c < 0:
            # With the shuffled part empty, the pool holds only the set-aside card.
            for k in range(MAX_CHARS):
                if s[S_POOL + k] > 0:
                    c = k
            _take_from_pool(s, c)
            s[S_SET_ASIDE] = c
        s[S_SET_ASIDE_GONE] = 1
        _receive(s, t, c, SRC_SET_ASIDE)
    _end_turn(s)


@njit(**_JIT)
def _choose(s, t):
    """Resolve the pending card against player t (t == -1: the set-aside card)."""
    p = s[S_TURN_PLAYER]
    c = s[S_PENDING_CARD]
    effect = _card(s, c, COL_EFFECT)
    s[S_PENDING_TARGET] = t
    if t < 0:
        log_event(s, E_TARGET_SET_ASIDE, p, -1, -1, -1)
        if s[S_SET_ASIDE] < 0:
            _enter_chance(s, CH_SET_ASIDE_LOOK, p)
        else:
            log_event(s, E_SEE_SET_ASIDE, p, -1, s[S_SET_ASIDE], -1)
            _end_turn(s)
        return
    log_event(s, E_TARGET, p, t, -1, -1)
    target_card = hand_card(s, t)
    if effect == EF_GUESS or effect == EF_GUESS_COUNTER:
        _enter_decision(s, PH_NAME, p)
    elif effect == EF_PEEK or effect == EF_PEEK_OR_SET_ASIDE:
        log_event(s, E_SEE, p, t, target_card, -1)
        _end_turn(s)
    elif effect == EF_COMPARE:
        own_card = hand_card(s, p)
        log_event(s, E_SEE, p, t, target_card, -1)
        log_event(s, E_SEE, t, p, own_card, -1)
        own_number = _card(s, own_card, COL_NUMBER)
        target_number = _card(s, target_card, COL_NUMBER)
        if own_number < target_number:
            _knock_out(s, p)
        elif target_number < own_number:
            _knock_out(s, t)
        else:
            log_event(s, E_TIE, p, t, -1, -1)
        _end_turn(s)
    elif effect == EF_ELIMINATE_IF_SIDE:
        if (_card(s, target_card, COL_SIDE) == _card(s, c, COL_PARAM_A)
                and _card(s, target_card, COL_NUMBER) <= _card(s, c, COL_PARAM_B)):
            _knock_out(s, t)
        else:
            log_event(s, E_MISS, t, -1, -1, -1)
        _end_turn(s)
    elif effect == EF_LOOK_MAY_TRADE:
        log_event(s, E_SEE, p, t, target_card, -1)
        _enter_decision(s, PH_TRADE, p)
    elif effect == EF_STEAL_HAND:
        _remove_from_hand(s, t, target_card)
        _add_to_area(s, p, target_card)
        log_event(s, E_STEAL, p, t, target_card, -1)
        _redraw(s, t)
    elif effect == EF_DISCARD_REDRAW:
        if _card(s, target_card, COL_OUT_IF_DISCARDED) == 1:
            _knock_out(s, t)  # C7: a discarded Princess puts her holder out; no draw
            _end_turn(s)
        else:
            _remove_from_hand(s, t, target_card)
            _add_to_area(s, t, target_card)
            log_event(s, E_DISCARD, t, p, target_card, -1)
            _redraw(s, t)
    elif effect == EF_TRADE_HANDS:
        _swap_hands(s, p, t)  # C6
        _end_turn(s)
    else:
        raise RuntimeError("card effect takes no target")


@njit(**_JIT)
def _name(s, number):
    p = s[S_TURN_PLAYER]
    t = s[S_PENDING_TARGET]
    if s[S_PHASE] == PH_NAME:
        log_event(s, E_NAME, p, t, -1, number)
        if _card(s, hand_card(s, t), COL_NUMBER) == number:
            _knock_out(s, t)
        else:
            log_event(s, E_MISS, t, -1, -1, -1)
            if _card(s, s[S_PENDING_CARD], COL_EFFECT) == EF_GUESS_COUNTER:
                _enter_decision(s, PH_COUNTER, t)  # R6: the chosen player names back
                return
        _end_turn(s)
    else:
        log_event(s, E_NAME, t, p, -1, number)
        if _card(s, hand_card(s, p), COL_NUMBER) == number:
            _knock_out(s, p)
        else:
            log_event(s, E_MISS, p, -1, -1, -1)
        _end_turn(s)


@njit(**_JIT)
def _keep(s, c):
    """Leia: keep c; the other cards go to the bottom (R9), in an order if they differ."""
    p = s[S_TURN_PLAYER]
    _remove_from_hand(s, p, c)
    n = s[S_HAND_N + p]
    s[S_RETURN_N] = n
    for i in range(n):
        s[S_RETURN + i] = s[S_HAND + p * MAX_HAND + i]
        s[S_HAND + p * MAX_HAND + i] = 0
    s[S_HAND_N + p] = 0
    _add_to_hand(s, p, c)
    log_event(s, E_KEEP, p, -1, c, -1)
    _enter_decision(s, PH_ORDER, p)


@njit(**_JIT)
def _order(s, first):
    """Leia: `first` goes above the other, so it is drawn before it (R9)."""
    p = s[S_TURN_PLAYER]
    n = s[S_RETURN_N]
    if n == 1:
        _push_queue(s, s[S_RETURN])
        log_event(s, E_RETURN, p, 1, s[S_RETURN], -1)
    else:
        second = s[S_RETURN + 1] if s[S_RETURN] == first else s[S_RETURN]
        _push_queue(s, first)
        _push_queue(s, second)
        log_event(s, E_RETURN, p, 2, first, second)
    s[S_RETURN_N] = 0
    _end_turn(s)


@njit(**_JIT)
def _swap_hands(s, p, t):
    """p and t, one card each, trade hands; both see both cards (R10, C6)."""
    own_card = hand_card(s, p)
    target_card = hand_card(s, t)
    s[S_HAND + p * MAX_HAND] = target_card
    s[S_HAND + t * MAX_HAND] = own_card
    log_event(s, E_TRADE, p, t, own_card, target_card)


@njit(**_JIT)
def _trade(s, do_trade):
    p = s[S_TURN_PLAYER]
    t = s[S_PENDING_TARGET]
    if do_trade:
        _swap_hands(s, p, t)
    else:
        log_event(s, E_NO_TRADE, p, t, -1, -1)
    _end_turn(s)


@njit(**_JIT)
def _apply_chance(s, c):
    _take_from_pool(s, c)
    kind = s[S_CHANCE_KIND]
    p = s[S_CHANCE_FOR]
    if kind == CH_SET_ASIDE_LOOK:
        s[S_SET_ASIDE] = c
        log_event(s, E_SEE_SET_ASIDE, p, -1, c, -1)
        _end_turn(s)
        return
    s[S_UNKNOWN_DECK] -= 1
    if kind == CH_FACE_UP:
        s[S_FACE_UP + s[S_FACE_UP_N]] = c
        s[S_FACE_UP_N] += 1
        s[S_FACE_UP_LEFT] -= 1
        log_event(s, E_FACE_UP, -1, -1, c, -1)
        if s[S_FACE_UP_LEFT] == 0:
            # The face-up cards are set aside together: their order is no information.
            _sort_cards(s, S_FACE_UP, 1, s[S_FACE_UP_N])
            if s[S_LOGGING]:
                _sort_cards(s, S_EVENTS + EV_CARD, EVENT_SIZE, s[S_FACE_UP_N])
        _setup_continue(s)
    elif kind == CH_DEAL:
        _receive(s, p, c, SRC_DEAL)
        s[S_DEAL_NEXT] += 1
        _setup_continue(s)
    elif kind == CH_TURN_DRAW:
        _receive(s, p, c, SRC_DECK)
        _enter_decision(s, PH_PLAY, p)
    elif kind == CH_LEIA_DRAW:
        _receive(s, p, c, SRC_DECK)
        _continue_leia(s)
    else:  # CH_REDRAW
        _receive(s, p, c, SRC_DECK)
        _end_turn(s)


# Public API -----------------------------------------------------------------------------

@njit(**_JIT)
def is_terminal(s):
    return s[S_PHASE] == PH_TERMINAL


@njit(**_JIT)
def is_chance(s):
    return s[S_PHASE] == PH_CHANCE


@njit(**_JIT)
def current_actor(s):
    """Player to decide, -1 at a chance node, -4 at the end (OpenSpiel's kChancePlayerId
    and kTerminalPlayerId)."""
    if s[S_PHASE] == PH_TERMINAL:
        return -4
    return s[S_ACTOR]


@njit(**_JIT)
def chance_outcomes(s, outcomes, probs):
    """Fill characters and probabilities of the pending draw; return how many."""
    n = 0
    size = s[S_POOL_SIZE]
    for c in range(MAX_CHARS):
        k = s[S_POOL + c]
        if k > 0:
            outcomes[n] = c
            probs[n] = k / size
            n += 1
    return n


@njit(inline="always", **_JIT)
def legal_actions(s, out):
    """Fill the sorted legal action ids (or chance outcomes); return how many."""
    phase = s[S_PHASE]
    n = 0
    if phase == PH_CHANCE:
        for c in range(MAX_CHARS):
            if s[S_POOL + c] > 0:
                out[n] = c
                n += 1
    elif phase == PH_PLAY or phase == PH_KEEP:
        p = s[S_ACTOR]
        offset = PLAY if phase == PH_PLAY else KEEP
        if phase == PH_PLAY and _uses(s, RULE_FORCED_PLAY):
            forced = _forced_play(s, p)
            if forced >= 0:
                out[0] = PLAY + forced
                return 1
        for c in range(MAX_CHARS):
            for i in range(s[S_HAND_N + p]):
                if s[S_HAND + p * MAX_HAND + i] == c:
                    out[n] = offset + c
                    n += 1
                    break
    elif phase == PH_TARGET:
        p = s[S_ACTOR]
        effect = _card(s, s[S_PENDING_CARD], COL_EFFECT)
        for i in range(s[S_NUM_PLAYERS] + 1):
            action = _choice_action(s, p, effect, i)
            if action >= 0:
                out[n] = action
                n += 1
    elif phase == PH_NAME or phase == PH_COUNTER:
        # R5: any number 0-8; numbers no card of this deck has are left out (a sure miss);
        # C2: the classic Guard may not name 1.
        nameable = _nameable(s)
        for number in range(NUM_NUMBERS):
            if (nameable >> number) & 1:
                out[n] = name_action(number)
                n += 1
    elif phase == PH_ORDER:
        if s[S_RETURN_N] == 2 and s[S_RETURN] != s[S_RETURN + 1]:
            a = min(s[S_RETURN], s[S_RETURN + 1])
            b = max(s[S_RETURN], s[S_RETURN + 1])
            out[0] = ORDER + a
            out[1] = ORDER + b
            n = 2
        else:
            out[0] = ORDER + s[S_RETURN]
            n = 1
    elif phase == PH_TRADE:
        out[0] = NO_TRADE
        out[1] = TRADE
        n = 2
    return n


@njit(inline="always", **_JIT)
def name_action(number):
    """The action id that names `number` (layout.py: 0-8 at NAME, 9 at NAME_HIGH)."""
    if number < NAMES_IN_FIRST_BLOCK:
        return NAME + number
    return NAME_HIGH + number - NAMES_IN_FIRST_BLOCK


@njit(inline="always", **_JIT)
def named_number(action):
    """The number a name action id names (inverse of `name_action`)."""
    if action >= NAME_HIGH:
        return action - NAME_HIGH + NAMES_IN_FIRST_BLOCK
    return action - NAME


@njit(inline="always", **_JIT)
def _nameable(s):
    """Bit mask of the numbers the pending name decision may name (R5, C2)."""
    if not _uses(s, RULE_NAMES_BARRED):
        return s[S_NAMEABLE]
    return s[S_NAMEABLE] & ~_card(s, s[S_PENDING_CARD], COL_NAMES_BARRED)


@njit(inline="always", **_JIT)
def _forced_play(s, p):
    """C3: the card p must play (the Countess held with a card that forces her), or -1."""
    return forced_card(s[S_RULES], s, S_HAND + p * MAX_HAND, s[S_HAND_N + p])


@njit(inline="always", **_JIT)
def forced_card(rules, cards, start, n):
    """C3: the card of cards[start:start + n] (a hand) that the rule set `rules` makes
    its holder play (the Countess held with a card that forces her), or -1. The hint
    asks this of a described hand; `_forced_play` of a state's."""
    for i in range(n):
        forced_by = CARD_TABLES[rules, cards[start + i], COL_FORCED_BY]
        if forced_by != 0:
            for j in range(n):
                if j != i and (forced_by >> cards[start + j]) & 1:
                    return cards[start + i]
    return -1


@njit(**_JIT)
def _apply_one(s, action):
    phase = s[S_PHASE]
    if phase == PH_CHANCE:
        _apply_chance(s, action)
    elif phase == PH_PLAY:
        _play(s, action - PLAY)
    elif phase == PH_TARGET:
        _choose(s, -1 if action == TARGET_SET_ASIDE else action - TARGET)
    elif phase == PH_NAME or phase == PH_COUNTER:
        _name(s, named_number(action))
    elif phase == PH_KEEP:
        _keep(s, action - KEEP)
    elif phase == PH_ORDER:
        _order(s, action - ORDER)
    elif phase == PH_TRADE:
        _trade(s, action == TRADE)


@njit(inline="always", **_JIT)
def _only_option(s):
    """The single legal action or chance outcome, or -1 if there are several.

    Agrees with `legal_actions` having a count of 1 (a test checks), without a buffer:
    this runs after every action.
    """
    phase = s[S_PHASE]
    if phase == PH_CHANCE:
        found = -1
        for c in range(MAX_CHARS):
            if s[S_POOL + c] > 0:
                if found >= 0:
                    return -1
                found = c
        return found
    if phase == PH_PLAY or phase == PH_KEEP:
        p = s[S_ACTOR]
        if phase == PH_PLAY and _uses(s, RULE_FORCED_PLAY):
            forced = _forced_play(s, p)
            if forced >= 0:
                return PLAY + forced
        base = S_HAND + p * MAX_HAND
        first = s[base]
        for i in range(1, s[S_HAND_N + p]):
            if s[base + i] != first:
                return -1
        return (PLAY if phase == PH_PLAY else KEEP) + first
    if phase == PH_TARGET:
        p = s[S_ACTOR]
        only = -1
        count = 0
        effect = _card(s, s[S_PENDING_CARD], COL_EFFECT)
        for i in range(s[S_NUM_PLAYERS] + 1):
            action = _choice_action(s, p, effect, i)
            if action >= 0:
                count += 1
                only = action
        return only if count == 1 else -1
    if phase == PH_NAME or phase == PH_COUNTER:
        nameable = _nameable(s)
        if nameable & (nameable - 1):  # more than one number
            return -1
        number = 0
        while (nameable >> number) & 1 == 0:
            number += 1
        return name_action(number)
    if phase == PH_ORDER:
        if s[S_RETURN_N] == 2 and s[S_RETURN] != s[S_RETURN + 1]:
            return -1
        return ORDER + s[S_RETURN]
    return -1  # PH_TRADE: always two options


@njit(inline="always", **_JIT)
def settle(s):
    """Resolve every node that has a single option (see the module docstring)."""
    while s[S_PHASE] != PH_TERMINAL:
        action = _only_option(s)
        if action < 0:
            return
        _apply_one(s, action)


@njit(**_JIT)
def is_legal(s, action):
    buf = np.empty(NUM_ACTIONS, dtype=np.int32)
    n = legal_actions(s, buf)
    for i in range(n):
        if buf[i] == action:
            return True
    return False


@njit(**_JIT)
def apply_action(s, action):
    """Apply a legal action or chance outcome (unchecked), then settle forced nodes."""
    _apply_one(s, action)
    settle(s)


@njit(**_JIT)
def tokens(s, out):
    for p in range(s[S_NUM_PLAYERS]):
        out[p] = s[S_TOKENS + p]


@njit(inline="always", **_JIT)
def returns(s, out):
    """Utilities at the end (zeros before): `margin` t_i - mean_j!=i t_j, or `tokens`."""
    n = s[S_NUM_PLAYERS]
    if s[S_PHASE] != PH_TERMINAL:
        for p in range(n):
            out[p] = 0.0
        return
    total = 0
    for p in range(n):
        total += s[S_TOKENS + p]
    for p in range(n):
        t = s[S_TOKENS + p]
        if s[S_UTILITY] == UTIL_MARGIN:
            out[p] = t - (total - t) / (n - 1)
        else:
            out[p] = t


# Chance by a pick --------------------------------------------------------------------------
# The random numbers come from the caller (solver/sim/ for playouts and solvers), so the
# engine holds no generator.

@njit(**_JIT)
def sample_chance(s, pick):
    """The pool card that `pick` (0 <= pick < pool size) selects: a uniform pick gives the
    true odds, card c with probability pool[c] / pool size."""
    c = 0
    while pick >= s[S_POOL + c]:
        pick -= s[S_POOL + c]
        c += 1
    return c


# The engine interface (spiel_game/interface.py) -------------------------------------------

@njit(**_JIT)
def num_players(s):
    return s[S_NUM_PLAYERS]


@njit(**_JIT)
def used_size(s):
    """The state's used prefix: the event log's tail past its end is never read."""
    return S_EVENTS + s[S_EVENT_N] * EVENT_SIZE


ENGINE = engine_interface(
    "spiel_game.engine", num_players=num_players, is_terminal=is_terminal,
    is_chance=is_chance, current_player=current_actor, legal_actions=legal_actions,
    chance_outcomes=chance_outcomes, apply_action=apply_action, returns=returns,
    used_size=used_size)
