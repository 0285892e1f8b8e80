"""Hand-written strategies for Jabba's Palace, as OpenSpiel policies.

Each heuristic decides from `knowledge(state, player)` (the player's redacted log, see
knowledge.py) and the legal actions, nothing else: what is being decided follows from the
kind of the legal actions, the card being resolved and the chosen player from the public
log. So a heuristic gives the same answer in every state of an information set.

A heuristic picks a set of best actions at each decision and plays them uniformly; the
other legal actions get probability 0. Per decision (`Decision.phase`) a subclass
overrides one method returning the best actions; the default is all of them (uniform).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from open_spiel.python import policy as policy_lib

from spiel_game import actions
from spiel_game import layout as L
from spiel_game.cards import CHARACTERS, Agenda, Effect, Side

from solver.policies.knowledge import Knowledge, knowledge

_EPS = 1e-9
assert L.PLAY == 0  # a play action id is the character id
_GUESS_EFFECTS = (Effect.GUESS, Effect.GUESS_COUNTER)
_PEEK_EFFECTS = (Effect.PEEK, Effect.PEEK_OR_SET_ASIDE)

# Decision phases by the kind of their legal action ids (actions.decode).
_PHASE_OF_KIND = {"play": "play", "target": "target", "target_set_aside": "target",
                  "name": "name", "keep": "keep", "order": "order", "no_trade": "trade",
                  "trade": "trade"}


def number(card: int) -> int:
    return CHARACTERS[card].number


def is_rebel(card: int) -> bool:
    return CHARACTERS[card].side == Side.REBEL


def palace_points(card: int) -> int:
    """What a card scores in a play area for Jabba's Court (R12)."""
    return 0 if is_rebel(card) else number(card)


@dataclasses.dataclass(frozen=True)
class Decision:
    """The decision at hand, as the deciding player sees it (all public)."""

    phase: str  # play, target, name, counter (C-3PO's named-back number), keep, order, trade
    card: int | None  # the card being resolved (None when choosing a card to play)
    chosen: int | None  # the player chosen for it, if any yet
    legal: tuple[int, ...]  # when playing, action ids are character ids (L.PLAY == 0)


def decision(k: Knowledge, legal: Sequence[int]) -> Decision:
    phase = _PHASE_OF_KIND[actions.decode(legal[0])[0]]
    if phase == "play":
        return Decision(phase, None, None, tuple(legal))
    resolver, card = k.last_play
    if phase == "name" and resolver != k.player:
        phase = "counter"  # R6: the chosen player names back after a C-3PO miss
    return Decision(phase, card, k.chosen, tuple(legal))


# Choosing -------------------------------------------------------------------------------

def best(options: Sequence[int], score: Callable[[int], object]) -> list[int]:
    """The options with the highest score (floats compared to 1e-9; tuples allowed)."""
    keyed = [(_rounded(score(o)), o) for o in options]
    top = max(key for key, _ in keyed)
    return [o for key, o in keyed if key == top]


def _rounded(score):
    if isinstance(score, tuple):
        return tuple(_rounded(s) for s in score)
    return round(score, 9) if isinstance(score, float) else score


def prefer(options: list[int], wanted: Callable[[int], bool]) -> list[int]:
    """The options that are `wanted`, or all of them if none is."""
    return [o for o in options if wanted(o)] or options


# Card counting --------------------------------------------------------------------------

def chance_that(k: Knowledge, opponent: int, test: Callable[[int], bool]) -> float:
    """Probability that `opponent`'s card passes `test` (knowledge.hand_probabilities)."""
    return sum(p for c, p in k.hand_probabilities(opponent).items() if test(c))


def number_chances(k: Knowledge, opponent: int) -> dict[int, float]:
    out: dict[int, float] = {}
    for c, p in k.hand_probabilities(opponent).items():
        out[number(c)] = out.get(number(c), 0.0) + p
    return out


def expected_number(k: Knowledge, opponent: int) -> float:
    return sum(p * number(c) for c, p in k.hand_probabilities(opponent).items())


def hit_chance(k: Knowledge, card: int, target: int, kept: int) -> float:
    """Probability that playing `card` on `target` knocks them out, keeping `kept`.

    Guard and C-3PO name the most likely number; Mercenary wins on a lower card.
    """
    effect = CHARACTERS[card].effect
    if effect in _GUESS_EFFECTS:
        return max(number_chances(k, target).values())
    if effect == Effect.ELIMINATE_IF_SIDE:
        side, most = CHARACTERS[card].param_a, CHARACTERS[card].param_b
        return chance_that(k, target, lambda c: CHARACTERS[c].side == side
                           and number(c) <= most)
    if effect == Effect.COMPARE:
        return chance_that(k, target, lambda c: number(c) < number(kept))
    return 0.0


def surely_knocks_self_out(k: Knowledge, card: int, kept: int) -> bool:
    """Playing `card` and keeping `kept` surely puts this player out (Rancor R7, Mercenary).

    Rancor: no other player in the round can hold a number between 1 and kept's - 1.
    Mercenary: every player it may choose surely holds a higher number.
    """
    effect = CHARACTERS[card].effect
    n = number(kept)
    if effect == Effect.ELIMINATE_LOWEST:
        return n > 0 and all(chance_that(k, o, lambda c: 0 < number(c) < n) < _EPS
                             for o in k.opponents)
    if effect == Effect.COMPARE:
        targets = k.targetable()
        return bool(targets) and all(
            chance_that(k, t, lambda c: number(c) > n) > 1 - _EPS for t in targets)
    return False


def surely_knocks_out_someone(k: Knowledge, card: int, kept: int) -> bool:
    return any(hit_chance(k, card, t, kept) > 1 - _EPS for t in k.targetable())


# Policies -------------------------------------------------------------------------------

class Heuristic(policy_lib.Policy):
    """Base: uniform over the legal actions; subclasses narrow down a decision."""

    def __init__(self, game):
        super().__init__(game, list(range(game.num_players())))

    def action_probabilities(self, state, player_id=None):
        player = state.current_player() if player_id is None else player_id
        legal = state.legal_actions()
        k = knowledge(state, player)
        d = decision(k, legal)
        chosen = set(getattr(self, d.phase)(k, d))
        return {a: (1.0 / len(chosen) if a in chosen else 0.0) for a in legal}

    # One method per phase: the best legal actions (all of them: uniform).
    def play(self, k: Knowledge, d: Decision) -> list[int]:
        return list(d.legal)

    target = name = counter = keep = order = trade = play


class UniformRandom(Heuristic):
    """Uniform over the legal actions at every decision."""


def _kept(k: Knowledge, played: int) -> int:
    """The card left in hand after playing `played` from a two-card hand."""
    hand = list(k.hand)
    hand.remove(played)
    return hand[0]


class KeepHigher(Heuristic):
    """Play the lower-numbered card (keep the higher); every other decision uniform."""

    def play(self, k, d):
        return best(d.legal, lambda a: -number(a))


class KeepLower(Heuristic):
    """Play the higher-numbered card (keep the lower); every other decision uniform."""

    def play(self, k, d):
        return best(d.legal, lambda a: number(a))


class CardCounter(Heuristic):
    """Count cards, avoid self-knockouts, hold Han Solo, hit the likeliest target, keep high.

    Play, in this order of priority: never a card that surely knocks oneself out (Rancor
    when the kept card must be the lowest non-0, Mercenary when every choosable player
    surely holds more), never Han Solo, a card that surely knocks someone out, then the
    card whose play keeps the better card (`keep_value`: the higher number).
    Choose: Guard/C-3PO the player whose likeliest number is likeliest; Jabba, Luke,
    Chewbacca the player likeliest to hold their side; Mercenary the best chance to win
    minus to lose; Crumb/R2-D2 a hand not known (R2-D2: the unseen set-aside card only when
    every hand is known); Lando and Boba Fett the highest expected number (`steal_value`).
    Name (Guard, C-3PO, the C-3PO counter-guess): the likeliest number of the player's card.
    Lando: trade when the seen card has the higher `keep_value`. Leia: keep the highest
    `keep_value`, return the lowest on top so that the next player draws it first.
    Probabilities are knowledge.hand_probabilities: known card, else unseen cards.
    """

    # Values that agenda-aware subclasses change.
    def keep_value(self, k: Knowledge, card: int):
        """How good a card is to hold at the round end (Exalted One: its number)."""
        return number(card)

    def play_score(self, k: Knowledge, played: int, kept: int):
        """Preference among safe plays: keep the better card."""
        return self.keep_value(k, kept)

    def steal_value(self, k: Knowledge, target: int) -> float:
        """Boba Fett: how good taking `target`'s hand is (its expected number)."""
        return expected_number(k, target)

    # Decisions.
    def play(self, k, d):
        kept = {a: _kept(k, a) for a in d.legal}
        options = prefer(list(d.legal), lambda a: not surely_knocks_self_out(k, a, kept[a]))
        options = prefer(options, lambda a: not CHARACTERS[a].token_if_held)
        options = prefer(options, lambda a: surely_knocks_out_someone(k, a, kept[a]))
        return best(options, lambda a: self.play_score(k, a, kept[a]))

    def target(self, k, d):
        return best(d.legal, lambda a: self._target_score(k, d.card, a))

    def _target_score(self, k: Knowledge, card: int, action: int):
        if action == L.TARGET_SET_ASIDE:
            return 1 if k.set_aside is None else 0
        t = action - L.TARGET
        kept = k.hand[0]
        effect = CHARACTERS[card].effect
        if effect in _PEEK_EFFECTS:
            return 0 if t in k.known_hands else 2
        if effect == Effect.COMPARE:
            return hit_chance(k, card, t, kept) - chance_that(
                k, t, lambda c: number(c) > number(kept))
        if effect == Effect.LOOK_MAY_TRADE:
            return expected_number(k, t)
        if effect == Effect.STEAL_HAND:
            return self.steal_value(k, t)
        return hit_chance(k, card, t, kept)

    def name(self, k, d):
        return self._likeliest_number(k, d, d.chosen)

    def counter(self, k, d):
        return self._likeliest_number(k, d, k.last_play[0])

    def _likeliest_number(self, k: Knowledge, d: Decision, holder: int) -> list[int]:
        chances = number_chances(k, holder)
        return best(d.legal, lambda a: chances.get(a - L.NAME, 0.0))

    def keep(self, k, d):
        return best(d.legal, lambda a: self.keep_value(k, a - L.KEEP))

    def order(self, k, d):
        return best(d.legal, lambda a: _negated(self.keep_value(k, a - L.ORDER)))

    def trade(self, k, d):
        seen, own = k.known_hands[d.chosen], k.hand[0]
        better = self.keep_value(k, seen) > self.keep_value(k, own)
        return [L.TRADE if better else L.NO_TRADE]


def _negated(value):
    return tuple(-v for v in value) if isinstance(value, tuple) else -value


class AgendaExpert(CardCounter):
    """CardCounter that plays for the agenda (R12) among the plays it deems safe.

    Jabba's Court: in the last round of turns (deck <= players in the round) play the card
    with more Palace points (they score in the play area); Boba Fett takes the most
    expected Palace points. Rescue Mission: in the last round of turns play a Rebel card;
    Boba Fett takes the likeliest Rebel card. My Kind of Scum: a card's `keep_value` is
    how few cards that may end in an opponent's hand (unseen, or known in their hand) beat
    it within its side, then its number; it drives the play, Lando and Leia. Exalted One:
    as CardCounter. Ties fall back to CardCounter's keep-the-higher-card rule.
    (Preferring Palace plays all round lost 0.15 tokens a round to CardCounter in Jabba's
    Court, 2-3 players: it gives up Jabba and high cards that keep one in the round.)
    """

    def keep_value(self, k, card):
        if k.agenda != Agenda.MY_KIND_OF_SCUM:
            return number(card)
        rivals = list(k.unseen_counts)
        for p in k.opponents:
            for c in k.known_cards[p]:
                rivals[c] += 1
        beaten_by = sum(n for c, n in enumerate(rivals)
                        if is_rebel(c) == is_rebel(card) and number(c) > number(card))
        return (-beaten_by, number(card))

    def play_score(self, k, played, kept):
        last_round_of_turns = k.deck_size <= len(k.opponents) + 1
        if last_round_of_turns and k.agenda == Agenda.JABBAS_COURT:
            return (palace_points(played), self.keep_value(k, kept))
        if last_round_of_turns and k.agenda == Agenda.RESCUE_MISSION:
            return (is_rebel(played), self.keep_value(k, kept))
        return super().play_score(k, played, kept)

    def steal_value(self, k, target):
        if k.agenda == Agenda.JABBAS_COURT:
            return sum(p * palace_points(c) for c, p in k.hand_probabilities(target).items())
        if k.agenda == Agenda.RESCUE_MISSION:
            return chance_that(k, target, is_rebel)
        return super().steal_value(k, target)


HEURISTICS: dict[str, type[Heuristic]] = {
    "uniform": UniformRandom,
    "keep_higher": KeepHigher,
    "keep_lower": KeepLower,
    "card_counter": CardCounter,
    "agenda_expert": AgendaExpert,
}
