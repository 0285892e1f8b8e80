"""Match-level rulings of the Han Solo card game (a game of `han_solo` is one round):
H11, the capture of the Millennium Falcon, and H12, a match's scores."""

from __future__ import annotations

from . import layout as L

CAPTURE_SET = 4  # H11: four blue or four red tokens


def capture_falcon(holdings: list[list[int]], captured: list[bool],
                   first: int = 0) -> tuple[list[list[int]], list[bool]]:
    """H11, applied after a round's tokens are shared out: in seat order from `first` (the
    dealer's left), a player holding 4 blue or 4 red tokens who has not captured before
    takes the Falcon from the player who holds it. Returns new (holdings, captured);
    holdings[p][k] is how many tokens of kind k player p has."""
    holdings = [list(h) for h in holdings]
    captured = list(captured)
    n = len(holdings)
    for i in range(n):
        p = (first + i) % n
        qualifies = max(holdings[p][L.TOKEN_BLUE], holdings[p][L.TOKEN_RED]) >= CAPTURE_SET
        holder = next((q for q in range(n) if holdings[q][L.TOKEN_FALCON] > 0), None)
        if qualifies and not captured[p] and holder is not None and holder != p:
            holdings[holder][L.TOKEN_FALCON] -= 1
            holdings[p][L.TOKEN_FALCON] += 1
            captured[p] = True
    return holdings, captured


def match_scores(holdings: list[list[int]], values: tuple[int, ...]) -> list[int]:
    """H12: each player's credits, the sum of their tokens' values."""
    return [sum(c * v for c, v in zip(h, values)) for h in holdings]


def pot_size(tokens_left: int, players: int) -> int:
    """H12: a round's pot holds one token per player, or what is left of the stack."""
    return min(tokens_left, players)
