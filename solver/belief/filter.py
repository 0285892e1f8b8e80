"""The compiled particle filter of the Love Letter engine (jabbas_palace, love_letter):
histories consistent with an observation pattern. The filter's engine-independent part
(buffers, merging, resampling, the lockstep loop) is solver/belief/kernel.py; this module
is the engine's own part, its hooks (`LOVE_LETTER_FILTER`), and the entry points that run
the kernel with them (`advance`, `advance_patterns`).

A particle is a full engine state with a weight and its progress: how many of its
logged events are matched (`checked`) and how many pattern lines they used (`ptr`).
Particles advance one action at a time in lockstep: a chance node tries every pool card
(only the cards the pattern shows nearby when the viewer sees the draw; for a card
another player gets unseen, only those the rest of the pattern allows,
`_chance_candidates`), a decision
every action with positive probability (the viewer's own: every legal action, the
events decide). A new event, redacted for the viewer (the one compiled redaction,
solver/abstraction/keys.py `redacted_event`), either fits the next pattern line (a field ANY
fits anything) or, in OMIT_LOG mode, is one a log may leave out (`omissible`);
otherwise the particle dies. The matching is greedy: an event that fits the next line
uses it. Face-up cards and Leia's two draws are logged sorted once their group is
complete (spiel_game/engine.py), so an open group's events are matched when it closes.

Particles that agree on the state apart from the event log, on their progress, and on
what every other player still in the round knows (their card counting `track`; with
`merge_logs` their whole redacted log instead, of which `track` is a function) are
merged, weights adding: exact for policies that read only those (heuristics, `fine` and
`coarse` keys; `identity` tables need `merge_logs`). Merging is what makes the hidden
state small: the pool is a count vector (the order of unseen draws is no state), so
histories that differ only in the order of their events meet in one particle.

Within `max_particles` the filter is exact. Beyond it, it samples (sequential importance
sampling with resampling): whenever the set outgrows the budget it is resampled down
to it by the optimal resampling of Fearnhead and Clifford (2003) for discrete states:
particles of weight at least c are kept as they are, the others are kept with
probability w/c (systematic sampling, seeded) at weight c, where c solves
sum(min(1, w/c)) = budget. No particle is copied twice, so merging keeps its meaning,
and every weight is unbiased (E[new weight] = old weight). Resampling events are
counted in B_TRUNCATED (the posterior is then a sample) and B_RESAMPLES.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import COL_EFFECT, COL_PARAM_A, COL_PARAM_B
from spiel_game.engine import CARD_TABLES, EF_ELIMINATE_IF_SIDE
from spiel_game.events import HIDDEN, LINE_FORMS

from solver.abstraction.hashing import FNV_OFFSET, FNV_PRIME, mix
# the characters a miss rules out, as card counting (`track`) reads them
from solver.abstraction.keys import (_NUMBER_MASKS, _SIDE_MASK, T_SIZE, identity_key,
                                     redacted_event, track)
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.belief import kernel
# the statistics and ANY_PHASE are the generic filter's (re-exported: callers read them here)
from solver.belief.kernel import (ANY_PHASE, B_DECISIONS, B_FAIL_ACTOR,  # noqa: F401
                                  B_FAIL_CARD, B_FAIL_EXTRA, B_FAIL_KIND, B_FAIL_OTHER,
                                  B_FURTHEST, B_LOST, B_MOST_PARTICLES, B_POLICY_IGNORED,
                                  B_POLICY_MISSES, B_RESAMPLES, B_STEPS, B_TRUNCATED,
                                  NUM_BELIEF_STATS, STREAM_RESAMPLE, filter_hooks, resample)

_JIT = dict(cache=True, nogil=True)
# The kernels that take LOVE_LETTER_FILTER as an argument hold this module's code in their
# caches: spiel_game/jit_cache.py clears them when this module changes.
COMPILED_INTO = ("solver.belief.kernel", "solver.evaluation.lbr")

ANY = -9  # a pattern field that fits any value (a log line that does not state it;
# in the kind field: an event of any kind, e.g. an R2-D2 look at a seat or the set-aside card)
# A card field CARD_SET + mask fits any card in the bit mask (a hint summary's own draws:
# only the cards the viewer is known to have held, solver/hint/log.py).
CARD_SET = -(1 << 20)
# A card field KNOWN_HIDDEN + card fits an event whose card the viewer's log hides but the
# viewer knows: their own card another player saw (R10; `known_hidden`).
KNOWN_HIDDEN = -(1 << 10)
OMIT_NONE = 0  # the pattern is the complete redacted log (LBR, search)
OMIT_LOG = 1  # a hint log: events `omissible` may be left out
ALL_CARDS = (1 << L.MAX_CHARS) - 1
NO_FAILURE = -1  # B_FAIL_KIND before any failure
NO_COPY = -2  # B_FAIL_KIND: the pattern's card has no copy left to draw


@njit(**_JIT)
def no_final():
    """`advance`'s final masks that say nothing: any seat may hold any card."""
    return np.full(L.MAX_PLAYERS, ALL_CARDS, dtype=np.int64)


def card_set(cards) -> int:
    """The pattern card field that fits any of `cards`."""
    mask = 0
    for c in cards:
        mask |= 1 << int(c)
    return CARD_SET + mask


# Events a log may leave out, as they follow from the lines around them: misses, the
# round's end, "no effect", targets (the next lines name the target); and other players'
# draws (the viewer never sees their cards).
_OMISSIBLE = np.zeros(L.NUM_EVENT_KINDS, dtype=np.int8)
_OMISSIBLE[[L.E_MISS, L.E_ROUND_END, L.E_NO_EFFECT, L.E_TARGET]] = 1


@njit(**_JIT)
def omissible(kind, actor, viewer):
    return _OMISSIBLE[kind] == 1 or (kind == L.E_DRAW and actor != viewer)


# The observation ---------------------------------------------------------------------

@njit(**_JIT)
def observe(s, viewer, observed):
    """observed[i] = event i as `viewer` saw it; returns the number of events: the
    complete pattern of s for viewer."""
    n = s[L.S_EVENT_N]
    for i in range(n):
        kind, actor, other, card, extra = redacted_event(s, i, viewer)
        observed[i, 0] = kind
        observed[i, 1] = actor
        observed[i, 2] = other
        observed[i, 3] = card
        observed[i, 4] = extra
    return n


@njit(**_JIT)
def observed_key(observed, n, viewer):
    """A 64-bit hash of an information state (viewer and complete redacted log); the
    unfinished `identity_key` of any state with that log."""
    h = mix(FNV_OFFSET, viewer)
    for i in range(n):
        for f in range(L.EVENT_SIZE):
            h = mix(h, observed[i, f])
    return h


def known_hidden(card: int) -> int:
    """The pattern card field for `card` in an event hidden from the viewer."""
    return KNOWN_HIDDEN + int(card)


@njit(**_JIT)
def _is_card_set(value):
    return CARD_SET <= value <= CARD_SET + ALL_CARDS


@njit(**_JIT)
def _fits(pattern, j, kind, actor, other, card, extra):
    return ((pattern[j, 0] == ANY or pattern[j, 0] == kind)
            and (pattern[j, 1] == ANY or pattern[j, 1] == actor)
            and (pattern[j, 2] == ANY or pattern[j, 2] == other)
            and (pattern[j, 3] == ANY or pattern[j, 3] == card
                 or (_is_card_set(pattern[j, 3]) and card >= 0
                     and ((pattern[j, 3] - CARD_SET) >> card) & 1 == 1))
            and (pattern[j, 4] == ANY or pattern[j, 4] == extra))


@njit(**_JIT)
def _settled(s, checked):
    """How many leading events have their final form: all but an open draw group's
    (face-up cards, Leia's draws: logged sorted when the group closes)."""
    m = s[L.S_EVENT_N]
    if s[L.S_PHASE] == L.PH_CHANCE and (s[L.S_CHANCE_KIND] == L.CH_FACE_UP
                                        or s[L.S_CHANCE_KIND] == L.CH_LEIA_DRAW):
        while m > checked:
            kind = s[L.S_EVENTS + (m - 1) * L.EVENT_SIZE + L.EV_KIND]
            if kind != L.E_FACE_UP and kind != L.E_DRAW:
                break
            m -= 1
    return m


@njit(**_JIT)
def _failed(stats, ptr, kind, actor, other, card, extra):
    """Note the furthest failure (the caller's diagnosis when no history fits): the
    event that did not fit line ptr, or kind NO_COPY: card has no copy left to draw."""
    if ptr >= stats[B_FURTHEST]:
        stats[B_FURTHEST] = ptr
        stats[B_FAIL_KIND] = kind
        stats[B_FAIL_ACTOR] = actor
        stats[B_FAIL_OTHER] = other
        stats[B_FAIL_CARD] = card
        stats[B_FAIL_EXTRA] = extra


@njit(**_JIT)
def _match(s, checked, ptr, pattern, n_pat, viewer, omit, stats):
    """Match s's events from `checked` on against the pattern from `ptr`: (settled
    events, new ptr), ptr -1 if they do not fit."""
    upto = _settled(s, checked)
    for i in range(checked, upto):
        kind, actor, other, card, extra = redacted_event(s, i, viewer)
        if (card == HIDDEN and ptr < n_pat
                and KNOWN_HIDDEN <= pattern[ptr, 3] < KNOWN_HIDDEN + L.MAX_CHARS):
            card = KNOWN_HIDDEN + s[L.S_EVENTS + i * L.EVENT_SIZE + L.EV_CARD]
        if ptr < n_pat and _fits(pattern, ptr, kind, actor, other, card, extra):
            ptr += 1
        elif omit == OMIT_LOG and omissible(kind, actor, viewer):
            continue
        else:
            _failed(stats, ptr, kind, actor, other, card, extra)
            return upto, -1
    # Look one line ahead: a player about to play the card the next line plays must
    # hold it (prunes hidden draws early, before they multiply the particles).
    if (upto == s[L.S_EVENT_N] and s[L.S_PHASE] == L.PH_PLAY and ptr < n_pat
            and pattern[ptr, 0] == L.E_PLAY):
        actor = s[L.S_ACTOR]
        if pattern[ptr, 1] != ANY and pattern[ptr, 1] != actor:
            return upto, -1
        if pattern[ptr, 3] >= 0:
            held = False
            for i in range(s[L.S_HAND_N + actor]):
                if s[L.S_HAND + actor * L.MAX_HAND + i] == pattern[ptr, 3]:
                    held = True
            if not held:
                return upto, -1
    return upto, ptr


@njit(**_JIT)
def _is_done(s, checked, ptr, n_pat, done_actor, done_phase):
    """At the observed decision: every event matched, the pattern used up, done_actor to
    act (in done_phase unless ANY_PHASE)."""
    return (ptr == n_pat and checked == s[L.S_EVENT_N] and s[L.S_PHASE] != L.PH_CHANCE
            and s[L.S_PHASE] != L.PH_TERMINAL and s[L.S_ACTOR] == done_actor
            and (done_phase == ANY_PHASE or s[L.S_PHASE] == done_phase))


# Event kinds whose `other` field is a seat (a line of such a kind names that seat too).
_OTHER_IS_SEAT = np.zeros(L.NUM_EVENT_KINDS, dtype=np.int8)
for _kind, _, _form in LINE_FORMS:
    if "{o}" in _form:
        _OTHER_IS_SEAT[_kind] = 1


# Event kinds that change no hand (a line of one naming q leaves q's card as it was).
_KEEPS_HANDS = np.zeros(L.NUM_EVENT_KINDS, dtype=np.int8)
_KEEPS_HANDS[[L.E_TARGET, L.E_TARGET_SET_ASIDE, L.E_NAME, L.E_MISS, L.E_SEE,
              L.E_SEE_SET_ASIDE, L.E_TIE, L.E_NO_TRADE, L.E_NO_EFFECT]] = 1
# Leia's return: the cards go back from the return slots, the kept card stays in the hand
# (a card dealt before it meets the keep line first, which leaves it open).
_KEEPS_HANDS[L.E_RETURN] = 1


@njit(**_JIT)
def _names_seat(pattern, j, q):
    """Could line j be an event of seat q's (q acts, or is the other seat)? A line that
    leaves the kind or a seat open could."""
    kind, actor, other = pattern[j, 0], pattern[j, 1], pattern[j, 2]
    if kind == ANY or actor == ANY or actor == q:
        return True
    return _OTHER_IS_SEAT[kind] == 1 and (other == ANY or other == q)


@njit(**_JIT)
def _missed(pattern, j, rules):
    """The characters ruled out for the one at risk by line j, "q stays in": after a
    number named at q, the cards of that number; after a card that puts out a side (a
    Jabba, a Luke), that side's cards it reaches; 0 where the lines do not say."""
    if j > 0 and pattern[j - 1, 0] == L.E_NAME and pattern[j - 1, 4] >= 0:
        return _NUMBER_MASKS[rules, pattern[j - 1, 4]]
    for i in range(j - 1, -1, -1):  # the card being resolved: the last play
        if pattern[i, 0] == ANY:
            return 0
        if pattern[i, 0] == L.E_PLAY:
            card = pattern[i, 3]
            if card < 0 or CARD_TABLES[rules, card, COL_EFFECT] != EF_ELIMINATE_IF_SIDE:
                return 0
            limit = min(CARD_TABLES[rules, card, COL_PARAM_B], L.NUM_NUMBERS)
            return _SIDE_MASK[CARD_TABLES[rules, card, COL_PARAM_A], limit]
    return 0


@njit(**_JIT)
def _future_cards(q, ptr, pattern, n_pat, viewer, rules, final):
    """The cards worth dealing to q (another player's deal, turn draw or redraw the
    viewer does not see; the viewer's own draw). A card leaves q's hand only by a line
    the log keeps naming q (a play, going out, a steal, a discard; or a trade or Leia,
    after which anything goes): so the card is one q plays later, or the one q holds
    when the log shows it (q going out with it, the viewer looking at it), in either
    case not one a miss of q's before then rules out (`_missed`). Where the log ends
    first, any card no miss rules out that q may hold at the end (final[q], a mask: a
    summary's hand, or a card the viewer knows q holds); where a line leaves the kind,
    the seat or the card open, every card. The histories left out would all die at a
    later line or be dropped at the end (a prune: the posterior is unchanged); dealing
    them would fill a sampled filter with hands the log rules out, and lose every
    history."""
    mask = 0
    allowed = ALL_CARDS  # what the card can be while q still holds it
    j = ptr
    while j < n_pat:
        kind, actor, card = pattern[j, 0], pattern[j, 1], pattern[j, 3]
        if (kind == L.E_DRAW and actor == q) or not _names_seat(pattern, j, q):
            j += 1
            continue
        if kind == L.E_PLAY and actor == q:
            if card < 0:
                return ALL_CARDS
            mask |= (1 << card) & allowed
        elif kind == L.E_MISS and actor == q:
            allowed &= ~_missed(pattern, j, rules)
        elif kind == L.E_OUT and actor == q:  # the hand face up, a line per card
            while j < n_pat and pattern[j, 0] == L.E_OUT and pattern[j, 1] == q:
                if pattern[j, 3] < 0:
                    return ALL_CARDS
                mask |= (1 << pattern[j, 3]) & allowed
                j += 1
            return mask
        elif (kind == L.E_SEE and actor == viewer and pattern[j, 2] == q
              or kind == L.E_STEAL and pattern[j, 2] == q
              or kind == L.E_DISCARD and actor == q):
            return mask | ((1 << card) & allowed) if card >= 0 else ALL_CARDS
        elif kind == ANY or _KEEPS_HANDS[kind] == 0:
            return ALL_CARDS
        j += 1
    return mask | (allowed & final[q])


# Event kinds after which a card another player holds may yet reach the viewer: Leia's
# returned cards, drawn later (1); a trade or a steal, where the viewer is in it (2).
_PASSES_CARDS = np.zeros(L.NUM_EVENT_KINDS, dtype=np.int8)
_PASSES_CARDS[[L.E_KEEP, L.E_RETURN]] = 1
_PASSES_CARDS[[L.E_TRADE, L.E_STEAL]] = 2
VIEWER_NEEDS = L.MAX_PLAYERS  # future's column of the viewer's final cards (below)


@njit(**_JIT)
def future_masks(pattern, n_pat, viewer, rules, final):
    """future[j, q]: `_future_cards` of seat q from pattern line j, for every line and
    seat (j = n_pat: the pattern's end, `final`): the same for every particle there, so
    worked out once per pattern. future[j, VIEWER_NEEDS]: the cards of the viewer's
    final hand (where `final` gives it) that only the deck can still bring them, no line
    from j on passing another player's card on (0 where one may)."""
    future = np.empty((n_pat + 1, L.MAX_PLAYERS + 1), dtype=np.int64)
    passes = final[viewer] == ALL_CARDS
    for j in range(n_pat, -1, -1):
        if j < n_pat:
            kind, actor, other = pattern[j, 0], pattern[j, 1], pattern[j, 2]
            if kind < 0 or _PASSES_CARDS[kind] == 1 or _PASSES_CARDS[kind] == 2 and (
                    actor == viewer or actor == ANY
                    or kind == L.E_TRADE and (other == viewer or other == ANY)):
                passes = True
        future[j, VIEWER_NEEDS] = 0 if passes else final[viewer]
        for q in range(L.MAX_PLAYERS):
            future[j, q] = _future_cards(q, j, pattern, n_pat, viewer, rules, final)
    return future


@njit(**_JIT)
def _hands_fit(s, ptr, future):
    """Does every card a seat still in the round holds fit what the pattern from line
    ptr allows it (`future`)? What `_future_cards` says of a card dealt there holds of
    every card held there: it leaves the hand only by a line that names it. A hand that
    does not fit dies at a later line; dropping it at once (say, the card a Leia player
    keeps) keeps a sample from filling with such hands before it dies."""
    for q in range(s[L.S_NUM_PLAYERS]):
        if s[L.S_IN_ROUND + q] == 1:
            allowed = future[ptr, q]
            for i in range(s[L.S_HAND_N + q]):
                if (allowed >> s[L.S_HAND + q * L.MAX_HAND + i]) & 1 == 0:
                    return False
    return True


@njit(**_JIT)
def _dealt_unseen(s, viewer):
    """Does the chance card go to another player's hand, unseen by the viewer (a deal,
    turn draw or redraw; `_future_cards`)?"""
    receiver = s[L.S_CHANCE_FOR]
    chance = s[L.S_CHANCE_KIND]
    return (receiver >= 0 and receiver != viewer and chance != L.CH_FACE_UP
            and chance != L.CH_SET_ASIDE_LOOK and chance != L.CH_LEIA_DRAW)


@njit(**_JIT)
def reservations(pattern, n_pat, viewer):
    """reserve[j, c]: how many copies of c the pattern from line j on shows the viewer
    draw from the pool (the deal, the deck): copies no other player's hand can take
    before then. Dealing one of them away leaves a history that dies at that draw."""
    reserve = np.zeros((n_pat + 1, L.MAX_CHARS), dtype=np.int32)
    for j in range(n_pat - 1, -1, -1):
        reserve[j] = reserve[j + 1]
        card = pattern[j, 3]
        if (pattern[j, 0] == L.E_DRAW and pattern[j, 1] == viewer and 0 <= card < L.MAX_CHARS
                and (pattern[j, 4] == L.SRC_DECK or pattern[j, 4] == L.SRC_DEAL)):
            reserve[j, card] += 1
    return reserve


@njit(**_JIT)
def _chance_candidates(s, ptr, pattern, start, n_pat, viewer, reserve, future):
    """Bit mask of the pool cards worth trying at a chance node: for a draw the viewer
    sees, the cards the pattern shows drawn nearby; for a card another player gets
    unseen, those `_future_cards` allows (`future_masks`) but a copy the viewer draws
    later (`reservations`); else every card. None past the pattern's end (the log ends at the
    viewer's decision). The pattern is rows start to n_pat (`advance_patterns`)."""
    if ptr >= n_pat:
        return 0
    chance = s[L.S_CHANCE_KIND]
    receiver = s[L.S_CHANCE_FOR]
    if chance == L.CH_FACE_UP:
        kind = L.E_FACE_UP
        receiver = -1
    elif receiver == viewer:
        kind = L.E_SEE_SET_ASIDE if chance == L.CH_SET_ASIDE_LOOK else L.E_DRAW
    elif _dealt_unseen(s, viewer):
        mask = future[ptr, receiver]
        for c in range(L.MAX_CHARS):
            if 0 < s[L.S_POOL + c] <= reserve[ptr, c]:
                mask &= ~(1 << c)
        needs = future[ptr, VIEWER_NEEDS]
        for c in range(L.MAX_CHARS):
            if (needs >> c) & 1 and (mask >> c) & 1:
                # a card the viewer ends with and does not hold: not the last copy the
                # deck (its bottom, the set-aside card) has for them
                left = s[L.S_POOL + c] + (s[L.S_SET_ASIDE] == c)
                for i in range(s[L.S_QUEUE_LEN]):
                    left += s[L.S_QUEUE + i] == c
                for i in range(s[L.S_HAND_N + viewer]):
                    left += s[L.S_HAND + viewer * L.MAX_HAND + i] == c
                if left <= 1:
                    mask &= ~(1 << c)
        if chance == L.CH_TURN_DRAW:
            # The card they play next (the line after their draw's, if the log has it) is
            # in their hand after the draw: if not already, it is the one drawn (`_match`
            # looks one line ahead).
            j = ptr
            if j < n_pat and pattern[j, 0] == L.E_DRAW and pattern[j, 1] == receiver:
                j += 1
            if (j < n_pat and pattern[j, 0] == L.E_PLAY and pattern[j, 1] == receiver
                    and pattern[j, 3] >= 0):
                held = False
                for i in range(s[L.S_HAND_N + receiver]):
                    held |= s[L.S_HAND + receiver * L.MAX_HAND + i] == pattern[j, 3]
                if not held:
                    mask &= 1 << pattern[j, 3]
        return mask
    else:
        return ALL_CARDS
    mask = 0
    for j in range(max(start, ptr - 2), min(n_pat, ptr + 3)):
        if ((pattern[j, 0] == kind or pattern[j, 0] == ANY)
                and (pattern[j, 1] == receiver or pattern[j, 1] == ANY)):
            if pattern[j, 3] == ANY:
                mask = ALL_CARDS
                break
            if pattern[j, 3] >= 0:
                mask |= 1 << pattern[j, 3]
            elif _is_card_set(pattern[j, 3]):
                mask |= pattern[j, 3] - CARD_SET
    if kind == L.E_DRAW and chance != L.CH_LEIA_DRAW:
        # the viewer's own card, as another player's: one the rest allows (a summary's
        # draws say only which cards the viewer held)
        mask &= future[ptr, viewer]
    return mask


# Merging -------------------------------------------------------------------------------

@njit(**_JIT)
def _mix_run(h, a, start, stop):
    """h extended by a[start:stop]: FNV in four lanes, every fourth value each (the
    lanes' multiplies overlap where one chain waits on each: every new particle is
    hashed), the lanes then mixed into one."""
    h1 = (h ^ np.uint64(1)) * FNV_PRIME
    h2 = (h ^ np.uint64(2)) * FNV_PRIME
    h3 = (h ^ np.uint64(3)) * FNV_PRIME
    i = start
    while i + 4 <= stop:
        h = mix(h, a[i])
        h1 = mix(h1, a[i + 1])
        h2 = mix(h2, a[i + 2])
        h3 = mix(h3, a[i + 3])
        i += 4
    while i < stop:
        h = mix(h, a[i])
        i += 1
    h = (h ^ (h1 ^ (h1 >> np.uint64(29)))) * FNV_PRIME
    h = (h ^ (h2 ^ (h2 >> np.uint64(29)))) * FNV_PRIME
    return (h ^ (h3 ^ (h3 >> np.uint64(29)))) * FNV_PRIME


@njit(**_JIT)
def state_hash(s, viewer, knowledge, merge_logs):
    """Hash of the state as far as the future goes: everything but the event log, and
    what each other player still in the round knows (`track`, the input of the
    heuristics and of the abstract keys; with merge_logs their whole redacted log, which
    decides their track). Up
    to what never matters again: the order of the cards within a hand (legal actions and
    policies see the sorted hand) and Leia's return slots once the cards are back."""
    h = FNV_OFFSET
    for q in range(s[L.S_NUM_PLAYERS]):
        if q != viewer and s[L.S_IN_ROUND + q] == 1:
            if merge_logs:  # the log q saw decides their `track` (with the state hashed
                h = mix(h, identity_key(s, q))  # below): replaying it too would add nothing
            else:
                track(s, q, knowledge)
                h = _mix_run(h, knowledge, 0, T_SIZE)
    h = _mix_run(h, s, 0, L.S_RETURN)
    if s[L.S_RETURN_N] > 0:
        for i in range(L.S_RETURN, L.S_RETURN + 2):
            h = mix(h, s[i])
    h = _mix_run(h, s, L.S_RETURN + 2, L.S_HAND)
    for p in range(L.MAX_PLAYERS):
        base = L.S_HAND + p * L.MAX_HAND
        a, b, c = s[base], s[base + 1], s[base + 2]
        n = s[L.S_HAND_N + p]
        if n >= 2 and a > b:
            a, b = b, a
        if n == 3:
            if b > c:
                b, c = c, b
            if a > b:
                a, b = b, a
        h = mix(mix(mix(h, a), b), c)
    return _mix_run(h, s, L.S_HAND + L.MAX_PLAYERS * L.MAX_HAND, L.S_EVENTS)


@njit(**_JIT)
def _particle_hash(s, checked, ptr, viewer, knowledge, merge_logs):
    return mix(mix(state_hash(s, viewer, knowledge, merge_logs), checked), ptr)


# The filter's hooks (solver/belief/kernel.py) for the Love Letter engine -----------------

@njit(**_JIT)
def _max_actions():
    return L.NUM_ACTIONS


@njit(**_JIT)
def _prepare(pattern, row_start, row_end, viewer, first, count, final):
    """(reserve, future): each pattern's `reservations` and `future_masks`, its rows
    counted from its start."""
    rows = len(row_end)
    reserve = np.zeros((rows, L.MAX_CHARS), dtype=np.int32)
    future = np.empty((rows, L.MAX_PLAYERS + 1), dtype=np.int64)
    rules = first[L.S_RULES] if count > 0 else 0
    j = 0
    while j < rows:
        a, b = row_start[j], row_end[j]
        reserve[a:b + 1] = reservations(pattern[a:b], b - a, viewer)
        future[a:b + 1] = future_masks(pattern[a:b], b - a, viewer, rules, final)
        j = b + 1
    return reserve, future


@njit(**_JIT)
def _chance_children(s, ptr, pattern, start, n_pat, viewer, pre, legal, probs, stats):
    """The pool cards `_chance_candidates` finds worth trying, each at its copies / the
    pool's size."""
    candidates = _chance_candidates(s, ptr, pattern, start, n_pat, viewer, pre[0], pre[1])
    # A card the pattern shows drawn with no copy left is why the particle dies
    # (of another player's, where it is the one card they can hold)
    note = candidates != ALL_CARDS and (not _dealt_unseen(s, viewer)
                                        or candidates & (candidates - 1) == 0)
    n = 0
    for c in range(L.MAX_CHARS):
        if note and (candidates >> c) & 1 and s[L.S_POOL + c] == 0:
            _failed(stats, ptr, NO_COPY, -1, -1, c, -1)
        if s[L.S_POOL + c] > 0 and (candidates >> c) & 1:
            legal[n] = c
            probs[n] = s[L.S_POOL + c]
            n += 1
    return n, float(s[L.S_POOL_SIZE])


@njit(**_JIT)
def _decision_children(s, checked, ptr, n_pat, viewer, bank, chain, floor, miss_unknown,
                       use_policy, legal, probs, stats):
    if ptr >= n_pat and checked == s[L.S_EVENT_N]:
        return 0  # the pattern is used up but the round is not at its decision
    n = engine.legal_actions(s, legal)
    kernel.decision_likelihoods(LOVE_LETTER_PLAYOUT, s, s[L.S_ACTOR], viewer, bank, chain,
                                floor, miss_unknown, use_policy, legal, n, probs, stats)
    return n


@njit(**_JIT)
def _match_child(s, checked, ptr, pattern, n_pat, viewer, omit, pre, stats):
    """`_match`, and the hands held then fit the pattern's rest (`_hands_fit`)."""
    upto, after = _match(s, checked, ptr, pattern, n_pat, viewer, omit, stats)
    if after >= 0 and not _hands_fit(s, after, pre[1]):
        return upto, -1
    return upto, after


@njit(**_JIT)
def _hash_scratch():
    return np.empty(T_SIZE, dtype=np.int32)


@njit(**_JIT)
def _logged_events(s):
    return s[L.S_EVENT_N]


@njit(**_JIT)
def _pattern_shape():
    return L.MAX_EVENTS, L.EVENT_SIZE


LOVE_LETTER_FILTER = filter_hooks(
    "solver.belief.filter", max_actions=_max_actions, prepare=_prepare, is_done=_is_done,
    chance_children=_chance_children, decision_children=_decision_children,
    match=_match_child, hash_scratch=_hash_scratch, particle_hash=_particle_hash,
    logged_events=_logged_events, no_final=no_final, pattern_shape=_pattern_shape,
    observe=observe, observed_key=observed_key)


@njit(**_JIT)
def advance(buffers, weights, progress, current, count, pattern, n_pat, viewer, omit,
            done_phase, bank, chain, floor, miss_unknown, merge_logs, max_particles,
            stats, log_mass, final, done_actor=-1, seed=0):
    """Advance the particles in buffers[current] (weights[current], progress[current])
    until all are done, at a decision of done_actor (-1: the viewer's; another seat's
    for the search's second-order beliefs, solver/search); returns (buffer index,
    count), count 0: no history fits. log_mass[0] gains the log of each step's total
    weight before it is normalised: the log likelihood of what the viewer saw under the
    chain's policies (-inf where they rule out every history that fits), which compares
    opponent models (solver/search exploitation). final[q]: a mask of the cards seat q
    may hold at the pattern's end (`no_final`: any), which prunes the cards dealt to
    others (`_future_cards`).

    buffers may hold more than max_particles (room to expand before resampling: twice
    as many keeps every step's children until it ends); past max_particles at a step's
    end the set is resampled down to it (`resample`, the stream of `seed` and the steps
    done so far: deterministic)."""
    row_start = np.zeros(n_pat + 1, dtype=np.int64)
    row_end = np.full(n_pat + 1, n_pat, dtype=np.int64)
    return advance_patterns(buffers, weights, progress, current, count, pattern, row_start,
                            row_end, viewer, omit, done_phase, bank, chain, floor,
                            miss_unknown, merge_logs, max_particles, stats, log_mass, final,
                            done_actor, seed)


@njit(**_JIT)
def advance_patterns(buffers, weights, progress, current, count, pattern, row_start, row_end,
                     viewer, omit, done_phase, bank, chain, floor, miss_unknown, merge_logs,
                     max_particles, stats, log_mass, final, done_actor=-1, seed=0):
    """`advance` over several patterns at once, the union of their histories (a
    summary's explanations of its knock-outs, solver/hint/log.py): pattern holds them
    one after another, each followed by one spare row (its end); row_start[j] and
    row_end[j] are the first row and the end of the pattern that row j (or its end)
    belongs to. A particle's ptr is a row of its own pattern (it starts at its first
    row), so particles of different patterns never merge; they share the budget and
    its resampling, as histories of one set. One run instead of one per pattern: each
    pattern gets the particles its weight earns, and one that no history fits costs
    little once its particles die."""
    return kernel.advance_patterns(engine.ENGINE, LOVE_LETTER_FILTER, buffers, weights,
                                   progress, current, count, pattern, row_start, row_end,
                                   viewer, omit, done_phase, bank, chain, floor,
                                   miss_unknown, merge_logs, max_particles, stats, log_mass,
                                   final, done_actor, seed)


@njit(**_JIT)
def aligned_progress(buffers, progress, current, count):
    """Progress of particles whose logs are matched line for line so far (the initial
    state; a complete pattern's previous decision): checked = ptr = events logged."""
    for k in range(count):
        m = buffers[current, k, L.S_EVENT_N]
        progress[current, k, 0] = m
        progress[current, k, 1] = m


@njit(**_JIT)
def hand_marginals(buffers, weights, current, count, out):
    """out[q, c]: the posterior probability that player q holds a copy of character c,
    weighted by the particles (a hand of 2 copies counts once per copy)."""
    out[:, :] = 0.0
    for k in range(count):
        s = buffers[current, k]
        for q in range(s[L.S_NUM_PLAYERS]):
            for i in range(s[L.S_HAND_N + q]):
                out[q, s[L.S_HAND + q * L.MAX_HAND + i]] += weights[current, k]
