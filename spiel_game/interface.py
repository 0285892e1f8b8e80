"""The engine interface: a named set of numba functions that compiled code takes as an
argument, so that one kernel serves every engine.

A `FunctionSet` is one Python object; compiled code sees it as a type of its own, named
after the set (`FunctionSet(spiel_game.engine)`), and `fs.apply_action(s, a)` inside a
kernel is a direct call of that engine's function, compiled per set as if it were a global.

Why not the simpler ways (measured with numba 0.68, docs/design.md "The engine
interface"): a kernel made by a closure over jitted functions is never loaded from
numba's disk cache (numba issue 6264), and neither is one taking the jitted functions (or
a namedtuple of them) as arguments: their numba type is named after the function's
address, so each process misses the cache and adds one more entry to it. This type's name
is the set's name, the same in every process, so a kernel's cache holds one entry per set
and later processes load it.

Compiled code may also name a set as a global (`ENGINE.apply_action(s, a)` in a function
of one engine only): the set is then a constant of that function.

A kernel's cache holds the code of every set it was compiled for, but numba checks it
against the kernel's own file only: the module of a kernel must import the modules that
define its sets (spiel_game/jit_cache.py then clears the kernel's cache when one of them
changes).
"""

from __future__ import annotations

import importlib

from numba import config, types
from numba.core.imputils import lower_constant
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.extending import (NativeValue, lower_getattr_generic, models, register_model,
                             typeof_impl, unbox)

_SETS: dict[str, FunctionSet] = {}

# What every compiled engine provides (each a numba function over its flat int32 state):
ENGINE_FUNCTIONS = {
    "num_players": "(s) -> players in the round",
    "is_terminal": "(s) -> whether the round is over",
    "is_chance": "(s) -> whether a chance node is pending",
    "current_player": "(s) -> the player to decide (-1 chance, -4 terminal)",
    "legal_actions": "(s, out) -> how many legal actions, written ascending into out",
    "chance_outcomes": "(s, outcomes, probs) -> how many outcomes, with their odds",
    "apply_action": "(s, action) -> None: the action (or chance outcome) applied in place",
    "returns": "(s, out) -> None: each player's utility into out (zeros before the end)",
    "used_size": "(s) -> the state's used prefix: a copy of s[:used_size(s)] is s",
}


class FunctionSetType(types.Dummy):
    """The numba type of one `FunctionSet`: named after it, stable across processes."""

    def __init__(self, name: str):
        self.set_name = name
        super().__init__(f"FunctionSet({name})")

    def __reduce__(self):  # numba's cache index pickles the signature: by name
        return _type_of_set, (self.set_name,)


def _type_of_set(name: str) -> FunctionSetType:
    if name not in _SETS:
        # A kernel's cache index holds every set it was compiled for, and is read whole:
        # a process that never used a set (a Ray worker training another game) still
        # meets its name. A set is named after the module defining it: import that.
        importlib.import_module(name)
    return _SETS[name].numba_type


class FunctionSet:
    """Numba functions under one name (`name`: the module defining them, so that a
    process meeting the name in a cache index can import it),
    callable as attributes both in Python and in compiled code that takes the set as an
    argument. `required`: names that must be among them."""

    def __init__(self, name: str, required=(), **functions):
        missing = [f for f in required if f not in functions]
        if missing:
            raise ValueError(f"function set {name!r} lacks {', '.join(missing)}")
        for attr, fn in functions.items():
            # (With NUMBA_DISABLE_JIT=1 njit leaves plain functions, and so do the sets.)
            if not (hasattr(fn, "py_func") or config.DISABLE_JIT and callable(fn)):
                raise TypeError(f"function set {name!r}: {attr} is not a numba function")
        if name in _SETS and _SETS[name].functions != functions:
            raise ValueError(f"a different function set is already named {name!r}")
        self.name = name
        self.functions = dict(functions)
        self.numba_type = FunctionSetType(name)
        _SETS[name] = self

    def __getattr__(self, attr: str):
        try:
            return self.__dict__["functions"][attr]
        except KeyError:
            raise AttributeError(f"function set {self.__dict__.get('name')!r} has no "
                                 f"{attr!r}") from None

    def __repr__(self) -> str:
        return f"FunctionSet({self.name}: {', '.join(self.functions)})"


def engine_interface(name: str, **functions) -> FunctionSet:
    """An engine's `FunctionSet`, checked to provide every one of ENGINE_FUNCTIONS."""
    return FunctionSet(name, required=tuple(ENGINE_FUNCTIONS), **functions)


@typeof_impl.register(FunctionSet)
def _typeof_set(value, context):
    return value.numba_type


register_model(FunctionSetType)(models.OpaqueModel)


@unbox(FunctionSetType)
def _unbox_set(typ, obj, c):  # nothing to carry at run time: the type says it all
    return NativeValue(c.context.get_dummy_value())


@lower_constant(FunctionSetType)
def _constant_set(context, builder, typ, value):  # a set named as a global: nothing either
    return context.get_dummy_value()


@infer_getattr
class _FunctionSetAttributes(AttributeTemplate):
    key = FunctionSetType

    def generic_resolve(self, typ, attr):
        fn = _SETS[typ.set_name].functions.get(attr)
        return None if fn is None else types.Dispatcher(fn)


@lower_getattr_generic(FunctionSetType)
def _lower_set_attribute(context, builder, typ, value, attr):
    return context.get_dummy_value()
