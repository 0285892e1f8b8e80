"""A round's state described as a hint summary, as a person at the table would tell it:
what the table saw of each play, and the cards they know (the property tests of the
situation's checks and benchmarks/hint_consistency.py)."""

from __future__ import annotations

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import Effect

from solver.policies.knowledge import knowledge


def annotated_summary(state, me: int) -> dict:
    """What the table saw of a round, as a summary: each play with its target, number,
    hit, trade and my looks' cards (from the full log; only what `me` saw is used)."""
    n = state.num_players()
    rules = state.get_game().config.rules
    name = lambda c: rules.characters[c].aliases[0]  # noqa: E731
    card_of = lambda text: rules.character_id(text.partition("@")[0])  # noqa: E731
    log = state.events()  # every detail; only what `me` saw is used
    areas = [[] for _ in range(n)]
    face_up, bottom, set_aside = [], [], None
    out = set()
    current = None  # (seat, index in its area) of the play being resolved
    for e in log:
        if e.kind == L.E_FACE_UP:
            face_up.append(name(e.card))
        elif e.kind == L.E_PLAY:
            areas[e.actor].append([name(e.card)])
            current = (e.actor, len(areas[e.actor]) - 1)
        elif current is None:
            continue
        else:
            item = areas[current[0]][current[1]]
            if e.kind == L.E_TARGET:
                item[0] += f"@{e.other}"
            elif e.kind == L.E_TARGET_SET_ASIDE:
                item[0] += "@set-aside"
            elif e.kind == L.E_NAME:
                item.append(str(e.extra))
            elif e.kind == L.E_OUT:
                areas[e.actor].append([name(e.card)])
                out.add(e.actor)
                played = rules.characters[card_of(item[0])].effect
                if ((e.actor != current[0] or played == Effect.COMPARE) and "@" in item[0]
                        or played == Effect.ELIMINATE_LOWEST) and "hit" not in item:
                    item.append("hit")  # a Mercenary or a Rancor: somebody went out
            elif e.kind == L.E_SEE and me in (e.actor, e.other):  # a look mine or at me
                item.append(name(e.card))
            elif e.kind == L.E_SEE_SET_ASIDE and e.actor == me:
                set_aside = name(e.card)
            elif e.kind == L.E_TRADE:
                item.append("traded")
                if me in (e.actor, e.other):  # the card the chosen seat got
                    item.append(name(e.card))
            elif e.kind == L.E_STEAL:
                areas[e.actor].append([f"took:{name(e.card)}@{e.other}"])
            elif e.kind == L.E_RETURN and e.actor == me:  # in draw order, every Leia's
                bottom += [name(e.card)] + ([name(e.extra)] if e.other == 2 else [])
    hand = sorted(int(x) for x in state.array[L.S_HAND + me * L.MAX_HAND:
                                           L.S_HAND + me * L.MAX_HAND + 2])
    data = {"game": state.get_game().get_type().short_name, "players": n, "seat": me,
            "hand": [name(c) for c in hand], "face_up": face_up,
            "areas": {p: [":".join(x) for x in a] for p, a in enumerate(areas)},
            "out": sorted(out), "deck": int(engine.deck_size(state.array))}
    if bottom:  # every card I returned, drawn since or not
        data["bottom"] = bottom
    if set_aside is not None and state.view().set_aside is not None:
        data["set_aside"] = set_aside
    return data


def person_summary(state, me: int) -> dict:
    """The summary a person at seat `me` gives: what the table saw (`annotated_summary`)
    and every card they know, from their own replay of the log
    (solver/policies/knowledge.py): `saw`, and `seen_by` from each other seat's replay
    (one card a seat, the summary's form)."""
    data = annotated_summary(state, me)
    name = lambda c: state.get_game().config.rules.characters[c].aliases[0]  # noqa: E731
    data["saw"] = {q: name(c) for q, c in knowledge(state, me).known_hands.items()}
    data["seen_by"] = {}
    in_round = state.view().in_round
    for q in range(data["players"]):
        if q != me and in_round[q]:
            known = knowledge(state, q).known_cards[me]
            if known:
                data["seen_by"][q] = name(known[0])
    return data
