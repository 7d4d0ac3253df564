"""R-SPECTRAL figures: Figs 2–6 of *Asymptotic Utility of Spectral Anonymization* (``004_…``).

Drawn from the pooled cells of :func:`experiments.reproductions.spectral_2024_cells.pooled`:
RE vs n per DGP (Figs 2, 3, 6: solid = sample mean, dotted = sample covariance), EUC vs n
under DGP 1 (Fig. 4) and histograms of the per-replicate match proportions under DGP 1 for
n ≤ 400 (Fig. 5).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.reproduction import ReproductionRun

FIGURE_OF_DGP = {1: "fig2_re_dgp1", 2: "fig3_re_dgp2", 3: "fig6_re_dgp3", 4: "fig6_re_dgp4"}
DGP_TITLE = {
    1: "DGP 1: N(3·1, diag(p..1))",
    2: "DGP 2: N(3·1, I) (Assumption 1 violated)",
    3: "DGP 3: Poisson(p..1)",
    4: "DGP 4: Poisson(1) (Assumption 1 violated)",
}
RELEASE_ORDER = ("original", "p_sa", "j_sa", "o_sa")
LABELS = {"original": "original data", "p_sa": "P-SA", "j_sa": "J-SA", "o_sa": "O-SA"}
LINESTYLES = {2: "-", 3: "--", 6: ":"}
HISTOGRAM_BINS = 12


def draw_figures(run: ReproductionRun, table: pd.DataFrame) -> None:
    """Write every figure the run's cells support."""
    from harness.report.style import figure_style, palette

    colours = palette(RELEASE_ORDER)
    with figure_style():
        for dgp in sorted(set(table["dgp"])):
            _re_figure(run, table[table["dgp"] == dgp], int(dgp), colours)
        dgp1 = table[(table["dgp"] == 1) & table["release"].isin(RELEASE_ORDER[1:])]
        if len(dgp1):
            _euc_figure(run, dgp1, colours)
            _match_histograms(run, dgp1[dgp1["n"] <= 400], colours)


def _re_figure(run: ReproductionRun, part: pd.DataFrame, dgp: int, colours: dict) -> None:
    from harness.report.style import new_figure

    ps = sorted(set(part["p"]))
    fig = new_figure(3.0 * len(ps) + 0.6, 3.0)
    axes = fig.subplots(1, len(ps), squeeze=False)[0]
    for ax, p in zip(axes, ps):
        cell = part[part["p"] == p]
        for release in RELEASE_ORDER:
            line = cell[cell["release"] == release].sort_values("n")
            if line.empty:
                continue
            colour = colours[release]
            ax.plot(
                line["n"],
                line["re_mean"],
                "-",
                marker="o",
                ms=3,
                color=colour,
                label=f"{LABELS[release]} mean",
            )
            ax.plot(
                line["n"], line["re_cov"], ":", marker="s", ms=3, color=colour, label=f"{LABELS[release]} cov"
            )
        _log_n_axis(ax, sorted(set(cell["n"])))
        ax.set_title(f"p = {p}")
    axes[0].set_ylabel("relative error")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=7)
    fig.suptitle(f"{DGP_TITLE[dgp]}: RE vs Theorems 1-2 (M = {int(part['M'].max()):,})")
    run.save_figure(fig, FIGURE_OF_DGP[dgp])


def _euc_figure(run: ReproductionRun, part: pd.DataFrame, colours: dict) -> None:
    from harness.report.style import new_figure

    fig = new_figure(5.0, 3.2)
    ax = fig.subplots()
    for (release, p), line in part.groupby(["release", "p"]):
        line = line.sort_values("n")
        ax.plot(
            line["n"], line["euc"], LINESTYLES.get(int(p), "-."), marker="o", ms=3, color=colours[release],
            label=f"{LABELS[release]}, p = {p}",
        )  # fmt: skip
    _log_n_axis(ax, sorted(set(part["n"])))
    ax.set_ylabel("EUC (mean nearest distance)")
    ax.legend(fontsize=7, ncols=2)
    ax.set_title("DGP 1: EUC_A (Fig. 4)")
    run.save_figure(fig, "fig4_euc")


def _match_histograms(run: ReproductionRun, part: pd.DataFrame, colours: dict) -> None:
    from harness.report.style import new_figure

    if part.empty:
        return
    ps, ns = sorted(set(part["p"])), sorted(set(part["n"]))
    fig = new_figure(2.4 * len(ns) + 0.8, 2.0 * len(ps) + 0.6)
    axes = fig.subplots(len(ps), len(ns), squeeze=False)
    width = 0.27
    for i, p in enumerate(ps):
        for j, n in enumerate(ns):
            ax = axes[i][j]
            cell = part[(part["p"] == p) & (part["n"] == n)]
            top = max((max(c or {0: 0}) for c in cell["matches_per_group"]), default=0) / n
            edges = np.linspace(0.0, max(top, 1.0 / n) * 1.0001, HISTOGRAM_BINS + 1)
            step = edges[1] - edges[0]
            for k, release in enumerate(RELEASE_ORDER[1:]):
                row = cell[cell["release"] == release]
                if row.empty:
                    continue
                counts = row["matches_per_group"].iloc[0] or {0: 0}
                props = np.array(sorted(counts), dtype=float) / n
                heights, _ = np.histogram(props, edges, weights=[counts[c] for c in sorted(counts)])
                ax.bar(edges[:-1] + (k + 0.5) * width * step, heights, width=width * step, color=colours[release],
                       label=LABELS[release])  # fmt: skip
            ax.set_title(f"p = {p}, n = {n}", fontsize=8)
            if i == len(ps) - 1:
                ax.set_xlabel("match proportion")
            if j == 0:
                ax.set_ylabel("replicates")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=7)
    fig.suptitle("DGP 1: per-replicate match proportions (Fig. 5)")
    run.save_figure(fig, "fig5_matches")


def _log_n_axis(ax: object, ns: list[int]) -> None:
    """Log-scaled n axis with the simulated n as plain tick labels."""
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    ax.set_xscale("log")  # type: ignore[attr-defined]
    ax.xaxis.set_major_locator(FixedLocator(ns))  # type: ignore[attr-defined]
    ax.xaxis.set_major_formatter(ScalarFormatter())  # type: ignore[attr-defined]
    ax.xaxis.set_minor_locator(NullLocator())  # type: ignore[attr-defined]
    ax.set_xlabel("n (log scale)")  # type: ignore[attr-defined]


def write_tables(run: ReproductionRun, table: pd.DataFrame, eff: pd.DataFrame) -> None:
    """Tables of RE, matches, EUC, efficiency and runtime from the pooled cells."""
    from experiments.reproductions.spectral_2024_cells import CELL, PAPER_RUNTIME, expected_match_rate

    order = {r: i for i, r in enumerate(RELEASE_ORDER)}
    table = (
        table.assign(_o=table["release"].map(order)).sort_values(["dgp", "p", "n", "_o"]).drop(columns="_o")
    )
    re_table = table[["dgp", "p", "n", "release", "M", "re_mean", "re_cov"]].copy()
    re_table["release"] = re_table["release"].map(LABELS)
    run.write_table(
        "relative_errors", re_table,
        caption="RE of the replicate covariance of √n(x̄_A − μ) (re_mean) and √n·vec(S_A − Σ) (re_cov) against "
        "the limit that applies (Theorem 1: Σ or 2Σ; Tyler / Theorem 2) — Figs 2, 3, 6",
    )  # fmt: skip
    sa = table[table["release"].isin(RELEASE_ORDER[1:])].copy()
    sa["expected_rate"] = [expected_match_rate(r, p, n) for r, p, n in zip(sa["release"], sa["p"], sa["n"])]
    sa["match_rate"] = sa["n_matches"] / sa["n_rows"]
    matches = sa[
        ["dgp", "p", "n", "release", "M", "n_rows", "n_matches", "match_rate", "expected_rate", "mean_shift"]
    ]
    run.write_table(
        "matches", matches.assign(release=matches["release"].map(LABELS)),
        caption="Matches (nearest original row of the same replicate closer than 1e-6) and max |x̄_A − x̄|; "
        "expected rate 2^(−p) (J-SA), n^(1−p) (P-SA), 0 (O-SA) on continuous data — Fig. 5", digits=5,
    )  # fmt: skip
    euc = sa.pivot_table(index=CELL, columns="release", values="euc").reset_index()
    euc.columns = [LABELS.get(str(c), str(c)) for c in euc.columns]
    run.write_table(
        "euc",
        euc,
        caption="EUC_A: mean distance to the nearest original record of the same replicate — Fig. 4",
    )
    if len(eff):
        run.write_table(
            "efficiency", eff.assign(release=eff["release"].map(LABELS)),
            caption="Asymptotic efficiency (original-data limit variance / replicate variance) at DGP 1's largest n, "
            "with the SD of its Wishart draws; theory: mean 1 (P-SA) or 0.5 (J-SA, O-SA), variances 1, covariances 0.5",
        )  # fmt: skip
    runtime = sa[(sa["dgp"] == 1) & (sa["p"] == 6) & (sa["n"] == 1000)]
    if len(runtime):
        rt = runtime[["release", "p", "n", "M", "seconds_per_dataset"]].copy()
        rt["paper_seconds"] = rt["release"].map(PAPER_RUNTIME)
        run.write_table(
            "runtime", rt.assign(release=rt["release"].map(LABELS)),
            caption="Seconds per data set (n = 1000, p = 6): trial fit time / M; the paper's values (other hardware)",
            digits=5,
        )  # fmt: skip
