"""The hint's rule for every decision, for every game: each option's mean value and the
95% interval of its difference to the best (cluster-robust standard errors), and the choice
(`choose`). Every game's hint chooses by it (solver/hint/options.py `decide`, each game's
answer)."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.96


def _standard_error(x: np.ndarray, clusters: np.ndarray) -> float:
    """The cluster-robust standard error of x.mean(): rollouts of one world draw are
    correlated, different draws independent, so the spread of the clusters' sums counts
    both the rollouts' noise and the worlds'. One rollout per cluster: the usual one."""
    dev = np.bincount(clusters, weights=x - x.mean())
    g = int(np.count_nonzero(np.bincount(clusters)))
    if g < 2:
        return float("inf")
    return float(math.sqrt(g / (g - 1) * float((dev ** 2).sum())) / len(x))


def choose(rows: np.ndarray, clusters: np.ndarray, probs) -> tuple[int, list[dict], str]:
    """The rule for every decision: the option of best mean value; options whose paired
    difference to it is within its 95% interval are ties, and the policy's likeliest tie
    is chosen (the best mean when there is no policy). Returns (chosen, each option's
    ev, ev_ci95, vs_best, vs_best_ci95, how it was chosen)."""
    means = rows.mean(axis=1)
    best = int(np.argmax(means))
    stats = []
    for i in range(len(rows)):
        diff = rows[i] - rows[best]
        stats.append({"ev": float(means[i]), "ev_ci95": Z95 * _standard_error(rows[i], clusters),
                      "vs_best": float(diff.mean()),
                      "vs_best_ci95": Z95 * _standard_error(diff, clusters) if i != best else 0.0})
    ties = [i for i in range(len(rows)) if -stats[i]["vs_best"] <= stats[i]["vs_best_ci95"]]
    if probs is None or len(ties) == 1:
        return best, stats, "value"
    chosen = max(ties, key=lambda i: (probs[i], means[i]))
    return chosen, stats, "value" if chosen == best else "policy, within the values' interval"
