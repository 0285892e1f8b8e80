"""The rules of Battle at Sarlacc's Pit, compiled with numba over a flat int32 state
(layout.py). The one place these rules live; docs/RULES.md S1-S13 are the rulings and each
function cites the ones it applies. With NUMBA_DISABLE_JIT=1 it runs as Python.

The board (S1) is part of the state: each space's row, line, kind, guard and neighbours, so
every function needs the state only. Chance is explicit and lazy (S10): the draw pile is a
multiset whose order nobody knows, so each card drawn is a uniform pick from its counts.
"""

import numpy as np
from numba import njit

from ..interface import engine_interface
from .layout import (ANY_SPACE, CH_DEAL, CH_DRAW, CHALLENGE, CHANGE_PLACES, DETENTION, DISCARD,
                     DRAW_ON_JABBA, E_ASK, E_CHALLENGE, E_DEAL, E_DISCARD, E_DRAW, E_END,
                     E_FIGHT, E_GIVE, E_JABBA, E_MOVE, E_PASS, E_PLAY, E_RESHUFFLE, E_RESULT,
                     E_RETREAT, E_SHOWN, E_SWAP, END_JABBA, END_LOG, END_TURNS, EVENT_SIZE,
                     EVENTS_PER_ACTION, FORCE, FORCE_ON_JABBA, FORCE_RANGE, GAMORREAN, HAND_SIZE,
                     JABBA, JABBA_CHALLENGE, JABBA_POINTS, JABBA_TO, MAX_DEGREE, MAX_LINES,
                     MAX_PLAYERS, MAX_SPACES, MOVE, MOVE_RETREAT, NO_CHALLENGE, NUM_ACTIONS,
                     NUM_KINDS, PASS, PH_CHANCE, PH_GUARD, PH_JABBA_FIGHT, PH_JABBA_MOVE,
                     PH_MOVE, PH_PLAY, PH_TARGET, PH_TERMINAL, PLAY, PLAYABLE_KINDS, RETREAT,
                     S_ACTIONS, S_BALL, S_BLOCKED, S_CHALLENGE, S_CHANCE_KIND, S_CUR, S_DEAL_LEFT,
                     S_DEAL_TO, S_DEGREE, S_DISCARD, S_END, S_ENTRY, S_EVENT_CAP,
                     S_EVENT_N, S_EVENTS, S_GAMORREANS_LEFT, S_GREY, S_GUARD, S_GUARDS_LEFT,
                     S_HAND, S_HAND_N, S_JABBA, S_JABBA_CARDS, S_KIND, S_LINE, S_MAX_TURNS,
                     S_MOVE_CARD, S_NEIGHBOURS, S_NUM_LINES,
                     S_NUM_PLAYERS, S_NUM_SPACES, S_PHASE, S_PILE, S_PILE_N, S_POINTS, S_POS,
                     S_ROW, S_TURN, S_UTILITY, S_WINNER, SPACE_TOP, TAKE_FORCE, TARGET,
                     UTIL_MARGIN)

_JIT = dict(cache=True)
CHANCE_PLAYER = -1  # pyspiel.PlayerId.CHANCE
TERMINAL_PLAYER = -4  # pyspiel.PlayerId.TERMINAL
GUARD_POINTS = (1, 2, 2)  # layout.GUARD_POINTS, as a tuple numba indexes


def new_state(num_players, utility, max_turns, event_cap, pile_counts, jabba_cards, board):
    """The state before the deal (S3): every hero in the Detention Area, every guard on its
    post, Jabba on his start; `pile_counts` the cards without Jabba, `jabba_cards` shuffled
    in after the deal; `board` a checked board.Board."""
    s = np.zeros(S_EVENTS + event_cap * EVENT_SIZE, dtype=np.int32)
    s[S_NUM_PLAYERS] = num_players
    s[S_UTILITY] = utility
    s[S_MAX_TURNS] = max_turns
    s[S_EVENT_CAP] = event_cap
    s[S_PILE:S_PILE + NUM_KINDS] = pile_counts
    s[S_PILE_N] = int(np.sum(pile_counts))
    s[S_JABBA_CARDS] = jabba_cards
    s[S_POS:S_POS + MAX_PLAYERS] = DETENTION
    s[S_WINNER] = -1
    s[S_END] = -1
    s[S_CHALLENGE] = NO_CHALLENGE
    s[S_MOVE_CARD] = -1
    n = board.size
    s[S_NUM_SPACES] = n
    s[S_ENTRY] = board.entry
    s[S_JABBA] = board.jabba_start
    s[S_NUM_LINES] = len(board.lines)
    s[S_ROW:S_ROW + n] = board.rows
    s[S_LINE:S_LINE + MAX_SPACES] = -1
    for i, line in enumerate(board.lines):
        for space in line:
            s[S_LINE + space] = i
        s[S_GREY + i] = board.greys[i]
    s[S_KIND:S_KIND + n] = board.kinds()
    for space, guard in board.posts:
        s[S_GUARD + space] = guard + 1
        s[S_GUARDS_LEFT] += 1
        s[S_GAMORREANS_LEFT] += guard == GAMORREAN
    for i, adjacent in enumerate(board.neighbours):
        s[S_DEGREE + i] = len(adjacent)
        s[S_NEIGHBOURS + i * MAX_DEGREE:S_NEIGHBOURS + i * MAX_DEGREE + len(adjacent)] = adjacent
    for i in range(n):
        ball, edge = {i}, {i}
        for radius in range(1, FORCE_RANGE + 1):
            edge = {j for k in edge for j in board.neighbours[k]} - ball
            ball |= edge
            bits = sum(1 << j for j in ball)
            at = S_BALL + (i * FORCE_RANGE + radius - 1) * 2
            s[at:at + 2] = np.array([bits & 0xFFFFFFFF, bits >> 32], np.uint32).view(np.int32)
    s[S_PHASE] = PH_CHANCE
    s[S_CHANCE_KIND] = CH_DEAL
    s[S_DEAL_LEFT] = HAND_SIZE * num_players
    s[S_CUR] = 0
    return s


# The log --------------------------------------------------------------------------------

@njit(**_JIT)
def _log(s, kind, player, value):
    i = s[S_EVENT_N]
    if i < s[S_EVENT_CAP]:
        at = S_EVENTS + i * EVENT_SIZE
        s[at] = kind
        s[at + 1] = player
        s[at + 2] = value
        s[S_EVENT_N] = i + 1


# Cards ----------------------------------------------------------------------------------

@njit(**_JIT)
def _add_card(s, p, k):
    s[S_HAND + p * NUM_KINDS + k] += 1
    s[S_HAND_N + p] += 1


@njit(**_JIT)
def _remove_card(s, p, k):
    s[S_HAND + p * NUM_KINDS + k] -= 1
    s[S_HAND_N + p] -= 1


@njit(**_JIT)
def holds(s, p, k):
    return s[S_HAND + p * NUM_KINDS + k]


@njit(**_JIT)
def _reshuffle(s):
    """S10: an empty draw pile is refilled with the whole discard pile, shuffled."""
    moved = 0
    for k in range(NUM_KINDS):
        moved += s[S_DISCARD + k]
        s[S_PILE + k] += s[S_DISCARD + k]
        s[S_DISCARD + k] = 0
    s[S_PILE_N] += moved
    if moved > 0:
        _log(s, E_RESHUFFLE, -1, moved)


# The board ------------------------------------------------------------------------------

@njit(**_JIT)
def _bit(space):
    return np.int64(1) << np.int64(space)


@njit(**_JIT)
def _hero_mask(s):
    mask = np.int64(0)
    for q in range(s[S_NUM_PLAYERS]):
        if s[S_POS + q] >= 0:
            mask |= _bit(s[S_POS + q])
    return mask


@njit(**_JIT)
def _passable(s, space):
    """S5: a space a hero may enter: no guard, not Jabba's, and the Top Deck only once every
    guard is defeated. Other heroes do not block (a hero may not end on one)."""
    if s[S_GUARD + space] != 0 or space == s[S_JABBA]:
        return False
    return s[S_KIND + space] != SPACE_TOP or s[S_GUARDS_LEFT] == 0


@njit(**_JIT)
def adjacent(s, a, b):
    for i in range(s[S_DEGREE + a]):
        if s[S_NEIGHBOURS + a * MAX_DEGREE + i] == b:
            return True
    return False


@njit(**_JIT)
def _ball(s, space, radius):
    """The spaces at most `radius` steps from `space` on the bare board."""
    at = S_BALL + (space * FORCE_RANGE + radius - 1) * 2
    return (np.int64(s[at]) & np.int64(0xFFFFFFFF)) | (np.int64(s[at + 1]) << np.int64(32))


@njit(**_JIT)
def _adds_nothing(s, space, steps, enterable, masks):
    """Whether every end a walk could still reach from `space`, `steps` spaces into the
    move, is known already: then the walk need not go on from there."""
    for k in range(steps + 1, FORCE_RANGE + 1):
        if (_ball(s, space, k - steps) & enterable & ~masks[k]) != 0:
            return False
    return True


@njit(**_JIT)
def walk_masks(s, p, masks):
    """S5: masks[k] (k = 1..6): the spaces where a move of exactly k spaces by p's hero can
    end, along a path that enters no space twice and does not return to its start; from
    the Detention Area the first space is the entry (S3). A depth-first walk of the paths,
    skipping those whose every possible end is already found."""
    for k in range(FORCE_RANGE + 1):
        masks[k] = 0
    heroes = _hero_mask(s)
    enterable = np.int64(0)  # where a move may end
    for space in range(s[S_NUM_SPACES]):
        if _passable(s, space) and (heroes & _bit(space)) == 0:
            enterable |= _bit(space)
    path = np.empty(FORCE_RANGE + 1, dtype=np.int32)
    nxt = np.empty(FORCE_RANGE + 1, dtype=np.int32)
    pos = s[S_POS + p]
    first = 0  # spaces already moved when the walk's root is reached
    if pos == DETENTION:
        pos = s[S_ENTRY]
        if not _passable(s, pos):
            return
        first = 1
        if (heroes & _bit(pos)) == 0:
            masks[1] |= _bit(pos)
    path[0] = pos
    nxt[0] = 0
    visited = _bit(pos)
    d = 0
    while d >= 0:
        node = path[d]
        if first + d == FORCE_RANGE or nxt[d] >= s[S_DEGREE + node]:
            visited &= ~_bit(node)
            d -= 1
            continue
        space = s[S_NEIGHBOURS + node * MAX_DEGREE + nxt[d]]
        nxt[d] += 1
        if (visited & _bit(space)) != 0 or not _passable(s, space):
            continue
        if (heroes & _bit(space)) == 0:
            masks[first + d + 1] |= _bit(space)
        if _adds_nothing(s, space, first + d + 1, enterable, masks):
            continue
        d += 1
        path[d] = space
        nxt[d] = 0
        visited |= _bit(space)


@njit(**_JIT)
def empty_mask(s):
    """S7: the spaces Move To Any Empty Space may choose: enterable and without a hero."""
    heroes = _hero_mask(s)
    mask = np.int64(0)
    for space in range(s[S_NUM_SPACES]):
        if _passable(s, space) and (heroes & _bit(space)) == 0:
            mask |= _bit(space)
    return mask


@njit(**_JIT)
def blocked(s, p):
    """S9: p's hero is on a line whose grey space holds Jabba."""
    pos = s[S_POS + p]
    if pos < 0:
        return False
    line = s[S_LINE + pos]
    return line >= 0 and s[S_GREY + line] == s[S_JABBA]


@njit(**_JIT)
def retreat_mask(s, p):
    """S9: one space to the side and behind: an adjacent empty space off the hero's line,
    on a lower row."""
    pos = s[S_POS + p]
    heroes = _hero_mask(s)
    mask = np.int64(0)
    for i in range(s[S_DEGREE + pos]):
        space = s[S_NEIGHBOURS + pos * MAX_DEGREE + i]
        if (s[S_ROW + space] < s[S_ROW + pos] and s[S_LINE + space] != s[S_LINE + pos]
                and _passable(s, space) and (heroes & _bit(space)) == 0):
            mask |= _bit(space)
    return mask


@njit(**_JIT)
def challengeable(s, space):
    """S6: a standing guard a hero may challenge: a Gamorrean, or Nikto and Boba Fett once
    every Gamorrean is defeated."""
    g = s[S_GUARD + space]
    return g != 0 and (g - 1 == GAMORREAN or s[S_GAMORREANS_LEFT] == 0)


@njit(**_JIT)
def _guards_next_to(s, pos, out):
    m = 0
    for i in range(s[S_DEGREE + pos]):
        space = s[S_NEIGHBOURS + pos * MAX_DEGREE + i]
        if challengeable(s, space):
            out[m] = space
            m += 1
    return m


@njit(**_JIT)
def _jabba_choices(s, out):
    """S8: the lines whose grey space Jabba may go to: no hero on it (his own counts)."""
    heroes = _hero_mask(s)
    m = 0
    for i in range(s[S_NUM_LINES]):
        grey = s[S_GREY + i]
        if grey == s[S_JABBA] or (heroes & _bit(grey)) == 0:
            out[m] = i
            m += 1
    return m


# Flow -----------------------------------------------------------------------------------

@njit(**_JIT)
def _finish(s, reason):
    s[S_PHASE] = PH_TERMINAL
    s[S_END] = reason
    _log(s, E_END, -1, reason)


@njit(**_JIT)
def _start_turn(s):
    """S4; S11: the game ends when the turn limit is reached."""
    if s[S_TURN] >= s[S_MAX_TURNS]:
        _finish(s, END_TURNS)
        return
    s[S_TURN] += 1
    s[S_BLOCKED] = 1 if blocked(s, s[S_CUR]) else 0  # S9: at the start of the turn
    s[S_MOVE_CARD] = -1
    s[S_CHALLENGE] = NO_CHALLENGE
    s[S_PHASE] = PH_PLAY


@njit(**_JIT)
def _end_turn(s):
    s[S_CUR] = (s[S_CUR] + 1) % s[S_NUM_PLAYERS]
    _start_turn(s)


@njit(**_JIT)
def _draws(s):
    """S4: the turn ends with HAND_SIZE cards in hand, drawn one at a time; a pending
    challenge (S6, S11) takes the first card drawn."""
    p = s[S_CUR]
    if s[S_CHALLENGE] == NO_CHALLENGE and s[S_HAND_N + p] >= HAND_SIZE:
        _end_turn(s)
        return
    if s[S_PILE_N] == 0:
        _reshuffle(s)
    if s[S_PILE_N] == 0:  # every card in a hand: not on the checked decks (game.py)
        s[S_CHALLENGE] = NO_CHALLENGE
        _end_turn(s)
        return
    s[S_PHASE] = PH_CHANCE
    s[S_CHANCE_KIND] = CH_DRAW


@njit(**_JIT)
def _jabba_card(s):
    """S8: a Jabba card drawn goes face up on the discard pile and its drawer moves Jabba;
    with no grey space free of heroes, Jabba stays."""
    s[S_DISCARD + JABBA] += 1
    choices = np.empty(MAX_LINES, dtype=np.int32)
    if _jabba_choices(s, choices) == 0:
        _log(s, E_JABBA, s[S_CUR], s[S_JABBA])
        _draws(s)
        return
    s[S_PHASE] = PH_JABBA_MOVE


@njit(**_JIT)
def _after_move(s):
    """S11: next to Jabba once every guard is defeated, a challenge of Jabba; else S6: next
    to challengeable guards, a challenge (the player chooses among two or more)."""
    p = s[S_CUR]
    pos = s[S_POS + p]
    if s[S_GUARDS_LEFT] == 0 and adjacent(s, pos, s[S_JABBA]):
        _log(s, E_CHALLENGE, p, s[S_JABBA])
        if holds(s, p, FORCE) > 0:
            s[S_PHASE] = PH_JABBA_FIGHT
            return
        _log(s, E_FIGHT, p, 0)
        s[S_CHALLENGE] = JABBA_CHALLENGE
        _draws(s)
        return
    guards = np.empty(MAX_DEGREE, dtype=np.int32)
    m = _guards_next_to(s, pos, guards)
    if m >= 2:
        s[S_PHASE] = PH_GUARD
        return
    if m == 1:
        s[S_CHALLENGE] = guards[0]
        _log(s, E_CHALLENGE, p, guards[0])
    _draws(s)


@njit(**_JIT)
def _resolve(s, card):
    """S6/S11: the challenge's card is shown; a Number or The Force defeats a guard, only
    The Force defeats Jabba; a loss sends the hero to the Detention Area."""
    p = s[S_CUR]
    target = s[S_CHALLENGE]
    s[S_CHALLENGE] = NO_CHALLENGE
    _log(s, E_SHOWN, p, card)
    if target == JABBA_CHALLENGE:
        won = card == FORCE
    else:
        won = card <= FORCE  # Number cards are the kinds below FORCE
    _log(s, E_RESULT, p, 1 if won else 0)
    if won and target == JABBA_CHALLENGE:
        _add_card(s, p, card)
        s[S_POINTS + p] += JABBA_POINTS
        s[S_WINNER] = p
        _finish(s, END_JABBA)
        return
    if won:
        guard = s[S_GUARD + target] - 1
        s[S_GUARD + target] = 0
        s[S_GUARDS_LEFT] -= 1
        if guard == GAMORREAN:
            s[S_GAMORREANS_LEFT] -= 1
        s[S_POS + p] = target
        s[S_POINTS + p] += GUARD_POINTS[guard]
    else:
        s[S_POS + p] = DETENTION
    if card == JABBA:
        _jabba_card(s)
    else:
        _add_card(s, p, card)
        _draws(s)


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
def move_mask(s):
    """The spaces the pending move may end on (PH_MOVE)."""
    p = s[S_CUR]
    card = s[S_MOVE_CARD]
    if card == MOVE_RETREAT:
        return retreat_mask(s, p)
    if card == ANY_SPACE:
        return empty_mask(s)
    masks = np.zeros(FORCE_RANGE + 1, dtype=np.int64)
    walk_masks(s, p, masks)
    if card == FORCE:  # S5: any number of spaces from 1 to 6
        mask = np.int64(0)
        for k in range(1, FORCE_RANGE + 1):
            mask |= masks[k]
        return mask
    return masks[card + 1]  # Number n is kind n - 1


@njit(**_JIT)
def _play_options(s, buf):
    """S4, S9: the cards p may play for their effect, and the retreat."""
    p = s[S_CUR]
    masks = np.zeros(FORCE_RANGE + 1, dtype=np.int64)
    walk_masks(s, p, masks)
    reach = np.int64(0)
    for k in range(1, FORCE_RANGE + 1):
        reach |= masks[k]
    m = 0
    for k in range(PLAYABLE_KINDS):
        if holds(s, p, k) == 0:
            continue
        if k < FORCE:
            ok = s[S_BLOCKED] == 0 and masks[k + 1] != 0
        elif k == FORCE:
            ok = reach != 0
        elif k == ANY_SPACE:
            ok = empty_mask(s) != 0
        else:  # Change Places, Take The Force: another player is always there
            ok = True
        if ok:
            buf[m] = PLAY + k
            m += 1
    if s[S_BLOCKED] != 0 and retreat_mask(s, p) != 0:
        buf[m] = RETREAT
        m += 1
    return m


@njit(**_JIT)
def legal_actions(s, buf):
    """The legal decisions, ascending, into buf; their number."""
    ph = s[S_PHASE]
    p = s[S_CUR]
    m = 0
    if ph == PH_PLAY:
        m = _play_options(s, buf)
        if m == 0:  # S4: no card has an effect: one is played without it, or none is held
            for k in range(PLAYABLE_KINDS):
                if holds(s, p, k) > 0:
                    buf[m] = DISCARD + k
                    m += 1
            if m == 0:
                buf[0] = PASS
                m = 1
    elif ph == PH_MOVE:
        mask = move_mask(s)
        for space in range(s[S_NUM_SPACES]):
            if (mask & _bit(space)) != 0:
                buf[m] = MOVE + space
                m += 1
    elif ph == PH_TARGET:
        for q in range(s[S_NUM_PLAYERS]):
            if q != p:
                buf[m] = TARGET + q
                m += 1
    elif ph == PH_GUARD:
        guards = np.empty(MAX_DEGREE, dtype=np.int32)
        g = _guards_next_to(s, s[S_POS + p], guards)
        for space in range(s[S_NUM_SPACES]):  # ascending by space
            for i in range(g):
                if guards[i] == space:
                    buf[m] = CHALLENGE + space
                    m += 1
    elif ph == PH_JABBA_MOVE:
        lines = np.empty(MAX_LINES, dtype=np.int32)
        g = _jabba_choices(s, lines)
        for i in range(g):
            buf[m] = JABBA_TO + lines[i]
            m += 1
    elif ph == PH_JABBA_FIGHT:
        buf[0] = FORCE_ON_JABBA
        buf[1] = DRAW_ON_JABBA
        m = 2
    return m


@njit(**_JIT)
def chance_outcomes(s, outcomes, probs):
    """The chance outcomes (card kinds, ascending) and their probabilities; their number."""
    total = s[S_PILE_N]
    m = 0
    for k in range(NUM_KINDS):
        c = s[S_PILE + k]
        if c > 0:
            outcomes[m] = k
            probs[m] = c / total
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
def _apply_chance(s, card):
    p = s[S_CUR]
    s[S_PILE + card] -= 1
    s[S_PILE_N] -= 1
    if s[S_CHANCE_KIND] == CH_DEAL:  # S3: four cards each, one at a time from seat 0
        q = s[S_DEAL_TO]
        _add_card(s, q, card)
        _log(s, E_DEAL, q, card)
        s[S_DEAL_LEFT] -= 1
        s[S_DEAL_TO] = (q + 1) % s[S_NUM_PLAYERS]
        if s[S_DEAL_LEFT] == 0:
            s[S_PILE + JABBA] += s[S_JABBA_CARDS]  # S3: mixed in after the deal
            s[S_PILE_N] += s[S_JABBA_CARDS]
            s[S_CUR] = 0
            _start_turn(s)
        return
    if s[S_CHALLENGE] != NO_CHALLENGE:
        _resolve(s, card)
        return
    _log(s, E_DRAW, p, card)
    if card == JABBA:
        _jabba_card(s)
    else:
        _add_card(s, p, card)
        _draws(s)


@njit(**_JIT)
def _apply_decision(s, action):
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_PLAY:
        if action < DISCARD:
            k = action - PLAY
            _remove_card(s, p, k)
            s[S_DISCARD + k] += 1
            _log(s, E_PLAY, p, k)
            s[S_MOVE_CARD] = k
            s[S_PHASE] = PH_TARGET if k == CHANGE_PLACES or k == TAKE_FORCE else PH_MOVE
        elif action < PASS:
            k = action - DISCARD
            _remove_card(s, p, k)
            s[S_DISCARD + k] += 1
            _log(s, E_DISCARD, p, k)
            _draws(s)
        elif action == PASS:
            _log(s, E_PASS, p, -1)
            _draws(s)
        else:  # RETREAT
            _log(s, E_RETREAT, p, -1)
            s[S_MOVE_CARD] = MOVE_RETREAT
            s[S_PHASE] = PH_MOVE
    elif ph == PH_MOVE:
        space = action - MOVE
        s[S_POS + p] = space
        _log(s, E_MOVE, p, space)
        if s[S_MOVE_CARD] == MOVE_RETREAT:  # S9: no challenge, no card played
            _draws(s)
        else:
            _after_move(s)
    elif ph == PH_TARGET:
        q = action - TARGET
        if s[S_MOVE_CARD] == CHANGE_PLACES:  # S7: then draw, never a challenge
            s[S_POS + p], s[S_POS + q] = s[S_POS + q], s[S_POS + p]
            _log(s, E_SWAP, p, q)
            _draws(s)
        else:  # S7: Take The Force; the turn ends without a draw
            _log(s, E_ASK, p, q)
            if holds(s, q, FORCE) > 0:
                _remove_card(s, q, FORCE)
                _add_card(s, p, FORCE)
                _log(s, E_GIVE, q, 1)
            else:
                _log(s, E_GIVE, q, 0)
            _end_turn(s)
    elif ph == PH_GUARD:
        space = action - CHALLENGE
        s[S_CHALLENGE] = space
        _log(s, E_CHALLENGE, p, space)
        _draws(s)
    elif ph == PH_JABBA_MOVE:
        grey = s[S_GREY + action - JABBA_TO]
        s[S_JABBA] = grey
        _log(s, E_JABBA, p, grey)
        _draws(s)
    elif ph == PH_JABBA_FIGHT:
        if action == FORCE_ON_JABBA:  # S11: a second card played, Jabba defeated
            _remove_card(s, p, FORCE)
            s[S_DISCARD + FORCE] += 1
            _log(s, E_FIGHT, p, 1)
            s[S_POINTS + p] += JABBA_POINTS
            s[S_WINNER] = p
            _finish(s, END_JABBA)
        else:
            _log(s, E_FIGHT, p, 0)
            s[S_CHALLENGE] = JABBA_CHALLENGE
            _draws(s)


@njit(**_JIT)
def apply_action(s, action):
    """Apply a legal decision or chance outcome (not checked: see is_legal). S11: the game
    ends when its log has no room for another action's events (every action logs one or
    more, at most EVENTS_PER_ACTION), so no game is longer than its log."""
    if s[S_PHASE] == PH_CHANCE:
        _apply_chance(s, action)
    else:
        _apply_decision(s, action)
    s[S_ACTIONS] += 1
    if s[S_PHASE] != PH_TERMINAL and s[S_EVENT_N] + EVENTS_PER_ACTION >= s[S_EVENT_CAP]:
        _finish(s, END_LOG)


@njit(**_JIT)
def returns(s, out):
    """Utilities in Jedi points: each player's points, or their margin over the mean of the
    others' (S13)."""
    n = s[S_NUM_PLAYERS]
    if s[S_PHASE] != PH_TERMINAL:
        for p in range(n):
            out[p] = 0.0
        return
    total = 0.0
    for p in range(n):
        out[p] = float(s[S_POINTS + p])
        total += out[p]
    if s[S_UTILITY] == UTIL_MARGIN:
        for p in range(n):
            out[p] = out[p] - (total - out[p]) / (n - 1)


@njit(**_JIT)
def random_games(initial, games, seed, lengths):
    """Play `games` random games (uniform decisions, true chance); lengths[i] the actions of
    game i. Returns how many ended by defeating Jabba."""
    np.random.seed(seed)
    buf = np.empty(NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(NUM_ACTIONS, dtype=np.float64)
    won = 0
    for g in range(games):
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
        lengths[g] = s[S_ACTIONS]
        if s[S_END] == END_JABBA:
            won += 1
    return won


# The engine interface (spiel_game/interface.py).
ENGINE = engine_interface(
    "spiel_game.sarlacc.engine", num_players=num_players, is_terminal=is_terminal,
    is_chance=is_chance, current_player=current_actor, legal_actions=legal_actions,
    chance_outcomes=chance_outcomes, apply_action=apply_action, returns=returns,
    used_size=used_size)
