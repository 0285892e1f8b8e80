"""How well `fit` finds a known opponent: for each true policy, agenda and seed, logs of
that policy (sample.py), fitted over the default candidates after the first 5, 10, 20
rounds; the posterior weight of the right candidate, and of the candidates that gave
the same probabilities as it at every decision seen ("alike": no log can tell them
apart there). Written by `jabba model accuracy` to results/model_fit_accuracy.*.
"""

from __future__ import annotations

import time

import numpy as np

import spiel_game

from solver.opponent_model.fit import TREMBLE, decisions, default_candidates, likelihoods, \
    posterior
from solver.opponent_model.model import mixture
from solver.opponent_model.sample import sample_logs

COLUMNS = ["players", "agenda", "true_policy", "seed", "rounds", "decisions", "weight_right",
           "weight_alike", "alike", "top", "top_weight"]
SUMMARY_COLUMNS = ["players", "agenda", "true_policy", "rounds", "seeds", "mean_weight_right",
                   "min_weight_right", "seeds_at_least_0.9", "mean_weight_alike", "alike"]


def run(agendas: list[str], truths: list[str] | None, seeds: list[int], checkpoints: list[int],
        players: int = 2, seat: int = 1, other: str = "agenda_expert",
        tremble: float = TREMBLE, progress=None) -> tuple[list[dict], list[dict], float]:
    """(rows, summary rows, seconds)."""
    start = time.perf_counter()
    rows = []
    for agenda in agendas:
        game = spiel_game.load(players=players, agenda=agenda)  # the agendas' game
        names = default_candidates(game)
        model = mixture(names, [1 / len(names)] * len(names), game, "candidates")
        for truth in truths or names:
            for seed in seeds:
                logs = sample_logs(game, truth, seat, max(checkpoints), seed, other)
                found, _ = decisions(logs, seat, game)
                table = likelihoods(model, game, found)
                right = names.index(truth)
                for rounds in checkpoints:
                    part = table[[d.round <= rounds for d in found]]
                    weights, _, _ = posterior(part, tremble)
                    alike = [k for k in range(len(names))
                             if np.array_equal(part[:, k], part[:, right])]
                    top = int(np.argmax(weights))
                    rows.append({"players": players, "agenda": agenda, "true_policy": truth,
                                 "seed": seed, "rounds": rounds, "decisions": len(part),
                                 "weight_right": round(float(weights[right]), 6),
                                 "weight_alike": round(float(weights[alike].sum()), 6),
                                 "alike": "+".join(names[k] for k in alike),
                                 "top": names[top], "top_weight": round(float(weights[top]), 6)})
                if progress is not None:
                    progress(agenda, truth, seed)
    return rows, summarise(rows), time.perf_counter() - start


def summarise(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["players"], row["agenda"], row["true_policy"], row["rounds"]),
                          []).append(row)
    out = []
    for (players, agenda, truth, rounds), group in groups.items():
        right = [r["weight_right"] for r in group]
        alike = sorted({name for r in group for name in r["alike"].split("+")} - {truth})
        out.append({"players": players, "agenda": agenda, "true_policy": truth,
                    "rounds": rounds, "seeds": len(group),
                    "mean_weight_right": round(float(np.mean(right)), 4),
                    "min_weight_right": round(float(np.min(right)), 4),
                    "seeds_at_least_0.9": sum(w >= 0.9 for w in right),
                    "mean_weight_alike": round(float(np.mean([r["weight_alike"]
                                                              for r in group])), 4),
                    "alike": "+".join(alike)})
    return out
