"""The rules of one round of the Han Solo card game, compiled with numba over a flat int32
state (layout.py). The one place these rules live; docs/RULES.md H1-H12 are the rulings
and each function cites the ones it applies. With NUMBA_DISABLE_JIT=1 it runs as Python.

Chance is explicit and lazy (H8): the draw pile is a multiset whose order nobody knows, so
each card taken from it is a uniform pick from its counts; the token stack is the same.
"""

import numpy as np
from numba import njit

from ..interface import engine_interface
from .layout import (CH_DEAL, CH_DICE, CH_DRAW, CH_FLIP, CH_POT, CH_REDEAL, CH_TIE, DISCARD, DRAW,
                     E_DEAL, E_DICE, E_DISCARD, E_DRAW, E_FLIP, E_KEEP, E_PICK, E_POT, E_REDEAL,
                     E_RESHUFFLE, E_REVEAL, E_SHOW, E_STAND, E_TAKE, E_TIE, EVENT_SIZE, KEEP,
                     MAX_EVENTS, MAX_HAND, MAX_PLAYERS, NUM_ACTIONS, NUM_CARD_KINDS,
                     NUM_TOKEN_KINDS, PH_CHANCE, PH_DISCARD, PH_PICK, PH_TERMINAL, PH_TURN, PICK,
                     RED, S_AFTER_FLIP, S_BEST, S_CHANCE_KIND, S_CUR, S_CYCLE, S_DEAL_LEFT,
                     S_DECK_SIZE, S_DICE, S_DISCARD, S_DISCARD_N, S_EVENT_N, S_EVENTS, S_GOT,
                     S_HAND, S_HAND_N, S_KEY, S_NEED, S_NUM_PLAYERS, S_PHASE, S_PICK_N, S_PILE,
                     S_PILE_N, S_POT, S_POT_LEFT, S_STACK, S_TOKEN_VALUE, S_TOOK, S_TURNS,
                     S_UTILITY, STAND, STATE_SIZE, TAKE, UTIL_MARGIN)

_JIT = dict(cache=True)
CHANCE_PLAYER = -1  # pyspiel.PlayerId.CHANCE
TERMINAL_PLAYER = -4  # pyspiel.PlayerId.TERMINAL

# H5: hand classes, as the high part of a rank key (higher beats lower).
KEY_BEST = 30_000_000
KEY_ZERO = 20_000_000
KEY_GOOD = 10_000_000


@njit(**_JIT)
def value_of(kind):
    if kind == 0:
        return 0
    if kind < RED:
        return kind
    return -(kind - RED + 1)


def new_state(num_players, turns, dice, best, utility, pile_counts, stack_counts,
              token_values):
    """The state before the first chance node: tokens still in the stack, cards in the pile."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[S_NUM_PLAYERS] = num_players
    s[S_TURNS] = turns
    s[S_DICE] = dice
    s[S_BEST] = best
    s[S_UTILITY] = utility
    s[S_PILE:S_PILE + NUM_CARD_KINDS] = pile_counts
    s[S_PILE_N] = int(np.sum(pile_counts))
    s[S_DECK_SIZE] = s[S_PILE_N]
    s[S_STACK:S_STACK + NUM_TOKEN_KINDS] = stack_counts
    s[S_TOKEN_VALUE:S_TOKEN_VALUE + NUM_TOKEN_KINDS] = token_values
    s[S_GOT:S_GOT + num_players] = -1
    s[S_TOOK] = -1
    s[S_PHASE] = PH_CHANCE
    s[S_CHANCE_KIND] = CH_POT  # H1: the pot is drawn from the token stack first
    s[S_POT_LEFT] = num_players
    s[S_DEAL_LEFT] = 2 * num_players
    s[S_CUR] = -1
    return s


# The log --------------------------------------------------------------------------------

@njit(**_JIT)
def _log(s, kind, player, value):
    i = s[S_EVENT_N]
    if i < MAX_EVENTS:
        at = S_EVENTS + i * EVENT_SIZE
        s[at] = kind
        s[at + 1] = player
        s[at + 2] = value
        s[S_EVENT_N] = i + 1


# Cards ----------------------------------------------------------------------------------

@njit(**_JIT)
def _add_card(s, p, c):
    n = s[S_HAND_N + p]
    s[S_HAND + p * MAX_HAND + n] = c
    s[S_HAND_N + p] = n + 1


@njit(**_JIT)
def _remove_card(s, p, c):
    base = S_HAND + p * MAX_HAND
    n = s[S_HAND_N + p]
    for i in range(n):
        if s[base + i] == c:
            s[base + i] = s[base + n - 1]
            s[S_HAND_N + p] = n - 1
            return True
    return False


@njit(**_JIT)
def _push_discard(s, c):
    s[S_DISCARD + s[S_DISCARD_N]] = c
    s[S_DISCARD_N] += 1


@njit(**_JIT)
def _take_from_pile(s, c):
    s[S_PILE + c] -= 1
    s[S_PILE_N] -= 1


@njit(**_JIT)
def _ensure_pile(s, whole):
    """H8: an empty draw pile is refilled by shuffling the discard pile under its top card;
    for a redeal (`whole`) the top card too, if it is the only card left."""
    if s[S_PILE_N] > 0:
        return
    if s[S_DISCARD_N] == 1 and whole:
        s[S_PILE + s[S_DISCARD]] += 1
        s[S_PILE_N] = 1
        s[S_DISCARD_N] = 0
        _log(s, E_RESHUFFLE, -1, 1)
        return
    if s[S_DISCARD_N] < 2:
        return
    n = s[S_DISCARD_N]
    top = s[S_DISCARD + n - 1]
    for i in range(n - 1):
        s[S_PILE + s[S_DISCARD + i]] += 1
    s[S_PILE_N] = n - 1
    s[S_DISCARD] = top
    s[S_DISCARD_N] = 1
    _log(s, E_RESHUFFLE, -1, n - 1)


@njit(**_JIT)
def _chance(s, kind, receiver):
    s[S_PHASE] = PH_CHANCE
    s[S_CHANCE_KIND] = kind
    s[S_CUR] = receiver


# Flow -----------------------------------------------------------------------------------

@njit(**_JIT)
def _start_turns(s):
    s[S_PHASE] = PH_TURN
    s[S_CUR] = 0  # H1: the player left of the dealer (seat 0; the dealer is the last seat)


@njit(**_JIT)
def _end_turn(s):
    s[S_TOOK] = -1
    p = s[S_CUR] + 1
    if p < s[S_NUM_PLAYERS]:
        s[S_PHASE] = PH_TURN
        s[S_CUR] = p
        return
    # H3: after everyone's turn the dealer rolls the dice (no dice: nothing happens).
    if s[S_DICE] > 0:
        _chance(s, CH_DICE, -1)
    else:
        _after_roll(s)


@njit(**_JIT)
def _after_roll(s):
    s[S_CYCLE] += 1
    if s[S_CYCLE] >= s[S_TURNS]:
        _finish(s)
    else:
        _start_turns(s)


@njit(**_JIT)
def _next_redeal(s):
    """H3: each player, the dealer's left first, gets as many cards as they put down."""
    n = s[S_NUM_PLAYERS]
    for p in range(n):
        if s[S_NEED + p] > 0:
            _ensure_pile(s, True)
            _chance(s, CH_REDEAL, p)
            return
    _after_roll(s)


@njit(**_JIT)
def _match(s):
    """H3: every hand goes face up on the discard pile, seat order from the dealer's left,
    each hand from its lowest value to its highest (so the dealer's highest ends on top)."""
    n = s[S_NUM_PLAYERS]
    for p in range(n):
        base = S_HAND + p * MAX_HAND
        k = s[S_HAND_N + p]
        # insertion sort by value
        for i in range(1, k):
            c = s[base + i]
            j = i - 1
            while j >= 0 and value_of(s[base + j]) > value_of(c):
                s[base + j + 1] = s[base + j]
                j -= 1
            s[base + j + 1] = c
        for i in range(k):
            _push_discard(s, s[base + i])
            _log(s, E_REVEAL, p, s[base + i])
        s[S_NEED + p] = k
        s[S_HAND_N + p] = 0
    _next_redeal(s)


@njit(**_JIT)
def hand_key(cards, k, best):
    """H4/H5: the rank of a hand of k cards; a higher key beats a lower, equal keys tie."""
    total = 0
    absum = 0
    blues = 0
    for i in range(k):
        v = value_of(cards[i])
        total += v
        absum += abs(v)
        if cards[i] == 0:
            blues += 1
    if total == 0:
        pair = absum // 2
        if best >= 0 and k == 3 and blues == 1 and (best == 0 or pair == best):
            return KEY_BEST + pair  # H4: a green n, a red n and a blue 0
        return KEY_ZERO + k * 1000 + absum  # H5: more cards, then higher numbers
    positive = 1 if total > 0 else 0
    return KEY_GOOD + (100 - abs(total)) * 10_000 + positive * 1000 + k * 100  # H5


@njit(**_JIT)
def _show(s):
    """H6: "all players reveal their cards at the same time" when the round is over, before
    the tokens: every hand is logged, public, in seat order, each lowest value first (as
    H3's match). The cards stay in hand."""
    cards = np.empty(MAX_HAND, dtype=np.int32)
    for p in range(s[S_NUM_PLAYERS]):
        base = S_HAND + p * MAX_HAND
        k = s[S_HAND_N + p]
        for i in range(k):  # insertion sort by value, on a copy
            c = s[base + i]
            j = i - 1
            while j >= 0 and value_of(cards[j]) > value_of(c):
                cards[j + 1] = cards[j]
                j -= 1
            cards[j + 1] = c
        for i in range(k):
            _log(s, E_SHOW, p, cards[i])


@njit(**_JIT)
def _finish(s):
    n = s[S_NUM_PLAYERS]
    best = s[S_BEST]
    _show(s)
    for p in range(n):
        base = S_HAND + p * MAX_HAND
        s[S_KEY + p] = hand_key(s[base:base + MAX_HAND], s[S_HAND_N + p], best)
    s[S_PICK_N] = 0
    _next_pick(s)


@njit(**_JIT)
def _top_group(s, out):
    """The players without a token whose hands rank highest among them, in seat order."""
    n = s[S_NUM_PLAYERS]
    top = -1
    for p in range(n):
        if s[S_GOT + p] < 0 and s[S_KEY + p] > top:
            top = s[S_KEY + p]
    m = 0
    for p in range(n):
        if s[S_GOT + p] < 0 and s[S_KEY + p] == top:
            out[m] = p
            m += 1
    return m


@njit(**_JIT)
def _give(s, p, k):
    s[S_POT + k] -= 1
    s[S_GOT + p] = k
    s[S_PICK_N] += 1
    _log(s, E_PICK, p, k)


@njit(**_JIT)
def _only_kind(s):
    """The pot's one token kind, or -1 while it holds two kinds or more."""
    only = -1
    for k in range(NUM_TOKEN_KINDS):
        if s[S_POT + k] > 0:
            if only >= 0:
                return -1
            only = k
    return only


@njit(**_JIT)
def _next_pick(s):
    """H6: players take tokens best hand first; H7: a tie is settled by a draw. A loop, not
    recursion: numba's cache breaks mutually recursive functions (segfaults on load)."""
    group = np.empty(MAX_PLAYERS, dtype=np.int32)
    while s[S_PICK_N] < s[S_NUM_PLAYERS]:
        m = _top_group(s, group)
        only = _only_kind(s)
        if only >= 0:  # no choice left: the token is given (a forced node)
            _give(s, group[0], only)
            continue
        if m > 1:
            _chance(s, CH_TIE, -1)
            return
        s[S_PHASE] = PH_PICK
        s[S_CUR] = group[0]
        return
    s[S_PHASE] = PH_TERMINAL
    s[S_CUR] = TERMINAL_PLAYER


@njit(**_JIT)
def _start_pick(s, p):
    """The tie's winner p takes a token (given if the pot holds one kind only)."""
    only = _only_kind(s)
    if only >= 0:
        _give(s, p, only)
        _next_pick(s)
    else:
        s[S_PHASE] = PH_PICK
        s[S_CUR] = p


# The API --------------------------------------------------------------------------------

@njit(**_JIT)
def num_players(s):
    return s[S_NUM_PLAYERS]


@njit(**_JIT)
def is_terminal(s):
    return s[S_PHASE] == PH_TERMINAL


@njit(**_JIT)
def is_chance(s):
    return s[S_PHASE] == PH_CHANCE


@njit(**_JIT)
def used_size(s):
    """The state's used prefix: the event log's tail past its end is never read."""
    return S_EVENTS + s[S_EVENT_N] * EVENT_SIZE


@njit(**_JIT)
def current_actor(s):
    ph = s[S_PHASE]
    if ph == PH_TERMINAL:
        return TERMINAL_PLAYER
    if ph == PH_CHANCE:
        return CHANCE_PLAYER
    return s[S_CUR]


@njit(**_JIT)
def legal_actions(s, buf):
    """The legal decisions, ascending, into buf; their number."""
    ph = s[S_PHASE]
    m = 0
    if ph == PH_TURN:
        if s[S_PILE_N] > 0 or s[S_DISCARD_N] > 1:  # H8: a reshuffle refills the pile
            buf[m] = DRAW
            m += 1
        if s[S_DISCARD_N] > 0:
            buf[m] = TAKE
            m += 1
        buf[m] = STAND
        m += 1
    elif ph == PH_DISCARD:
        buf[m] = KEEP
        m += 1
        p = s[S_CUR]
        base = S_HAND + p * MAX_HAND
        k = s[S_HAND_N + p]
        for c in range(NUM_CARD_KINDS):
            for i in range(k):
                if s[base + i] == c:
                    buf[m] = DISCARD + c
                    m += 1
                    break
    elif ph == PH_PICK:
        for k in range(NUM_TOKEN_KINDS):
            if s[S_POT + k] > 0:
                buf[m] = PICK + k
                m += 1
    return m


@njit(**_JIT)
def chance_outcomes(s, outcomes, probs):
    """The chance outcomes (ascending) and their probabilities; their number."""
    kind = s[S_CHANCE_KIND]
    m = 0
    if kind == CH_POT:
        total = 0
        for k in range(NUM_TOKEN_KINDS):
            total += s[S_STACK + k]
        for k in range(NUM_TOKEN_KINDS):
            if s[S_STACK + k] > 0:
                outcomes[m] = k
                probs[m] = s[S_STACK + k] / total
                m += 1
    elif kind == CH_DICE:
        faces = s[S_DICE]
        if faces > 1:  # H3: the second die shows the first's symbol with odds 1/faces
            outcomes[m] = 0
            probs[m] = (faces - 1) / faces
            m += 1
        outcomes[m] = 1
        probs[m] = 1.0 / faces
        m += 1
    elif kind == CH_TIE:
        group = np.empty(MAX_PLAYERS, dtype=np.int32)
        g = _top_group(s, group)
        for i in range(g):
            outcomes[m] = group[i]
            probs[m] = 1.0 / g  # H7: exchangeable draws, so each is as likely to win
            m += 1
    else:
        total = s[S_PILE_N]
        for c in range(NUM_CARD_KINDS):
            if s[S_PILE + c] > 0:
                outcomes[m] = c
                probs[m] = s[S_PILE + c] / total
                m += 1
    return m


@njit(**_JIT)
def is_legal(s, action):
    buf = np.empty(NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(NUM_ACTIONS, dtype=np.float64)
    if s[S_PHASE] == PH_TERMINAL:
        return False
    if s[S_PHASE] == PH_CHANCE:
        m = chance_outcomes(s, buf, probs)
    else:
        m = legal_actions(s, buf)
    for i in range(m):
        if buf[i] == action:
            return True
    return False


@njit(**_JIT)
def _apply_chance(s, o):
    kind = s[S_CHANCE_KIND]
    n = s[S_NUM_PLAYERS]
    if kind == CH_POT:
        s[S_STACK + o] -= 1
        s[S_POT + o] += 1
        _log(s, E_POT, -1, o)
        s[S_POT_LEFT] -= 1
        if s[S_POT_LEFT] == 0:
            _chance(s, CH_DEAL, 0)
    elif kind == CH_DEAL:
        p = s[S_CUR]
        _take_from_pile(s, o)
        _add_card(s, p, o)
        _log(s, E_DEAL, p, o)
        s[S_DEAL_LEFT] -= 1
        if s[S_DEAL_LEFT] > 0:
            _chance(s, CH_DEAL, (p + 1) % n)  # H1: two cards each, one at a time
        else:
            s[S_AFTER_FLIP] = 0
            _chance(s, CH_FLIP, -1)
    elif kind == CH_FLIP:
        _take_from_pile(s, o)
        _push_discard(s, o)
        _log(s, E_FLIP, -1, o)
        if s[S_AFTER_FLIP] == 0:
            _start_turns(s)
        else:
            _end_turn(s)
    elif kind == CH_DRAW:
        p = s[S_CUR]
        _take_from_pile(s, o)
        _add_card(s, p, o)
        _log(s, E_DRAW, p, o)
        s[S_TOOK] = o
        s[S_PHASE] = PH_DISCARD
    elif kind == CH_DICE:
        _log(s, E_DICE, -1, o)
        if o == 1:
            _match(s)
        else:
            _after_roll(s)
    elif kind == CH_REDEAL:
        p = s[S_CUR]
        _take_from_pile(s, o)
        _add_card(s, p, o)
        s[S_NEED + p] -= 1
        _log(s, E_REDEAL, p, o)
        _next_redeal(s)
    elif kind == CH_TIE:
        _log(s, E_TIE, o, -1)
        _start_pick(s, o)


@njit(**_JIT)
def apply_action(s, action):
    """Apply a legal decision or chance outcome (not checked: see is_legal)."""
    ph = s[S_PHASE]
    if ph == PH_CHANCE:
        _apply_chance(s, action)
        return
    p = s[S_CUR]
    if ph == PH_TURN:
        if action == DRAW:
            _ensure_pile(s, False)
            _chance(s, CH_DRAW, p)
        elif action == TAKE:
            c = s[S_DISCARD + s[S_DISCARD_N] - 1]
            s[S_DISCARD_N] -= 1
            _add_card(s, p, c)
            s[S_TOOK] = c
            _log(s, E_TAKE, p, c)
            s[S_PHASE] = PH_DISCARD
        else:  # STAND
            _log(s, E_STAND, p, -1)
            _end_turn(s)
    elif ph == PH_DISCARD:
        if action == KEEP:
            _log(s, E_KEEP, p, -1)
            # H2: the discard pile is never empty: the dealer turns up the pile's top card.
            if s[S_DISCARD_N] == 0 and s[S_PILE_N] > 0:
                s[S_AFTER_FLIP] = 1
                _chance(s, CH_FLIP, p)  # p's turn ends after the flip
            else:
                _end_turn(s)
        else:
            c = action - DISCARD
            _remove_card(s, p, c)
            _push_discard(s, c)
            _log(s, E_DISCARD, p, c)
            _end_turn(s)
    elif ph == PH_PICK:
        _give(s, p, action - PICK)
        _next_pick(s)


@njit(**_JIT)
def credits(s, p):
    k = s[S_GOT + p]
    return 0 if k < 0 else s[S_TOKEN_VALUE + k]


@njit(**_JIT)
def returns(s, out):
    """Utilities in thousands of credits: the player's token, or its margin (H12)."""
    n = s[S_NUM_PLAYERS]
    if s[S_PHASE] != PH_TERMINAL:
        for p in range(n):
            out[p] = 0.0
        return
    total = 0.0
    for p in range(n):
        out[p] = credits(s, p) / 1000.0
        total += out[p]
    if s[S_UTILITY] == UTIL_MARGIN:
        for p in range(n):
            out[p] = out[p] - (total - out[p]) / (n - 1)


@njit(**_JIT)
def random_rounds(initial, rounds, seed):
    """Play `rounds` random rounds (uniform decisions, true chance); the actions applied."""
    np.random.seed(seed)
    buf = np.empty(NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(NUM_ACTIONS, dtype=np.float64)
    actions = 0
    for _ in range(rounds):
        s = initial.copy()
        while s[S_PHASE] != PH_TERMINAL:
            if s[S_PHASE] == PH_CHANCE:
                m = chance_outcomes(s, buf, probs)
                r = np.random.random()
                a = buf[m - 1]
                for i in range(m):
                    r -= probs[i]
                    if r < 0:
                        a = buf[i]
                        break
            else:
                m = legal_actions(s, buf)
                a = buf[np.random.randint(0, m)]
            apply_action(s, a)
            actions += 1
    return actions


# The engine interface (spiel_game/interface.py).
ENGINE = engine_interface(
    "spiel_game.han_solo.engine", num_players=num_players, is_terminal=is_terminal,
    is_chance=is_chance, current_player=current_actor, legal_actions=legal_actions,
    chance_outcomes=chance_outcomes, apply_action=apply_action, returns=returns,
    used_size=used_size)
