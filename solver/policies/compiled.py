"""Policies as compiled functions of the engine state: uniform, the heuristics, tables.

Tournaments and local best responses ask a policy for its action probabilities millions
of times, inside numba code. `policy_probs(s, player, policy, bank, legal, n, out)` does
that for every policy of a `PolicyBank`:

- the heuristics of solver/policies/heuristics.py (`uniform`, `keep_higher`, `keep_lower`,
  `card_counter`, `agenda_expert`, `classic_expert`), re-implemented over the compiled
  card counting of
  solver/abstraction/keys.py (`track`, which a test holds equal to
  solver/policies/knowledge.py). They
  compute the same floating-point scores in the same order and break ties the same way
  (scores rounded to 9 decimals), so they give exactly the Python policies' probabilities
  (tests/test_tournament.py checks this at every decision of random rounds);
- shipped table policies (solver/policies/table.py): the abstract key of the state, a binary
  search in the policy's sorted keys, the 8-bit row renormalised. A key missing from the
  table falls back to uniform over the legal actions and is counted as a miss;
- biased twins (`with_biased`): any policy of the bank with its probabilities multiplied
  by a factor on one class of the legal actions (BIAS_CLASSES) and renormalised, the
  biased blueprints of depth-limited solving (Brown, Sandholm & Amos 2018).

A bank is a tuple of arrays (numba takes it as one argument); see `PolicyBank.arrays`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from numba import njit

from spiel_game import layout as L
from spiel_game.cards import (COL_EFFECT, COL_FORCED_BY, COL_NAMES_BARRED, COL_NUMBER,
                              COL_OUT_IF_DISCARDED, COL_PARAM_A, COL_PARAM_B, COL_SIDE,
                              COL_TOKEN_IF_HELD, Effect, Side)
from spiel_game.engine import (AG_JABBAS_COURT, AG_MY_KIND_OF_SCUM, AG_RESCUE_MISSION,
                               CARD_TABLES, named_number)

from solver.abstraction.keys import (T_HAND, T_KNOWN, T_LAST_PLAY, T_SET_ASIDE, T_SIZE,
                                     T_UNSEEN, abstract_key, track)
from solver.policies.heuristics import HEURISTICS

UNIFORM, KEEP_HIGHER, KEEP_LOWER, CARD_COUNTER, AGENDA_EXPERT, CLASSIC_EXPERT, TABLE = range(7)
HEURISTIC_KINDS = {"uniform": UNIFORM, "keep_higher": KEEP_HIGHER, "keep_lower": KEEP_LOWER,
                   "card_counter": CARD_COUNTER, "agenda_expert": AGENDA_EXPERT,
                   "classic_expert": CLASSIC_EXPERT}
assert set(HEURISTIC_KINDS) == set(HEURISTICS), "every heuristic needs a compiled twin"

# Biased twins: the classes of legal actions a twin's factor multiplies (`_bias`). Play
# decisions only (the card to play: the choice every turn makes, and the one Jabba's
# Palace's agendas turn on); elsewhere (targets, names, Leia, Lando) no action is in a
# class and a twin plays its policy unchanged.
# - higher: play the higher-numbered card, keeping the lower (spends the stronger
#   effect now; Exalted One and My Kind of Scum reward holding high cards at the end,
#   Jabba's Court scoring the Palace numbers played);
# - lower: play the lower-numbered card, keeping the higher (the hold-value side);
# - knockout: play a card that can put another player out (Guard, C-3PO, Mercenary,
#   Chewbacca, Rancor, Luke, Jabba; the classic Prince): with 2 players a hit ends the
#   round at once, whatever the agenda, so it is the aggressive line against the rest.
# Higher and lower split the play decisions with two numbers; knockout cuts across them.
BIAS_HIGHER, BIAS_LOWER, BIAS_KNOCKOUT = range(3)
BIAS_CLASSES = {"higher": BIAS_HIGHER, "lower": BIAS_LOWER, "knockout": BIAS_KNOCKOUT}
# Brown, Sandholm & Amos 2018 multiplied the biased actions' probabilities by 5.
BIAS_FACTOR = 5.0
_KNOCKOUT_EFFECTS = np.array(sorted(int(e) for e in (
    Effect.GUESS, Effect.GUESS_COUNTER, Effect.COMPARE, Effect.ELIMINATE_IF_SIDE,
    Effect.ELIMINATE_LOWEST, Effect.DISCARD_REDRAW)), dtype=np.int64)

# policy_probs' answer: where the probabilities came from.
FROM_RULE, FROM_TABLE, TABLE_MISS = 0, 1, 2

_JIT = dict(cache=True, nogil=True)
_EPS = 1e-9  # heuristics.py's _EPS
# `cards` below is the state's rule set's card table, CARD_TABLES[s[S_RULES]] (cards.py).
_REBEL = int(Side.REBEL)
_GUESS, _GUESS_COUNTER = int(Effect.GUESS), int(Effect.GUESS_COUNTER)
_PEEK, _PEEK_OR_SET_ASIDE = int(Effect.PEEK), int(Effect.PEEK_OR_SET_ASIDE)
_COMPARE, _ELIMINATE_IF_SIDE = int(Effect.COMPARE), int(Effect.ELIMINATE_IF_SIDE)
_ELIMINATE_LOWEST = int(Effect.ELIMINATE_LOWEST)
_LOOK_MAY_TRADE, _STEAL_HAND = int(Effect.LOOK_MAY_TRADE), int(Effect.STEAL_HAND)
_DISCARD_REDRAW, _TRADE_HANDS = int(Effect.DISCARD_REDRAW), int(Effect.TRADE_HANDS)
# Tests of a card for `_chance_that`.
(_T_NUMBER_BETWEEN, _T_NUMBER_ABOVE, _T_NUMBER_BELOW, _T_SIDE_UP_TO, _T_REBEL,
 _T_OUT_IF_DISCARDED) = range(6)


# Card counting: knowledge.hand_probabilities and friends --------------------------------

@njit(**_JIT)
def _hand_probabilities(t, q, out):
    """out[c]: probability that opponent q holds c (known card, else unseen counts)."""
    known = t[T_KNOWN + q]
    if known >= 0:
        for c in range(L.MAX_CHARS):
            out[c] = 0.0
        out[known] = 1.0
        return
    total = 0
    for c in range(L.MAX_CHARS):
        total += t[T_UNSEEN + c]
    for c in range(L.MAX_CHARS):
        out[c] = t[T_UNSEEN + c] / total


@njit(**_JIT)
def _passes(cards, test, c, a, b):
    if test == _T_NUMBER_BETWEEN:
        return a < cards[c, COL_NUMBER] < b
    if test == _T_NUMBER_ABOVE:
        return cards[c, COL_NUMBER] > a
    if test == _T_NUMBER_BELOW:
        return cards[c, COL_NUMBER] < a
    if test == _T_SIDE_UP_TO:
        return cards[c, COL_SIDE] == a and cards[c, COL_NUMBER] <= b
    if test == _T_OUT_IF_DISCARDED:
        return cards[c, COL_OUT_IF_DISCARDED] == 1
    return cards[c, COL_SIDE] == _REBEL


@njit(**_JIT)
def _chance_that(cards, t, q, test, a, b, probs):
    """Probability that q's card passes the test (summed in card order, as in Python)."""
    _hand_probabilities(t, q, probs)
    total = 0.0
    for c in range(L.MAX_CHARS):
        if probs[c] > 0 and _passes(cards, test, c, a, b):
            total += probs[c]
    return total


@njit(**_JIT)
def _by_number(cards, probs, out):
    """out[k]: the probability of q's card having number k, from its card probabilities."""
    for k in range(L.NUM_NUMBERS):
        out[k] = 0.0
    for c in range(L.MAX_CHARS):
        if probs[c] > 0:
            out[cards[c, COL_NUMBER]] += probs[c]


@njit(**_JIT)
def _number_chances(cards, t, q, probs, out):
    _hand_probabilities(t, q, probs)
    _by_number(cards, probs, out)


@njit(**_JIT)
def _inferred_numbers(cards, t, q, probs, out):
    """ClassicExpert.inferred, summed by number into out: after q's last play, a card
    others force (the Countess), only the cards forcing her or higher, if any may be q's."""
    _hand_probabilities(t, q, probs)
    last = t[T_LAST_PLAY + q]
    if last >= 0 and cards[last, COL_FORCED_BY] != 0:
        forced_by = cards[last, COL_FORCED_BY]
        total = 0.0
        for c in range(L.MAX_CHARS):
            if probs[c] > 0 and _forces_or_outranks(cards, forced_by, c, last):
                total += probs[c]
        if total > 0:
            for c in range(L.MAX_CHARS):
                likely = _forces_or_outranks(cards, forced_by, c, last)
                probs[c] = probs[c] / total if probs[c] > 0 and likely else 0.0
    _by_number(cards, probs, out)


@njit(cache=True, inline="always")
def _forces_or_outranks(cards, forced_by, c, last):
    """Card c forces the card `last` (a bit of forced_by) or has a higher number."""
    return ((forced_by >> c) & 1) == 1 or cards[c, COL_NUMBER] > cards[last, COL_NUMBER]


@njit(**_JIT)
def _expected(cards, t, q, palace_points_only, probs):
    """Expected number (or Jabba's Court Palace points) of q's card."""
    _hand_probabilities(t, q, probs)
    total = 0.0
    for c in range(L.MAX_CHARS):
        if probs[c] > 0:
            rebel = cards[c, COL_SIDE] == _REBEL
            points = 0 if palace_points_only and rebel else cards[c, COL_NUMBER]
            total += probs[c] * points
    return total


@njit(**_JIT)
def _hit_chance(cards, t, card, q, kept, probs, numbers):
    effect = cards[card, COL_EFFECT]
    if effect == _GUESS or effect == _GUESS_COUNTER:
        _number_chances(cards, t, q, probs, numbers)
        barred = cards[card, COL_NAMES_BARRED]
        for k in range(L.NUM_NUMBERS):
            if (barred >> k) & 1:
                numbers[k] = 0.0
        return numbers.max()
    if effect == _ELIMINATE_IF_SIDE:
        return _chance_that(cards, t, q, _T_SIDE_UP_TO, cards[card, COL_PARAM_A],
                            cards[card, COL_PARAM_B], probs)
    if effect == _COMPARE:
        return _chance_that(cards, t, q, _T_NUMBER_BELOW, cards[kept, COL_NUMBER], 0, probs)
    if effect == _DISCARD_REDRAW:
        return _chance_that(cards, t, q, _T_OUT_IF_DISCARDED, 0, 0, probs)
    return 0.0


@njit(**_JIT)
def _choosable(s, player, q):
    return q != player and s[L.S_IN_ROUND + q] == 1 and s[L.S_PROTECTED + q] == 0


@njit(**_JIT)
def _surely_knocks_self_out(cards, s, t, player, card, kept, probs):
    n = cards[kept, COL_NUMBER]
    effect = cards[card, COL_EFFECT]
    if cards[card, COL_OUT_IF_DISCARDED] == 1:
        return True
    if effect == _ELIMINATE_LOWEST:
        if n <= 0:
            return False
        for q in range(s[L.S_NUM_PLAYERS]):
            if (q != player and s[L.S_IN_ROUND + q] == 1
                    and _chance_that(cards, t, q, _T_NUMBER_BETWEEN, 0, n, probs) >= _EPS):
                return False
        return True
    if effect == _COMPARE:
        any_target = False
        for q in range(s[L.S_NUM_PLAYERS]):
            if _choosable(s, player, q):
                any_target = True
                if _chance_that(cards, t, q, _T_NUMBER_ABOVE, n, 0, probs) <= 1 - _EPS:
                    return False
        return any_target
    if effect == _DISCARD_REDRAW:
        for q in range(s[L.S_NUM_PLAYERS]):
            if _choosable(s, player, q):
                return False
        return cards[kept, COL_OUT_IF_DISCARDED] == 1
    return False


@njit(**_JIT)
def _any_choosable(s, player):
    for q in range(s[L.S_NUM_PLAYERS]):
        if _choosable(s, player, q):
            return True
    return False


@njit(**_JIT)
def _surely_knocks_out_someone(cards, s, t, player, card, kept, probs, numbers):
    for q in range(s[L.S_NUM_PLAYERS]):
        if _choosable(s, player, q) and _hit_chance(cards, t, card, q, kept, probs,
                                                    numbers) > 1 - _EPS:
            return True
    return False


@njit(**_JIT)
def _keep_value(cards, s, t, player, card, agenda_aware):
    """(primary, secondary) of holding `card` at the end: its number; for AgendaExpert in
    My Kind of Scum, minus how many cards that may end in an opponent's hand beat it
    within its side, then its number."""
    if not agenda_aware or s[L.S_AGENDA] != AG_MY_KIND_OF_SCUM:
        return float(cards[card, COL_NUMBER]), 0.0
    beaten_by = 0
    rebel = cards[card, COL_SIDE] == _REBEL
    for c in range(L.MAX_CHARS):
        if ((cards[c, COL_SIDE] == _REBEL) == rebel
                and cards[c, COL_NUMBER] > cards[card, COL_NUMBER]):
            beaten_by += t[T_UNSEEN + c]
            for q in range(s[L.S_NUM_PLAYERS]):
                if q != player and s[L.S_IN_ROUND + q] == 1 and t[T_KNOWN + q] == c:
                    beaten_by += 1
    return float(-beaten_by), float(cards[card, COL_NUMBER])


@njit(**_JIT)
def _opponents_in(s, player):
    count = 0
    for q in range(s[L.S_NUM_PLAYERS]):
        if q != player and s[L.S_IN_ROUND + q] == 1:
            count += 1
    return count


# Choosing among options -----------------------------------------------------------------

@njit(**_JIT)
def _rounded(x):
    """heuristics._rounded: scores compare after rounding to 9 decimals."""
    return np.rint(x * 1e9)


@njit(**_JIT)
def _keep_best(mask, primary, secondary, n):
    """Narrow `mask` to the options with the highest (primary, secondary) score."""
    best_a = -np.inf
    best_b = -np.inf
    for i in range(n):
        if mask[i]:
            a, b = _rounded(primary[i]), _rounded(secondary[i])
            if a > best_a or (a == best_a and b > best_b):
                best_a, best_b = a, b
    for i in range(n):
        if mask[i] and (_rounded(primary[i]) != best_a or _rounded(secondary[i]) != best_b):
            mask[i] = False


@njit(**_JIT)
def _prefer(mask, wanted, n):
    """heuristics.prefer: keep the wanted options if there are any."""
    found = False
    for i in range(n):
        if mask[i] and wanted[i]:
            found = True
    if found:
        for i in range(n):
            mask[i] = mask[i] and wanted[i]


@njit(**_JIT)
def _heuristic_mask(s, player, kind, legal, n, mask):
    """The actions a heuristic plays (uniformly); see heuristics.py for each rule."""
    for i in range(n):
        mask[i] = True
    phase = s[L.S_PHASE]
    counting = kind == CARD_COUNTER or kind == AGENDA_EXPERT or kind == CLASSIC_EXPERT
    if kind == UNIFORM or (not counting and phase != L.PH_PLAY):
        return
    primary = np.zeros(n)
    secondary = np.zeros(n)
    cards = CARD_TABLES[s[L.S_RULES]]
    if kind == KEEP_HIGHER or kind == KEEP_LOWER:
        for i in range(n):
            number = cards[legal[i], COL_NUMBER]
            primary[i] = -number if kind == KEEP_HIGHER else number
        _keep_best(mask, primary, secondary, n)
        return
    agenda_aware = kind == AGENDA_EXPERT
    t = np.empty(T_SIZE, dtype=np.int32)
    track(s, player, t)
    probs = np.empty(L.MAX_CHARS)
    numbers = np.empty(L.NUM_NUMBERS)
    wanted = np.zeros(n, dtype=np.bool_)
    agenda = s[L.S_AGENDA]
    if phase == L.PH_PLAY:
        kept = np.empty(n, dtype=np.int64)
        for i in range(n):
            kept[i] = t[T_HAND + 1] if t[T_HAND] == legal[i] else t[T_HAND]
        for i in range(n):
            wanted[i] = not _surely_knocks_self_out(cards, s, t, player, legal[i], kept[i], probs)
        _prefer(mask, wanted, n)
        for i in range(n):
            wanted[i] = cards[legal[i], COL_TOKEN_IF_HELD] == 0
        _prefer(mask, wanted, n)
        for i in range(n):
            wanted[i] = _surely_knocks_out_someone(cards, s, t, player, legal[i], kept[i], probs,
                                                   numbers)
        _prefer(mask, wanted, n)
        deck = s[L.S_UNKNOWN_DECK] + s[L.S_QUEUE_LEN]
        last_round_of_turns = deck <= _opponents_in(s, player) + 1
        classic = kind == CLASSIC_EXPERT
        for i in range(n):
            played = legal[i]
            if classic and cards[played, COL_EFFECT] == _TRADE_HANDS and _any_choosable(
                    s, player):
                best = -np.inf  # the King: what one gets, the best expected number
                for q in range(s[L.S_NUM_PLAYERS]):
                    if _choosable(s, player, q):
                        best = max(best, _expected(cards, t, q, False, probs))
                primary[i], secondary[i] = best, 0.0
            elif agenda_aware and last_round_of_turns and agenda == AG_JABBAS_COURT:
                primary[i] = 0 if cards[played, COL_SIDE] == _REBEL else cards[played, COL_NUMBER]
                secondary[i] = cards[kept[i], COL_NUMBER]
            elif agenda_aware and last_round_of_turns and agenda == AG_RESCUE_MISSION:
                primary[i] = 1 if cards[played, COL_SIDE] == _REBEL else 0
                secondary[i] = cards[kept[i], COL_NUMBER]
            else:
                primary[i], secondary[i] = _keep_value(cards, s, t, player, kept[i], agenda_aware)
    elif phase == L.PH_TARGET:
        card = s[L.S_PENDING_CARD]
        own = t[T_HAND]
        effect = cards[card, COL_EFFECT]
        for i in range(n):
            if legal[i] == L.TARGET_SET_ASIDE:
                primary[i] = 1 if t[T_SET_ASIDE] < 0 else 0
                continue
            q = legal[i] - L.TARGET
            if kind == CLASSIC_EXPERT and (effect == _GUESS or effect == _GUESS_COUNTER):
                _inferred_numbers(cards, t, q, probs, numbers)
                barred = cards[card, COL_NAMES_BARRED]
                for k in range(L.NUM_NUMBERS):
                    if (barred >> k) & 1:
                        numbers[k] = 0.0
                primary[i] = numbers.max()
            elif effect == _PEEK or effect == _PEEK_OR_SET_ASIDE:
                primary[i] = 0 if t[T_KNOWN + q] >= 0 else 2
            elif effect == _COMPARE:
                primary[i] = (_hit_chance(cards, t, card, q, own, probs, numbers)
                              - _chance_that(cards, t, q, _T_NUMBER_ABOVE,
                                             cards[own, COL_NUMBER], 0, probs))
            elif effect == _LOOK_MAY_TRADE or effect == _TRADE_HANDS:
                primary[i] = _expected(cards, t, q, False, probs)
            elif effect == _DISCARD_REDRAW:
                if q == player:
                    primary[i] = -1.0
                else:
                    primary[i] = _hit_chance(cards, t, card, q, own, probs, numbers)
                    secondary[i] = _expected(cards, t, q, False, probs)
            elif effect == _STEAL_HAND:
                if agenda_aware and agenda == AG_JABBAS_COURT:
                    primary[i] = _expected(cards, t, q, True, probs)
                elif agenda_aware and agenda == AG_RESCUE_MISSION:
                    primary[i] = _chance_that(cards, t, q, _T_REBEL, 0, 0, probs)
                else:
                    primary[i] = _expected(cards, t, q, False, probs)
            else:
                primary[i] = _hit_chance(cards, t, card, q, own, probs, numbers)
    elif phase == L.PH_NAME or phase == L.PH_COUNTER:
        holder = s[L.S_PENDING_TARGET] if phase == L.PH_NAME else s[L.S_TURN_PLAYER]
        if kind == CLASSIC_EXPERT and phase == L.PH_NAME:
            _inferred_numbers(cards, t, holder, probs, numbers)
        else:
            _number_chances(cards, t, holder, probs, numbers)
        for i in range(n):
            primary[i] = numbers[named_number(legal[i])]
    elif phase == L.PH_KEEP or phase == L.PH_ORDER:
        offset = L.KEEP if phase == L.PH_KEEP else L.ORDER
        sign = 1.0 if phase == L.PH_KEEP else -1.0  # Leia returns the worst card on top
        for i in range(n):
            a, b = _keep_value(cards, s, t, player, legal[i] - offset, agenda_aware)
            primary[i], secondary[i] = sign * a, sign * b
    elif phase == L.PH_TRADE:
        seen_a, seen_b = _keep_value(cards, s, t, player, t[T_KNOWN + s[L.S_PENDING_TARGET]],
                                     agenda_aware)
        own_a, own_b = _keep_value(cards, s, t, player, t[T_HAND], agenda_aware)
        better = seen_a > own_a or (seen_a == own_a and seen_b > own_b)
        for i in range(n):
            primary[i] = 1.0 if (legal[i] == L.TRADE) == better else 0.0
    _keep_best(mask, primary, secondary, n)


# Policies --------------------------------------------------------------------------------

@njit(**_JIT)
def _uniform(n, out):
    for i in range(n):
        out[i] = 1.0 / n


@njit(**_JIT)
def in_bias_class(s, bias_class, legal, n, member):
    """member[i]: legal[i] is in the class (BIAS_CLASSES); returns how many are."""
    count = 0
    for i in range(n):
        member[i] = False
    if s[L.S_PHASE] != L.PH_PLAY:
        return 0
    cards = CARD_TABLES[s[L.S_RULES]]
    low, high = 1 << 30, -1
    for i in range(n):
        number = cards[legal[i] - L.PLAY, COL_NUMBER]
        low, high = min(low, number), max(high, number)
    for i in range(n):
        card = legal[i] - L.PLAY
        number = cards[card, COL_NUMBER]
        if bias_class == BIAS_HIGHER:
            member[i] = number == high and low < high
        elif bias_class == BIAS_LOWER:
            member[i] = number == low and low < high
        elif bias_class == BIAS_KNOCKOUT:
            for effect in _KNOCKOUT_EFFECTS:
                if cards[card, COL_EFFECT] == effect:
                    member[i] = True
        count += member[i]
    return count


@njit(**_JIT)
def _bias(s, bias_class, factor, legal, n, out):
    """out[:n] times `factor` on the class's actions, renormalised (no action of the
    class, or none the policy plays: unchanged)."""
    member = np.empty(n, dtype=np.bool_)
    if in_bias_class(s, bias_class, legal, n, member) == 0:
        return
    total = 0.0
    for i in range(n):
        if member[i]:
            out[i] *= factor
        total += out[i]
    for i in range(n):
        out[i] /= total


@njit(**_JIT)
def policy_probs(s, player, policy, bank, legal, n, out):
    """Fill out[:n] with `policy`'s probabilities of legal[:n] at s, for `player`.

    Returns FROM_RULE (a heuristic), FROM_TABLE, or TABLE_MISS (key not in the table:
    uniform). A biased twin answers as its base policy, then biases (a miss stays
    uniform: the chain tries its next policy). `bank` is `PolicyBank.arrays()`.
    """
    base, bias_class, bias_factor = bank[7], bank[8], bank[9]
    source = _plain_probs(s, player, base[policy], bank, legal, n, out)
    if bias_class[policy] >= 0 and source != TABLE_MISS:
        _bias(s, bias_class[policy], bias_factor[policy], legal, n, out)
    return source


# Inlined into policy_probs: as a call it cost tournaments 16-24% of their rounds/s.
@njit(inline="always", **_JIT)
def _plain_probs(s, player, policy, bank, legal, n, out):
    """policy_probs of a policy that is not a biased twin."""
    kinds, levels, key_start, keys, offsets, num_actions, probs, _, _, _ = bank
    kind = kinds[policy]
    if kind != TABLE:
        mask = np.empty(n, dtype=np.bool_)
        _heuristic_mask(s, player, kind, legal, n, mask)
        chosen = 0
        for i in range(n):
            chosen += mask[i]
        for i in range(n):
            out[i] = 1.0 / chosen if mask[i] else 0.0
        return FROM_RULE
    key = abstract_key(s, player, levels[policy])
    lo, hi = key_start[policy], key_start[policy + 1]
    i = lo + np.searchsorted(keys[lo:hi], key)
    if i == hi or keys[i] != key:
        _uniform(n, out)
        return TABLE_MISS
    if num_actions[i] != n:
        raise ValueError("a policy row's action count differs from the game's: the table "
                         "was made for another game")
    start = offsets[i]
    total = 0.0
    for j in range(n):
        total += probs[start + j]
    if total == 0:
        _uniform(n, out)
    else:
        for j in range(n):
            out[j] = probs[start + j] / total
    return FROM_TABLE


# Banks ----------------------------------------------------------------------------------

@dataclasses.dataclass
class PolicyBank:
    """Several policies side by side, for compiled code; policy i is `names[i]`."""

    names: list[str]  # labels
    kinds: np.ndarray  # int32 per policy: UNIFORM ... TABLE
    levels: np.ndarray  # int32 per policy: abstraction level of a table, else -1
    key_start: np.ndarray  # int64, policies + 1: policy i's keys are keys[start[i]:start[i+1]]
    keys: np.ndarray  # int64, sorted within each policy
    offsets: np.ndarray  # int64 per key: its row in probs
    num_actions: np.ndarray  # uint8 per key
    probs: np.ndarray  # uint8: probability x 255, renormalised when read
    headers: list[dict | None]  # a table's file header, None for a heuristic
    specs: list[str]  # what each policy was made from: a heuristic name or a file path
    # Biased twins (`with_biased`): policy i answers as policy base[i] (itself but for a
    # twin), with bias_factor[i] on the class bias_class[i] (-1: no bias).
    base: np.ndarray | None = None  # int32 per policy
    bias_class: np.ndarray | None = None  # int32 per policy
    bias_factor: np.ndarray | None = None  # float64 per policy

    def __post_init__(self):
        count = len(self.kinds)
        if self.base is None:
            self.base = np.arange(count, dtype=np.int32)
        if self.bias_class is None:
            self.bias_class = np.full(count, -1, dtype=np.int32)
        if self.bias_factor is None:
            self.bias_factor = np.ones(count)
        if not len(self.base) == len(self.bias_class) == len(self.bias_factor) == count:
            raise ValueError("base, bias_class and bias_factor need one entry per policy")

    def arrays(self) -> tuple:
        return (self.kinds, self.levels, self.key_start, self.keys, self.offsets,
                self.num_actions, self.probs, self.base, self.bias_class, self.bias_factor)

    def index(self, name: str) -> int:
        return self.names.index(name)

    def extended(self, names: list[str], kinds, levels, headers: list, specs: list[str],
                 base, bias_class, bias_factor) -> PolicyBank:
        """This bank with policies appended that own no keys (a heuristic, or a twin
        reading its base's rows): one entry per new policy in each argument."""
        count = len(names)
        return PolicyBank(
            self.names + list(names),
            np.concatenate([self.kinds, kinds]).astype(np.int32),
            np.concatenate([self.levels, levels]).astype(np.int32),
            np.concatenate([self.key_start, np.full(count, self.key_start[-1])]
                           ).astype(np.int64),
            self.keys, self.offsets, self.num_actions, self.probs,
            self.headers + list(headers), self.specs + list(specs),
            np.concatenate([self.base, base]).astype(np.int32),
            np.concatenate([self.bias_class, bias_class]).astype(np.int32),
            np.concatenate([self.bias_factor, bias_factor]).astype(np.float64))

    def with_table(self, name: str, level: int, rows: dict[int, np.ndarray]) -> PolicyBank:
        """This bank with one table appended: `rows` maps a key (at abstraction `level`)
        to its probabilities in the engine's legal order, stored as 8-bit rows like a
        policy file's (a positive probability keeps at least 1/255)."""
        keys = np.array(sorted(rows), dtype=np.int64)
        sizes = np.array([len(rows[k]) for k in keys.tolist()], dtype=np.int64)
        quantised = [np.where(np.asarray(rows[k]) > 0,
                              np.maximum(np.round(np.asarray(rows[k]) * 255), 1), 0)
                     for k in keys.tolist()]
        probs = np.concatenate([self.probs] + quantised).astype(np.uint8)
        starts = len(self.probs) + np.cumsum(np.concatenate([[0], sizes]))[:-1]
        end = int(self.key_start[-1])  # a bank without tables holds a placeholder key
        return PolicyBank(
            self.names + [name], np.append(self.kinds, TABLE).astype(np.int32),
            np.append(self.levels, level).astype(np.int32),
            np.append(self.key_start, self.key_start[-1] + len(keys)).astype(np.int64),
            np.concatenate([self.keys[:end], keys]),
            np.concatenate([self.offsets[:end], starts]).astype(np.int64),
            np.concatenate([self.num_actions[:end], sizes]).astype(np.uint8), probs,
            self.headers + [None], self.specs + [name], np.append(self.base, len(self.kinds)),
            np.append(self.bias_class, -1), np.append(self.bias_factor, 1.0))


def is_policy_file(name: str) -> bool:
    return name.endswith(".npz")


def build_bank(specs: list[str], game, labels: list[str] | None = None) -> PolicyBank:
    """A bank of the named policies: heuristic names, or paths of table-policy files for
    `game` (solver/policies/table.py), called `labels` (default: the specs). Raises
    ValueError naming the allowed heuristics for an unknown name."""
    from solver.policies.table import load_policy

    kinds, levels, headers = [], [], []
    key_parts, offset_parts, count_parts, prob_parts = [], [], [], []
    key_start = [0]
    prob_total = 0
    for spec in specs:
        if not is_policy_file(spec):
            if spec not in HEURISTIC_KINDS:
                raise ValueError(f"unknown policy {spec!r}; allowed: "
                                 f"{', '.join(HEURISTIC_KINDS)}, or a policy file (.npz)")
            kinds.append(HEURISTIC_KINDS[spec])
            levels.append(-1)
            headers.append(None)
            key_start.append(key_start[-1])
            continue
        if not Path(spec).exists():
            raise ValueError(f"policy file {spec!r} does not exist")
        table = load_policy(spec, game)
        kinds.append(TABLE)
        levels.append(table.level)
        headers.append(table.header)
        key_parts.append(table.keys)
        offset_parts.append(table.offsets + prob_total)
        count_parts.append(table.num_actions.astype(np.uint8))
        prob_parts.append(table.probs)  # the file's 8-bit rows
        prob_total += len(table.probs)
        key_start.append(key_start[-1] + len(table.keys))

    def joined(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(1, dtype)

    if labels is not None and len(labels) != len(specs):
        raise ValueError("give one label per policy")
    return PolicyBank(list(labels or specs), np.array(kinds, np.int32),
                      np.array(levels, np.int32), np.array(key_start, np.int64),
                      joined(key_parts, np.int64), joined(offset_parts, np.int64),
                      joined(count_parts, np.uint8), joined(prob_parts, np.uint8), headers,
                      list(specs))


def with_biased(bank: PolicyBank, chain, classes, factor: float = BIAS_FACTOR
                ) -> tuple[PolicyBank, tuple]:
    """(a wider bank, chains): `bank` with, for each class name of `classes`
    (BIAS_CLASSES), a biased twin of every policy of `chain` after its policies, and
    each class's chain of twins (the same order: what `chain` plays, biased). No table
    is copied: a twin reads its base policy's rows."""
    wrong = [c for c in classes if c not in BIAS_CLASSES]
    if wrong:
        raise ValueError(f"bias classes {wrong}: allowed are {', '.join(BIAS_CLASSES)}")
    if not factor > 0:
        raise ValueError(f"bias factor {factor}: it must be positive")
    chain = [int(c) for c in chain]
    if any(bank.bias_class[j] >= 0 for j in chain):
        raise ValueError("the chain to bias holds a biased twin already")
    twins = [(c, j) for c in classes for j in chain]
    count = len(bank.names)
    # a twin's own key range is empty: it reads its base's (policy_probs)
    wider = bank.extended(
        [f"{bank.names[j]}+{c}" for c, j in twins], [bank.kinds[j] for _, j in twins],
        [bank.levels[j] for _, j in twins], [bank.headers[j] for _, j in twins],
        [f"{bank.specs[j]}+{c}" for c, j in twins], [bank.base[j] for _, j in twins],
        [BIAS_CLASSES[c] for c, _ in twins], np.full(len(twins), float(factor)))
    chains = tuple(tuple(count + k * len(chain) + i for i in range(len(chain)))
                   for k in range(len(classes)))
    return wider, chains


def probabilities(bank: PolicyBank, policy: int, s: np.ndarray, player: int
                  ) -> tuple[np.ndarray, np.ndarray, int]:
    """(legal actions, probabilities, source) of `policy` at engine state s: for tests
    and tools (compiled code calls `policy_probs`)."""
    from spiel_game import engine

    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, legal)
    out = np.empty(n)
    source = policy_probs(s, player, policy, bank.arrays(), legal[:n], n, out)
    return legal[:n].copy(), out, int(source)
