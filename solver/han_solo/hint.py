"""The hint for han_solo: the value of every option at the seat's decision and what the
others hold, answered as every game's hint is (solver/hint/request.py in,
solver/hint/answer.py's HintAnswer out, `advice.answer` dispatching here).

1. Worlds: the compiled particle filter over the others' hidden cards (`replayed_worlds`:
   solver/han_solo/filter.py `posterior_worlds`): Bayes with the policy's probability of
   every choice they were seen to make, at least `stray`; exact where the worlds fit
   PARTICLES, else sampled (the answer says which, with the effective sample size).
   `prior_only`: the chance odds alone. A log no world fits is refused, naming the
   line no history got past and what the rules give there (`_refusal`).
2. Values: each full option (draw; take then keep or each discard; stand; at a discard
   decision, keep or each discard) rolled out `rollouts` times from worlds drawn by
   weight, everybody then playing the policy (the shipped table, closest_to_zero where
   it has no key; with no table for these parameters, closest_to_zero), common random
   numbers across options; 95% intervals cluster-robust (solver/hint/choice.py).
3. The choice: every hint's rule, step by step (solver/hint/options.py `decide` over
   this game's `option_tree`; solver/hint/choice.py `choose`): the best mean, or the
   table's likeliest of the options within the interval of their difference to it.

Steps 2 and 3 and the answer are the own-engine games' hint (solver/hint/engine_hint.py);
this module gives it han_solo's part (`HINT`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np

from spiel_game.han_solo import engine
from spiel_game.han_solo import layout as L
from spiel_game.han_solo.game import describe

from solver.belief import HEURISTIC_TREMBLE, TREMBLE, effective_sample_size
from solver.han_solo.filter import posterior_worlds
from solver.han_solo.players import PLAYERS, HanSoloPlayer
from solver.han_solo.playout import HAN_SOLO_PLAYOUT, STREAM_HS_HINT, HanSoloBank
from solver.han_solo.situation import HanSoloSituation, from_mapping
from solver.hint import engine_hint
from solver.hint import options as hint_options
from solver.hint.answer import HintAnswer
from solver.hint.engine_hint import EngineHintGame
from solver.hint.parse import SituationError
from solver.policies.engine_player import hint_player
from solver.sim.rng import check_seed

DEFAULT_ROLLOUTS = 1000  # a fixed count: the same seed gives the same answer anywhere
PARTICLES = 4096  # the posterior: exact within so many worlds, else sampled (seeded)


def load(data: dict, policy_files=None):
    """(situation, game, player) for a han_solo situation mapping; SituationError for
    one that cannot be, ValueError for a refused policy file."""
    import pyspiel

    sit = from_mapping(data)
    try:
        game = pyspiel.load_game("han_solo", sit.game_params())
    except (ValueError, pyspiel.SpielError) as err:
        raise SituationError(str(err)) from None
    cfg = game.config
    if sit.turn is not None and sit.turn > cfg.turns:
        raise SituationError(f"turn={sit.turn}: a round has {cfg.turns} turns (H2); "
                             f"turns are 1 to {cfg.turns}")
    return sit, game, hint_player(PLAYERS, game, policy_files, HanSoloPlayer)


_UNSEEN = -1  # a discard pile's card the log does not say: under the hands a match put
# down where the log leaves its reveals out


def _public_discards(events, seat: int) -> list:
    """The events with takes' cards filled in from the public discard pile (a match puts
    every hand on it, H3: its reveals)."""
    pile, out = [], []
    for kind, who, value in events:
        if kind in (L.E_FLIP, L.E_DISCARD, L.E_REVEAL):
            pile.append(value)
        elif kind == L.E_DICE and value == 1:
            pile.append(_UNSEEN)  # the reveals that follow, if written, go on top
        elif kind == L.E_TAKE:
            top = pile[-1] if pile else None
            if top is None:
                raise SituationError(f"log: p{who} takes from an empty discard pile")
            if value == L.HIDDEN:
                value = L.HIDDEN if top == _UNSEEN else top
            elif top not in (_UNSEEN, value):
                raise SituationError(f"log: p{who} takes {L.card_name(value)}, but the "
                                     f"discard pile's top is {L.card_name(top)}")
            if top != _UNSEEN:
                pile.pop()
        elif kind == L.E_RESHUFFLE:
            pile = pile[-1:]
        out.append((kind, who, value))
    return out


def own_deal(sit: HanSoloSituation, events) -> tuple[int, ...]:
    """My dealt cards where the log leaves them out: my hand less what I took or drew,
    plus what I discarded (before any match)."""
    mine = [e for e in events if e[1] == sit.seat]
    if any(k == L.E_DEAL for k, _, _ in mine):
        return ()
    if any(k == L.E_DICE and v == 1 for k, _, v in events):
        raise SituationError(f"the log has a dice match: give your dealt cards ('p{sit.seat} "
                             "deal CARD' lines) and your redealt ones ('redeal')")
    if sit.hand is None:
        raise SituationError(f"give your hand (hand) or your deal ('p{sit.seat} deal CARD' "
                             "lines)")
    held = list(sit.hand)
    for kind, _, value in reversed(mine):
        if kind in (L.E_TAKE, L.E_DRAW):
            if value == L.HIDDEN:
                raise SituationError(f"log: your own draw: say the card you drew, e.g. "
                                     f"'p{sit.seat} draw green +4'")
            if value not in held:
                raise SituationError(f"hand {_names(sit.hand)}: it has no "
                                     f"{L.card_name(value)}, which the log says you took "
                                     "and kept")
            held.remove(value)
        elif kind == L.E_DISCARD:
            held.append(value)
    if len(held) != 2:
        raise SituationError(f"hand {_names(sit.hand)}: with what the log says you took and "
                             f"discarded, you were dealt {len(held)} cards, not 2 (H1)")
    return tuple(held)


def _names(cards) -> str:
    return ", ".join(L.card_name(int(c)) for c in cards)


def log_pattern(events, seat: int, own: tuple[int, ...], players: int,
                fill: bool = True) -> np.ndarray:
    """The filter's pattern (solver/han_solo/filter.py) of the seat's events: shows in
    the engine's order (a hand's cards may be written in any order), the others' hidden
    deals left out (the filter fills them in), and where the log leaves out my deal, my
    dealt cards `own` after the pot; the others' hidden cards before a match whose
    reveals the log writes filled in (`fill_before_matches`)."""
    rows = show_order(events)
    if own:
        rows = [e for e in rows if not (e[0] == L.E_DEAL and e[1] != seat)]
        at = next((i for i, e in enumerate(rows) if e[0] != L.E_POT), len(rows))
        rows[at:at] = [(L.E_DEAL, seat, c) for c in own]
    if fill:
        rows = fill_before_matches(rows, seat, players)
    return np.array(rows, dtype=np.int32).reshape(-1, L.EVENT_SIZE)


def fill_before_matches(rows: list, seat: int, players: int) -> list:
    """The log with the others' hidden cards filled in up to the last dice match whose
    reveals it writes (H3: every hand then goes face up). What another received hidden
    there is then known as a multiset (what it discarded and revealed, less what it took),
    and which receipt brought which card matters nothing after the match: every filling
    the rules allow leaves the same worlds, and their likelihoods after it in the same
    ratios (as LBR's observation, solver/han_solo/filter.py `observe`). Without the
    filling the filter would deal the hidden cards by chance and keep only the deals that
    meet the reveals: at 4-6 players almost none. Each receipt gets the card its
    receiver puts down first; a segment that cannot be so filled is left as it is."""
    out = list(rows)
    start = 0
    while True:
        match = next((i for i in range(start, len(out))
                      if out[i][0] == L.E_DICE and out[i][2] == 1), None)
        if match is None:
            return out
        reveals = match + 1
        while reveals < len(out) and out[reveals][0] == L.E_REVEAL:
            reveals += 1
        if {e[1] for e in out[match + 1:reveals]} != set(range(players)):
            return out  # reveals not written: nothing after can be filled either
        filled = _filled_segment(out, start, match, reveals, seat, players)
        if filled is None:
            return out
        out = filled
        start = next(i for i in range(match, len(out)) if out[i][0] == L.E_DICE
                     and out[i][2] == 1) + 1
        while start < len(out) and out[start][0] == L.E_REVEAL:
            start += 1


def _filled_segment(rows, start, match, reveals, seat, players):
    """rows with the others' receipts in [start, match) filled (see fill_before_matches),
    their omitted deals or redeals written first; None where they cannot be."""
    head, segment, tail = rows[:start], rows[start:match], rows[match:]
    receipt = L.E_DEAL if start == 0 else L.E_REDEAL
    if start == 0:
        order = list(range(players)) * 2  # H1: two cards each, round-robin
    else:  # H3: as many as the match before revealed, seat by seat
        shown = Counter()
        for kind, who, _ in reversed(head):
            if kind != L.E_REVEAL:
                break
            shown[who] += 1
        order = [q for q in range(players) for _ in range(shown[q])]
    need = Counter(order)
    given = [e for e in segment if e[0] == receipt]
    counts = Counter(e[1] for e in given)
    if counts != need:
        if counts[seat] != need[seat] or any(counts[q] not in (0, need[q])
                                             for q in range(players)):
            return None  # partly written: left to the filter
        mine = iter(e[2] for e in given if e[1] == seat)
        block = [(receipt, q, next(mine) if q == seat else L.HIDDEN) for q in order]
        first = next((i for i, e in enumerate(segment) if e[0] == receipt), None)
        at = first if first is not None else next(
            (i for i, e in enumerate(segment) if e[0] != L.E_POT), len(segment))
        segment = [e for e in segment if e[0] != receipt]
        segment[at:at] = block
    for q in range(players):
        if q == seat:
            continue
        known: list[int] = []
        waiting: list[int] = []  # indices of q's hidden receipts not yet given a card
        for i, (kind, who, value) in enumerate(segment):
            if who != q:
                continue
            if kind in L.PRIVATE_EVENTS:
                if value == L.HIDDEN:
                    waiting.append(i)
                else:
                    known.append(value)
            elif kind == L.E_TAKE:
                if value == L.HIDDEN:
                    return None
                known.append(value)
            elif kind == L.E_DISCARD:
                if not _give(segment, known, waiting, value):
                    return None
        for e in tail[1:reveals - match]:
            if e[1] == q and not _give(segment, known, waiting, e[2]):
                return None
        if waiting:
            return None
    return head + segment + tail


def _give(segment, known: list, waiting: list, card: int) -> bool:
    """Card put down by a player: from its known cards, else its first waiting receipt."""
    if card in known:
        known.remove(card)
        return True
    if not waiting:
        return False
    i = waiting.pop(0)
    kind, who, _ = segment[i]
    segment[i] = (kind, who, card)
    return True


@dataclasses.dataclass
class HanSoloPosterior:
    """Worlds (engine state arrays at the log's end) and their normalised weights."""

    worlds: list[np.ndarray]
    weights: np.ndarray
    exact: bool
    ess: float
    player: int
    events: list[tuple[int, int, int]]  # the log as read (the filter's pattern)

    @property
    def present(self) -> np.ndarray:
        """A world (the public part and the player's own cards are the same in all)."""
        return self.worlds[0]


def hand_total_distribution(post: HanSoloPosterior, seat: int) -> dict:
    """Seat's hand total and card count under the posterior: {"total": {t: p},
    "cards": {k: p}}, each sorted by key (the count is public but for a redeal)."""
    totals: dict[int, float] = {}
    counts: dict[int, float] = {}
    for s, w in zip(post.worlds, post.weights):
        base = L.S_HAND + seat * L.MAX_HAND
        k = int(s[L.S_HAND_N + seat])
        t = sum(L.card_value(int(c)) for c in s[base:base + k])
        totals[t] = totals.get(t, 0.0) + float(w)
        counts[k] = counts.get(k, 0.0) + float(w)
    return {"total": dict(sorted(totals.items())), "cards": dict(sorted(counts.items()))}


def show_order(events) -> list[tuple[int, int, int]]:
    """The events with each run of shows in the engine's order (seat order, each hand
    lowest value first, H6), so that a log may show a hand's cards in any order."""
    out = list(events)
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and out[j][0] == L.E_SHOW:
            j += 1
        out[i:j] = sorted(out[i:j], key=lambda e: (e[1], L.card_value(e[2])))
        i = j + 1
    return out


_TURN_WORDS = {L.E_DRAW: "draw, take or stand", L.E_TAKE: "draw, take or stand",
               L.E_STAND: "draw, take or stand", L.E_RESHUFFLE: "draw, take or stand",
               L.E_DISCARD: "discard a card or keep", L.E_KEEP: "discard a card or keep"}
_CARD_EVENTS = (L.E_DEAL, L.E_FLIP, L.E_DRAW, L.E_REDEAL)


def _refusal(game, pattern, seat, bank, chain, seed, stats) -> SituationError:
    """Why no history of the log was found: a choice the others' policy never makes, a
    sample too small to tell, or the rules (the line no history got past, and what the
    rules give there instead)."""
    if len(chain):  # without the policy: is it the others' choices, or the rules?
        worlds, _, plain = posterior_worlds(game, pattern, seat, None, (), PARTICLES, seed)
        if len(worlds):
            return SituationError(
                "no history of the log was found with the others' choices weighed by the "
                "policy: one of them is a choice it never makes (--prior-only reads the log "
                "by the chance odds alone)")
        stats = plain
    k = stats["furthest"]
    rows = [tuple(int(x) for x in row) for row in pattern]
    where = (f"event {k + 1} '{describe(rows[k])}'" if k < len(rows) else "the log's end")
    if stats["truncated"]:
        return SituationError(
            f"no history of the log was found past {where} within {PARTICLES:,} sampled "
            "histories: the log may be possible, but the sample could not tell; give the "
            "pot and your dealt cards if you know them")
    why = _rules_give(rows[k] if k < len(rows) else None, stats["failed_event"])
    return SituationError(f"{where}: {why}")


def _rules_give(line, failed) -> str:
    """What the rules allow where the log's `line` (None: its end) was not met, from what
    a history gave there instead (`failed`: kind, player, value; kind -1: nothing)."""
    kind, who, value = failed
    if kind < 0 or line is None:
        return ("no history of the rules ends here (the log stops inside a step: a draw "
                "without its card, or a match without its reveals)")
    if kind in (L.E_PICK, L.E_SHOW) and line[0] not in (L.E_PICK, L.E_SHOW):
        return "the round's turns are over (H2); the players take their tokens now (H6)"
    if kind == L.E_SHOW:
        return ("no deal of the hidden cards that the log leaves ends with the hands shown "
                "(H6)")
    if kind in _TURN_WORDS or kind == L.E_PICK:
        turn = _TURN_WORDS.get(kind, "take a token")
        if who != line[1]:
            return (f"it is p{who}'s turn to {turn} here (turns go p0, p1, ... from the "
                    "dealer's left, H1/H2)")
        if line[0] != kind and _TURN_WORDS.get(line[0]) != turn:
            return f"p{who} has to {turn} here (H2)"
        if kind == line[0] == L.E_DISCARD and line[2] != L.HIDDEN:
            return (f"p{who} cannot hold a {L.card_name(line[2])} here in any deal of the "
                    "cards not seen (every copy is seen elsewhere, H9)")
    if kind == line[0] and kind in _CARD_EVENTS and line[2] != L.HIDDEN:
        return (f"no {L.card_name(line[2])} is left to come here (every copy is seen "
                "elsewhere: in a hand, the discard pile or the log, H9)")
    return ("cannot happen here (the rules and the cards seen so far give "
            f"'{describe(failed)}'; H2/H3)")


def stray(player: HanSoloPlayer) -> float:
    """The least likelihood the hint's belief gives another's choice: the Jabba hint's
    (solver/belief TREMBLE where a table weighs the choices, HEURISTIC_TREMBLE where a
    heuristic does alone: people stray from a heuristic more). Without it 24 of 40 logs
    of random play at 4 players were refused, with it none (benchmarks/han_solo_hint.py
    --players 4 --stray 0, against the default; docs/han-solo.md "Hints")."""
    return TREMBLE if player.table is not None else HEURISTIC_TREMBLE


def replayed_worlds(game, events, seat: int, player: HanSoloPlayer | None, seed: int,
                    own: tuple[int, ...]) -> HanSoloPosterior:
    """The hint's one call of the belief: the compiled filter (solver/belief/kernel.py,
    solver/han_solo/filter.py `posterior_worlds`) over the worlds of the seat's log, the
    others' choices weighted by `player`'s chain, each at least `stray(player)`: a choice
    the policy never makes is weighed, not refused. None: the chance odds alone. Exact
    while the worlds fit PARTICLES, else sampled (seeded). A log no history fits is refused
    (`_refusal`), saying where and why."""
    if player is None:
        bank, chain, floor = None, (), 0.0
    else:
        bank, chain = HanSoloBank(player.table), player.chain
        floor = stray(player)
    n = game.num_players()
    pattern = log_pattern(events, seat, own, n)
    worlds, weights, stats = posterior_worlds(game, pattern, seat, bank, chain, PARTICLES,
                                              seed, floor)
    if len(worlds) == 0:  # a filling the rules refuse: the log as written
        plain = log_pattern(events, seat, own, n, fill=False)
        if not np.array_equal(plain, pattern):
            pattern = plain
            worlds, weights, stats = posterior_worlds(game, pattern, seat, bank, chain,
                                                      PARTICLES, seed, floor)
    if len(worlds) == 0:
        raise _refusal(game, pattern, seat, bank, chain, seed, stats)
    return HanSoloPosterior(
        list(worlds), weights, exact=stats["truncated"] == 0,
        ess=float(effective_sample_size(weights)), player=seat,
        events=[tuple(int(x) for x in row) for row in pattern])


def posterior(sit: HanSoloSituation, game, player: HanSoloPlayer, prior_only: bool,
              seed: int) -> HanSoloPosterior:
    """The seat's posterior at the log's end, checked: its decision, its hand, its turn."""
    events = _public_discards(sit.events, sit.seat)
    if sit.pot is not None:
        if any(k == L.E_POT for k, _, _ in events):
            raise SituationError("pot: given twice, as a field and in the log; give one")
        events = [(L.E_POT, -1, k) for k in sit.pot] + events
    post = replayed_worlds(game, events, sit.seat, None if prior_only else player, seed,
                           own_deal(sit, events))
    s = post.present
    phase, me = int(s[L.S_PHASE]), sit.seat
    if phase not in (L.PH_TURN, L.PH_DISCARD) or int(s[L.S_CUR]) != me:
        where = ("the round is over" if phase == L.PH_TERMINAL else
                 "the round is over, the hands are shown and the tokens are being taken "
                 "(H6)" if int(s[L.S_CYCLE]) >= int(s[L.S_TURNS]) else
                 f"p{int(s[L.S_CUR])} is to act" if phase != L.PH_CHANCE else
                 f"a {L.CHANCE_NAMES[int(s[L.S_CHANCE_KIND])]} comes next")
        raise SituationError(f"the log ends where it is not your (p{me}'s) decision: "
                             f"{where}; a hint is for your turn (draw, take or stand) or "
                             "your discard after a draw or a take")
    hand = tuple(sorted(int(c) for c in s[L.S_HAND + me * L.MAX_HAND:
                                          L.S_HAND + me * L.MAX_HAND + s[L.S_HAND_N + me]]))
    if sit.hand is not None and hand != tuple(sorted(sit.hand)):
        raise SituationError(f"hand is {_names(sorted(sit.hand))}, but the log leaves you "
                             f"{_names(hand)}")
    turn = int(s[L.S_CYCLE]) + 1
    if sit.turn is not None and sit.turn != turn:
        raise SituationError(f"turn={sit.turn}, but the log ends in turn {turn}")
    return post


def option_tree(player: HanSoloPlayer) -> hint_options.OptionTree:
    """han_solo's decisions at a hint (solver/hint/options.py): a turn's draw (its discard
    left to the policy: the card is not seen yet), take with each discard or keep, stand;
    a discard decision's each. The player's table breaks the rule's ties."""
    return engine_hint.player_option_tree(
        player, chosen_now=lambda s, prefix: prefix[-1] == L.TAKE, words=L.action_to_string,
        decision=lambda s: L.PHASE_NAMES[int(s[L.S_PHASE])])


def _situation(request, post: HanSoloPosterior) -> dict:
    """The answer's situation: the seat's hand and total, turn, decision, discard top,
    pot (where the log shows it)."""
    sit, s0, me = request.situation, post.present, request.situation.seat
    cfg = request.game.config
    hand = sorted(int(c) for c in s0[L.S_HAND + me * L.MAX_HAND:
                                     L.S_HAND + me * L.MAX_HAND + s0[L.S_HAND_N + me]])
    view_discard = s0[L.S_DISCARD:L.S_DISCARD + s0[L.S_DISCARD_N]].tolist()
    return {"game": "han_solo", "players": sit.players, "agenda": None, "seat": me,
            "hand": [L.card_name(c) for c in hand],
            "hand_total": sum(L.card_value(c) for c in hand),
            "deck": int(s0[L.S_PILE_N]), "described_by": "log",
            "turn": int(s0[L.S_CYCLE]) + 1, "turns": cfg.turns,
            "decision": L.PHASE_NAMES[int(s0[L.S_PHASE])],
            "discard_top": L.card_name(view_discard[-1]) if view_discard else None,
            "pot": [L.TOKEN_NAMES[k] for k in range(L.NUM_TOKEN_KINDS)
                    for _ in range(int(s0[L.S_POT + k]))]
            if _pot_seen(post.events) else None}


def _pot_seen(events) -> bool:
    """Whether the log as read states the pot (a log may leave it out)."""
    pot = [value for kind, _, value in events if kind == L.E_POT]
    return bool(pot) and L.HIDDEN not in pot


def _posterior_record(request, post: HanSoloPosterior) -> dict:
    basis = ("Bayes: the others' hidden cards weighted by the policy's probability of "
             "every choice they were seen to make" if not request.prior_only else
             "prior only: the chance odds of the hidden cards, no inference from choices")
    return {"basis": f"{basis} ({'exact' if post.exact else 'sampled'})",
            "worlds": len(post.worlds), "exact": post.exact,
            "effective_sample_size": round(post.ess, 1), "particles": PARTICLES,
            "policy": None if request.prior_only else request.policies.describe()}


HINT = EngineHintGame(
    name="han_solo", engine=engine.ENGINE, hooks=HAN_SOLO_PLAYOUT, stream=STREAM_HS_HINT,
    rollouts=lambda request, paths: DEFAULT_ROLLOUTS,
    posterior=lambda r: posterior(r.situation, r.game, r.policies, r.prior_only,
                                  check_seed(r.seed)),
    option_tree=lambda player, seat: option_tree(player), situation=_situation,
    posterior_record=_posterior_record,
    opponent=lambda request, post, q: _opponent(post, q))


def answer(request) -> HintAnswer:
    """The HintAnswer for a han_solo HintRequest (its `policies` a HanSoloPlayer): the
    own-engine games' hint (solver/hint/engine_hint.py) with han_solo's `HINT`."""
    return engine_hint.answer(HINT, request)


def _opponent(post: HanSoloPosterior, q: int) -> dict:
    """An opponent's hand total and card count under the posterior, and the chance each
    card is in the hand."""
    dist = hand_total_distribution(post, q)
    holds = np.zeros(L.NUM_CARD_KINDS)
    for s, w in zip(post.worlds, post.weights):
        base = L.S_HAND + q * L.MAX_HAND
        for c in set(s[base:base + s[L.S_HAND_N + q]].tolist()):
            holds[c] += w
    return {"seat": q, "status": "in",
            "total": [{"total": t, "probability": p} for t, p in dist["total"].items()],
            "cards": [{"cards": k, "probability": p} for k, p in dist["cards"].items()],
            "hand": [{"card": L.card_name(int(c)), "probability": float(holds[c])}
                     for c in np.argsort(-holds, kind="stable") if holds[c] > 0]}
