"""What one player knows in a round, read only from the log as that player saw it.

`knowledge(state, player)` replays `state.events(player)` (the redacted log, docs/RULES.md R2,
R10) with the game's public parameters (deck composition, number of players, agenda). It
never reads hidden state, so two states in one information set give equal `Knowledge`.

Card counting: every physical card is in exactly one place. The cards whose place this
player knows are the face-up cards, every play area (played, discarded when out, taken by
Boba Fett), the own hand, opponents' cards known for sure (below), cards the player
returned to the deck bottom with Leia and has not seen drawn, and the set-aside card once
seen with R2-D2. The rest are `unseen_counts`: the deck, the face-down set-aside card,
and the opponents' hands not known.

A card in an opponent's hand is known for sure after a look at it (Salacious Crumb, R2-D2,
Lando, both sides of a Mercenary), after trading it to them with Lando or watching two
known hands trade (R10), and when they draw a card this player put on the deck bottom with
Leia (R9) or the set-aside card this player saw. It stays known while they play other
cards; it is forgotten when they play that character (they may have kept the drawn copy),
when they keep and return cards with Leia, and when it leaves their hand (out, Boba Fett).
A Guard or C-3PO miss, a Jabba/Luke/Chewbacca miss and a Mercenary tie narrow a hand down
but do not make it known; `hand_probabilities` ignores them.

Classic Love Letter (docs/RULES.md C1-C13) logs the same events with its own cards: a Priest
looks as Salacious Crumb, a Baron compares as the Mercenary, a King trades as Lando, a
Chancellor keeps and returns as Leia; a Prince's victim discards face up (E_DISCARD) and
draws a new hand.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from spiel_game import layout as L
from spiel_game.cards import CHARACTERS, Agenda, Character, Effect
from spiel_game.events import HIDDEN, Event

_DECK_SOURCES = (L.SRC_DEAL, L.SRC_DECK, L.SRC_BOTTOM)  # draws that make the deck smaller


@dataclasses.dataclass(frozen=True)
class Knowledge:
    """One player's knowledge of a round. Cards are character ids; tuples per seat."""

    player: int
    num_players: int
    agenda: Agenda
    deck_counts: tuple[int, ...]  # the game's deck composition (public)
    hand: tuple[int, ...]  # own hand, sorted
    hand_sizes: tuple[int, ...]
    play_areas: tuple[tuple[int, ...], ...]
    face_up: tuple[int, ...]
    in_round: tuple[bool, ...]
    protected: tuple[bool, ...]  # Bib Fortuna, until their next turn starts (R13)
    deck_size: int  # cards left to draw, Leia's returned cards included (R9)
    bottom: tuple[int, ...]  # Leia's returned cards in draw order; HIDDEN if not ours
    set_aside: int | None  # the face-down card if this player saw it (R2-D2)
    set_aside_taken: bool  # a Boba Fett victim took it (R8)
    known_cards: tuple[tuple[int, ...], ...]  # per seat: opponents' cards known for sure
    unseen_counts: tuple[int, ...]  # per character id: cards whose place is unknown
    last_play: tuple[int, int] | None  # (player, card) of the latest play
    chosen: int | None  # the player chosen for the latest play, if any yet
    characters: tuple[Character, ...] = CHARACTERS  # the rule set's cards, by id
    last_plays: tuple[int, ...] = ()  # per seat: the card they played last, -1 none

    @property
    def opponents(self) -> tuple[int, ...]:
        """Other players still in the round."""
        return tuple(p for p in range(self.num_players) if p != self.player and self.in_round[p])

    @property
    def known_hands(self) -> dict[int, int]:
        """Opponent -> their single hand card, for opponents whose hand is known for sure."""
        return {p: cards[0] for p, cards in enumerate(self.known_cards)
                if p != self.player and self.hand_sizes[p] == 1 and len(cards) == 1}

    def targetable(self) -> tuple[int, ...]:
        """Opponents this player may choose (R4): in the round, not protected."""
        return tuple(p for p in self.opponents if not self.protected[p])

    def hand_probabilities(self, opponent: int) -> dict[int, float]:
        """Character id -> probability for the single card `opponent` holds.

        The known card with probability 1; otherwise proportional to `unseen_counts`
        (plain card counting: the opponent's play history, misses and ties are ignored).
        """
        known = self.known_hands.get(opponent)
        if known is not None:
            return {known: 1.0}
        total = sum(self.unseen_counts)
        return {c: n / total for c, n in enumerate(self.unseen_counts) if n}


def knowledge(state, player: int) -> Knowledge:
    """Replay the log as `player` saw it; see the module docstring."""
    return knowledge_from_events(state.events(player), player, state.get_game().config)


def knowledge_from_events(seen: list[Event], player: int, config) -> Knowledge:
    """`knowledge` from the events as `player` saw them (`events.events(s, player)`) and
    the game's config, for an engine state without its pyspiel wrapper."""
    tracker = _Tracker(player, config.num_players, config.deck.counts,
                       config.rules.characters)
    for event in seen:
        tracker.apply(event)
    return tracker.freeze(config.agenda)


class _Tracker:
    """Mutable replay state behind `knowledge`."""

    def __init__(self, player: int, num_players: int, deck_counts: tuple[int, ...],
                 characters: tuple[Character, ...] = CHARACTERS):
        self.player = player
        self.characters = characters
        self.n = num_players
        self.deck_counts = tuple(deck_counts)
        # Per seat, the cards this player knows to be in that hand: all of the own hand,
        # the opponents' known cards.
        self.cards = [[] for _ in range(num_players)]
        self.hand_sizes = [0] * num_players
        self.areas = [[] for _ in range(num_players)]
        self.face_up = []
        self.in_round = [True] * num_players
        self.protected = [False] * num_players
        self.deck_size = sum(deck_counts) - 1  # one card is set aside face down (R1)
        self.bottom = []
        self.returning = []  # own Leia cards between keep and return
        self.set_aside = None
        self.set_aside_taken = False
        self.last_play = None
        self.last_plays = [-1] * num_players
        self.chosen = None

    def apply(self, e: Event) -> None:
        handler = _HANDLERS.get(e.kind)
        if handler is not None:
            handler(self, e)

    def _lose(self, p: int, card: int) -> None:
        """p's hand loses a copy of `card`, which is now public. If p played a copy
        of a known card, the known copy may be the one still held: it is forgotten."""
        self.hand_sizes[p] -= 1
        if card in self.cards[p]:
            self.cards[p].remove(card)

    # Event handlers (`_HANDLERS` maps event kinds to them) ------------------------------

    def _face_up(self, e):
        self.face_up.append(e.card)
        self.deck_size -= 1

    def _draw(self, e):
        card = e.card
        if e.extra in _DECK_SOURCES:
            self.deck_size -= 1
        if e.extra == L.SRC_BOTTOM:
            top = self.bottom.pop(0)
            card = top if card == HIDDEN else card
        elif e.extra == L.SRC_SET_ASIDE:
            self.set_aside_taken = True
            if card == HIDDEN and self.set_aside is not None:
                card = self.set_aside
        # R13: a turn starts with a draw. Other draws never reach a protected player:
        # a Boba Fett victim was choosable, a Leia player is already on their turn.
        self.protected[e.actor] = False
        self.hand_sizes[e.actor] += 1
        if card != HIDDEN:
            self.cards[e.actor].append(card)

    def _play(self, e):
        self._lose(e.actor, e.card)
        self.areas[e.actor].append(e.card)
        if self.characters[e.card].effect == Effect.PROTECT:
            self.protected[e.actor] = True
        self.last_play = (e.actor, e.card)
        self.last_plays[e.actor] = e.card
        self.chosen = None

    def _target(self, e):
        self.chosen = e.other

    def _out(self, e):
        self._lose(e.actor, e.card)
        self.areas[e.actor].append(e.card)
        self.in_round[e.actor] = False
        self.protected[e.actor] = False

    def _discard(self, e):  # classic Prince: actor discards CARD face up, then draws
        self._lose(e.actor, e.card)
        self.areas[e.actor].append(e.card)

    def _see(self, e):  # CARD is visible only in the viewer's own looks
        if e.card != HIDDEN:
            self.cards[e.other] = [e.card]

    def _see_set_aside(self, e):
        if e.card != HIDDEN:
            self.set_aside = e.card

    def _trade(self, e):  # actor gives CARD to other and gets EXTRA
        a, b = e.actor, e.other
        if e.card != HIDDEN:
            self.cards[a], self.cards[b] = [e.extra], [e.card]
        else:  # two one-card hands swap places: what was known moves with them
            self.cards[a], self.cards[b] = self.cards[b], self.cards[a]

    def _steal(self, e):  # actor takes other's CARD face up
        self.cards[e.other] = []
        self.hand_sizes[e.other] = 0
        self.areas[e.actor].append(e.card)

    def _keep(self, e):  # Leia: an opponent may keep or return a known card
        kept = [] if e.card == HIDDEN else [e.card]
        if kept:
            self.returning = list(self.cards[e.actor])
            self.returning.remove(e.card)
        self.cards[e.actor] = kept
        self.hand_sizes[e.actor] = 1

    def _return(self, e):  # OTHER cards, CARD above EXTRA
        self.bottom.extend((e.card, e.extra)[:e.other])
        self.deck_size += e.other
        self.returning = []

    def freeze(self, agenda: Agenda) -> Knowledge:
        placed = Counter(self.face_up + self.returning)
        for p in range(self.n):
            placed.update(self.areas[p])
            placed.update(self.cards[p])
        placed.update(c for c in self.bottom if c != HIDDEN)
        if self.set_aside is not None and not self.set_aside_taken:
            placed[self.set_aside] += 1
        unseen = tuple(self.deck_counts[c] - placed[c] for c in range(len(self.deck_counts)))
        assert min(unseen) >= 0, f"card counting went negative: {unseen}"
        return Knowledge(
            player=self.player,
            num_players=self.n,
            agenda=Agenda(agenda),
            deck_counts=self.deck_counts,
            hand=tuple(sorted(self.cards[self.player])),
            hand_sizes=tuple(self.hand_sizes),
            play_areas=tuple(tuple(a) for a in self.areas),
            face_up=tuple(self.face_up),
            in_round=tuple(self.in_round),
            protected=tuple(self.protected),
            deck_size=self.deck_size,
            bottom=tuple(self.bottom),
            set_aside=self.set_aside,
            set_aside_taken=self.set_aside_taken,
            known_cards=tuple(() if p == self.player else tuple(sorted(k))
                              for p, k in enumerate(self.cards)),
            unseen_counts=unseen,
            last_play=self.last_play,
            chosen=self.chosen,
            characters=self.characters,
            last_plays=tuple(self.last_plays))


_HANDLERS = {
    L.E_FACE_UP: _Tracker._face_up,
    L.E_DRAW: _Tracker._draw,
    L.E_PLAY: _Tracker._play,
    L.E_TARGET: _Tracker._target,
    L.E_OUT: _Tracker._out,
    L.E_DISCARD: _Tracker._discard,
    L.E_SEE: _Tracker._see,
    L.E_SEE_SET_ASIDE: _Tracker._see_set_aside,
    L.E_TRADE: _Tracker._trade,
    L.E_STEAL: _Tracker._steal,
    L.E_KEEP: _Tracker._keep,
    L.E_RETURN: _Tracker._return,
}
