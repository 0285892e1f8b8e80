"""The compiled particle filter's engine-independent part, written once for every engine.

A particle is a full engine state with a weight and its progress: how many of its logged
events are matched (`checked`) and how many pattern lines they used (`ptr`). Particles
advance one action at a time in lockstep (`advance_patterns`): a chance node tries the
outcomes its engine's hooks find worth trying, a decision every legal action with the
probability the hooks give it, and each child is matched against the observation pattern
by the hooks (it dies where its events do not fit). Children that the hooks hash alike
(the same state as far as the future goes) are merged in a hash table, weights adding.

Within `max_particles` the filter is exact. Beyond it, it samples (sequential importance
sampling with resampling): whenever the set outgrows the budget it is resampled down to
it by the optimal resampling of Fearnhead and Clifford (2003) for discrete states:
particles of weight at least c are kept as they are, the others are kept with
probability w/c (systematic sampling, seeded) at weight c, where c solves
sum(min(1, w/c)) = budget. No particle is copied twice, so merging keeps its meaning,
and every weight is unbiased (E[new weight] = old weight). Resampling events are counted
in B_TRUNCATED (the posterior is then a sample) and B_RESAMPLES.

What is an engine's own is a function set of filter hooks (FILTER_HOOK_FUNCTIONS,
spiel_game/interface.py), taken as an argument with the engine's interface: numba
compiles and caches the filter once per pair, as the play-out loop and the MCCFR kernel
(the Love Letter engine's hooks: solver/belief/filter.py; Han Solo's:
solver/han_solo/filter.py). Each hooks module names this one in `COMPILED_INTO`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.interface import FunctionSet

from solver.sim.playout import chain_decides
from solver.sim.rng import next_float, stream_seed

_JIT = dict(cache=True, nogil=True)

ANY_PHASE = -1  # done_phase: the observed decision in any phase

# Statistics, accumulated over calls.
(B_STEPS, B_MOST_PARTICLES, B_POLICY_IGNORED, B_LOST, B_TRUNCATED, B_DECISIONS,
 B_POLICY_MISSES, B_FURTHEST, B_FAIL_KIND, B_FAIL_ACTOR, B_FAIL_OTHER, B_FAIL_CARD,
 B_FAIL_EXTRA, B_RESAMPLES) = range(14)
NUM_BELIEF_STATS = 14
STREAM_RESAMPLE = 0x5E5A  # the resampling's random stream (solver/sim/rng.py)

# Each a numba function. `pattern`: the observation, rows of the engine's event fields;
# `pre`: what `prepare` worked out of it (anything: the filter only passes it on);
# `stats`: the int64 statistics above (B_FURTHEST on: the furthest failure, the hooks'
# to fill); `scratch`: `hash_scratch()`'s array.
FILTER_HOOK_FUNCTIONS = {
    "max_actions": "() -> the most legal actions or chance outcomes at a node",
    "prepare": "(pattern, row_start, row_end, viewer, first, count, final) -> pre: what "
               "every particle's steps read of the patterns (first: a particle, count: "
               "how many there are; final: advance's final masks)",
    "is_done": "(s, checked, ptr, n_pat, done_actor, done_phase) -> whether the particle "
               "is at the observed end (the pattern rows end at n_pat)",
    "chance_children": "(s, ptr, pattern, start, n_pat, viewer, pre, legal, probs, stats) "
                       "-> (n, div): the chance outcomes worth trying in legal[:n], each "
                       "child's weight the parent's times probs[i] / div",
    "decision_children": "(s, checked, ptr, n_pat, viewer, bank, chain, floor, "
                         "miss_unknown, use_policy, legal, probs, stats) -> n: the legal "
                         "actions in legal[:n], each child's weight the parent's times "
                         "probs[i] (the first policy of chain with the key; 1 without "
                         "use_policy); 0: none (the pattern is used up)",
    "match": "(s, checked, ptr, pattern, n_pat, viewer, omit, pre, stats) -> (checked, "
             "ptr) after matching s's new events, ptr -1 where they do not fit",
    "hash_scratch": "() -> the scratch array particle_hash takes",
    "particle_hash": "(s, checked, ptr, viewer, scratch, merge_logs) -> uint64: equal for "
                     "particles to merge (state as far as the future goes, progress)",
    "logged_events": "(s) -> how many events s has logged",
    "no_final": "() -> the final masks that say nothing of the pattern's end",
    "pattern_shape": "() -> (rows, fields): the largest complete pattern (`observe`)",
    "observe": "(s, viewer, observed) -> n: observed[:n] the complete pattern of s for "
               "viewer (what LBR's belief matches)",
    "observed_key": "(observed, n, viewer) -> uint64: a hash of that information state",
}


def filter_hooks(name: str, **functions) -> FunctionSet:
    """An engine's filter hooks, checked to provide every one of FILTER_HOOK_FUNCTIONS."""
    return FunctionSet(name, required=tuple(FILTER_HOOK_FUNCTIONS), **functions)


@njit(**_JIT)
def decision_likelihoods(playout, s, actor, viewer, bank, chain, floor, miss_unknown,
                         use_policy, legal, n, probs, stats):
    """probs[:n]: the likelihood of each legal action at s, every engine's rule: 1 for
    the viewer's own (or without a policy); else the first policy of chain with the key
    (the game's play-out hooks `playout`, solver/sim/playout.py `chain_decides`; on a miss
    everywhere uniform, or 1 for every action if miss_unknown), at least floor."""
    if actor == viewer or not use_policy or len(chain) == 0:
        for i in range(n):
            probs[i] = 1.0
        return
    if chain_decides(playout, s, actor, bank, chain, legal, n, probs) == len(chain):
        stats[B_POLICY_MISSES] += 1
        if miss_unknown:
            for i in range(n):
                probs[i] = 1.0
    if floor > 0:
        for i in range(n):
            probs[i] = max(probs[i], floor)


@njit(**_JIT)
def _thin(weights, count, keep, rng, chosen):
    """Fearnhead-Clifford's choice of at most `keep` of weights[:count] (count > keep):
    chosen[k] set for those kept, the weights of the thinned ones that are kept set to
    c (see `resample`); the others' weights are left as they were."""
    order = np.argsort(-weights[:count])
    rest = weights[:count].sum()
    heavy = 0  # the `heavy` largest weights are kept as they are
    c = rest / keep
    while heavy < keep and weights[order[heavy]] >= c:
        rest -= weights[order[heavy]]
        heavy += 1
        c = rest / (keep - heavy) if keep > heavy else np.inf
    for i in range(heavy):
        chosen[order[i]] = True
    if heavy < keep and rest > 0:
        u = next_float(rng) * c
        cumulative = 0.0
        for k in range(count):
            if chosen[k]:
                continue
            cumulative += weights[k]
            if cumulative > u:  # a grid point u + j c falls in this particle's share
                chosen[k] = True
                weights[k] = c
                u += c


@njit(**_JIT)
def resample(engine, buffers, target, weights, progress, count, keep, rng, slot_hash):
    """Resample the `count` particles of buffers[target] down to at most `keep` in place
    (Fearnhead-Clifford: the heavy ones kept, the rest thinned by systematic sampling at
    weight c, so E[new weight] = old weight and nothing is duplicated); returns the new
    count. The survivors keep their order (and their hashes in slot_hash)."""
    if count <= keep:
        return count
    chosen = np.zeros(count, dtype=np.bool_)
    _thin(weights, count, keep, rng, chosen)
    new_count = 0
    for k in range(count):
        if chosen[k] and weights[k] > 0:
            if k != new_count:
                used = engine.used_size(buffers[target, k])
                buffers[target, new_count, :used] = buffers[target, k, :used]
                weights[new_count] = weights[k]
                progress[target, new_count, 0] = progress[target, k, 0]
                progress[target, new_count, 1] = progress[target, k, 1]
                slot_hash[new_count] = slot_hash[k]
            new_count += 1
    return new_count


@njit(**_JIT)
def _rebuild_table(count, table, table_hashes, slot_hash):
    """The merge table of the first `count` particles from their stored hashes."""
    table[:] = 0
    mask = len(table) - 1
    for k in range(count):
        h = slot_hash[k]
        j = np.int64(h & np.uint64(mask))
        while table[j] != 0:
            j = (j + 1) & mask
        table[j] = k + 1
        table_hashes[j] = h


@njit(**_JIT)
def _insert(engine, hooks, child, weight, checked, ptr, buffers, target, weights, progress,
            count, table, table_hashes, slot_hash, max_particles, viewer, scratch,
            merge_logs, stats, rng):
    """Add a particle to buffers[target], merging with an equal one; returns count. When
    the buffer is full, the particles so far are resampled down to
    min(max_particles, capacity / 2) first (so a buffer has at least 2 rows)."""
    h = hooks.particle_hash(child, checked, ptr, viewer, scratch, merge_logs)
    mask = len(table) - 1
    used = engine.used_size(child)
    while True:
        j = np.int64(h & np.uint64(mask))
        while table[j] != 0:
            k = table[j] - 1
            if table_hashes[j] == h:
                if weight > weights[k]:  # keep the likelier history's log
                    buffers[target, k, :used] = child[:used]
                weights[k] += weight
                return count
            j = (j + 1) & mask
        if count < buffers.shape[1]:
            break
        stats[B_TRUNCATED] += 1
        stats[B_RESAMPLES] += 1
        count = resample(engine, buffers, target, weights, progress, count,
                         max(1, min(max_particles, buffers.shape[1] // 2)), rng, slot_hash)
        _rebuild_table(count, table, table_hashes, slot_hash)
    buffers[target, count, :used] = child[:used]
    weights[count] = weight
    progress[target, count, 0] = checked
    progress[target, count, 1] = ptr
    table[j] = count + 1
    table_hashes[j] = h
    slot_hash[count] = h
    return count + 1


@njit(**_JIT)
def _kept_child(kids, kid_w, n, k, action, weight, upto, after):
    """Note a live child (parent k, action; -1: the parent as it is) in kids, kid_w
    (grown when full); returns them."""
    if n == len(kid_w):
        more = np.empty((2 * n, 4), dtype=kids.dtype)
        more[:n] = kids
        more_w = np.empty(2 * n)
        more_w[:n] = kid_w
        kids, kid_w = more, more_w
    kids[n, 0] = k
    kids[n, 1] = action
    kids[n, 2] = upto
    kids[n, 3] = after
    kid_w[n] = weight
    return kids, kid_w


@njit(**_JIT)
def _expand(engine, hooks, buffers, source, count, target, weights_in, weights_out, progress,
            table, table_hashes, slot_hash, pattern, row_start, row_end, pre, viewer, omit,
            done_phase, bank, chain, floor, miss_unknown, merge_logs, use_policy, child,
            legal, probs, max_particles, stats, done_actor, rng):
    """One lockstep step: every particle not yet done advances by one action into
    buffers[target]; returns the new count.

    Once the filter samples (it has resampled), the live children are thinned down to
    twice the buffer's rows (`_thin`, on their weights) before they are keyed and merged:
    keying a child (`particle_hash`: for the Love Letter engine, what each opponent knows)
    costs several times what making it does, and most children of a sampled step would
    be resampled away. Until then every child is inserted as it comes, so an exact run
    stays as it was."""
    table[:] = 0
    new_count = 0
    scratch = hooks.hash_scratch()
    thin = stats[B_TRUNCATED] > 0
    n_kids = 0
    kids = np.empty((16 * count + 16 if thin else 1, 4), dtype=np.int32)
    kid_w = np.empty(len(kids))
    for k in range(count):
        s = buffers[source, k]
        w = weights_in[k]
        checked = progress[source, k, 0]
        ptr = progress[source, k, 1]
        n_pat = row_end[ptr]  # the end of this particle's pattern
        if hooks.is_done(s, checked, ptr, n_pat, done_actor, done_phase):
            if thin:
                kids, kid_w = _kept_child(kids, kid_w, n_kids, k, -1, w, checked, ptr)
                n_kids += 1
            else:
                new_count = _insert(engine, hooks, s, w, checked, ptr, buffers, target,
                                    weights_out, progress, new_count, table, table_hashes,
                                    slot_hash, max_particles, viewer, scratch, merge_logs,
                                    stats, rng)
            continue
        if engine.is_terminal(s):
            continue  # the real round went another way
        used = engine.used_size(s)
        if engine.is_chance(s):
            n, div = hooks.chance_children(s, ptr, pattern, row_start[ptr], n_pat, viewer,
                                           pre, legal, probs, stats)
        else:
            div = 1.0
            n = hooks.decision_children(s, checked, ptr, n_pat, viewer, bank, chain, floor,
                                        miss_unknown, use_policy, legal, probs, stats)
        for i in range(n):
            if probs[i] > 0:
                child[:used] = s[:used]
                engine.apply_action(child, legal[i])
                upto, after = hooks.match(child, checked, ptr, pattern, n_pat, viewer, omit,
                                          pre, stats)
                if after < 0:
                    continue
                if thin:
                    kids, kid_w = _kept_child(kids, kid_w, n_kids, k, legal[i],
                                              w * probs[i] / div, upto, after)
                    n_kids += 1
                else:
                    new_count = _insert(engine, hooks, child, w * probs[i] / div, upto, after,
                                        buffers, target, weights_out, progress, new_count,
                                        table, table_hashes, slot_hash, max_particles,
                                        viewer, scratch, merge_logs, stats, rng)
    if not thin:
        return new_count
    # Down to twice the buffer's rows: children that merge count once when the rows fill
    # (`_insert` resamples then) and at the step's end (`advance`). Thinning to the rows
    # alone merged less and lost more samples (a 5-player log lost two of 1,024).
    chosen = np.ones(n_kids, dtype=np.bool_)
    if n_kids > 2 * buffers.shape[1]:
        stats[B_TRUNCATED] += 1
        stats[B_RESAMPLES] += 1
        chosen[:] = False
        _thin(kid_w, n_kids, 2 * buffers.shape[1], rng, chosen)
    for r in range(n_kids):
        if not chosen[r] or kid_w[r] <= 0:
            continue
        s = buffers[source, kids[r, 0]]
        if kids[r, 1] < 0:
            new_count = _insert(engine, hooks, s, kid_w[r], kids[r, 2], kids[r, 3], buffers,
                                target, weights_out, progress, new_count, table,
                                table_hashes, slot_hash, max_particles, viewer, scratch,
                                merge_logs, stats, rng)
            continue
        used = engine.used_size(s)
        child[:used] = s[:used]
        engine.apply_action(child, kids[r, 1])
        new_count = _insert(engine, hooks, child, kid_w[r], kids[r, 2], kids[r, 3], buffers,
                            target, weights_out, progress, new_count, table, table_hashes,
                            slot_hash, max_particles, viewer, scratch, merge_logs, stats,
                            rng)
    return new_count


@njit(**_JIT)
def advance_patterns(engine, hooks, buffers, weights, progress, current, count, pattern,
                     row_start, row_end, viewer, omit, done_phase, bank, chain, floor,
                     miss_unknown, merge_logs, max_particles, stats, log_mass, final,
                     done_actor=-1, seed=0):
    """Advance the particles in buffers[current] (weights[current], progress[current])
    until all are done (`hooks.is_done`: at a decision of done_actor, -1: the viewer's),
    over one or several patterns at once, the union of their histories: pattern holds
    them one after another, each followed by one spare row (its end); row_start[j] and
    row_end[j] are the first row and the end of the pattern that row j (or its end)
    belongs to. A particle's ptr is a row of its own pattern (it starts at its first
    row), so particles of different patterns never merge; they share the budget and its
    resampling, as histories of one set. Returns (buffer index, count), count 0: no
    history fits. log_mass[0] gains the log of each step's total weight before it is
    normalised: the log likelihood of what the viewer saw under the chain's policies
    (-inf where they rule out every history that fits). final: what the hooks' `prepare`
    reads of the pattern's end.

    buffers may hold more than max_particles (room to expand before resampling); past
    max_particles at a step's end the set is resampled down to it (`resample`, the
    stream of `seed` and the steps done so far: deterministic)."""
    if done_actor < 0:
        done_actor = viewer
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = stream_seed(seed, STREAM_RESAMPLE, stats[B_STEPS])
    slot_hash = np.empty(buffers.shape[1], dtype=np.uint64)  # each particle's merge hash
    child = np.empty(buffers.shape[2], dtype=buffers.dtype)
    legal = np.empty(hooks.max_actions(), dtype=np.int32)
    probs = np.empty(hooks.max_actions())
    size = 1
    while size < 2 * max(max_particles, buffers.shape[1]):
        size *= 2
    table = np.zeros(size, dtype=np.int64)
    table_hashes = np.zeros(size, dtype=np.uint64)
    pre = hooks.prepare(pattern, row_start, row_end, viewer, buffers[current, 0], count,
                        final)
    while True:
        done = True
        for k in range(count):
            ptr = progress[current, k, 1]
            if not hooks.is_done(buffers[current, k], progress[current, k, 0], ptr,
                                 row_end[ptr], done_actor, done_phase):
                done = False
                break
        if done or count == 0:
            break
        target = 1 - current
        new_count = _expand(engine, hooks, buffers, current, count, target, weights[current],
                            weights[target], progress, table, table_hashes, slot_hash,
                            pattern, row_start, row_end, pre, viewer, omit, done_phase,
                            bank, chain, floor, miss_unknown, merge_logs, True, child, legal,
                            probs, max_particles, stats, done_actor, rng)
        total = weights[target, :new_count].sum()
        if new_count == 0 or total <= 0:
            # The policy rules out every history that fits: ignore it for this step.
            stats[B_POLICY_IGNORED] += 1
            log_mass[0] = -np.inf
            new_count = _expand(engine, hooks, buffers, current, count, target,
                                weights[current], weights[target], progress, table,
                                table_hashes, slot_hash, pattern, row_start, row_end, pre,
                                viewer, omit, done_phase, bank, chain, floor, miss_unknown,
                                merge_logs, False, child, legal, probs, max_particles, stats,
                                done_actor, rng)
            total = weights[target, :new_count].sum()
        stats[B_STEPS] += 1
        stats[B_MOST_PARTICLES] = max(stats[B_MOST_PARTICLES], new_count)
        if new_count > max_particles:
            stats[B_TRUNCATED] += 1
            stats[B_RESAMPLES] += 1
            new_count = resample(engine, buffers, target, weights[target], progress,
                                 new_count, max_particles, rng, slot_hash)
            total = weights[target, :new_count].sum()
        if new_count > 0 and total > 0:
            weights[target, :new_count] /= total
            log_mass[0] += np.log(total)
        current = target
        count = new_count
    if count == 0:
        stats[B_LOST] += 1
    return current, count


@njit(**_JIT)
def aligned_progress(hooks, buffers, progress, current, count):
    """Progress of particles whose logs are matched line for line so far (the initial
    state; a complete pattern's previous decision): checked = ptr = events logged."""
    for k in range(count):
        m = hooks.logged_events(buffers[current, k])
        progress[current, k, 0] = m
        progress[current, k, 1] = m
