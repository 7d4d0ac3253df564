"""R-ROBINHOOD figures: Figs 3-5 of *Robin Hood* (``004_…``) from the collected odds ratios.

Fig. 3: odds ratio vs k (S1), Fig. 4: odds ratio vs the super-minority share x (S2), one panel
per race level, a line per method (mean over repetitions) with its 2.5-97.5 % band, the raw
data and, for the simulation, the true odds ratio dashed. Fig. 5: Adult, odds ratio vs k per
race.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.datasets.simulations.robin_hood import TRUE_ODDS_RATIOS
from harness.reproduction import ReproductionRun

METHOD_ORDER = ("kanon_ola_suppress1", "kanon_ola_nosuppress", "robin_hood", "identity")
LABELS = {
    "kanon_ola_suppress1": "k-anon. 1 % suppression",
    "kanon_ola_nosuppress": "k-anon. no suppression",
    "robin_hood": "Robin Hood",
    "identity": "raw data",
}


def draw_figures(run: ReproductionRun, s1: pd.DataFrame, s2: pd.DataFrame, adult: pd.DataFrame) -> None:
    """Write the figures the collected rows support."""
    from harness.report.style import figure_style, palette

    colours = palette(METHOD_ORDER)
    with figure_style():
        if len(s1):
            _panels(
                run, s1, "k", "k / k_target", "fig3_s1_odds_ratios", "S1 (super-minority share 0.01)", colours
            )
        if len(s2):
            _panels(
                run,
                s2,
                "x",
                "super-minority share x",
                "fig4_s2_odds_ratios",
                "S2 (k = k_target = 30)",
                colours,
            )
        if len(adult):
            _panels(run, adult, "k", "k / k_target", "fig5_adult_odds_ratios", "Adult", colours)


def _panels(
    run: ReproductionRun, frame: pd.DataFrame, axis: str, label: str, stem: str, title: str, colours: dict
) -> None:
    from harness.report.style import new_figure

    levels = sorted(set(frame["level"]))
    fig = new_figure(3.0 * len(levels) + 1.8, 3.0)
    axes = fig.subplots(1, len(levels), squeeze=False)[0]
    raw = frame  # every row carries the raw data's odds ratio of its repetition (or_orig)
    for ax, level in zip(axes, levels):
        part = frame[frame["level"] == level]
        for method in METHOD_ORDER[:3]:
            rows = part[part["method"] == method]
            if rows.empty:
                continue
            stats = rows.groupby(axis)["or_release"].agg(
                mean="mean",
                low=lambda s: float(np.quantile(s, 0.025)),
                high=lambda s: float(np.quantile(s, 0.975)),
            )
            ax.plot(stats.index, stats["mean"], marker="o", ms=3, color=colours[method], label=LABELS[method])
            if len(rows) > len(stats):
                ax.fill_between(stats.index, stats["low"], stats["high"], color=colours[method], alpha=0.15)
        raw_level = raw[raw["level"] == level].drop_duplicates(["x", "seed", "level"])
        if len(raw_level):
            if axis == "x":
                series = raw_level.groupby("x")["or_orig"].mean()
                ax.plot(series.index, series.to_numpy(), color=colours["identity"], label=LABELS["identity"])
            else:
                ax.axhline(
                    float(raw_level["or_orig"].mean()), color=colours["identity"], label=LABELS["identity"]
                )
        if level in TRUE_ODDS_RATIOS and frame["dataset"].iloc[0] == "robin_hood_simulation":
            ax.axhline(TRUE_ODDS_RATIOS[level], color="0.3", linestyle="--", linewidth=0.9, label="true")
        ax.axhline(1.0, color="0.6", linestyle=":", linewidth=0.8)
        if axis == "x":
            _log_axis(ax, sorted(set(part["x"])))
        ax.set_xlabel(label)
        ax.set_title(level, fontsize=9)
    axes[0].set_ylabel("odds ratio (vs reference race)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=7)
    fig.suptitle(f"{title}: race odds ratios, mean and 2.5-97.5 % over repetitions")
    run.save_figure(fig, stem)


def _log_axis(ax: object, values: list[float]) -> None:
    """Log-scaled axis with the simulated values as plain tick labels."""
    from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullLocator

    ax.set_xscale("log")  # type: ignore[attr-defined]
    ax.xaxis.set_major_locator(FixedLocator(values))  # type: ignore[attr-defined]
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))  # type: ignore[attr-defined]
    ax.xaxis.set_minor_locator(NullLocator())  # type: ignore[attr-defined]
    ax.tick_params(axis="x", labelrotation=45)  # type: ignore[attr-defined]


def _summary(part: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    grouped = part.groupby(by)
    return grouped.agg(
        repetitions=("or_release", "size"),
        mean_or=("or_release", "mean"),
        q025=("or_release", lambda s: float(np.quantile(s, 0.025))),
        q975=("or_release", lambda s: float(np.quantile(s, 0.975))),
        mean_or_raw=("or_orig", "mean"),
        mean_abs_log_error=("error", "mean"),
        released_exact=("release_level", lambda s: float((s == "exact").mean())),
    ).reset_index()


def write_tables(run: ReproductionRun, s1: pd.DataFrame, s2: pd.DataFrame, adult: pd.DataFrame) -> None:
    """Odds-ratio summaries and mean errors per method (S1 per k, S2 per x, Adult per k)."""
    named = {"method": lambda f: f["method"].map(LABELS)}
    if len(s1):
        run.write_table(
            "s1_odds_ratios", _summary(s1, ["method", "k", "level"]).assign(**named),
            caption="S1 (super-minority share 0.01): race odds ratios over repetitions (true: minority 2.25, "
            "super-minority 9); released_exact = share of repetitions with the level released as itself — Fig. 3",
        )  # fmt: skip
        errors = s1.groupby(["method", "k"])["error"].mean().unstack("method").reset_index()
        errors.columns = [LABELS.get(str(c), str(c)) for c in errors.columns]
        run.write_table(
            "s1_errors", errors, caption="S1: mean |log OR(release) − log OR(raw)| per method and k"
        )
    if len(s2):
        run.write_table(
            "s2_odds_ratios", _summary(s2, ["method", "x", "level"]).assign(**named),
            caption="S2 (k = k_target = 30): race odds ratios per super-minority share x — Fig. 4",
        )  # fmt: skip
        errors = s2.groupby(["x", "method"])["error"].mean().unstack("method").reset_index()
        errors.columns = [LABELS.get(str(c), str(c)) for c in errors.columns]
        run.write_table(
            "s2_errors", errors, caption="S2: mean |log OR(release) − log OR(raw)| per method and x"
        )
    if len(adult):
        run.write_table(
            "adult_odds_ratios", _summary(adult, ["method", "k", "level"]).assign(**named),
            caption="Adult (45,175 rows): race odds ratios of salary > 50K (reference White) — Fig. 5",
        )  # fmt: skip
