"""The OpenSpiel game `han_solo`: one round of the Star Wars: Han Solo card game
(docs/RULES.md H1-H12, docs/han-solo.md), a thin wrapper over the compiled engine.

    pyspiel.load_game("han_solo", {"players": 3, "dice": 6, "utility": "tokens"})

States serialize as their action history, one id per line.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from ..game import ArrayGame, ArrayState, card_game_type
from . import engine
from . import layout as L

DEFAULT_BOUNTIES = "green:10x5000+gold:5x3000+red:4x1000+blue:4x1000+falcon:1x25000"  # H10
UTILITIES = {"margin": L.UTIL_MARGIN, "tokens": L.UTIL_TOKENS}
DEFAULTS = {"players": 2, "turns": 3, "dice": 6, "best": 0, "numbers": 10, "copies": 3,
            "blues": 2, "bounties": DEFAULT_BOUNTIES, "utility": "margin"}
MAX_DICE = 20


def parse_bounties(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(counts, credits) per token kind from "green:10x5000+...+falcon:1x25000"; colours
    left out have no tokens. ValueError saying what is wrong and what is allowed."""
    counts = [0] * L.NUM_TOKEN_KINDS
    values = [0] * L.NUM_TOKEN_KINDS
    form = ("write colour:COUNTxCREDITS joined by '+', colours "
            f"{', '.join(L.TOKEN_NAMES)}, e.g. {DEFAULT_BOUNTIES!r}")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"bounties={text!r}: {form}")
    for part in text.split("+"):
        colour, _, rest = part.strip().partition(":")
        count, _, value = rest.partition("x")
        if colour not in L.TOKEN_NAMES or not count.isdigit() or not value.isdigit():
            raise ValueError(f"bounties={text!r}: cannot read {part!r}; {form}")
        k = L.TOKEN_NAMES.index(colour)
        if counts[k]:
            raise ValueError(f"bounties={text!r}: {colour} is given twice")
        counts[k], values[k] = int(count), int(value)
        if counts[k] < 1 or not 1 <= values[k] <= 1_000_000:
            raise ValueError(f"bounties={text!r}: {part!r} needs at least 1 token worth 1 "
                             "to 1,000,000 credits")
    if counts[L.TOKEN_FALCON] > 1:
        raise ValueError(f"bounties={text!r}: there is one Millennium Falcon token (H11)")
    return tuple(counts), tuple(values)


@dataclasses.dataclass(frozen=True)
class Config:
    """Validated parameters of a han_solo game."""

    players: int
    turns: int
    dice: int
    best: int
    numbers: int
    copies: int
    blues: int
    token_counts: tuple[int, ...]
    token_values: tuple[int, ...]
    utility: str

    @classmethod
    def from_params(cls, params: dict) -> Config:
        unknown = set(params) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; allowed: "
                             f"{sorted(DEFAULTS)}")
        p = {**DEFAULTS, **params}
        ranges = {"players": (2, L.MAX_PLAYERS), "turns": (1, L.MAX_TURNS),
                  "dice": (0, MAX_DICE), "best": (-1, 10), "numbers": (1, 10),
                  "copies": (1, 3), "blues": (0, 2)}
        for name, (low, high) in ranges.items():
            v = p[name]
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise ValueError(f"{name}={v!r}: must be a whole number from {low} to {high}")
        if p["best"] > p["numbers"]:
            raise ValueError(f"best={p['best']}: the deck's numbers stop at {p['numbers']}; "
                             "use -1 (no Best hand), 0 (any pair) or 1 to numbers")
        if p["utility"] not in UTILITIES:
            raise ValueError(f"utility={p['utility']!r}: allowed are {', '.join(UTILITIES)}")
        counts, values = parse_bounties(p["bounties"])
        if sum(counts) < p["players"]:
            raise ValueError(f"bounties={p['bounties']!r}: {sum(counts)} tokens, but the pot "
                             f"needs one per player ({p['players']})")
        cfg = cls(p["players"], p["turns"], p["dice"], p["best"], p["numbers"], p["copies"],
                  p["blues"], counts, values, p["utility"])
        if cfg.deck_size < 2 * cfg.players + 1:
            raise ValueError(f"numbers={cfg.numbers}, copies={cfg.copies}, blues={cfg.blues}: "
                             f"{cfg.deck_size} cards, but {cfg.players} players need at "
                             f"least {2 * cfg.players + 1} (two each and the discard)")
        return cfg

    @property
    def deck_size(self) -> int:
        return 2 * self.numbers * self.copies + self.blues

    def pile_counts(self) -> np.ndarray:
        counts = np.zeros(L.NUM_CARD_KINDS, dtype=np.int32)
        counts[L.BLUE_ZERO] = self.blues
        counts[L.GREEN:L.GREEN + self.numbers] = self.copies
        counts[L.RED:L.RED + self.numbers] = self.copies
        return counts

    @property
    def max_game_length(self) -> int:
        n = self.players
        # pot, deal, flip; per cycle n turns of <= 4 actions (choice, draw, discard, flip),
        # the dice and a redeal of <= 5 cards each; ties and picks.
        return 3 * n + 1 + self.turns * (4 * n + 1 + L.MAX_HAND * n) + 2 * n

    @property
    def max_events(self) -> int:
        n = self.players
        # as max_game_length, with the redeal's reveals and up to two reshuffles per redeal,
        # and the hands shown at the end (H6)
        return (3 * n + 1 + self.turns * (4 * n + 3 + 2 * L.MAX_HAND * n) + 2 * n
                + L.MAX_HAND * n)

    def utility_bounds(self) -> tuple[float, float]:
        present = [v / 1000 for c, v in zip(self.token_counts, self.token_values) if c]
        high, low = max(present), min(present)
        if self.utility == "tokens":
            return low, high
        return low - high, high - low


def _game_type(utility: str = "margin") -> pyspiel.GameType:
    return card_game_type("han_solo", "Star Wars: Han Solo Card Game (one round)", utility,
                          L.MAX_PLAYERS, DEFAULTS)


class HanSoloGame(ArrayGame):
    """One round of the Han Solo card game on the compiled engine."""

    def __init__(self, params: dict | None = None):
        self.config = cfg = Config.from_params(dict(params or {}))
        assert cfg.max_events <= L.MAX_EVENTS
        low, high = cfg.utility_bounds()
        info = pyspiel.GameInfo(
            num_distinct_actions=L.NUM_ACTIONS,
            max_chance_outcomes=L.NUM_CARD_KINDS,
            num_players=cfg.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if cfg.utility == "margin" else None,
            max_game_length=cfg.max_game_length)
        super().__init__(_game_type(cfg.utility), info, {**DEFAULTS, **dict(params or {})})
        self.initial_array = engine.new_state(
            cfg.players, cfg.turns, cfg.dice, cfg.best, UTILITIES[cfg.utility],
            cfg.pile_counts(), np.array(cfg.token_counts, np.int32),
            np.array(cfg.token_values, np.int32))


@dataclasses.dataclass(frozen=True)
class View:
    """Read-only view of a state for tests and tools. Cards and tokens are kinds."""

    hands: tuple[tuple[int, ...], ...]  # sorted card kinds
    discard: tuple[int, ...]  # bottom first
    pile: tuple[int, ...]  # count per card kind
    pot: tuple[int, ...]  # count per token kind
    stack: tuple[int, ...]
    got: tuple[int | None, ...]  # token kind each player took
    keys: tuple[int, ...]  # H5 rank keys, set at the round's end
    shown: bool  # the round is over and every hand is shown (H6), tokens picked or not
    phase: str
    chance: str | None
    current: int
    cycle: int


class HanSoloState(ArrayState):
    """A state of a Han Solo round."""

    _engine, _num_actions, _num_outcomes = engine, L.NUM_ACTIONS, L.NUM_ACTIONS

    def _action_to_string(self, player: int, action: int) -> str:
        if player != pyspiel.PlayerId.CHANCE:
            return L.action_to_string(action)
        s = self._s
        kind, who = int(s[L.S_CHANCE_KIND]), int(s[L.S_CUR])
        if kind == L.CH_POT:
            return f"pot gets a {L.TOKEN_NAMES[action]} token"
        if kind == L.CH_DICE:
            return "dice match" if action == 1 else "dice differ"
        if kind == L.CH_TIE:
            return f"p{action} draws closest to zero"
        if not 0 <= action < L.NUM_CARD_KINDS:
            return f"chance outcome {action} (not a card kind)"
        card = L.card_name(action)
        if kind == L.CH_FLIP:
            return f"turn up {card}"
        return f"{L.CHANCE_NAMES[kind]} {card} to p{who}"

    def is_terminal(self) -> bool:
        return bool(self._s[L.S_PHASE] == L.PH_TERMINAL)

    def returns(self) -> list[float]:
        out = np.zeros(int(self._s[L.S_NUM_PLAYERS]), dtype=np.float64)
        engine.returns(self._s, out)
        return out.tolist()

    def serialize(self) -> str:
        return "".join(f"{a}\n" for a in self.history())

    def hand(self, player: int) -> tuple[int, ...]:
        s = self._s
        base = L.S_HAND + player * L.MAX_HAND
        return tuple(sorted(s[base:base + s[L.S_HAND_N + player]].tolist()))

    def shown(self) -> bool:
        """Whether every hand is shown: the turns and rolls are over (H6), the tokens
        picked or not."""
        return bool(self._s[L.S_CYCLE] >= self._s[L.S_TURNS])

    def events(self, viewer: int | None = None) -> list[tuple[int, int, int]]:
        """(kind, player, value) per event; a private card hidden (L.HIDDEN) from others
        (H2: draws and deals are seen by their receiver only; the hands shown at the end,
        H6, are public)."""
        s = self._s
        out = []
        for i in range(int(s[L.S_EVENT_N])):
            kind, player, value = (int(x) for x in s[L.S_EVENTS + i * L.EVENT_SIZE:
                                                     L.S_EVENTS + (i + 1) * L.EVENT_SIZE])
            if viewer is not None and kind in L.PRIVATE_EVENTS and player != viewer:
                value = L.HIDDEN
            out.append((kind, player, value))
        return out

    def view(self) -> View:
        s = self._s
        n = int(s[L.S_NUM_PLAYERS])
        phase = int(s[L.S_PHASE])
        return View(
            hands=tuple(self.hand(p) for p in range(n)),
            discard=tuple(s[L.S_DISCARD:L.S_DISCARD + s[L.S_DISCARD_N]].tolist()),
            pile=tuple(s[L.S_PILE:L.S_PILE + L.NUM_CARD_KINDS].tolist()),
            pot=tuple(s[L.S_POT:L.S_POT + L.NUM_TOKEN_KINDS].tolist()),
            stack=tuple(s[L.S_STACK:L.S_STACK + L.NUM_TOKEN_KINDS].tolist()),
            got=tuple(None if k < 0 else int(k) for k in s[L.S_GOT:L.S_GOT + n]),
            keys=tuple(s[L.S_KEY:L.S_KEY + n].tolist()),
            shown=self.shown(),
            phase=L.PHASE_NAMES[phase],
            chance=L.CHANCE_NAMES[s[L.S_CHANCE_KIND]] if phase == L.PH_CHANCE else None,
            current=int(s[L.S_CUR]),
            cycle=int(s[L.S_CYCLE]))

    def __str__(self) -> str:
        v = self.view()
        names = lambda cards: ", ".join(L.card_name(c) for c in cards)  # noqa: E731
        lines = [f"phase: {v.phase} cycle: {v.cycle} pile: {sum(v.pile)} "
                 f"discard: [{names(v.discard)}] pot: {_tokens(v.pot)}"]
        for p, hand in enumerate(v.hands):
            got = "-" if v.got[p] is None else L.TOKEN_NAMES[v.got[p]]
            lines.append(f"p{p} hand [{names(hand)}] token {got}")
        return "\n".join(lines)


def _tokens(counts) -> str:
    return ",".join(f"{L.TOKEN_NAMES[k]}x{c}" for k, c in enumerate(counts) if c) or "-"


def describe(event: tuple[int, int, int]) -> str:
    """One event as text: 'p0 draw green +3', 'p1 draw ?', 'dice match'."""
    kind, player, value = event
    name = L.EVENT_NAMES[kind]
    if kind == L.E_POT:
        return f"pot {L.TOKEN_NAMES[value]}"
    if kind == L.E_FLIP:
        return f"flip {L.card_name(value)}"
    if kind == L.E_DICE:
        return "dice match" if value == 1 else "dice differ"
    if kind == L.E_RESHUFFLE:
        return f"reshuffle {value}"
    if kind in (L.E_KEEP, L.E_STAND, L.E_TIE):
        return f"p{player} {name}"
    if kind == L.E_PICK:
        return f"p{player} pick {L.TOKEN_NAMES[value]}"
    card = "?" if value == L.HIDDEN else L.card_name(value)
    return f"p{player} {name} {card}"


class HanSoloObserver:
    """Observations and information states, as named tensor pieces and strings.

    Information state (perfect recall), for player p: player (n) one-hot; hand (21) card
    counts; events (max_events, 43): per event kind one-hot (15), player one-hot (6), value
    one-hot (21: a card kind, token kind or dice outcome) and a hidden flag (1).
    Observation (the present only): player (n), hand (21), discard_top (21),
    discard (21) counts, pile_size (1), hand_sizes (n), pot (5), cycle (3), phase (5),
    current (n), shown (n, 21): every hand's card counts once shown at the end (H6), else 0.
    """

    FEATURES = L.NUM_EVENT_KINDS + L.MAX_PLAYERS + L.NUM_CARD_KINDS + 1

    def __init__(self, iig_obs_type, config: Config):
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observation of all players' private information is not "
                             "supported; use SINGLE_PLAYER or NONE")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        n, C = config.players, L.NUM_CARD_KINDS
        if self.perfect_recall:
            pieces = [("player", (n,)), ("hand", (C,)),
                      ("events", (config.max_events, self.FEATURES))]
        else:
            pieces = [("player", (n,)), ("hand", (C,)), ("discard_top", (C,)),
                      ("discard", (C,)), ("pile_size", (1,)), ("hand_sizes", (n,)),
                      ("pot", (L.NUM_TOKEN_KINDS,)), ("cycle", (L.MAX_TURNS,)),
                      ("phase", (len(L.PHASE_NAMES),)), ("current", (n,)),
                      ("shown", (n, C))]
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict, index = {}, 0
        for name, shape in pieces:
            count = int(np.prod(shape))
            self.dict[name] = self.tensor[index:index + count].reshape(shape)
            index += count

    def _viewer(self, player: int) -> int:
        return player if self.private else -1  # -1 sees no private card

    def set_from(self, state: HanSoloState, player: int) -> None:
        self.tensor.fill(0)
        d, s = self.dict, state._s
        d["player"][player] = 1
        if self.private:
            for c in state.hand(player):
                d["hand"][c] += 1
        if self.perfect_recall:
            rows = d["events"]
            value_at = L.NUM_EVENT_KINDS + L.MAX_PLAYERS
            for i, (kind, who, value) in enumerate(state.events(self._viewer(player))):
                rows[i, kind] = 1
                if who >= 0:
                    rows[i, L.NUM_EVENT_KINDS + who] = 1
                if value == L.HIDDEN:
                    rows[i, value_at + L.NUM_CARD_KINDS] = 1
                elif value >= 0 and kind != L.E_RESHUFFLE:  # a reshuffle's size is public
                    rows[i, value_at + value] = 1
            return
        v = state.view()
        if v.discard:
            d["discard_top"][v.discard[-1]] = 1
        for c in v.discard:
            d["discard"][c] += 1
        d["pile_size"][0] = sum(v.pile)
        d["hand_sizes"][:] = [len(h) for h in v.hands]
        d["pot"][:] = v.pot
        if v.cycle < L.MAX_TURNS:
            d["cycle"][v.cycle] = 1
        d["phase"][s[L.S_PHASE]] = 1
        if v.phase in ("turn", "discard", "pick"):
            d["current"][v.current] = 1
        if v.shown:  # H6: public once shown, whoever observes
            for q, hand in enumerate(v.hands):
                for c in hand:
                    d["shown"][q, c] += 1

    def string_from(self, state: HanSoloState, player: int) -> str:
        hand = (", ".join(L.card_name(c) for c in state.hand(player)) if self.private
                else "?")
        if self.perfect_recall:
            log = "; ".join(describe(e) for e in state.events(self._viewer(player)))
            return f"p{player} hand:[{hand}] | {log}"
        v = state.view()
        top = L.card_name(v.discard[-1]) if v.discard else "-"
        sizes = ",".join(str(len(h)) for h in v.hands)
        turn = f" to act:p{v.current}" if v.phase in ("turn", "discard", "pick") else ""
        shown = "".join(f" p{q}:[{', '.join(L.card_name(c) for c in h)}]"
                        for q, h in enumerate(v.hands))
        return (f"p{player} hand:[{hand}] top:{top} discard:{len(v.discard)} "
                f"pile:{sum(v.pile)} sizes:{sizes} pot:{_tokens(v.pot)} cycle:{v.cycle} "
                f"phase:{v.phase}{turn}" + (f" shown:{shown}" if v.shown else ""))


HanSoloGame._state_class, HanSoloGame._observer_class = HanSoloState, HanSoloObserver
pyspiel.register_game(_game_type(), HanSoloGame)
