"""Match standings: the token goal (docs/RULES.md R14) and the checks a described score
must pass."""

from __future__ import annotations

import numbers

from solver.evaluation.tournament import TOKEN_GOAL  # R14 (and C13)


def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def default_goal(players: int) -> int:
    """R14's token goal: 6, 5, 4, 3, 3 tokens for 2, 3, 4, 5, 6 players."""
    if not _whole(players) or players not in TOKEN_GOAL:
        raise ValueError(f"players {players!r}: allowed is 2 to 6")
    return TOKEN_GOAL[int(players)]


def max_tokens_per_round(players: int) -> int:
    """The most tokens one round hands out in all: n + 1.

    Every round winner gains 1 token (R11), and every player still in the round may win
    at once (a tie: R12 counts a tie at 0 too, so on Jabba's Court or Rescue Mission even
    a Han Solo holder ties); besides, one player at most gains a card token: the deck
    holds one Han Solo (R11; a reduced deck only lowers counts), and the classic Spy's
    token goes to the one player left with a Spy (C9). A player gains at most 2 tokens a
    round. The least is 0: a round Rancor ends with nobody left has no winner (R7)."""
    return int(players) + 1


def check_standings(scores, players: int, goal: int, rounds_played: int | None = None,
                    starter: int | None = None) -> tuple[int, ...]:
    """`scores` (tokens so far, one per table seat) as a tuple, or ValueError saying what
    was wrong and what is allowed: the wrong count of scores, a score that is not a
    whole number from 0 to goal - 1 (at the goal the match is over), and, given
    `rounds_played`, a score above 2 per round or a sum above (players + 1) per round
    (`max_tokens_per_round`); `starter` must be a seat."""
    if not _whole(players) or players < 2:
        raise ValueError(f"players {players!r}: allowed is a whole number from 2")
    if not _whole(goal) or goal < 1:
        raise ValueError(f"match goal {goal!r}: allowed is a whole number of tokens from 1")
    try:
        scores = list(scores)
    except TypeError:
        raise ValueError(f"scores {scores!r}: give one score per player ({players})") from None
    if len(scores) != players:
        raise ValueError(f"{len(scores)} scores ({', '.join(map(str, scores))}) for "
                         f"{players} players: give one score per player")
    for seat, score in enumerate(scores):
        if not _whole(score) or not 0 <= score < goal:
            raise ValueError(f"score {score!r} of seat {seat}: allowed is a whole number "
                             f"from 0 to {goal - 1} (at {goal}, the goal, the match is over)")
    if starter is not None and (not _whole(starter) or not 0 <= starter < players):
        raise ValueError(f"starter {starter!r}: allowed is a seat from 0 to {players - 1}")
    if rounds_played is not None:
        if not _whole(rounds_played) or rounds_played < 0:
            raise ValueError(f"rounds played {rounds_played!r}: allowed is a whole number "
                             "from 0")
        most = max_tokens_per_round(players) * rounds_played
        if sum(scores) > most:
            raise ValueError(f"scores {', '.join(map(str, scores))} sum to {sum(scores)}, "
                             f"but {rounds_played} round(s) hand out at most {most} tokens "
                             f"({players + 1} a round: a win for every player at once and "
                             "one Han Solo or Spy token)")
        for seat, score in enumerate(scores):
            if score > 2 * rounds_played:
                raise ValueError(f"score {score} of seat {seat} after {rounds_played} "
                                 f"round(s): a player gains at most 2 tokens a round "
                                 f"(a win and a Han Solo or Spy token), so at most "
                                 f"{2 * rounds_played}")
    return tuple(int(s) for s in scores)
