"""R-RAAB artifacts: Raab's Tables 1-3 regenerated next to the published values, and Figs 1-3.

Written into the run's ``reproduction/`` folder by :func:`artifacts` (the checks module
re-exports it): ``tables/table2.md`` (every cell: paper orig/syn, ours, and the prose
``denom_lim`` variant on s_tq for C3/C4), ``tables/table2_ours.md`` (our values in the
paper's layout), ``tables/table1.md``, ``tables/table3.md`` and
``figures/raab_disclosure.png`` (Figs 1-3: GT vs release per target).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.reproductions import raab_2024_paper as paper
from experiments.reproductions.raab_2024_view import (
    ADULT,
    CART,
    IDENTITY,
    SD2011,
    mean_of,
    measures,
    seeds,
    table3_values,
)
from harness.reproduction import ReproductionRun


def table2(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 2 in long form: one row per (target, setting) with the paper's and our values."""
    records = []
    for target in paper.ADULT_TARGETS:
        for k, setting in enumerate(paper.SETTINGS):
            p_orig, p_syn = paper.TABLE2[target][k]
            where = {"metric": f"raab_{setting}", "target": target}
            record = {
                "target": target,
                "setting": setting.upper(),
                "paper orig": p_orig,
                "orig (GT-only)": mean_of(frame, "Dorig", generator=IDENTITY, **where),
                "paper syn": p_syn,
                "syn (CART)": mean_of(frame, "DiSCO", generator=CART, **where),
                "orig of the CART trials": mean_of(frame, "Dorig", generator=CART, **where),
                "syn, limit on s_tq": math.nan,
            }
            if setting in ("c3", "c4"):
                record["syn, limit on s_tq"] = mean_of(
                    frame, "DiSCO", generator=CART, metric=f"raab_{setting}_sd", target=target
                )
            records.append(record)
    return pd.DataFrame(records)


def table2_ours(frame: pd.DataFrame) -> pd.DataFrame:
    """Our Table 2 in the paper's layout: one row per target, orig/syn per column setting."""
    rows = []
    for target in paper.ADULT_TARGETS:
        row: dict[str, object] = {"target": target}
        for setting in paper.SETTINGS:
            where = {"metric": f"raab_{setting}", "target": target}
            row[f"{setting.upper()} orig"] = mean_of(frame, "Dorig", generator=IDENTITY, **where)
            row[f"{setting.upper()} syn"] = mean_of(frame, "DiSCO", generator=CART, **where)
        rows.append(row)
    return pd.DataFrame(rows)


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1 (target depress): the paper's five rows, ours per seed and both means."""
    dep = frame[(frame["part"] == "all") & (frame["metric"] == "raab") & (frame["target"] == "depress")]
    columns = list(paper.TABLE1_COLUMNS)
    source = {c: ("mean_denom_cells" if c == "mean_denom" else c) for c in columns}
    rows = [
        {"source": "paper", "synthesis": str(i + 1), **dict(zip(columns, r))}
        for i, r in enumerate(paper.TABLE1)
    ]
    rows.append({"source": "paper", "synthesis": "mean", **{c: float(np.mean([r[j] for r in paper.TABLE1]))
                                                             for j, c in enumerate(columns)}})  # fmt: skip
    for seed in seeds(dep):
        one = dep[dep["gen_seed"] == seed]
        rows.append(
            {"source": "ours", "synthesis": f"seed {seed}", **{c: mean_of(one, source[c]) for c in columns}}
        )
    rows.append({"source": "ours", "synthesis": "mean", **{c: mean_of(dep, source[c]) for c in columns}})
    return pd.DataFrame(rows)


def table3(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 3: DiSCO and DCAP All / Train / Ctrl / R per target, the paper's row above ours."""
    ours = table3_values(frame)
    names = [f"{m} {p}" for m in ("DiSCO", "DCAP") for p in paper.TABLE3_PARTS]
    rows = []
    for target in paper.SD_TARGETS:
        rows.append({"target": target, "source": "paper", **dict(zip(names, paper.TABLE3[target]))})
        rows.append({"target": target, "source": "ours", **{n: ours[target][n] for n in names}})
    return pd.DataFrame(rows)


def disclosure_figure(run: ReproductionRun, adult: pd.DataFrame, sd: pd.DataFrame) -> str:
    """Figs 1-3: Dorig vs DiSCO and CAPd vs DCAP for SD2011, Dorig vs DiSCO for AdultUCI (C0)."""
    from harness.report.style import figure_style, new_figure

    whole = sd[(sd["part"] == "all") & (sd["metric"] == "raab")]
    panels = [
        ("Fig. 1: SD2011, DiSCO", list(paper.SD_TARGETS), whole, "Dorig", "DiSCO", {}),
        ("Fig. 2: SD2011, DCAP", list(paper.SD_TARGETS), whole, "CAPd", "DCAP", {}),
        (
            "Fig. 3: AdultUCI (C0), DiSCO",
            list(paper.ADULT_TARGETS),
            adult,
            "Dorig",
            "DiSCO",
            {"metric": "raab_c0"},
        ),
    ]
    with figure_style():
        fig = new_figure(13.0, 4.2)
        axes = fig.subplots(1, 3)
        for ax, (title, targets, frame, gt_col, sd_col, where) in zip(axes, panels):
            gt = [mean_of(frame, gt_col, generator=CART, target=t, **where) for t in targets]
            rel = [mean_of(frame, sd_col, generator=CART, target=t, **where) for t in targets]
            order = np.argsort(np.nan_to_num(rel, nan=-1.0))
            y = np.arange(len(targets))
            ax.barh(y + 0.2, np.asarray(gt)[order], height=0.4, label=f"{gt_col} (GT)")
            ax.barh(y - 0.2, np.asarray(rel)[order], height=0.4, label=f"{sd_col} (CART release)")
            ax.set_yticks(y, [targets[i] for i in order])
            ax.set_xlabel("% of GT records")
            ax.set_title(title)
            ax.legend(loc="lower right", fontsize="small")
        suffix = " (quick profile)" if run.quick else ""
        fig.suptitle(
            f"Raab (PSD 2024): attribute disclosure of the GT and of CART releases, mean over seeds{suffix}"
        )
        return run.save_figure(fig, "raab_disclosure")


def artifacts(run: ReproductionRun) -> None:
    """Write Tables 1-3 (ours next to the paper's) and the Figs 1-3 panel."""
    adult = measures(run, ADULT)
    sd = measures(run, SD2011, CART)
    quick = (
        " Quick profile: the CART releases are made from a 4,000-row AdultUCI sample; SD2011 has 2 syntheses."
        if run.quick
        else ""
    )
    run.write_table(
        "table2", table2(adult), digits=2,
        caption="Table 2: DiSCO % of AdultUCI from keys age, occupation, race, sex. 'orig (GT-only)' = Dorig of the "
        "identity release on all rows; 'syn (CART)' = DiSCO of the cart_synthpop releases (mean over seeds), "
        "'orig of the CART trials' = Dorig of the GT those releases were made from; 'syn, limit on s_tq' = C3/C4 "
        "with the denominator limit on synthetic counts (the paper's prose) instead of synthpop's d_tq." + quick,
    )  # fmt: skip
    run.write_table(
        "table2_ours", table2_ours(adult), digits=2, caption="Table 2 (ours) in the paper's layout." + quick
    )
    run.write_table(
        "table1", table1(sd), digits=2,
        caption="Table 1: attribute disclosure for target depress, SD2011, keys sex, age, region, placesize; "
        "max_denom / mean_denom are synthpop's d_tq statistics (denom_source: original, cell mean)." + quick,
    )  # fmt: skip
    run.write_table(
        "table3", table3(sd), digits=2,
        caption="Table 3: DiSCO and DCAP from the whole table (All) and from the training (4,000) and control "
        "(1,000) records with the release made from the training records; R = (Train - Ctrl)/(100 - Ctrl)." + quick,
    )  # fmt: skip
    disclosure_figure(run, adult, sd)


__all__ = ["artifacts", "disclosure_figure", "table1", "table2", "table2_ours", "table3"]
