"""Abstract information-state keys, compiled: what MCCFR's tables are indexed by.

`abstract_key(s, player, level)` is an @njit function of the state array, the acting
player and the level number; `LEVELS` maps names to level numbers. The solver asks for a
key at every decision node and gets the same keys incrementally (`path_key`: state kept
per player along the path, so that a decision reads only the newly logged events).

Every level is a function of what `player` can see and nothing else: the event log
redacted for `player` (spiel_game.events: `_PRIVATE_TO_ACTOR`, `_PRIVATE_TO_BOTH`), and
the public table: who is in the round or protected, the deck size and bottom-queue size,
the card being resolved and the chosen player (both logged publicly), the set-aside card
being gone, the agenda. Hidden fields (other hands, the pool, the bottom-queue cards, an
unseen set-aside card, Leia's returns of another player) are never read;
tests/test_abstraction.py scrambles them and checks that no key changes.

| level | name | features (details in each function's docstring) |
|---|---|---|
| 0 | `identity` | `identity_key`: the redacted log itself (perfect recall) |
| 1 | `fine` | `fine_key`: `coarse` + each opponent's last played card, 5 Rebel-share buckets |
| 2 | `coarse` | `coarse_key`: own hand, decision context; per opponent in/out, protected,
|   |          | known card or a bucketed summary of what it can be, knows-mine; deck size and
|   |          | agenda aggregate bucketed |
| 3 | `counting` | `counting_key`: `fine` + the summary of an opponent's card once more
|   |          | without the number they named since their last play |
| 4 | `many` | `many_key`: for 4-6 players; the opponents summarised relative to the
|   |        | acting seat (counts by status, the cards known of them, one summary of
|   |        | what the unseen cards are), per opponent only where the decision chooses one |

Finest first, `LEVELS` lists them identity, counting, fine, coarse, many (the order in
which solver/policies/shipped.py looks tables up).

The card counting behind levels 1-3 is `track`, a compiled replay of the redacted log
with the rules of the Python reference solver/policies/knowledge.py (a test compares the two):
cards whose place the player does not know, the opponents' hand cards known for sure,
which opponents know the player's card, and, beyond knowledge.py, what each hand can
still be after public misses (a Jabba miss rules out Rebel cards...), and the number each
seat named since its last play.

The unseen multiset, which made the prototype abstractions grow without end
(docs/performance.md "Prototype abstractions"), is never keyed: only a summary of it
per opponent (Rebel share and mean number of what the card can be, bucketed; for
naming, the set of likeliest numbers).

Within one key the legal actions are always the same (the solver stores one block of n
values per key): every level keys on the phase, the own hand, the card being resolved,
the choosable players and whether the set-aside card can be chosen, the cards being
returned (Leia); the nameable numbers depend on the game's deck only (tables are per
game).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import (
    COL_EFFECT,
    COL_NUMBER,
    COL_PARAM_A,
    COL_PARAM_B,
    COL_SIDE,
    Effect,
    Side,
)
from spiel_game.cards import RULESETS
from spiel_game.engine import AG_JABBAS_COURT, AG_RESCUE_MISSION, CARD_TABLES, CARDS
from spiel_game.events import _PRIVATE_TO_ACTOR, _PRIVATE_TO_BOTH, _TWO_CARD_KINDS, HIDDEN

from solver.abstraction.hashing import FNV_OFFSET as _FNV_OFFSET
from solver.abstraction.hashing import finish as _finish
from solver.abstraction.hashing import mix as _mix

IDENTITY = 0
FINE = 1
COARSE = 2
COUNTING = 3
MANY = 4
# Finest first (solver/policies/shipped.py looks tables up in this order).
LEVELS = {"identity": IDENTITY, "counting": COUNTING, "fine": FINE, "coarse": COARSE,
          "many": MANY}
# Bump whenever the keys of any level change: tables and policy files store it and are
# refused by another version (their keys would silently mean something else).
VERSION = 1

_HIDDEN = HIDDEN

# numba freezes global arrays as constants: one visibility table for numpy and compiled code.
_ACTOR_ONLY = _PRIVATE_TO_ACTOR.astype(np.int8)
_BOTH = _PRIVATE_TO_BOTH.astype(np.int8)
_TWO_CARDS = _TWO_CARD_KINDS.astype(np.int8)

_REBEL = int(Side.REBEL)
_PEEK_OR_SET_ASIDE = int(Effect.PEEK_OR_SET_ASIDE)
_ELIMINATE_IF_SIDE = int(Effect.ELIMINATE_IF_SIDE)
_DISCARD_REDRAW = int(Effect.DISCARD_REDRAW)
_AG_JABBAS_COURT = AG_JABBAS_COURT
_AG_RESCUE_MISSION = AG_RESCUE_MISSION


@njit(cache=True, inline="always")
def redacted_event(s, i, player):
    """Event i as `player` sees it: (kind, actor, other, card, extra)."""
    base = L.S_EVENTS + i * L.EVENT_SIZE
    kind = s[base + L.EV_KIND]
    actor = s[base + L.EV_ACTOR]
    other = s[base + L.EV_OTHER]
    card = s[base + L.EV_CARD]
    extra = s[base + L.EV_EXTRA]
    unseen = ((_ACTOR_ONLY[kind] == 1 and actor != player)
              or (_BOTH[kind] == 1 and actor != player and other != player))
    if unseen:
        if card >= 0:
            card = _HIDDEN
        if _TWO_CARDS[kind] == 1 and extra >= 0:
            extra = _HIDDEN
    return kind, actor, other, card, extra


@njit(cache=True)
def identity_key(s, player):
    """Level 0, `identity`: hash of (player, the log as `player` sees it).

    Perfect recall: two states get the same key exactly when `player` cannot tell them
    apart (OpenSpiel's information-state string), up to 64-bit hash collisions (about
    n^2 / 2^65 expected among n keys, ~3e-4 at 10^8 keys).
    """
    return _finish(_hash_events(s, player, _mix(_FNV_OFFSET, player), 0))


@njit(cache=True, inline="always")
def _hash_events(s, player, h, start):
    """`h` extended by the events from `start` on, as `player` sees them."""
    for i in range(start, s[L.S_EVENT_N]):
        kind, actor, other, card, extra = redacted_event(s, i, player)
        h = _mix(h, kind)
        h = _mix(h, actor)
        h = _mix(h, other)
        h = _mix(h, card)
        h = _mix(h, extra)
    return h


# Card counting from the redacted log ----------------------------------------------------
# `track` fills one int32 vector; these are its fields.

_K = 4  # known cards kept per seat (a hand has at most 3)
T_UNSEEN = 0  # MAX_CHARS: cards whose place `player` does not know (deck, set-aside, hands)
T_KNOWN = T_UNSEEN + L.MAX_CHARS  # MAX_PLAYERS: an opponent's single hand card if known
T_KNOWS_MINE = T_KNOWN + L.MAX_PLAYERS  # MAX_PLAYERS: the card of mine q knows I hold
T_LAST_PLAY = T_KNOWS_MINE + L.MAX_PLAYERS  # MAX_PLAYERS: last card each seat played
T_HAND_N = T_LAST_PLAY + L.MAX_PLAYERS
T_HAND = T_HAND_N + 1  # MAX_HAND, sorted
T_RETURNING_N = T_HAND + L.MAX_HAND
T_RETURNING = T_RETURNING_N + 1  # 2, sorted: own Leia cards between keep and return
T_SET_ASIDE = T_RETURNING + 2  # the set-aside card if `player` saw it, else -1
T_MY_BOTTOM = T_SET_ASIDE + 1  # own returned cards still in the bottom queue
T_PALACE_SUM = T_MY_BOTTOM + 1  # MAX_PLAYERS: Palace numbers in each play area
T_REBEL_COUNT = T_PALACE_SUM + L.MAX_PLAYERS  # MAX_PLAYERS: Rebel cards in each area
T_ALLOWED = T_REBEL_COUNT + L.MAX_PLAYERS  # MAX_PLAYERS: characters a hand can still be
T_LAST_NAMED = T_ALLOWED + L.MAX_PLAYERS  # MAX_PLAYERS: number named since the last play
T_SIZE = T_LAST_NAMED + L.MAX_PLAYERS

# The replay's running state, one int32 vector (a "path row": the solver keeps one per
# player and depth and reads only the events logged since, see `path_key`).
PATH_EVENTS = 0  # events of the log read into the row so far
_P_HASH = 1  # identity: the running 64-bit hash in four 16-bit parts, low part first
_HASH_PARTS = 4
_P_KNOWS_MINE = 1  # fine, coarse: `track`'s running fields (MAX_PLAYERS each)...
_P_LAST_PLAY = _P_KNOWS_MINE + L.MAX_PLAYERS
_P_PALACE_SUM = _P_LAST_PLAY + L.MAX_PLAYERS
_P_REBEL_COUNT = _P_PALACE_SUM + L.MAX_PLAYERS
_P_KNOWN = _P_REBEL_COUNT + L.MAX_PLAYERS  # ... cards known per seat (_K each, own hand too)
_P_KNOWN_N = _P_KNOWN + L.MAX_PLAYERS * _K
_P_HAND_N = _P_KNOWN_N + L.MAX_PLAYERS
_P_PLACED = _P_HAND_N + L.MAX_PLAYERS  # MAX_CHARS: face up and in play areas
# The bottom queue as a ring (the engine keeps at most MAX_QUEUE cards there): cards in
# draw order, HIDDEN unless `player` returned them, and who returned them.
_P_QUEUE = _P_PLACED + L.MAX_CHARS
_P_OWNER = _P_QUEUE + L.MAX_QUEUE
_P_QUEUE_HEAD = _P_OWNER + L.MAX_QUEUE
_P_QUEUE_TAIL = _P_QUEUE_HEAD + 1
_P_RETURNING = _P_QUEUE_TAIL + 1  # 3: own Leia cards between keep and return
_P_RETURNING_N = _P_RETURNING + 3
_P_SET_ASIDE = _P_RETURNING_N + 1  # the set-aside card if `player` saw it, else -1
_P_SET_ASIDE_TAKEN = _P_SET_ASIDE + 1
_P_SET_ASIDE_SEEN_BY = _P_SET_ASIDE_TAKEN + 1  # bit mask of players who looked at it
_P_ALLOWED = _P_SET_ASIDE_SEEN_BY + 1  # MAX_PLAYERS: characters a hand can still be
_P_PENDING = _P_ALLOWED + L.MAX_PLAYERS  # the card being resolved
_P_NAMED_AT = _P_PENDING + 1  # the player a number was just named at
_P_NAMED = _P_NAMED_AT + 1
_P_LAST_NAMED = _P_NAMED + 1  # MAX_PLAYERS: the number each seat named since it last played
PATH_SIZE = _P_LAST_NAMED + L.MAX_PLAYERS

_ALL = (1 << L.MAX_CHARS) - 1
# Per rule set (the state's S_RULES), the characters with each number.
_NUMBER_MASKS = np.zeros((len(RULESETS), L.NUM_NUMBERS), dtype=np.int64)
for _r in RULESETS:
    for _c in _r.characters:
        _NUMBER_MASKS[_r.id, _c.number] |= 1 << _c.id
_SIDE_MASK = np.zeros((2, L.NUM_NUMBERS + 1), dtype=np.int64)  # side, number <= k
for _c in range(L.MAX_CHARS):
    for _k in range(CARDS[_c, COL_NUMBER], L.NUM_NUMBERS + 1):
        _SIDE_MASK[CARDS[_c, COL_SIDE], _k] |= 1 << _c


@njit(cache=True, inline="always")
def _remove(row, p, c):
    """Drop one copy of c from p's known cards, if there."""
    base = _P_KNOWN + p * _K
    n = row[_P_KNOWN_N + p]
    for i in range(n):
        if row[base + i] == c:
            row[base + i] = row[base + n - 1]
            row[_P_KNOWN_N + p] = n - 1
            return


@njit(cache=True, inline="always")
def _append(row, p, c):
    n = row[_P_KNOWN_N + p]
    if n < _K:
        row[_P_KNOWN + p * _K + n] = c
        row[_P_KNOWN_N + p] = n + 1


@njit(cache=True, inline="always")
def _set_known(row, p, c):
    """p's hand is exactly the one card c."""
    row[_P_KNOWN_N + p] = 1
    row[_P_KNOWN + p * _K] = c


@njit(cache=True, inline="always")
def _add_to_area(row, p, c):
    row[_P_PLACED + c] += 1
    if CARDS[c, COL_SIDE] == _REBEL:
        row[_P_REBEL_COUNT + p] += 1
    else:
        row[_P_PALACE_SUM + p] += CARDS[c, COL_NUMBER]


@njit(cache=True, inline="always")
def _forget_what_they_know_of_mine(row, n):
    for q in range(n):
        row[_P_KNOWS_MINE + q] = -1


@njit(cache=True)
def _track_start(row):
    """The replay state before any event."""
    row[PATH_EVENTS] = 0
    for q in range(L.MAX_PLAYERS):
        row[_P_KNOWS_MINE + q] = -1
        row[_P_LAST_PLAY + q] = -1
        row[_P_PALACE_SUM + q] = 0
        row[_P_REBEL_COUNT + q] = 0
        row[_P_KNOWN_N + q] = 0
        row[_P_HAND_N + q] = 0
        row[_P_ALLOWED + q] = _ALL
    for j in range(L.MAX_PLAYERS * _K):
        row[_P_KNOWN + j] = -1
    for c in range(L.MAX_CHARS):
        row[_P_PLACED + c] = 0
    for j in range(L.MAX_QUEUE):
        row[_P_QUEUE + j] = -1
        row[_P_OWNER + j] = -1
    row[_P_QUEUE_HEAD] = 0
    row[_P_QUEUE_TAIL] = 0
    for j in range(3):
        row[_P_RETURNING + j] = -1
    row[_P_RETURNING_N] = 0
    row[_P_SET_ASIDE] = -1
    row[_P_SET_ASIDE_TAKEN] = 0
    row[_P_SET_ASIDE_SEEN_BY] = 0
    row[_P_PENDING] = -1
    row[_P_NAMED_AT] = -1
    row[_P_NAMED] = -1
    for q in range(L.MAX_PLAYERS):
        row[_P_LAST_NAMED + q] = -1


@njit(cache=True)
def _track_events(s, player, row):
    """Replay the events logged since row[PATH_EVENTS] into the row (see `track`)."""
    n = s[L.S_NUM_PLAYERS]
    for i in range(row[PATH_EVENTS], s[L.S_EVENT_N]):
        kind, actor, other, card, extra = redacted_event(s, i, player)
        if kind == L.E_FACE_UP:
            row[_P_PLACED + card] += 1
        elif kind == L.E_DRAW:
            if extra == L.SRC_BOTTOM:
                head = row[_P_QUEUE_HEAD] % L.MAX_QUEUE
                top = row[_P_QUEUE + head]
                who = row[_P_OWNER + head]
                row[_P_QUEUE_HEAD] += 1
                if card == _HIDDEN:
                    card = top
                if actor == player and who >= 0 and who != player:
                    row[_P_KNOWS_MINE + who] = card  # they put it there
            elif extra == L.SRC_SET_ASIDE:
                row[_P_SET_ASIDE_TAKEN] = 1
                if card == _HIDDEN and row[_P_SET_ASIDE] >= 0:
                    card = row[_P_SET_ASIDE]
                if actor == player:
                    for q in range(n):
                        if q != player and (row[_P_SET_ASIDE_SEEN_BY] >> q) & 1:
                            row[_P_KNOWS_MINE + q] = card
            row[_P_HAND_N + actor] += 1
            if card >= 0:
                _append(row, actor, card)
        elif kind == L.E_PLAY or kind == L.E_OUT or kind == L.E_DISCARD:
            if kind == L.E_PLAY:
                row[_P_PENDING] = card
                row[_P_NAMED_AT] = -1
                if (row[_P_ALLOWED + actor] >> card) & 1:
                    row[_P_ALLOWED + actor] = _ALL  # maybe the constrained card: forget
            else:
                row[_P_ALLOWED + actor] = _ALL
            row[_P_HAND_N + actor] -= 1
            _remove(row, actor, card)
            if kind == L.E_PLAY:
                row[_P_LAST_PLAY + actor] = card
                row[_P_LAST_NAMED + actor] = -1
            if actor == player:
                for q in range(n):
                    if row[_P_KNOWS_MINE + q] == card:
                        row[_P_KNOWS_MINE + q] = -1
            _add_to_area(row, actor, card)
        elif kind == L.E_NAME:
            row[_P_NAMED_AT] = other
            row[_P_NAMED] = extra
            row[_P_LAST_NAMED + actor] = extra
        elif kind == L.E_MISS:
            pending = row[_P_PENDING]
            if row[_P_NAMED_AT] == actor:  # Guard, C-3PO or the counter-guess missed
                row[_P_ALLOWED + actor] &= ~_NUMBER_MASKS[s[L.S_RULES], row[_P_NAMED]]
            elif pending >= 0 and CARDS[pending, COL_EFFECT] == _ELIMINATE_IF_SIDE:
                limit = min(CARDS[pending, COL_PARAM_B], L.NUM_NUMBERS)
                row[_P_ALLOWED + actor] &= ~_SIDE_MASK[CARDS[pending, COL_PARAM_A], limit]
            row[_P_NAMED_AT] = -1
        elif kind == L.E_SEE:
            if card >= 0:
                _set_known(row, other, card)
            if other == player:  # actor looked at my single card
                row[_P_KNOWS_MINE + actor] = row[_P_KNOWN + player * _K]
        elif kind == L.E_SEE_SET_ASIDE:
            row[_P_SET_ASIDE_SEEN_BY] |= 1 << actor
            if card >= 0:
                row[_P_SET_ASIDE] = card
        elif kind == L.E_TRADE:
            if card >= 0:  # player is one of the two: actor gave CARD, got EXTRA
                _set_known(row, actor, extra)
                _set_known(row, other, card)
                partner = other if actor == player else actor
                _forget_what_they_know_of_mine(row, n)
                row[_P_KNOWS_MINE + partner] = row[_P_KNOWN + player * _K]
                row[_P_ALLOWED + actor] = _ALL
                row[_P_ALLOWED + other] = _ALL
            else:  # two one-card hands swap: what was known moves with them
                a, b = _P_ALLOWED + actor, _P_ALLOWED + other
                row[a], row[b] = row[b], row[a]
                a, b = _P_KNOWN + actor * _K, _P_KNOWN + other * _K
                row[a], row[b] = row[b], row[a]
                a, b = _P_KNOWN_N + actor, _P_KNOWN_N + other
                row[a], row[b] = row[b], row[a]
        elif kind == L.E_STEAL:
            row[_P_ALLOWED + other] = _ALL
            row[_P_KNOWN_N + other] = 0
            row[_P_HAND_N + other] = 0
            if other == player:
                _forget_what_they_know_of_mine(row, n)
            _add_to_area(row, actor, card)
        elif kind == L.E_KEEP:
            row[_P_ALLOWED + actor] = _ALL
            if card >= 0:  # own Leia: the other cards are on their way to the bottom
                returning_n = 0
                dropped = 0
                for j in range(row[_P_KNOWN_N + actor]):
                    c = row[_P_KNOWN + actor * _K + j]
                    if c == card and dropped == 0:
                        dropped = 1
                    else:
                        row[_P_RETURNING + returning_n] = c
                        returning_n += 1
                row[_P_RETURNING_N] = returning_n
                _set_known(row, actor, card)
                _forget_what_they_know_of_mine(row, n)
            else:
                row[_P_KNOWN_N + actor] = 0
            row[_P_HAND_N + actor] = 1
        elif kind == L.E_RETURN:
            if other >= 1:
                _queue_push(row, card, actor)
            if other >= 2:
                _queue_push(row, extra, actor)
            row[_P_RETURNING_N] = 0
    row[PATH_EVENTS] = s[L.S_EVENT_N]


@njit(cache=True, inline="always")
def _queue_push(row, card, owner):
    tail = row[_P_QUEUE_TAIL] % L.MAX_QUEUE
    row[_P_QUEUE + tail] = card if card >= 0 else _HIDDEN
    row[_P_OWNER + tail] = owner
    row[_P_QUEUE_TAIL] += 1


@njit(cache=True)
def _track_finish(s, player, row, out):
    """`track`'s output (int32, T_SIZE) from the replay state; the row is not changed."""
    n = s[L.S_NUM_PLAYERS]
    for j in range(T_SIZE):
        out[j] = 0
    for q in range(L.MAX_PLAYERS):
        out[T_KNOWS_MINE + q] = row[_P_KNOWS_MINE + q]
        out[T_LAST_PLAY + q] = row[_P_LAST_PLAY + q]
        out[T_PALACE_SUM + q] = row[_P_PALACE_SUM + q]
        out[T_REBEL_COUNT + q] = row[_P_REBEL_COUNT + q]
        out[T_ALLOWED + q] = row[_P_ALLOWED + q]
        out[T_LAST_NAMED + q] = row[_P_LAST_NAMED + q]
    # Unseen = the deck minus every card whose place `player` knows (knowledge.py).
    for c in range(L.MAX_CHARS):
        out[T_UNSEEN + c] = s[L.S_DECK_COUNTS + c] - row[_P_PLACED + c]
    for q in range(n):
        for j in range(row[_P_KNOWN_N + q]):
            out[T_UNSEEN + row[_P_KNOWN + q * _K + j]] -= 1
    returning_n = row[_P_RETURNING_N]
    for j in range(returning_n):
        out[T_UNSEEN + row[_P_RETURNING + j]] -= 1
    my_bottom = 0
    for j in range(row[_P_QUEUE_HEAD], row[_P_QUEUE_TAIL]):
        c = row[_P_QUEUE + j % L.MAX_QUEUE]
        if c >= 0:
            out[T_UNSEEN + c] -= 1
            my_bottom += 1
    set_aside = row[_P_SET_ASIDE]
    set_aside_taken = row[_P_SET_ASIDE_TAKEN]
    if set_aside >= 0 and set_aside_taken == 0:
        out[T_UNSEEN + set_aside] -= 1
    out[T_MY_BOTTOM] = my_bottom
    out[T_SET_ASIDE] = set_aside if set_aside_taken == 0 else -1
    for q in range(L.MAX_PLAYERS):
        out[T_KNOWN + q] = -1
        if (q < n and q != player and row[_P_HAND_N + q] == 1
                and row[_P_KNOWN_N + q] == 1):
            out[T_KNOWN + q] = row[_P_KNOWN + q * _K]
    # Own hand, sorted.
    m = row[_P_KNOWN_N + player]
    out[T_HAND_N] = m
    for j in range(m):
        out[T_HAND + j] = row[_P_KNOWN + player * _K + j]
    for j in range(1, m):
        k = j
        while k > 0 and out[T_HAND + k - 1] > out[T_HAND + k]:
            out[T_HAND + k - 1], out[T_HAND + k] = out[T_HAND + k], out[T_HAND + k - 1]
            k -= 1
    out[T_RETURNING_N] = returning_n
    first, second = row[_P_RETURNING], row[_P_RETURNING + 1]
    if returning_n == 2 and first > second:
        first, second = second, first
    out[T_RETURNING] = first if returning_n >= 1 else -1
    out[T_RETURNING + 1] = second if returning_n >= 2 else -1


@njit(cache=True)
def track(s, player, out):
    """Replay the log as `player` sees it into `out` (int32, T_SIZE).

    The compiled twin of solver/policies/knowledge.py.

    An opponent's card is known for sure after a look at it, a Mercenary comparison, a
    Lando trade with known cards, or when they draw a card `player` returned with Leia or
    the set-aside card `player` saw; it is forgotten when they play that character, keep
    with Leia, are robbed by Boba Fett or go out. An opponent q knows `player`'s card after
    looking at it (Salacious Crumb, R2-D2, Lando, Mercenary), after a trade with `player`,
    and when `player` draws a card q returned or the set-aside card q saw; forgotten when
    `player` plays that character, keeps with Leia or is robbed.

    Misses narrow a hand down (R10: a miss is information): `T_ALLOWED` holds, per seat, the
    characters their (older) card can still be: a Jabba miss rules out Rebel cards, a Luke
    miss Palace cards, a Chewbacca miss Palace cards <= 4, a Guard or C-3PO miss (or a
    counter-guess miss) the named number. The constraint is kept while they play a card
    it rules out (that card must be the one they drew) and dropped when they play a card
    it allows, trade, keep with Leia or lose their hand. Rancor survivals and Mercenary
    ties between two other players are not used.
    """
    row = np.empty(PATH_SIZE, dtype=np.int32)
    _track_start(row)
    _track_events(s, player, row)
    _track_finish(s, player, row, out)


# Buckets ---------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _bucket(value, edges):
    """Number of edges <= value (edges ascending)."""
    b = 0
    for e in edges:
        if value >= e:
            b += 1
    return b


# Deck size: the last turns matter most (R11: the deck end decides the agenda).
_DECK_EDGES = np.array([1, 2, 3, 4, 7], dtype=np.int64)  # 0 / 1 / 2 / 3 / 4-6 / 7+
_DECK_EDGES_SHORT = np.array([1, 3], dtype=np.int64)  # 0 / 1-2 / 3+
# What an unknown card can be: Rebel share in percent, mean number x10.
_REBEL_EDGES_COARSE = np.array([25, 45], dtype=np.int64)  # <25% / <45% / more
_REBEL_EDGES_FINE = np.array([1, 25, 45, 100], dtype=np.int64)  # 0 / <25 / <45 / <100 / 100
_MEAN_EDGES = np.array([28, 35, 42], dtype=np.int64)  # <2.8 / <3.5 / <4.2 / more
# Jabba's Court, own minus best opponent's Palace sum: <=-5 / -4..-1 / 0 / 1..4 / >=5.
_COURT_EDGES = np.array([-4, 0, 1, 5], dtype=np.int64)
_RESCUE_CLIP = 2  # Rescue Mission, Rebel-count difference clipped to -2..2


@njit(cache=True)
def _context(h, s, player, t, n):
    """Seat, phase, own hand, and what fixes the legal actions: the card being resolved,
    the choosable players (and the set-aside card), the chosen or choosing player, the
    cards being returned."""
    phase = s[L.S_PHASE]
    h = _mix(h, player)
    h = _mix(h, phase)
    for j in range(t[T_HAND_N]):
        h = _mix(h, t[T_HAND + j])
    h = _mix(h, -1)
    if phase != L.PH_PLAY:
        h = _mix(h, s[L.S_PENDING_CARD])
    if phase == L.PH_TARGET:
        mask = 0
        for j in range(1, n):
            q = (player + j) % n
            if s[L.S_IN_ROUND + q] == 1 and s[L.S_PROTECTED + q] == 0:
                mask |= 1 << j
        if (CARD_TABLES[s[L.S_RULES], s[L.S_PENDING_CARD], COL_EFFECT] == _PEEK_OR_SET_ASIDE
                and s[L.S_SET_ASIDE_GONE] == 0):
            mask |= 1
        h = _mix(h, mask)
    elif phase == L.PH_NAME or phase == L.PH_TRADE or phase == L.PH_COUNTER:
        h = _mix(h, (_other(s) - player) % n)
    elif phase == L.PH_ORDER:
        h = _mix(h, t[T_RETURNING])
        h = _mix(h, t[T_RETURNING + 1])
    return h


@njit(cache=True)
def _other(s):
    """The opponent a 'name', 'counter' or 'trade' decision is about."""
    if s[L.S_PHASE] == L.PH_COUNTER:
        return s[L.S_TURN_PLAYER]  # C-3PO's player, whom the counter-guess is about
    return s[L.S_PENDING_TARGET]


@njit(cache=True)
def _agenda(h, s, player, t, n):
    """Jabba's Court: own Palace sum minus the best opponent's; Rescue Mission: Rebel-count
    difference (both from the public play areas). Nothing for the hand-card agendas."""
    agenda = s[L.S_AGENDA]
    if agenda != _AG_JABBAS_COURT and agenda != _AG_RESCUE_MISSION:
        return h
    field = T_PALACE_SUM if agenda == _AG_JABBAS_COURT else T_REBEL_COUNT
    best = -1000
    for q in range(n):
        if q != player and s[L.S_IN_ROUND + q] == 1:
            best = max(best, t[field + q])
    diff = t[field + player] - best if best > -1000 else 0
    if agenda == _AG_JABBAS_COURT:
        return _mix(h, _bucket(diff, _COURT_EDGES))
    return _mix(h, min(max(diff, -_RESCUE_CLIP), _RESCUE_CLIP) + 10)


# Work space of the bucketed keys (int32): `track`'s output, then a count per character.
_W_COUNTS = T_SIZE
KEY_WORK_SIZE = _W_COUNTS + L.MAX_CHARS


@njit(cache=True)
def _hand_counts(t, q):
    """What `player` counts for q's card, into t[_W_COUNTS:]: the unseen cards it can
    still be (misses rule some out); all unseen cards if the constraints left none (they
    cannot)."""
    total = 0
    for c in range(L.MAX_CHARS):
        t[_W_COUNTS + c] = t[T_UNSEEN + c] if (t[T_ALLOWED + q] >> c) & 1 else 0
        total += t[_W_COUNTS + c]
    if total == 0:
        for c in range(L.MAX_CHARS):
            t[_W_COUNTS + c] = t[T_UNSEEN + c]


@njit(cache=True)
def _mix_summary(h, t, fine, rules):
    """Rebel share and mean number of what an opponent's card can be, bucketed."""
    return _mix_shares(h, t, _W_COUNTS, _REBEL_EDGES_FINE if fine else _REBEL_EDGES_COARSE,
                       _MEAN_EDGES, rules)


@njit(cache=True)
def _mix_shares(h, t, first, rebel_edges, mean_edges, rules):
    """The Rebel share (percent) and mean number (x10) of the card counts t[first:first +
    MAX_CHARS], bucketed by the edges."""
    total = 0
    rebels = 0
    numbers = 0
    for c in range(L.MAX_CHARS):
        count = t[first + c]
        total += count
        if CARD_TABLES[rules, c, COL_SIDE] == _REBEL:
            rebels += count
        numbers += count * CARD_TABLES[rules, c, COL_NUMBER]
    total = max(total, 1)
    h = _mix(h, _bucket((100 * rebels) // total, rebel_edges))
    return _mix(h, _bucket((10 * numbers) // total, mean_edges))


@njit(cache=True)
def _likeliest_numbers(t, rules):
    """Bit mask of the likeliest numbers of what a card can be (Guard's best names)."""
    best = -1
    mask = 0
    for k in range(L.NUM_NUMBERS):
        count = 0
        for c in range(L.MAX_CHARS):
            if CARD_TABLES[rules, c, COL_NUMBER] == k:
                count += t[_W_COUNTS + c]
        if count > best:
            best = count
            mask = 1 << k
        elif count == best:
            mask |= 1 << k
    return mask


@njit(cache=True)
def _mix_other_card(h, t, q, rules):
    """'name' and 'counter': q's card if known for sure, else the set of the likeliest
    numbers for it (t[_W_COUNTS:] then holds `_hand_counts`' counts for q)."""
    if t[T_KNOWN + q] >= 0:
        return _mix(h, t[T_KNOWN + q])
    _hand_counts(t, q)
    return _mix(h, 100 + _likeliest_numbers(t, rules))


@njit(cache=True)
def _drop_named(t, q, rules):
    """`counting`: q's card, as `_hand_counts` left it in t[_W_COUNTS:], without the
    number q named since their last play (one does not name the card one holds), unless
    nothing else is left. Whether it dropped any card."""
    k = t[T_LAST_NAMED + q]
    if k < 0:
        return False
    named = _NUMBER_MASKS[rules, k]
    total = 0
    dropped = 0
    for c in range(L.MAX_CHARS):
        if (named >> c) & 1:
            dropped += t[_W_COUNTS + c]
        else:
            total += t[_W_COUNTS + c]
    if total == 0 or dropped == 0:
        return False
    for c in range(L.MAX_CHARS):
        if (named >> c) & 1:
            t[_W_COUNTS + c] = 0
    return True


@njit(cache=True)
def _agenda_leader(s, player, t, n):
    """Jabba's Court / Rescue Mission: the opponent still in with the highest Palace sum /
    Rebel count (the first after `player` on a tie), the one the agenda aggregate is
    about; -1 for the hand-card agendas or when nobody else is in."""
    agenda = s[L.S_AGENDA]
    if agenda != _AG_JABBAS_COURT and agenda != _AG_RESCUE_MISSION:
        return -1
    field = T_PALACE_SUM if agenda == _AG_JABBAS_COURT else T_REBEL_COUNT
    leader, best = -1, -1000
    for j in range(1, n):
        q = (player + j) % n
        if s[L.S_IN_ROUND + q] == 1 and t[field + q] > best:
            leader, best = q, t[field + q]
    return leader


# `many`: deck 0 / 1-2 / 3-6 / 7+, the unseen cards' mean number <3.5 / more.
_DECK_EDGES_MANY = np.array([1, 3, 7], dtype=np.int64)
_MEAN_EDGES_MANY = np.array([35], dtype=np.int64)


@njit(cache=True)
def _mix_unseen(h, t, rules):
    """One summary of what every unknown opponent card can be: the Rebel share (<25%,
    <45%, more) and the mean number (<3.5, more) of the unseen cards, no per-seat
    constraint."""
    return _mix_shares(h, t, T_UNSEEN, _REBEL_EDGES_COARSE, _MEAN_EDGES_MANY, rules)


@njit(cache=True)
def _mix_opponents(h, s, player, t, n):
    """The opponents as counts, not seats: in the round (1 / 2 / 3+), of those not
    protected (0 / 1 / 2+), and whether the card of one of those is known for sure."""
    in_round = 0
    open_ = 0
    known = 0
    for j in range(1, n):
        q = (player + j) % n
        if s[L.S_IN_ROUND + q] == 0:
            continue
        in_round += 1
        if s[L.S_PROTECTED + q] == 0:
            open_ += 1
            if t[T_KNOWN + q] >= 0:
                known = 1
    h = _mix(h, min(in_round, 3))
    h = _mix(h, min(open_, 2))
    return _mix(h, known)


@njit(cache=True)
def _many_key(s, player, t):
    """`many_key` from `track`'s output in the work space t (KEY_WORK_SIZE)."""
    n = s[L.S_NUM_PLAYERS]
    phase = s[L.S_PHASE]
    rules = s[L.S_RULES]
    h = _mix(_FNV_OFFSET, 100 + MANY)
    h = _mix(h, phase)
    if phase != L.PH_TARGET:  # (a target is chosen for the card being played)
        for j in range(t[T_HAND_N]):
            h = _mix(h, t[T_HAND + j])
        h = _mix(h, -1)
    if phase != L.PH_PLAY:
        h = _mix(h, s[L.S_PENDING_CARD])
    deck = s[L.S_UNKNOWN_DECK] + s[L.S_QUEUE_LEN]
    if phase == L.PH_PLAY:
        h = _mix_opponents(h, s, player, t, n)
        h = _mix_unseen(h, t, rules)
        h = _mix(h, _bucket(deck, _DECK_EDGES_MANY))
        h = _agenda(h, s, player, t, n)
    elif phase == L.PH_TARGET:
        # The choosable players (what fixes the legal actions: target actions name
        # seats, so these are seats, in seat order), and per choosable opponent: the
        # card known for sure or -1, and whether they lead the agenda; then one summary
        # of the unseen cards.
        leader = _agenda_leader(s, player, t, n)
        mask = 0
        for q in range(n):
            if q != player and s[L.S_IN_ROUND + q] == 1 and s[L.S_PROTECTED + q] == 0:
                mask |= 2 << q
                h = _mix(h, t[T_KNOWN + q])
                if leader >= 0:
                    h = _mix(h, 1 if q == leader else 0)
        if (CARD_TABLES[rules, s[L.S_PENDING_CARD], COL_EFFECT] == _PEEK_OR_SET_ASIDE
                and s[L.S_SET_ASIDE_GONE] == 0):
            mask |= 1
        if CARD_TABLES[rules, s[L.S_PENDING_CARD], COL_EFFECT] == _DISCARD_REDRAW:
            mask |= 2 << player  # a classic Prince may choose its own player
        h = _mix(h, mask)
        h = _mix_unseen(h, t, rules)
        h = _mix(h, _bucket(deck, _DECK_EDGES_SHORT))
    elif phase == L.PH_NAME or phase == L.PH_COUNTER:
        h = _mix_other_card(h, t, _other(s), rules)
    elif phase == L.PH_KEEP:
        h = _mix_opponents(h, s, player, t, n)
        h = _mix_unseen(h, t, rules)
        h = _mix(h, _bucket(deck, _DECK_EDGES_SHORT))
    elif phase == L.PH_ORDER:
        h = _mix(h, t[T_RETURNING])
        h = _mix(h, t[T_RETURNING + 1])
        h = _mix(h, _bucket(deck, _DECK_EDGES_SHORT))
    elif phase == L.PH_TRADE:
        h = _mix(h, t[T_KNOWN + _other(s)])
        h = _mix(h, _bucket(deck, _DECK_EDGES_MANY))
        h = _agenda(h, s, player, t, n)
    return _finish(h)


@njit(cache=True)
def _bucketed_key(s, player, level, t):
    """`coarse_key`, `fine_key`, `counting_key` and `many_key` (by `level`) from
    `track`'s output in the work space t (KEY_WORK_SIZE); see their docstrings."""
    if level == MANY:
        return _many_key(s, player, t)
    n = s[L.S_NUM_PLAYERS]
    phase = s[L.S_PHASE]
    fine = level != COARSE
    counting = level == COUNTING
    h = _mix(_FNV_OFFSET, 100 + level)
    h = _context(h, s, player, t, n)
    deck = s[L.S_UNKNOWN_DECK] + s[L.S_QUEUE_LEN]
    if phase == L.PH_PLAY or phase == L.PH_TARGET:
        for j in range(1, n):
            q = (player + j) % n
            if s[L.S_IN_ROUND + q] == 0:
                h = _mix(h, -1)
                continue
            h = _mix(h, s[L.S_PROTECTED + q])
            h = _mix(h, t[T_KNOWN + q])
            h = _mix(h, 1 if t[T_KNOWS_MINE + q] >= 0 else 0)
            if fine:
                h = _mix(h, t[T_LAST_PLAY + q])
            if t[T_KNOWN + q] < 0:
                _hand_counts(t, q)
                h = _mix_summary(h, t, fine, s[L.S_RULES])
                if counting and _drop_named(t, q, s[L.S_RULES]):
                    h = _mix_summary(h, t, fine, s[L.S_RULES])
        h = _mix(h, _bucket(deck, _DECK_EDGES))
        h = _agenda(h, s, player, t, n)
    elif phase == L.PH_NAME or phase == L.PH_COUNTER:
        q = _other(s)
        h = _mix_other_card(h, t, q, s[L.S_RULES])
        if t[T_KNOWN + q] < 0:
            if counting and _drop_named(t, q, s[L.S_RULES]):
                h = _mix(h, 100 + _likeliest_numbers(t, s[L.S_RULES]))
            if fine:
                h = _mix(h, t[T_LAST_PLAY + q])
    elif phase == L.PH_KEEP:
        for j in range(1, n):  # (keeping resets what the others know of my hand)
            q = (player + j) % n
            if s[L.S_IN_ROUND + q] == 0:
                h = _mix(h, -1)
            elif t[T_KNOWN + q] >= 0:
                h = _mix(h, t[T_KNOWN + q])
            else:
                _hand_counts(t, q)
                h = _mix_summary(h, t, fine, s[L.S_RULES])
        h = _mix(h, _bucket(deck, _DECK_EDGES_SHORT))
    elif phase == L.PH_ORDER:
        h = _mix(h, _bucket(deck, _DECK_EDGES_SHORT))
    elif phase == L.PH_TRADE:
        h = _mix(h, t[T_KNOWN + _other(s)])
        h = _mix(h, _bucket(deck, _DECK_EDGES))
        h = _agenda(h, s, player, t, n)
    return _finish(h)


@njit(cache=True)
def _tracked(s, player):
    """A new work space holding `track`'s output."""
    t = np.empty(KEY_WORK_SIZE, dtype=np.int32)
    track(s, player, t)
    return t


@njit(cache=True)
def coarse_key(s, player):
    """Level 2, `coarse`: card counting in a few buckets; saturates on the full deck.

    Every key holds the seat, the phase and the own hand (sorted). Then, by phase:
    - 'play' and 'target' (R2-D2, or a choice among 2+ opponents): for 'target' the card
      being resolved, which opponents can be chosen and whether the set-aside card can;
      per opponent in seat order after the player: out, or in with (protected, the hand
      card if known for sure, whether they know my card, and if their card is unknown:
      the Rebel share (<25%, <45%, more) and the mean number (<2.8, <3.5, <4.2, more)
      of the cards it can be); the deck size in 0 / 1 / 2 / 3 / 4-6 / 7+; the agenda
      aggregate (below).
    - 'name' (Guard, C-3PO) and 'counter' (C-3PO's target names back): the card being
      resolved, the other player (relative seat), their card if known for sure, else the
      set of the likeliest numbers for it.
    - 'keep' (Leia, 2-3 cards in hand): per opponent out, or their card if known for
      sure, else its Rebel share and mean number as for 'play'; deck 0 / 1-2 / 3+.
    - 'order' (Leia's two returned cards): the two cards; deck 0 / 1-2 / 3+.
    - 'trade' (Lando, after the look): the opponent's card (just seen); deck as for
      'play'; the agenda aggregate.
    "The cards it can be": the unseen cards (card counting from the player's redacted
    log, `track`) minus those that public misses rule out (a Jabba miss rules out Rebel
    cards, a Guard miss the named number...). Agenda aggregate: Jabba's Court own-minus-
    best-opponent Palace sum in <=-5 / -4..-1 / 0 / 1..4 / >=5; Rescue Mission Rebel-count
    difference clipped to -2..2; nothing for the hand-card agendas (Exalted One, My Kind
    of Scum).
    """
    return _bucketed_key(s, player, COARSE, _tracked(s, player))


@njit(cache=True)
def fine_key(s, player):
    """Level 1, `fine`: `coarse` plus what the opponents' plays say; about 4x its keys.

    The features of `coarse`, and:
    - 'play' and 'target': per opponent still in, the last card they played;
    - 'name' and 'counter', when the other player's card is unknown: the last card they
      played (in Love Letter games what one plays says what one kept);
    - the Rebel share of what an unknown card can be in 5 buckets, 0 (e.g. after a Jabba
      miss: Jabba cannot hit) / <25% / <45% / <100% / 100%, instead of 3.
    """
    return _bucketed_key(s, player, FINE, _tracked(s, player))


@njit(cache=True)
def counting_key(s, player):
    """Level 3, `counting`: `fine` plus what an opponent's own naming says of their card.

    The features of `fine`, and, where `fine` summarises what an opponent's unknown card
    can be (its Rebel share and mean number in 'play' and 'target', the likeliest
    numbers in 'name' and 'counter'), the same summary once more without the number
    that opponent named since their last play (a Guard or C-3PO naming, or a
    counter-guess), when that rules a card out and leaves one: one does not name the
    card one holds. `fine` keys the number only through the miss it causes on the
    target; on the reduced decks this inference is most of what `fine` loses
    (docs/solving.md "Abstractions"). It costs ~1.4x `fine`'s keys on the full deck.
    The unseen multiset is still not keyed (it never saturates: docs/performance.md
    "Prototype abstractions").
    """
    return _bucketed_key(s, player, COUNTING, _tracked(s, player))


@njit(cache=True)
def many_key(s, player):
    """Level 4, `many`: for 4-6 players, the opponents summarised relative to the acting
    seat instead of seat by seat (a 4-player `coarse` table had 18.3 M keys after 20,000
    iterations and was still growing, docs/solving.md "Shipped policies").

    Every key holds the phase and the own hand (sorted), not the seat. Then, by phase:
    - 'play': the opponents as counts (`_mix_opponents`: in the round, of those not
      protected, knowing my card 0 / 1 / 2+, and the cards known for sure in their hands,
      sorted, at most two kept); one summary of what the unseen cards are (their Rebel
      share and mean number in `coarse`'s buckets, no per-seat constraint); the deck size
      in 0 / 1 / 2 / 3 / 4-6 / 7+; the agenda aggregate as in `coarse` (against the
      opponent who leads it).
    - 'target': the card being resolved, the choosable players (their seats, and the
      set-aside card: target actions name seats, so these fix the legal actions); per
      choosable
      opponent their card if known for sure, else the Rebel share of what it can be (the
      unseen cards minus those misses rule out), and whether they lead the agenda
      aggregate; the deck size 0 / 1-2 / 3+; the agenda aggregate.
    - 'name' and 'counter': the card being resolved, the other player's card if known for
      sure, else the likeliest numbers for it (as `coarse`, without their seat).
    - 'keep': the opponents as counts as for 'play', the unseen summary, deck 0 / 1-2 / 3+.
    - 'order', 'trade': as `coarse`, without the seat.
    """
    return _bucketed_key(s, player, MANY, _tracked(s, player))


@njit(cache=True)
def abstract_key(s, player, level):
    """The key of `player`'s information state at `level` (LEVELS); 0 never occurs."""
    if level == MANY:
        return many_key(s, player)
    if level == FINE:
        return fine_key(s, player)
    if level == COARSE:
        return coarse_key(s, player)
    if level == COUNTING:
        return counting_key(s, player)
    return identity_key(s, player)


# Keys along a path -----------------------------------------------------------------------
# The solver asks for the actor's key at every decision of a path down the tree, and the
# log only grows along a path: once a decision is reached no logged event changes (the
# engine sorts drawn cards before the next decision). So it keeps a "path row" per player
# (int32, PATH_SIZE) with what the events read so far add up to (identity: the running
# hash; fine, coarse: `track`'s running state), copies the rows down when it branches,
# and reads only the new events. The keys are the same as `abstract_key`'s, bit for bit
# (tests/test_abstraction.py).

@njit(cache=True)
def path_width(level):
    """How much of a path row `level` uses (what a copy of the row must take)."""
    return _P_HASH + _HASH_PARTS if level == IDENTITY else PATH_SIZE


@njit(cache=True)
def path_start(row, player, level):
    """The row of `player` before any event is read."""
    if level == IDENTITY:
        row[PATH_EVENTS] = 0
        _store_hash(row, _mix(_FNV_OFFSET, player))
    else:
        _track_start(row)


@njit(cache=True, inline="always")
def _store_hash(row, h):
    for k in range(_HASH_PARTS):
        row[_P_HASH + k] = (h >> np.uint64(16 * k)) & np.uint64(0xFFFF)


@njit(cache=True, inline="always")
def _load_hash(row):
    h = np.uint64(0)
    for k in range(_HASH_PARTS):
        h |= np.uint64(row[_P_HASH + k]) << np.uint64(16 * k)
    return h


@njit(cache=True)
def path_key(s, player, level, row, work):
    """`abstract_key(s, player, level)`, from `player`'s row on the path to s (advanced to
    s); `work` is int32 work space of KEY_WORK_SIZE (no allocation here)."""
    if level == IDENTITY:
        h = _hash_events(s, player, _load_hash(row), row[PATH_EVENTS])
        row[PATH_EVENTS] = s[L.S_EVENT_N]
        _store_hash(row, h)
        return _finish(h)
    _track_events(s, player, row)
    _track_finish(s, player, row, work)
    return _bucketed_key(s, player, level, work)


@njit(cache=True)
def replayed_keys(root, actions, offsets, players, level):
    """The key of players[k] at the state reached from `root` (an engine state with
    logging on) by actions[offsets[k]:offsets[k + 1]], for every k: a game tree's infoset
    keys from their paths (solver/exact/tree.py infoset_paths), no pyspiel state each."""
    keys = np.empty(len(offsets) - 1, dtype=np.int64)
    s = root.copy()
    for k in range(len(keys)):
        for i in range(engine.used_size(root)):
            s[i] = root[i]
        for i in range(offsets[k], offsets[k + 1]):
            engine.apply_action(s, actions[i])
        keys[k] = abstract_key(s, players[k], level)
    return keys
