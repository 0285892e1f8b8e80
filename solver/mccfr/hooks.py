"""What the MCCFR kernel (solver/mccfr/kernel.py) asks of a game beyond its engine: its
keys, the table's choices at a decision, chance sampling and the utility, as a function
set (spiel_game/interface.py); and those of the Love Letter engine's games (jabbas_palace,
love_letter). solver/han_solo/mccfr.py has Han Solo's; solver/mccfr/games.py pairs each
game's engine with its hooks."""

from __future__ import annotations

from numba import njit

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.interface import FunctionSet

from solver.abstraction.keys import (IDENTITY, KEY_WORK_SIZE, PATH_SIZE, path_key, path_start,
                                    path_width)
from solver.sim.sampler import chance_card

# Each a numba function; `level` is the game's abstraction level id, `utility` its
# utility id (0: the engine's returns).
HOOK_FUNCTIONS = {
    "row_size": "() -> int32s per player of a path row (at least 1)",
    "row_width": "(level) -> how much of a row a copy down the path must take",
    "row_start": "(row, player, level) -> None: the row before any event is read",
    "key": "(s, actor, level, row, work) -> the actor's key at the decision in s, its row "
           "advanced to s; 0 when the decision has one choice (played without a key)",
    "choices": "(s, level, row, work, out) -> how many choices, as action ids into out "
               "(after `key` on the same s, row and work)",
    "lookup_after_children": "(level) -> whether keys are perfect recall (a key cannot "
                             "recur below its node)",
    "chance_action": "(s, rng, outcomes, probs) -> the chance outcome drawn from the "
                     "stream rng[0] with the engine's odds (outcomes, probs: scratch of "
                     "max_actions and max_choices)",
    "terminal_value": "(s, p, utility, returns) -> p's value of the finished round "
                      "(returns: scratch of a value per player)",
    "max_actions": "() -> the most choices or chance outcomes at a node",
    "max_choices": "() -> the most choices at a decision (and chance outcomes)",
    "work_size": "() -> int32s of the key's work space",
    "expand_probability": "(level) -> the chance that a traverser's decision is expanded "
                          "(every choice tried); else it is sampled from the current "
                          "strategy, as an opponent's is (1.0: external sampling, every "
                          "decision expanded)",
}


def mccfr_hooks(name: str, **functions) -> FunctionSet:
    """A game's MCCFR hooks, checked to provide every one of HOOK_FUNCTIONS."""
    return FunctionSet(name, required=tuple(HOOK_FUNCTIONS), **functions)


_JIT = {"cache": True, "nogil": True}
_MAX_CHOICES = 16  # the most legal actions at a Love Letter decision, with room to spare


@njit(**_JIT)
def _row_size():
    return PATH_SIZE


@njit(**_JIT)
def _choices(s, level, row, work, out):
    return engine.legal_actions(s, out)


@njit(**_JIT)
def _lookup_after_children(level):
    return level == IDENTITY


@njit(**_JIT)
def _chance_action(s, rng, outcomes, probs):
    return chance_card(s, rng)


@njit(**_JIT)
def _terminal_value(s, p, utility, returns):
    engine.returns(s, returns)
    return returns[p]


@njit(**_JIT)
def _max_actions():
    return L.NUM_ACTIONS


@njit(**_JIT)
def _max_choices():
    return _MAX_CHOICES


@njit(**_JIT)
def _work_size():
    return KEY_WORK_SIZE


@njit(**_JIT)
def expand_every_decision(level):
    """External sampling: every traverser decision expanded (the hook of the games whose
    rounds are short enough for it)."""
    return 1.0


# The hooks of the games whose keys read the state, not a path of events (han_solo,
# sarlaccs_pit): their rows hold only the key's scratch, and their blocks are claimed in
# the order the traversal visits their keys.
@njit(**_JIT)
def no_row_width(level):
    """row_width: nothing of a row is copied down the path."""
    return 0


@njit(**_JIT)
def no_row_start(row, player, level):
    """row_start: a row is not read before the events."""


@njit(**_JIT)
def lookup_before_children(level):
    """lookup_after_children: never (a key is looked up, its block claimed, on arrival)."""
    return False


LOVE_LETTER_HOOKS = mccfr_hooks(
    "solver.mccfr.hooks", row_size=_row_size, row_width=path_width, row_start=path_start,
    key=path_key, choices=_choices, lookup_after_children=_lookup_after_children,
    chance_action=_chance_action, terminal_value=_terminal_value, max_actions=_max_actions,
    max_choices=_max_choices, work_size=_work_size, expand_probability=expand_every_decision)
