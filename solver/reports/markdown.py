"""Markdown renderings of result records: one table writer, one function per report, and
the evaluation report assembled from its parts."""

from __future__ import annotations

import math

import numpy as np


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a Markdown table."""
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(row) + " |" for row in rows])


def format_ci(ci: dict | None, digits: int = 3, percent: bool = False) -> str:
    """A mean and the half-width of its 95% interval, '—' if missing."""
    if not ci:
        return "—"
    half = (ci["high"] - ci["low"]) / 2
    if percent:
        return f"{100 * ci['mean']:.1f}% ± {100 * half:.1f}"
    return f"{ci['mean']:+.{digits}f} ± {half:.{digits}f}"


def crosstable_cells(rows: list[dict], players: int, agenda: str
                     ) -> tuple[list[str], dict[tuple[str, str], dict]]:
    """Policies in order and (policy, opponent) -> {margin, win_rate}, 2-player mirrors
    filled in from the played cells."""
    policies, cells = [], {}
    for r in rows:
        if r["players"] != players or r["agenda"] != agenda:
            continue
        for name in (r["policy"], r["opponent"]):
            if name not in policies:
                policies.append(name)
        cells[(r["policy"], r["opponent"])] = {"margin": r["margin"],
                                               "win_rate": r["win_rate"]}
        if players == 2 and r["policy"] != r["opponent"]:
            m = r["margin"]
            cells[(r["opponent"], r["policy"])] = {
                "margin": {"mean": -m["mean"], "low": -m["high"], "high": -m["low"]},
                "win_rate": r["opponent_win_rate"]}
    return policies, cells


def crosstable(record: dict) -> str:
    rows = record["rows"]
    lines = [f"Mean margin per round of the row policy against the column policy "
             f"(tokens; 95% interval over duplicate deals), and the share of matches to "
             f"the token goal it wins. 2 players: the row against the column; 3 players: "
             f"the row in one seat, the column in the other two. Made by `{record['command']}` "
             f"in {record['seconds']:.0f} s.", ""]
    for players in sorted({r["players"] for r in rows}):
        for agenda in dict.fromkeys(r["agenda"] for r in rows if r["players"] == players):
            policies, cells = crosstable_cells(rows, players, agenda)
            first = next(r for r in rows if r["players"] == players and r["agenda"] == agenda)
            lines.append(f"#### {agenda}, {players} players ({first['deals']:,} deals x "
                         f"{players} seatings and {first['matches']:,} matches x {players} per "
                         "cell)")
            for title, field, percent in (("margin per round", "margin", False),
                                          ("match-win rate", "win_rate", True)):
                lines.append("")
                lines += table([title, *policies], [
                    [f"**{a}**", *(format_ci(cells[(a, b)][field], percent=percent)
                                   if (a, b) in cells else "—" for b in policies)]
                    for a in policies])
            # Only a table policy misses entries: a heuristic's miss rate is NaN.
            misses = [r["table_miss_rate"] for r in rows if r["players"] == players
                      and r["agenda"] == agenda and r["table_miss_rate"] is not None
                      and not math.isnan(r["table_miss_rate"])]
            if misses:
                lines.append("")
                lines.append(f"Table policy: {100 * float(np.mean(misses)):.2f}% of its "
                             "decisions had no entry in the table (played uniformly).")
            lines.append("")
    return "\n".join(lines)


def lbr(record: dict) -> str:
    rows = record["rows"]
    s = record["settings"]
    lines = [f"Lower bounds on exploitability (2 players) and NashConv (3 players), in "
             f"tokens per round: the mean margin of a local best response (LBR, "
             f"{s['rollouts']} rollouts per action, the policy as continuation) against "
             f"the policy, 95% interval over duplicate deals (LBR in every seat). Made by "
             f"`{record['command']}` in {record['seconds']:.0f} s.", ""]
    for players in sorted({r["players"] for r in rows}):
        agendas = list(dict.fromkeys(r["agenda"] for r in rows if r["players"] == players))
        policies = list(dict.fromkeys(r["policy"] for r in rows if r["players"] == players))
        value = {(r["agenda"], r["policy"]): r for r in rows if r["players"] == players}
        metric = "exploitability" if players == 2 else "NashConv"
        deals = rows[[r["players"] for r in rows].index(players)]["deals"]
        lines.append(f"#### {players} players: {metric} ≥ (LBR, {deals:,} deals x "
                     f"{players} seats)")
        lines.append("")
        lines += table(["policy", *agendas], [
            [policy, *(format_ci(value[(a, policy)]["lower_bound"]) if (a, policy) in value
                       else "—" for a in agendas)] for policy in policies])
        lost = sum(r["belief"]["lost"] for r in rows if r["players"] == players)
        truncated = sum(1 for r in rows if r["players"] == players
                        and r["belief"]["truncated"] > 0)
        decisions = sum(r["belief"]["decisions"] for r in rows if r["players"] == players)
        lines.append("")
        lines.append(f"Belief: {decisions:,} LBR decisions; the particle cap "
                     f"({s['max_particles']:,}) was reached in {truncated} of "
                     f"{len(value)} runs, and {lost:,} decisions fell back to the policy "
                     "(belief lost).")
        lines.append("")
    return "\n".join(lines)


def validation(record: dict) -> str:
    rows = record["rows"]
    s = record["settings"]
    lines = [f"LBR ({s['rollouts']} rollouts per action) on reduced decks, where the "
             "exact exploitability (NashConv with 3 players) is computed on the whole "
             "tree: LBR's exact value there (its choice at each of its information "
             "states, the policy elsewhere), the share of the exact value it reaches, and "
             f"its estimate by play ({s['validation_deals']:,} deals, 95% interval). "
             f"`mccfr_<level>`: MCCFR with the abstraction of the agenda's shipped policy, "
             f"{s['mccfr_iterations']:,} iterations. Made by `{record['command']}` in "
             f"{record['seconds']:.0f} s.", ""]
    violations = [r for r in rows if r["lbr_exact"] > r["exact"] + 1e-9]
    lines.append(f"LBR's exact value exceeds the exact value in {len(violations)} of "
                 f"{len(rows)} cases; the interval of its estimate by play lies above the "
                 f"exact value in "
                 f"{sum(1 for r in rows if r['lbr_by_play']['low'] > r['exact'])} cases.")
    lines.append("")
    lines += table(["deck", "players", "agenda", "policy", "exact", "LBR exact", "share",
                    "LBR by play"],
                   [[r["deck"], str(r["players"]), r["agenda"], r["policy"],
                     f"{r['exact']:.4f}", f"{r['lbr_exact']:.4f}", f"{r['tightness']:.0%}",
                     format_ci(r["lbr_by_play"])] for r in rows])
    lines.append("")
    for deck in dict.fromkeys(r["deck"] for r in rows):
        for players in sorted({r["players"] for r in rows if r["deck"] == deck}):
            group = [r for r in rows if r["deck"] == deck and r["players"] == players]
            shares = [r["tightness"] for r in group]
            lines.append(f"- {deck}, {players} players: LBR reaches {min(shares):.0%} to "
                         f"{max(shares):.0%} of the exact value (median "
                         f"{float(np.median(shares)):.0%}).")
    lines.append("")
    return "\n".join(lines)


def exploitability(record: dict) -> str:
    """The exploitability study (solver/studies/exploitability.py): policies by agenda."""
    agendas = list(dict.fromkeys(r["agenda"] for r in record["rows"]))
    policies = list(dict.fromkeys(r["policy"] for r in record["rows"]))
    value = {(r["agenda"], r["policy"]): r["value"] for r in record["rows"]}
    return "\n".join(table(["policy", *agendas], [
        [policy, *(f"{value[(a, policy)]:.4f}" if value[(a, policy)] >= 1e-3
                   else f"{value[(a, policy)]:.1e}" for a in agendas)]
        for policy in policies])) + "\n"


# The evaluation report: part, title, figures (solver/reports/files.py names the files).
EVALUATION_SECTIONS = (
    ("crosstable", "Tournament cross-tables", ("crosstable_2p", "crosstable_3p")),
    ("lbr", "Exploitability lower bounds (LBR), full game", ("lbr",)),
    ("validation", "LBR against exact exploitability, reduced decks", ("validation",)),
)
EVALUATION_PARTS = {"crosstable": crosstable, "lbr": lbr, "validation": validation}


def evaluation_report(records: dict[str, dict | None], figures: set[str],
                      prefix: str) -> str:
    """results/evaluation_report.md from the parts' records (None: not run yet) and the
    names of the figures that exist (files <prefix>_<figure>.png)."""
    done = {part: record["seconds"] for part, record in records.items() if record}
    lines = ["# Evaluation on the full game", "",
             "Evidence of strength where exact exploitability cannot be computed: "
             "tournaments between the shipped table policies and the heuristics, and "
             "lower bounds on exploitability from a local best response, checked against "
             "the exact values on reduced decks. Units: tokens per round (margin utility). "
             "Each part below names the command that remakes it and how long it took "
             "here (2 cores shared with other work); `jabba evaluate` runs them all "
             f"({sum(done.values()):.0f} s in all: "
             + ", ".join(f"{part} {seconds:.0f} s" for part, seconds in done.items())
             + ").", ""]
    for part, title, part_figures in EVALUATION_SECTIONS:
        record = records.get(part)
        lines.append(f"## {title}")
        lines.append("")
        if record is None:
            lines.append(f"Not run yet: `jabba evaluate --parts {part}`.")
            lines.append("")
            continue
        if record["interrupted"]:
            lines.append("**Interrupted: partial results.**")
            lines.append("")
        for figure in part_figures:
            if figure in figures:
                lines.append(f"![{figure}]({prefix}_{figure}.png)")
                lines.append("")
        lines.append(EVALUATION_PARTS[part](record))
        lines.append(f"Files: `{prefix}_{part}.csv`, `{prefix}_{part}.json` (code version "
                     f"{record['code_version']}, {record['created']}).")
        lines.append("")
    return "\n".join(lines)
