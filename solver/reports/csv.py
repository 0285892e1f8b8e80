"""CSV renderings of result records: one writer, one function per report."""

from __future__ import annotations

import csv
import io


def table(header: list[str], rows: list[list]) -> str:
    """CSV text (the csv module's dialect: CRLF line ends) of a header and rows."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def number(x) -> str:
    """Six significant digits; empty for a missing value."""
    return "" if x is None else f"{x:.6g}"


def crosstable(rows: list[dict]) -> str:
    header = ["players", "agenda", "policy", "opponent", "deals", "rounds", "matches",
              "margin", "margin_low", "margin_high", "tokens", "opponent_tokens",
              "win_rate", "win_rate_low", "win_rate_high", "opponent_win_rate",
              "shared_win_rate", "match_rounds", "table_miss_rate",
              "opponent_table_miss_rate", "seconds"]
    lines = []
    for r in rows:
        win = r["win_rate"] or {}
        lines.append([r["players"], r["agenda"], r["policy"], r["opponent"], r["deals"],
                      r["rounds"], r["matches"], number(r["margin"]["mean"]),
                      number(r["margin"]["low"]), number(r["margin"]["high"]),
                      number(r["tokens"]["mean"]), number(r["opponent_tokens"]["mean"]),
                      number(win.get("mean")), number(win.get("low")),
                      number(win.get("high")),
                      number((r["opponent_win_rate"] or {}).get("mean")),
                      number(r["shared_win_rate"]), number(r["match_rounds"]),
                      number(r["table_miss_rate"]), number(r["opponent_table_miss_rate"]),
                      r["seconds"]])
    return table(header, lines)


def lbr(rows: list[dict]) -> str:
    header = ["players", "agenda", "policy", "metric", "lower_bound", "low", "high",
              "deals", "rounds", "rollouts", "continuation", "belief_decisions",
              "belief_most_particles", "belief_truncated", "belief_lost",
              "belief_policy_ignored_steps", "seconds", "spec"]
    return table(header, [[
        r["players"], r["agenda"], r["policy"], r["metric"], number(r["lower_bound"]["mean"]),
        number(r["lower_bound"]["low"]), number(r["lower_bound"]["high"]), r["deals"],
        r["rounds"], r["rollouts"], r["continuation"], r["belief"]["decisions"],
        r["belief"]["most_particles"], r["belief"]["truncated"], r["belief"]["lost"],
        r["belief"]["policy_ignored_steps"], r["seconds"], r["spec"]] for r in rows])


def validation(rows: list[dict]) -> str:
    header = ["deck", "players", "agenda", "policy", "metric", "exact", "lbr_exact",
              "tightness", "lbr_by_play", "low", "high", "deals", "rollouts",
              "mccfr_iterations", "seconds"]
    return table(header, [[
        r["deck"], r["players"], r["agenda"], r["policy"], r["metric"], number(r["exact"]),
        number(r["lbr_exact"]), number(r["tightness"]), number(r["lbr_by_play"]["mean"]),
        number(r["lbr_by_play"]["low"]), number(r["lbr_by_play"]["high"]), r["deals"],
        r["rollouts"], r["iterations"], r["seconds"]] for r in rows])


def exploitability(record: dict) -> str:
    """The exploitability study (solver/studies/exploitability.py), one row per agenda
    and policy."""
    game = record["game"]["parameters"]
    deck, players = game["deck"], game["players"]
    return table(["deck", "players", "agenda", "policy", "kind", record["metric"],
                  "iterations", "seconds"],
                 [[deck, players, r["agenda"], r["policy"], r["kind"], f"{r['value']:.6g}",
                   r["iterations"], f"{r['seconds']:.2f}"] for r in record["rows"]])


def training_curve(record: dict) -> str | None:
    """An MCCFR policy's convergence curve (its header's `curve`), if it was measured
    exactly."""
    curve = record["curve"]
    metric = curve_metric(curve)
    if metric is None:
        return None
    return table(["iteration", "seconds", "keys", metric],
                 [[p["iteration"], p["seconds"], p["keys"], f"{p[metric]:.6g}"]
                  for p in curve])


def curve_metric(curve: list[dict]) -> str | None:
    """The exact metric a training curve measured (exploitability or nash_conv), if any."""
    return next((k for k in ("exploitability", "nash_conv") if curve and k in curve[0]),
                None)
