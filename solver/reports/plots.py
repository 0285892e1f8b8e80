"""PNG renderings of result records (matplotlib, Agg)."""

from __future__ import annotations

import io

import numpy as np

from solver import provenance
from solver.reports.csv import curve_metric
from solver.reports.markdown import crosstable_cells


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _png(fig) -> bytes:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def crosstable(record: dict) -> dict[str, bytes]:
    """One heat map of mean margins per player count: {"crosstable_<n>p": png}."""
    plt = _pyplot()
    rows = record["rows"]
    out = {}
    for players in sorted({r["players"] for r in rows}):
        agendas = list(dict.fromkeys(r["agenda"] for r in rows if r["players"] == players))
        columns = min(2, len(agendas))
        lines = -(-len(agendas) // columns)
        fig, axes = plt.subplots(lines, columns, figsize=(5.4 * columns, 4.6 * lines),
                                 squeeze=False)
        for ax in axes.flat[len(agendas):]:
            ax.set_visible(False)
        for ax, agenda in zip(axes.flat, agendas):
            policies, cells = crosstable_cells(rows, players, agenda)
            grid = np.full((len(policies), len(policies)), np.nan)
            for i, a in enumerate(policies):
                for j, b in enumerate(policies):
                    if (a, b) in cells:
                        grid[i, j] = cells[(a, b)]["margin"]["mean"]
            limit = max(0.05, float(np.nanmax(np.abs(grid))))
            ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit)
            for i in range(len(policies)):
                for j in range(len(policies)):
                    if not np.isnan(grid[i, j]):
                        ax.text(j, i, f"{grid[i, j]:+.2f}", ha="center", va="center",
                                fontsize=7)
            ax.set_xticks(range(len(policies)), policies, rotation=40, ha="right",
                          fontsize=7)
            ax.set_yticks(range(len(policies)), policies, fontsize=7)
            ax.set_title(agenda, fontsize=9)
        fig.suptitle(f"{players} players: row's mean margin per round against the column "
                     f"(tokens)", fontsize=10)
        fig.tight_layout()
        out[f"crosstable_{players}p"] = _png(fig)
    return out


def lbr(record: dict) -> dict[str, bytes]:
    """LBR lower bounds as bars per policy and agenda: {"lbr": png}."""
    plt = _pyplot()
    rows = record["rows"]
    player_counts = sorted({r["players"] for r in rows})
    if not player_counts:
        return {}
    fig, axes = plt.subplots(1, len(player_counts), figsize=(6.2 * len(player_counts), 4),
                             squeeze=False)
    for ax, players in zip(axes[0], player_counts):
        group = [r for r in rows if r["players"] == players]
        agendas = list(dict.fromkeys(r["agenda"] for r in group))
        policies = list(dict.fromkeys(r["policy"] for r in group))
        width = 0.8 / len(agendas)
        for k, agenda in enumerate(agendas):
            xs, ys, errors = [], [], []
            for i, policy in enumerate(policies):
                match = [r for r in group if r["agenda"] == agenda and r["policy"] == policy]
                if match:
                    b = match[0]["lower_bound"]
                    xs.append(i + (k - (len(agendas) - 1) / 2) * width)
                    ys.append(b["mean"])
                    errors.append((b["high"] - b["low"]) / 2)
            ax.bar(xs, ys, width, yerr=errors, capsize=2, label=agenda)
        ax.set_xticks(range(len(policies)), policies, rotation=25, ha="right", fontsize=8)
        ax.axhline(0, color="black", lw=0.6)
        metric = "exploitability" if players == 2 else "NashConv"
        ax.set_ylabel(f"{metric} lower bound (tokens / round)")
        ax.set_title(f"{players} players, full deck: LBR against each policy", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return {"lbr": _png(fig)}


def validation(record: dict) -> dict[str, bytes]:
    """LBR's exact value against the exact exploitability: {"validation": png}."""
    plt = _pyplot()
    rows = record["rows"]
    if not rows:
        return {}
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    groups = list(dict.fromkeys((r["deck"], r["players"]) for r in rows))
    for (deck, players), marker in zip(groups, "os^vD"):
        group = [r for r in rows if r["deck"] == deck and r["players"] == players]
        ax.scatter([r["exact"] for r in group], [r["lbr_exact"] for r in group],
                   marker=marker, s=18, label=f"{deck}, {players} players")
    top = max(max(r["exact"] for r in rows), 1e-3) * 1.05
    ax.plot([0, top], [0, top], color="grey", lw=0.8, ls="--", label="exact = LBR")
    ax.set_xlabel("exact exploitability / NashConv (tokens / round)")
    ax.set_ylabel("LBR lower bound, exact value")
    ax.set_title("LBR on reduced decks: below the diagonal = a lower bound", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return {"validation": _png(fig)}


EVALUATION_PARTS = {"crosstable": crosstable, "lbr": lbr, "validation": validation}


def exploitability(record: dict) -> bytes:
    """Convergence of each CFR variant per agenda, heuristics as dotted lines."""
    plt = _pyplot()
    game = record["game"]["parameters"]
    agendas = list(dict.fromkeys(r["agenda"] for r in record["rows"]))
    columns = min(2, len(agendas))
    rows = -(-len(agendas) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.4 * rows),
                             sharey=True, squeeze=False)
    for ax in axes.flat[len(agendas):]:
        ax.set_visible(False)
    for ax, agenda in zip(axes.flat, agendas):
        for name, curve in record["curves"].items():
            a, algorithm = name.split("/")
            if a == agenda:
                ax.loglog([m[0] for m in curve], [m[1] for m in curve], label=algorithm)
        for r in record["rows"]:
            if r["agenda"] == agenda and r["kind"] == "heuristic":
                ax.axhline(r["value"], color="grey", lw=0.6, ls=":")
        ax.set_title(agenda)
        ax.set_xlabel("iterations")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{record['metric']} (tokens / round)")
    axes[0][0].legend()
    fig.suptitle(f"deck {game['deck']}, {game['players']} players (dotted: heuristics)")
    fig.tight_layout()
    return _png(fig)


def training_curve(record: dict) -> bytes | None:
    """An MCCFR policy's exact metric against iterations, if it was measured."""
    metric = curve_metric(record["curve"])
    if metric is None:
        return None
    plt = _pyplot()
    curve = record["curve"]
    game = record["game"]["parameters"]
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.loglog([p["iteration"] for p in curve], [p[metric] for p in curve], marker=".")
    ax.set_xlabel("MCCFR iterations")
    ax.set_ylabel(f"exact {metric} (tokens / round)")
    variant = game.get("agenda", provenance.game_name(record))  # without agendas: the game
    ax.set_title(f"MCCFR ({record['abstraction']['level']}) on deck {game['deck']}, "
                 f"{game['players']} players, {variant}")
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    return _png(fig)
