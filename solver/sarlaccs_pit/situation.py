"""A sarlaccs_pit position as a player describes it at their turn (docs/sarlaccs-pit.md
"Hints"), read and checked against the rules (docs/RULES.md S1-S13), and the engine state
it is.

Fields (a mapping: a situation file's, the command line's flags, the web API's JSON):

| field | meaning | default |
|---|---|---|
| `players`, `seat` | the table (2-4) and my seat, 0 moving first | 2, 0 |
| `board` | `default` or the path of a board file (S1), checked | `default` |
| `positions` | every hero's space by seat: a space name or `detention` | all `detention` |
| `jabba` | Jabba's space: his start or a grey space (S8) | his start |
| `defeated` | the guard posts whose guards are defeated (S6) | none |
| `guards_left` | instead of `defeated`: the posts whose guards still stand | |
| `points` | every seat's Jedi points (S13) | 0 each, if no guard is defeated |
| `hand` | my cards, 1 to 4 (3 after a Take The Force, S7) | required |
| `hand_sizes` | every seat's hand size (others': 4 unless said) | 4 |
| `discard` | the discard pile's cards now (face up, Jabba cards too: S8, S10) | none |
| `turn` | turns begun, mine included (S11's limit) | 1 |
| `decision` | `play` (a turn's start) or `jabba_move` (a Jabba card drawn, S8) | `play` |

Card names: 1 to 6, force, any_space, change_places, take_force, jabba (also the cards'
printed names). Anything impossible raises solver.hint.parse.SituationError naming the
field, what is wrong and what is allowed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from spiel_game.sarlacc import engine
from spiel_game.sarlacc import layout as L

from solver.hint.parse import SituationError

GAME = "sarlaccs_pit"
KEYS = ("game", "players", "seat", "board", "positions", "jabba", "defeated", "guards_left",
        "points", "hand", "hand_sizes", "discard", "turn", "decision")
DECISIONS = {"play": L.PH_PLAY, "jabba_move": L.PH_JABBA_MOVE}
SHORT_NAMES = ("1", "2", "3", "4", "5", "6", "force", "any_space", "change_places",
               "take_force", "jabba")
DETENTION_NAME = "detention"
_ALIASES = {**{n: k for k, n in enumerate(SHORT_NAMES)},
            **{n.lower(): k for k, n in enumerate(L.CARD_NAMES)},
            "the_force": L.FORCE, "jabba_the_hutt": L.JABBA}


def card(text) -> int:
    """A card kind from its name; SituationError listing the names allowed."""
    key = str(text).strip().lower()
    found = _ALIASES.get(key, _ALIASES.get(key.replace(" ", "_")))
    if found is None or isinstance(text, bool):
        raise SituationError(f"unknown card {text!r}: the cards are "
                             f"{', '.join(SHORT_NAMES)}")
    return found


def _items(value, field: str) -> list:
    """A list from a list or from text 'a,b,c'."""
    if isinstance(value, str):
        return [x.strip() for x in value.split(",") if x.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise SituationError(f"{field}={value!r}: give a list, or names separated by commas")


def _whole(value, field: str, low: int, high: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SituationError(f"{field}={value!r}: a whole number from {low} to {high}")
    return value


@dataclasses.dataclass(frozen=True)
class SarlaccSituation:
    """A checked position at the start of my turn: every field as the engine counts it."""

    players: int
    seat: int
    board: str
    positions: tuple[int, ...]  # space ids, L.DETENTION
    jabba: int
    defeated: frozenset[int]  # post spaces
    points: tuple[int, ...]
    hand: tuple[int, ...]  # card kinds, sorted
    hand_sizes: tuple[int, ...]
    discard: tuple[int, ...]  # card kinds, sorted
    turn: int
    decision: str = "play"  # a key of DECISIONS

    def game_params(self) -> dict:
        return {"players": self.players, "board": self.board}


def from_mapping(data: dict, game_of) -> tuple[SarlaccSituation, object]:
    """(the situation, its pyspiel game) from a situation mapping; `game_of(params)` loads
    the game (its board checked). SituationError naming the first fault."""
    if not isinstance(data, dict):
        raise SituationError("a situation is a table of fields")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise SituationError(f"unknown field(s) {', '.join(unknown)} for sarlaccs_pit; "
                             f"allowed: {', '.join(KEYS)}")
    players = _whole(data.get("players", 2), "players", 2, L.MAX_PLAYERS)
    seat = _whole(data.get("seat", 0), "seat", 0, players - 1)
    board_name = data.get("board", "default")
    try:
        game = game_of({"players": players, "board": board_name})
    except ValueError as err:  # a board file that breaks its checks, among them
        raise SituationError(str(err)) from None
    board, cfg = game.config.board, game.config

    def space(name, field: str) -> int:
        try:
            return board.space(str(name))
        except KeyError:
            raise SituationError(f"{field}: {name!r} is not a space of board "
                                 f"{board.source} (its spaces: {', '.join(board.names)})"
                                 ) from None

    posts = {s: g for s, g in board.posts}
    post_names = ", ".join(board.names[s] for s in posts)
    if "defeated" in data and "guards_left" in data:
        raise SituationError("defeated and guards_left both given: give one")
    if "guards_left" in data:
        left = {space(n, "guards_left") for n in _items(data["guards_left"], "guards_left")}
        given = left
        defeated = set(posts) - left
    else:
        defeated = {space(n, "defeated") for n in _items(data.get("defeated", []),
                                                         "defeated")}
        given = defeated
    for s in given:
        if s not in posts:
            raise SituationError(f"{board.names[s]!r} is not a guard's post; the posts are "
                                 f"{post_names}")
    gamorreans_left = [s for s, g in posts.items() if g == L.GAMORREAN and s not in defeated]
    for s in sorted(defeated):
        if posts[s] != L.GAMORREAN and gamorreans_left:
            raise SituationError(
                f"{L.GUARD_NAMES[posts[s]]} ({board.names[s]}) defeated while Gamorreans "
                f"stand ({', '.join(board.names[g] for g in gamorreans_left)}): every "
                "Gamorrean is defeated before Nikto and Boba Fett (S6)")
    all_defeated = len(defeated) == len(posts)

    positions_in = data.get("positions", [DETENTION_NAME] * players)
    if isinstance(positions_in, dict):
        positions_in = [positions_in.get(str(q), positions_in.get(q, DETENTION_NAME))
                        for q in range(players)]
    positions_in = _items(positions_in, "positions")
    if len(positions_in) != players:
        raise SituationError(f"positions: {len(positions_in)} given for {players} players; "
                             "give every hero's space by seat (a space or detention)")
    jabba = space(data.get("jabba", board.names[board.jabba_start]), "jabba")
    if jabba != board.jabba_start and jabba not in board.greys:
        raise SituationError(f"jabba={board.names[jabba]!r}: Jabba stands on his start "
                             f"{board.names[board.jabba_start]!r} or a grey space "
                             f"({', '.join(board.names[g] for g in board.greys)}) (S8)")
    positions = []
    for q, name in enumerate(positions_in):
        if str(name).strip().lower() == DETENTION_NAME:
            positions.append(L.DETENTION)
            continue
        s = space(name, f"positions (p{q})")
        if s in posts and s not in defeated:
            raise SituationError(f"positions: p{q} on {board.names[s]!r}, where a guard "
                                 "stands; a post is a space once its guard is defeated (S5)")
        if s == jabba:
            raise SituationError(f"positions: p{q} on Jabba's space {board.names[s]!r}")
        if s in board.top_deck and not all_defeated:
            raise SituationError(f"positions: p{q} on the Top Deck ({board.names[s]!r}) "
                                 "while guards stand; it opens once every guard is "
                                 "defeated (S5)")
        if s in positions:
            raise SituationError(f"positions: p{positions.index(s)} and p{q} both on "
                                 f"{board.names[s]!r}; a space holds one hero (S5)")
        positions.append(s)

    worth = sum(L.GUARD_POINTS[posts[s]] for s in defeated)
    if "points" in data:
        points = [_whole(x, "points", 0, cfg.total_points)
                  for x in _items(data["points"], "points")]
        if len(points) != players:
            raise SituationError(f"points: {len(points)} given for {players} players")
    elif defeated:
        raise SituationError(f"points: give every seat's Jedi points; the defeated guards "
                             f"are worth {worth} in all (S13)")
    else:
        points = [0] * players
    if sum(points) != worth:
        raise SituationError(f"points {points} add up to {sum(points)}, but the defeated "
                             f"guards are worth {worth} (S13: Gamorrean 1, Nikto 2, Boba "
                             "Fett 2)")

    decision = data.get("decision", "play")
    if decision not in DECISIONS:
        raise SituationError(f"decision={decision!r}: allowed are {', '.join(DECISIONS)}")
    drawing = decision == "jabba_move"  # mid-draw: fewer than four cards in hand (S4)
    least, most = (0, L.HAND_SIZE - 1) if drawing else (1, L.HAND_SIZE)
    if "hand" not in data:
        raise SituationError(f"hand: give your cards ({least} to {most}), e.g. "
                             "'4,6,force,any_space'")
    hand = sorted(card(c) for c in _items(data["hand"], "hand"))
    sizes_in = data.get("hand_sizes")
    sizes = ([L.HAND_SIZE] * players if sizes_in is None else
             [_whole(x, "hand_sizes", 0, L.HAND_SIZE) for x in _items(sizes_in, "hand_sizes")])
    if len(sizes) != players:
        raise SituationError(f"hand_sizes: {len(sizes)} given for {players} players")
    if sizes_in is None:
        sizes[seat] = len(hand)
    if not least <= len(hand) <= most or len(hand) != sizes[seat]:
        raise SituationError(
            f"hand: {len(hand)} cards; " + (
                f"drawing after a Jabba card, a hand holds {least} to {most} (S4)" if drawing
                else f"a hand at the start of a turn holds {L.HAND_SIZE} (3 after a Take The "
                     f"Force, S7), 1 to {L.HAND_SIZE}")
            + ("" if sizes_in is None else f", and hand_sizes says {sizes[seat]}"))
    if L.JABBA in hand:
        raise SituationError("hand: a Jabba card never stays in a hand (S8); the cards "
                             f"are {', '.join(SHORT_NAMES[:-1])}")
    discard = sorted(card(c) for c in _items(data.get("discard", []), "discard"))
    if drawing and L.JABBA not in discard:
        raise SituationError("decision=jabba_move: the Jabba card you drew lies face up on "
                             "the discard pile (S8); give it in discard")
    deck = cfg.pile_counts().copy()
    deck[L.JABBA] = game.initial_array[L.S_JABBA_CARDS]
    seen = np.bincount(np.array(hand + discard, dtype=np.int64), minlength=L.NUM_KINDS)
    for k in range(L.NUM_KINDS):
        if seen[k] > deck[k]:
            raise SituationError(f"card {L.card_name(k)!r}: {seen[k]} in your hand and the "
                                 f"discard pile, but the deck holds {deck[k]}")
    unknown_cards = int(deck[:L.JABBA].sum() - seen[:L.JABBA].sum())
    others = sum(sizes) - len(hand)
    if others > unknown_cards:
        raise SituationError(f"the others hold {others} cards, but only {unknown_cards} "
                             "cards besides Jabba's are neither yours nor in the discard "
                             "pile")
    turn = _whole(data.get("turn", 1), "turn", 1, cfg.max_turns)
    return SarlaccSituation(players, seat, str(board_name), tuple(positions), jabba,
                            frozenset(defeated), tuple(points), tuple(hand), tuple(sizes),
                            tuple(discard), turn, decision), game


def present_state(game, sit: SarlaccSituation, hands: list) -> np.ndarray:
    """The engine state at the start of my turn with every seat's hand (`hands[q]`: a
    count per card kind) and the rest of the deck in the draw pile: the game's initial
    state (its board, S1) after the deal (the engine's own chance actions, S3), with the
    position's public fields written in (heroes, guards, Jabba, points, discard pile) and
    the turn begun (S9's block read by the engine's `blocked`). ValueError if the cards do
    not add up to the deck."""
    s = game.initial_array.copy()
    while s[L.S_PHASE] == L.PH_CHANCE:  # the deal, then Jabba's cards shuffled in (S3)
        outcomes = np.empty(L.NUM_KINDS, dtype=np.int32)
        engine.chance_outcomes(s, outcomes, np.empty(L.NUM_KINDS))
        engine.apply_action(s, outcomes[0])
    total = s[L.S_PILE:L.S_PILE + L.NUM_KINDS] + s[L.S_HAND:L.S_HAND + L.MAX_PLAYERS *
                                                   L.NUM_KINDS].reshape(-1, L.NUM_KINDS
                                                                        ).sum(axis=0)
    s[L.S_HAND:L.S_HAND + L.MAX_PLAYERS * L.NUM_KINDS] = 0
    s[L.S_HAND_N:L.S_HAND_N + L.MAX_PLAYERS] = 0
    s[L.S_EVENT_N] = 0  # the deal's log: not this position's (nobody's information here)
    held = np.zeros(L.NUM_KINDS, dtype=np.int64)
    for q, counts in enumerate(hands):
        s[L.S_HAND + q * L.NUM_KINDS:L.S_HAND + (q + 1) * L.NUM_KINDS] = counts
        s[L.S_HAND_N + q] = int(np.sum(counts))
        held += counts
    discard = np.bincount(np.array(sit.discard, dtype=np.int64), minlength=L.NUM_KINDS)
    pile = total - held - discard
    if (pile < 0).any():
        raise ValueError(f"the hands and the discard pile hold more cards than the deck: "
                         f"{pile.tolist()}")
    s[L.S_PILE:L.S_PILE + L.NUM_KINDS] = pile
    s[L.S_PILE_N] = int(pile.sum())
    s[L.S_DISCARD:L.S_DISCARD + L.NUM_KINDS] = discard
    s[L.S_POS:L.S_POS + sit.players] = sit.positions
    s[L.S_POINTS:L.S_POINTS + sit.players] = sit.points
    s[L.S_JABBA] = sit.jabba
    for post in sit.defeated:
        guard = s[L.S_GUARD + post] - 1
        s[L.S_GUARD + post] = 0
        s[L.S_GUARDS_LEFT] -= 1
        s[L.S_GAMORREANS_LEFT] -= guard == L.GAMORREAN
    s[L.S_CUR] = sit.seat
    s[L.S_TURN] = sit.turn
    s[L.S_BLOCKED] = 1 if engine.blocked(s, sit.seat) else 0  # S9: at the turn's start
    s[L.S_PHASE] = DECISIONS[sit.decision]
    if engine.legal_actions(s, np.empty(L.NUM_ACTIONS, dtype=np.int32)) == 0:
        raise ValueError("decision=jabba_move: a hero stands on every grey space Jabba "
                         "could go to, so he stays and nothing is chosen (S8)")
    return s


def mapping_of(s: np.ndarray, board) -> dict:
    """The situation mapping of engine state s at its turn player's decision (a turn's
    start, or where a drawn Jabba card sends Jabba), as that player describes it (their
    hand, the public fields): from_mapping's inverse, for benchmarks and tests."""
    n, me = int(s[L.S_NUM_PLAYERS]), int(s[L.S_CUR])
    hand = [SHORT_NAMES[k] for k in range(L.NUM_KINDS)
            for _ in range(int(s[L.S_HAND + me * L.NUM_KINDS + k]))]
    return {"game": GAME, "players": n, "seat": me,
            "positions": [DETENTION_NAME if p == L.DETENTION else board.names[p]
                          for p in s[L.S_POS:L.S_POS + n].tolist()],
            "jabba": board.names[int(s[L.S_JABBA])],
            "defeated": [board.names[p] for p, _ in board.posts if s[L.S_GUARD + p] == 0],
            "points": s[L.S_POINTS:L.S_POINTS + n].tolist(), "hand": hand,
            "hand_sizes": s[L.S_HAND_N:L.S_HAND_N + n].tolist(),
            "discard": [SHORT_NAMES[k] for k in range(L.NUM_KINDS)
                        for _ in range(int(s[L.S_DISCARD + k]))],
            "turn": int(s[L.S_TURN]),
            "decision": next(k for k, ph in DECISIONS.items() if ph == s[L.S_PHASE])}


def hint_decisions(game, rng: np.random.Generator, policy=None):
    """The engine states (copies) of one game played with true chance from `rng` and
    `policy`'s probabilities (an OpenSpiel policy; None: uniform), at every decision a
    hint answers: a turn's start with a card in hand, or a drawn Jabba card's move. For
    benchmarks and tests."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            kinds, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(kinds, p=probs)))
            continue
        s = state.array
        if s[L.S_PHASE] == L.PH_JABBA_MOVE or (s[L.S_PHASE] == L.PH_PLAY
                                                and s[L.S_HAND_N + s[L.S_CUR]] > 0):
            yield s.copy()
        if policy is None:
            state.apply_action(int(rng.choice(state.legal_actions())))
        else:
            acts, probs = zip(*policy.action_probabilities(state).items())
            state.apply_action(int(rng.choice(acts, p=np.array(probs) / sum(probs))))
