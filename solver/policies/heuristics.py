"""Hand-written strategies for the engine's games, as OpenSpiel policies.

Each heuristic decides from `knowledge(state, player)` (the player's redacted log, see
knowledge.py) and the legal actions, nothing else: what is being decided follows from the
kind of the legal actions, the card being resolved and the chosen player from the public
log. So a heuristic gives the same answer in every state of an information set.

A heuristic picks a set of best actions at each decision and plays them uniformly; the
other legal actions get probability 0. Per decision (`Decision.phase`) a subclass
overrides one method returning the best actions; the default is all of them (uniform).

Cards are read from the game's rule set (`Knowledge.characters`), so every heuristic plays
both games; `heuristics_for(game)` lists the ones a game's studies and reports use (the
agenda-aware one for Jabba's Palace, the classic one for Love Letter).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
from open_spiel.python import policy as policy_lib

from spiel_game import actions
from spiel_game import layout as L
from spiel_game.cards import Agenda, Effect, Side

from solver.policies.knowledge import Knowledge, knowledge

_EPS = 1e-9
assert L.PLAY == 0  # a play action id is the character id
_GUESS_EFFECTS = (Effect.GUESS, Effect.GUESS_COUNTER)
_PEEK_EFFECTS = (Effect.PEEK, Effect.PEEK_OR_SET_ASIDE)

# Decision phases by the kind of their legal action ids (actions.decode).
_PHASE_OF_KIND = {"play": "play", "target": "target", "target_set_aside": "target",
                  "name": "name", "keep": "keep", "order": "order", "no_trade": "trade",
                  "trade": "trade"}


def number(k: Knowledge, card: int) -> int:
    return k.characters[card].number


def is_rebel(k: Knowledge, card: int) -> bool:
    return k.characters[card].side == Side.REBEL


def palace_points(k: Knowledge, card: int) -> int:
    """What a card scores in a play area for Jabba's Court (R12)."""
    return 0 if is_rebel(k, card) else number(k, card)


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
        out[number(k, c)] = out.get(number(k, c), 0.0) + p
    return out


def expected_number(k: Knowledge, opponent: int) -> float:
    return sum(p * number(k, c) for c, p in k.hand_probabilities(opponent).items())


def hit_chance(k: Knowledge, card: int, target: int, kept: int) -> float:
    """Probability that playing `card` on `target` knocks them out, keeping `kept`.

    Guard and C-3PO name the most likely number they may name (not 1 for the classic
    Guard, C2); Mercenary and Baron win on a lower card; a Prince makes a Princess holder
    discard her (C7).
    """
    c = k.characters[card]
    if c.effect in _GUESS_EFFECTS:
        return max((p for n, p in number_chances(k, target).items()
                    if n not in c.names_barred), default=0.0)
    if c.effect == Effect.ELIMINATE_IF_SIDE:
        return chance_that(k, target, lambda x: k.characters[x].side == c.param_a
                           and number(k, x) <= c.param_b)
    if c.effect == Effect.COMPARE:
        return chance_that(k, target, lambda x: number(k, x) < number(k, kept))
    if c.effect == Effect.DISCARD_REDRAW:
        return chance_that(k, target, lambda x: k.characters[x].out_if_discarded)
    return 0.0


def surely_knocks_self_out(k: Knowledge, card: int, kept: int) -> bool:
    """Playing `card` and keeping `kept` surely puts this player out (Rancor R7, Mercenary
    or Baron, the Princess C7).

    Rancor: no other player in the round can hold a number between 1 and kept's - 1.
    Mercenary, Baron: every player it may choose surely holds a higher number. The
    Princess: playing her; a Prince with nobody else to choose while keeping her.
    """
    c = k.characters[card]
    n = number(k, kept)
    if c.out_if_discarded:
        return True
    if c.effect == Effect.ELIMINATE_LOWEST:
        return n > 0 and all(chance_that(k, o, lambda x: 0 < number(k, x) < n) < _EPS
                             for o in k.opponents)
    if c.effect == Effect.COMPARE:
        targets = k.targetable()
        return bool(targets) and all(
            chance_that(k, t, lambda x: number(k, x) > n) > 1 - _EPS for t in targets)
    if c.effect == Effect.DISCARD_REDRAW:
        return not k.targetable() and k.characters[kept].out_if_discarded
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
        return best(d.legal, lambda a: -number(k, a))


class KeepLower(Heuristic):
    """Play the higher-numbered card (keep the lower); every other decision uniform."""

    def play(self, k, d):
        return best(d.legal, lambda a: number(k, a))


class CardCounter(Heuristic):
    """Count cards, avoid self-knockouts, hold Han Solo, hit the likeliest target, keep high.

    Play, in this order of priority: never a card that surely knocks oneself out (Rancor
    when the kept card must be the lowest non-0, Mercenary or Baron when every choosable
    player surely holds more, the Princess), never Han Solo, a card that surely knocks
    someone out, then the card whose play keeps the better card (`keep_value`: the higher
    number).
    Choose: Guard/C-3PO the player whose likeliest number is likeliest; Jabba, Luke,
    Chewbacca the player likeliest to hold their side; Mercenary, Baron the best chance to
    win minus to lose; Crumb/R2-D2/Priest a hand not known (R2-D2: the unseen set-aside
    card only when every hand is known); Lando, Boba Fett and the classic King the highest
    expected number (`steal_value`); a Prince the likeliest Princess holder, then the
    highest expected number, oneself last.
    Name (Guard, C-3PO, the C-3PO counter-guess): the likeliest number of the player's
    card that may be named. Lando: trade when the seen card has the higher `keep_value`.
    Leia, Chancellor: keep the highest `keep_value`, return the lowest on top so that the
    next player draws it first.
    Probabilities are knowledge.hand_probabilities: known card, else unseen cards.
    """

    # Values that agenda-aware subclasses change.
    def keep_value(self, k: Knowledge, card: int):
        """How good a card is to hold at the round end (Exalted One, classic: its number)."""
        return number(k, card)

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
        options = prefer(options, lambda a: not k.characters[a].token_if_held)
        options = prefer(options, lambda a: surely_knocks_out_someone(k, a, kept[a]))
        return best(options, lambda a: self.play_score(k, a, kept[a]))

    def target(self, k, d):
        return best(d.legal, lambda a: self._target_score(k, d.card, a))

    def _target_score(self, k: Knowledge, card: int, action: int):
        if action == L.TARGET_SET_ASIDE:
            return 1 if k.set_aside is None else 0
        t = action - L.TARGET
        kept = k.hand[0]
        effect = k.characters[card].effect
        if effect in _PEEK_EFFECTS:
            return 0 if t in k.known_hands else 2
        if effect == Effect.COMPARE:
            return hit_chance(k, card, t, kept) - chance_that(
                k, t, lambda c: number(k, c) > number(k, kept))
        if effect in (Effect.LOOK_MAY_TRADE, Effect.TRADE_HANDS):
            return expected_number(k, t)
        if effect == Effect.STEAL_HAND:
            return self.steal_value(k, t)
        if effect == Effect.DISCARD_REDRAW:
            if t == k.player:
                return (-1.0, 0.0)
            return (hit_chance(k, card, t, kept), expected_number(k, t))
        return hit_chance(k, card, t, kept)

    def name(self, k, d):
        return self._likeliest_number(k, d, d.chosen)

    def counter(self, k, d):
        return self._likeliest_number(k, d, k.last_play[0])

    def _likeliest_number(self, k: Knowledge, d: Decision, holder: int) -> list[int]:
        chances = number_chances(k, holder)
        return best(d.legal, lambda a: chances.get(actions.decode(a)[1], 0.0))

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
            return number(k, card)
        rivals = list(k.unseen_counts)
        for p in k.opponents:
            for c in k.known_cards[p]:
                rivals[c] += 1
        beaten_by = sum(n for c, n in enumerate(rivals)
                        if is_rebel(k, c) == is_rebel(k, card) and number(k, c) > number(k, card))
        return (-beaten_by, number(k, card))

    def play_score(self, k, played, kept):
        last_round_of_turns = k.deck_size <= len(k.opponents) + 1
        if last_round_of_turns and k.agenda == Agenda.JABBAS_COURT:
            return (palace_points(k, played), self.keep_value(k, kept))
        if last_round_of_turns and k.agenda == Agenda.RESCUE_MISSION:
            return (is_rebel(k, played), self.keep_value(k, kept))
        return super().play_score(k, played, kept)

    def steal_value(self, k, target):
        if k.agenda == Agenda.JABBAS_COURT:
            return sum(p * palace_points(k, c)
                       for c, p in k.hand_probabilities(target).items())
        if k.agenda == Agenda.RESCUE_MISSION:
            return chance_that(k, target, lambda c: is_rebel(k, c))
        return super().steal_value(k, target)


class ClassicExpert(CardCounter):
    """CardCounter with what classic Love Letter players do (docs/love-letter.md).

    From CardCounter: never discard the Princess (never play her, never choose oneself
    with a Prince while holding her), Guard the likeliest card (the likeliest number the
    Guard may name, of the player likeliest to hold it), Prince the likeliest Princess.
    Besides:
    - a Countess played is read (`inferred`): her player held a card that forces her (the
      King, a Prince) or a higher one (the Princess), as a player keeping the higher card
      would; the Guard chooses and names by that reading;
    - the King: its play is worth what one gets, the best choosable player's expected
      number (`steal_value`), not the card one keeps and gives away.
    On Jabba's Palace (no Countess, no King) it plays as CardCounter.
    """

    def inferred(self, k: Knowledge, q: int) -> dict[int, float]:
        """q's card as the Guard reads it: after q's last play, the Countess, only the
        cards that force her or are higher, if any may be q's; else hand_probabilities."""
        probs = k.hand_probabilities(q)
        last = k.last_plays[q]
        if last < 0 or not k.characters[last].forced_by:
            return probs
        read = k.characters[last]
        likely = {c: p for c, p in probs.items()
                  if c in read.forced_by or number(k, c) > read.number}
        if not likely:
            return probs
        total = sum(likely.values())
        return {c: p / total for c, p in likely.items()}

    def _inferred_numbers(self, k: Knowledge, q: int) -> dict[int, float]:
        out: dict[int, float] = {}
        for c, p in self.inferred(k, q).items():
            out[number(k, c)] = out.get(number(k, c), 0.0) + p
        return out

    def _target_score(self, k, card, action):
        c = k.characters[card]
        if c.effect not in _GUESS_EFFECTS or action == L.TARGET_SET_ASIDE:
            return super()._target_score(k, card, action)
        chances = self._inferred_numbers(k, action - L.TARGET)
        return max((p for n, p in chances.items() if n not in c.names_barred), default=0.0)

    def name(self, k, d):
        chances = self._inferred_numbers(k, d.chosen)
        return best(d.legal, lambda a: chances.get(actions.decode(a)[1], 0.0))

    def play_score(self, k, played, kept):
        targets = k.targetable()
        if k.characters[played].effect == Effect.TRADE_HANDS and targets:
            return max(self.steal_value(k, t) for t in targets)
        return super().play_score(k, played, kept)


HEURISTICS: dict[str, type[Heuristic]] = {
    "uniform": UniformRandom,
    "keep_higher": KeepHigher,
    "keep_lower": KeepLower,
    "card_counter": CardCounter,
    "agenda_expert": AgendaExpert,
    "classic_expert": ClassicExpert,
}
# The heuristics of each game's studies and reports, strongest first (the agenda-aware
# one plays classic Love Letter, which has no agenda, as card_counter does). The first is
# the game's default heuristic, which ends its chain of tables (solver/policies/chain.py).
GAME_HEURISTICS: dict[str, tuple[str, ...]] = {
    "jabbas_palace": ("agenda_expert", "card_counter", "keep_higher", "keep_lower",
                      "uniform"),
    "love_letter": ("classic_expert", "card_counter", "keep_higher", "keep_lower",
                    "uniform"),
}
assert all(set(names) <= set(HEURISTICS) for names in GAME_HEURISTICS.values())


class EngineHeuristic(policy_lib.Policy):
    """A compiled heuristic of a game on its own engine as an OpenSpiel policy (every
    player), so a play-out and the policy agree. A subclass names `engine` (its
    `legal_actions`), `features` (`HEURISTIC_NAMES`, `heuristic_probs`) and
    `max_actions`."""

    engine = None
    features = None
    max_actions = 0

    def __init__(self, game, name: str):
        names = self.features.HEURISTIC_NAMES
        if name not in names:
            raise ValueError(f"heuristic {name!r}: known are {', '.join(names)}")
        super().__init__(game, list(range(game.num_players())))
        self.name = name
        self.kind = names.index(name)

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        s = state.array
        acts = np.empty(self.max_actions, dtype=np.int32)
        n = self.engine.legal_actions(s, acts)
        out = np.zeros(self.max_actions)
        self.features.heuristic_probs(s, self.kind, acts, n, out)
        return {int(acts[i]): float(out[i]) for i in range(n)}

def heuristics_for(game) -> dict[str, type[Heuristic]]:
    """The heuristics of a game's studies and reports (GAME_HEURISTICS), by name, in the
    order of HEURISTICS."""
    names = GAME_HEURISTICS[game.get_type().short_name]
    return {name: cls for name, cls in HEURISTICS.items() if name in names}
