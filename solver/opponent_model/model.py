"""An opponent model: a mixture over candidate policies of the compiled policy bank, for
one game.

A candidate is a heuristic (solver/policies/heuristics.py), `table` (the game's shipped
tables, finest first, then the game's default heuristic where none has the key: the
chain `jabba play --against table` plays, solver/play/opponents.py) or a policy file
(.npz, then that heuristic where it lacks the key). Each candidate is a chain of policies
of one bank (`bank_specs`, built by solver/policies/compiled.py `build_bank`); the first
policy of the chain with the key decides (solver/policies/chain.py `chain_probs`).

The model plays pi(a|s) = sum_k w_k pi_k(a|s) (`locked_probabilities`). Those fixed
weights describe one decision. Over a round, the mixture of whole policies (the
opponent is one of the candidates) plays by the weights conditioned on the seat's own
earlier actions of the round, w_k ∝ w_k prod pi_k(a_t|s_t) (`observe`; Kuhn's
theorem): a search that locks a seat to the model along a path should carry them.

`resolve_model(spec, game)` reads the MODEL of `--opponent SEAT=MODEL`: a heuristic name,
`table`, a policy file (.npz) or a fitted model file (.json, `jabba model fit`);
`parse_opponents` reads the repeated option.
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
from pathlib import Path

import numpy as np
from numba import njit

from spiel_game import layout as L

from solver import provenance
from solver.policies.chain import chain_probs, default_heuristic, shipped_files
from solver.policies.compiled import HEURISTIC_KINDS, build_bank, is_policy_file

MODEL_FORMAT = "jabbas-palace-opponent-model"
MODEL_FORMAT_VERSION = 1
TABLE = "table"
IDENTITY_FIELDS = ("players", "agenda", "deck")  # with the game's name: what policies depend on
_WEIGHT_TOLERANCE = 1e-6
_JIT = dict(cache=True, nogil=True)


class ModelError(ValueError):
    """A model spec, seat or model file that cannot be used; the message says what was
    wrong and what is allowed."""


def allowed_models() -> str:
    return (f"{TABLE}, {', '.join(HEURISTIC_KINDS)}, a policy file (.npz) or a fitted model "
            "file (.json, jabba model fit)")


def game_identity(game) -> dict:
    """What a model's policies are for: the game's name, players, agenda (if it has
    agendas) and deck."""
    params = game.get_parameters()
    return {"name": game.get_type().short_name,
            **{f: params[f] for f in IDENTITY_FIELDS if f in params}}


def _identity_of_record(record: dict) -> dict:
    params = provenance.game_parameters(record)
    return {"name": provenance.game_name(record),
            **{f: params[f] for f in IDENTITY_FIELDS if f in params}}


def describe_identity(identity: dict) -> str:
    """'jabbas_palace, 2 players, agenda exalted_one, deck full'."""
    words = [str(identity.get("name")), f"{identity.get('players')} players"]
    words += [f"{f} {identity[f]}" for f in ("agenda", "deck") if f in identity]
    return ", ".join(words)


@dataclasses.dataclass(frozen=True)
class OpponentModel:
    """A mixture over `candidates` with `weights` (summing to 1) for the game `identity`.

    Candidate k plays the chain `bank_specs[j] for j in chains[k]`. `source` is what the
    model was made from (the spec or the model file); `fitted` the fit's record (model
    files), else None.
    """

    identity: dict
    candidates: tuple[str, ...]
    weights: tuple[float, ...]
    bank_specs: tuple[str, ...]
    chains: tuple[tuple[int, ...], ...]
    source: str
    fitted: dict | None = None

    def __post_init__(self):
        w = self.weights
        if len(w) != len(self.candidates) or len(self.chains) != len(self.candidates):
            raise ModelError("give one weight and one chain per candidate")
        if not all(isinstance(x, float) and math.isfinite(x) and x >= 0 for x in w) or \
                abs(sum(w) - 1) > _WEIGHT_TOLERANCE:
            raise ModelError(f"weights {list(w)}: allowed are numbers from 0 that sum to 1")

    def bank(self, game):
        """The compiled bank of `bank_specs` for `game`, built once per model and game."""
        return _bank(self.bank_specs, _game_key(game), game)

    def chain_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chain_policies, chain_start, weights) for `mixture_probs`: candidate k's
        chain is chain_policies[chain_start[k]:chain_start[k + 1]]."""
        policies = np.array([j for chain in self.chains for j in chain], np.int64)
        start = np.cumsum([0] + [len(c) for c in self.chains]).astype(np.int64)
        return policies, start, np.array(self.weights, np.float64)

    def describe(self) -> str:
        return ", ".join(f"{name} {w:.1%}" for name, w in zip(self.candidates, self.weights)
                         if w > 0)


def _game_key(game) -> tuple:
    return (game.get_type().short_name, tuple(sorted(game.get_parameters().items())))


_BANKS: dict[tuple, object] = {}
_BANKS_LOCK = threading.Lock()


def _bank(specs: tuple[str, ...], key: tuple, game):
    """Read-only once built, so every model of the same specs and game shares it."""
    with _BANKS_LOCK:
        if (specs, key) not in _BANKS:
            try:
                _BANKS[(specs, key)] = build_bank(list(specs), game)
            except ValueError as err:
                raise ModelError(str(err)) from None
        return _BANKS[(specs, key)]


# The mixture's probabilities --------------------------------------------------------------

@njit(**_JIT)
def mixture_probs(s, player, bank, chain_policies, chain_start, weights, legal, n, out):
    """out[:n] = sum_k weights[k] * pi_k(legal[i] | s), pi_k candidate k's chain; for
    compiled callers (the search's locked nodes). `bank` is `PolicyBank.arrays()`."""
    part = np.empty(n)
    for i in range(n):
        out[i] = 0.0
    for k in range(len(weights)):
        if weights[k] == 0.0:
            continue
        # candidate k's chain; its last policy, a heuristic, has every key
        chain_probs(s, player, bank, chain_policies[chain_start[k]:chain_start[k + 1]],
                    legal, n, part)
        for i in range(n):
            out[i] += weights[k] * part[i]


def _check_bank(model: OpponentModel, bank) -> None:
    if tuple(bank.specs) != model.bank_specs:
        raise ModelError("the bank was not built from this model's bank_specs: give "
                         "model.bank(game)")


def _legal(s) -> np.ndarray:
    from spiel_game import engine

    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, legal)
    return legal[:n].copy()


def candidate_probabilities(model: OpponentModel, bank, s: np.ndarray, player: int
                            ) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, P) at engine state s: P[k, i] is candidate k's probability of
    legal[i] (the engine's legal order)."""
    _check_bank(model, bank)
    legal = _legal(s)
    n = len(legal)
    policies, start, _ = model.chain_arrays()
    out = np.empty((len(model.candidates), n))
    arrays = bank.arrays()
    for k in range(len(model.candidates)):
        chain_probs(s, player, arrays, policies[start[k]:start[k + 1]], legal, n, out[k])
    return legal, out


def locked_probabilities(model: OpponentModel, bank, s: np.ndarray, player: int,
                         weights: np.ndarray | None = None) -> np.ndarray:
    """sum_k w_k pi_k(a|s) over the legal actions at engine state s (the engine's legal
    order, as `probabilities` of solver/policies/compiled.py gives them); `weights`
    replaces the model's (e.g. conditioned along a path by `observe`). `bank` is
    `model.bank(game)`."""
    _check_bank(model, bank)
    legal = _legal(s)
    n = len(legal)
    policies, start, w = model.chain_arrays()
    if weights is not None:
        w = np.asarray(weights, np.float64)
    out = np.empty(n)
    mixture_probs(s, player, bank.arrays(), policies, start, w, legal, n, out)
    return out


def observe(model: OpponentModel, bank, s: np.ndarray, player: int, action: int,
            weights: np.ndarray | None = None) -> np.ndarray:
    """The weights after seeing `player` play `action` at s (Bayes: w_k pi_k(action|s),
    renormalised; from the model's weights by default). ModelError when no candidate
    with weight plays it (the model cannot explain the action)."""
    legal, probs = candidate_probabilities(model, bank, s, player)
    hits = np.flatnonzero(legal == action)
    if len(hits) == 0:
        raise ModelError(f"action {action} is not legal here")
    w = np.array(model.weights if weights is None else weights, np.float64)
    w = w * probs[:, hits[0]]
    if w.sum() <= 0:
        raise ModelError(f"no candidate of the model ({', '.join(model.candidates)}) plays "
                         f"action {action} here")
    return w / w.sum()


# Resolving a MODEL ---------------------------------------------------------------------------

def _table_files(game) -> list[str]:
    try:
        return [str(p) for p in shipped_files(game, ", which the model 'table' needs")]
    except ValueError as err:
        raise ModelError(str(err)) from None


def _chain_specs(candidate: str, game) -> list[str]:
    if candidate == TABLE:
        return [*_table_files(game), default_heuristic(game)]
    if candidate in HEURISTIC_KINDS:
        return [candidate]
    if is_policy_file(candidate):
        if not Path(candidate).is_file():
            raise ModelError(f"policy file {candidate!r} does not exist")
        return [candidate, default_heuristic(game)]
    raise ModelError(f"unknown model {candidate!r}; allowed: {allowed_models()}")


def mixture(candidates: list[str], weights: list[float], game, source: str,
            fitted: dict | None = None) -> OpponentModel:
    """The model over `candidates` (heuristic names, `table`, policy files) with
    `weights`, its bank checked against `game` (a policy file of another game is refused
    by solver/policies/table.py)."""
    if len(set(candidates)) != len(candidates) or not candidates:
        raise ModelError(f"candidates {candidates}: give at least one, each once")
    specs: list[str] = []
    chains = []
    for candidate in candidates:
        chain = []
        for spec in _chain_specs(candidate, game):
            if spec not in specs:
                specs.append(spec)
            chain.append(specs.index(spec))
        chains.append(tuple(chain))
    model = OpponentModel(game_identity(game), tuple(candidates),
                          tuple(float(w) for w in weights), tuple(specs), tuple(chains),
                          source, fitted)
    model.bank(game)  # loads and checks every policy file now, not at the first decision
    return model


def resolve_model(spec: str, game) -> OpponentModel:
    """The model `spec` names for `game`: a heuristic, `table`, a policy file (.npz) or a
    fitted model file (.json); ModelError saying what was wrong and what is allowed."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelError(f"model {spec!r}: allowed: {allowed_models()}")
    spec = spec.strip()
    if spec.endswith(".json"):
        return load_model(spec, game)
    return mixture([spec], [1.0], game, spec)


def parse_opponents(specs: list[str] | None, game, me: int) -> dict[int, OpponentModel]:
    """{seat: model} of repeated `SEAT=MODEL` items: each seat a seat of the game other
    than `me`, given once; ModelError naming the item."""
    n = game.num_players()
    others = [p for p in range(n) if p != me]
    out: dict[int, OpponentModel] = {}
    for item in specs or []:
        seat_text, sep, model = item.partition("=")
        if not sep or not model.strip():
            raise ModelError(f"{item!r}: expected SEAT=MODEL, e.g. '0=keep_higher'")
        try:
            seat = int(seat_text.strip())
        except ValueError:
            seat = None
        if seat not in others:
            raise ModelError(f"{item!r}: seat {seat_text.strip()!r}: allowed is a seat "
                             f"other than yours ({me}): "
                             f"{', '.join(map(str, others))}")
        if seat in out:
            raise ModelError(f"{item!r}: seat {seat} given twice; give each seat once")
        out[seat] = resolve_model(model, game)
    return out


# Model files -------------------------------------------------------------------------------

def write_model(path, record: dict) -> None:
    """Atomically (solver/provenance.py)."""
    provenance.write_json(path, record)


def _portable_candidate(name: str, folder: Path) -> str:
    """A policy-file candidate as the file names it, found from the working directory or
    else next to the model file."""
    if not is_policy_file(name) or Path(name).is_file():
        return name
    beside = folder / name
    return str(beside) if beside.is_file() else name


def load_model(path, game) -> OpponentModel:
    """A fitted model file for `game`; a file of another game, players, agenda or deck, or
    one that is not a model file, is refused with the reason."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"model file {str(path)!r} does not exist")
    try:
        record = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ModelError(f"{path}: not a model file (not JSON text: {err})") from None
    if not isinstance(record, dict) or record.get("format") != MODEL_FORMAT:
        got = record.get("format") if isinstance(record, dict) else type(record).__name__
        raise ModelError(f"{path}: not a model file (format {got!r}, expected "
                         f"{MODEL_FORMAT!r}; jabba model fit writes them)")
    if record.get("format_version") != MODEL_FORMAT_VERSION:
        raise ModelError(f"{path}: model format version {record.get('format_version')!r}; "
                         f"this code reads version {MODEL_FORMAT_VERSION}")
    try:
        made_for = _identity_of_record(record)
        entries = record["candidates"]
        names = [str(c["name"]) for c in entries]
        weights = [c["weight"] for c in entries]
    except (KeyError, TypeError) as err:
        raise ModelError(f"{path}: not a readable model file (missing {err})") from None
    wanted = game_identity(game)
    if made_for != wanted:
        raise ModelError(f"{path}: a model of the game {describe_identity(made_for)}, not "
                         f"{describe_identity(wanted)}; fit one on logs of this game")
    if not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights):
        raise ModelError(f"{path}: weights {weights}: allowed are numbers")
    if record.get("status", "ok") != "ok":
        raise ModelError(f"{path}: the fit's status is {record.get('status')!r}: the logs "
                         "were not explained, so it is no model")
    names = [_portable_candidate(n, path.parent) for n in names]
    fitted = {k: v for k, v in record.items() if k not in ("candidates",)}
    try:
        return mixture(names, [float(w) for w in weights], game, str(path), fitted)
    except ModelError as err:
        raise ModelError(f"{path}: {err}") from None
