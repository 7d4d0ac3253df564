"""R-LATNER artifacts: the pMSE per version and generator, Table 1 next to our costs, Fig. 2 and the CTGAN grid.

Written into the run's ``reproduction/`` folder by :func:`artifacts` (re-exported by
:mod:`experiments.reproductions.latner_2024`): ``tables/pmse_by_version.md`` (+ figure),
``tables/runtime_table1.md``, ``tables/agegr_misclassification.md`` (+ figure) and
``tables/ctgan_grid.md``. Pure functions of the results table.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from experiments.reproductions import latner_2024_paper as paper
from harness.reproduction import ReproductionRun

DS, CART, CTGAN = "datasynthesizer", "cart_synthpop", "sdv_ctgan"
GENERATORS = {DS: "DataSynthesizer (k = 2)", CART: "synthpop (cart_synthpop)", CTGAN: "CTGAN"}
CTGAN_MAIN = {"epochs": 600, "batch_size": 500, "embedding_dim": 128, "generator_dim": [256, 256]}
"""The protocol's CTGAN (§2.2: defaults except 600 epochs)."""
GRID_PARAMS = ("epochs", "batch_size", "embedding_dim", "generator_dim", "discriminator_dim")


def pmse_values(run: ReproductionRun, generator: str, dataset: str, **params: Any) -> pd.Series:
    """Per-copy pMSE of one generator on one version (indexed by gen_seed)."""
    rows = run.rows("pmse", "pmse", generator=generator, dataset=dataset, params=params or None)
    return pd.Series(rows["value"].astype(float).to_numpy(), index=rows["gen_seed"].astype(int).to_numpy())


def ctgan_cells(run: ReproductionRun) -> pd.DataFrame:
    """Every CTGAN configuration on (c): one row per (configuration, copy) with its pMSE."""
    rows = run.rows("pmse", "pmse", generator=CTGAN, dataset="sd2011_c")
    columns = [*GRID_PARAMS, "cell", "gen_seed", "pmse"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    empty = pd.Series([None] * len(rows), index=rows.index, dtype=object)
    frame = pd.DataFrame({p: rows.get(f"param.{p}", empty) for p in GRID_PARAMS})
    for p in GRID_PARAMS:
        frame[p] = frame[p].map(_cell_value)
    frame["cell"] = frame[list(GRID_PARAMS)].astype(str).agg(" ".join, axis=1)
    frame["gen_seed"] = rows["gen_seed"].astype(int).to_numpy()
    frame["pmse"] = rows["value"].astype(float).to_numpy()
    return frame[columns].reset_index(drop=True)


def _cell_value(value: Any) -> Any:
    """A grid parameter as the cell label shows it: lists as lists, whole floats (NaN-padded columns) as ints."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return str([int(v) for v in value])
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def seconds(run: ReproductionRun, generator: str, dataset: str, **params: Any) -> float:
    """Mean fit + sample seconds per copy."""
    fit = run.values("fit_seconds", "", generator=generator, dataset=dataset, params=params or None).dropna()
    sample = run.values(
        "sample_seconds", "", generator=generator, dataset=dataset, params=params or None
    ).dropna()
    return float(fit.mean()) + float(sample.mean()) if len(fit) and len(sample) else math.nan


def fig2_cells(run: ReproductionRun) -> tuple[pd.DataFrame, int]:
    """Mismatch cells (synthetic agegr, age group of synthetic age) of DataSynthesizer on (a), summed over copies."""
    details = run.details("consistency", "agegr", generator=DS, dataset="sd2011")
    total = int(sum(d.get("n_rows", 0) for d in details))
    cells = [cell for d in details for cell in d.get("mismatches", [])]
    if not cells:
        return pd.DataFrame(columns=["agegr", "age_group", "n"]), total
    frame = pd.DataFrame(cells).rename(columns={"observed": "agegr", "expected": "age_group"})
    frame = frame.groupby(["agegr", "age_group"], as_index=False)["n"].sum()
    return frame.sort_values(["agegr", "age_group"]).reset_index(drop=True), total


def fig2_shares(run: ReproductionRun) -> dict[str, pd.Series]:
    """Per copy: the share of rows with synthetic agegr 25-34 whose synthetic age is in 16-24 / 35-44."""
    rows = run.rows("consistency", "agegr", generator=DS, dataset="sd2011")
    out: dict[str, dict[int, float]] = {group: {} for group in paper.FIG2_CELLS}
    for seed, text in zip(rows["gen_seed"], rows["details"]):
        details = json.loads(text) if isinstance(text, str) and text else {}
        n = details.get("n_rows", 0)
        for group in paper.FIG2_CELLS:
            hits = sum(c["n"] for c in details.get("mismatches", [])
                       if c.get("observed") == "25-34" and c.get("expected") == group)  # fmt: skip
            if n:
                out[group][int(seed)] = hits / n
    return {group: pd.Series(values, dtype=float) for group, values in out.items()}


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """pMSE per version and generator, Table 1 next to ours, the Fig. 2 mismatch table, the CTGAN grid."""
    _pmse_table(run)
    _runtime_table(run)
    _fig2_table(run)
    cells = ctgan_cells(run)
    if len(cells):
        grid = (
            cells.groupby(list(GRID_PARAMS), dropna=False)["pmse"].agg(["mean", "std", "count"]).reset_index()
        )
        grid.columns = [*GRID_PARAMS, "pmse", "sd", "copies"]
        run.write_table(
            "ctgan_grid", grid,
            caption="CTGAN pMSE per configuration on SD2011(c) (Figs 6-8; mean and sd over copies)",
        )  # fmt: skip


def _pmse_table(run: ReproductionRun) -> None:
    rows = []
    for generator, label in GENERATORS.items():
        for dataset, version in paper.VERSIONS.items():
            params: dict[str, Any] = CTGAN_MAIN if generator == CTGAN else {}
            values = pmse_values(run, generator, dataset, **params)
            if values.empty:
                continue
            printed = {DS: paper.DS_PMSE.get(dataset), CART: paper.CART_PMSE if dataset == "sd2011_c" else None,
                       CTGAN: paper.CTGAN_PMSE if dataset == "sd2011_c" else None}[generator]  # fmt: skip
            consistency = run.values(
                "consistency", "agegr", generator=generator, dataset=dataset, params=params or None
            )
            rows.append(
                {
                    "generator": label,
                    "version": f"SD2011{version}",
                    "pmse": float(values.mean()),
                    "sd": float(values.std(ddof=1)) if len(values) > 1 else math.nan,
                    "copies": len(values),
                    "paper": printed,
                    "agegr_inconsistent": float(consistency.mean()) if len(consistency) else math.nan,
                }
            )
    if rows:
        frame = pd.DataFrame(rows)
        run.write_table(
            "pmse_by_version", frame,
            caption="pMSE (CART propensity, mean over copies) per SD2011 version and generator (CTGAN: 600 epochs, "
            "defaults); paper values of §3-4.3; agegr_inconsistent = share of rows whose agegr is not the age group "
            "of their age",
        )  # fmt: skip
        _pmse_figure(run, frame)


def _pmse_figure(run: ReproductionRun, frame: pd.DataFrame) -> None:
    from harness.report.style import figure_style, new_figure, palette

    with figure_style():
        fig = new_figure(6.0, 3.2)
        ax = fig.add_subplot(1, 1, 1)
        labels = list(dict.fromkeys(frame["generator"]))
        colours = palette(labels)
        versions = [f"SD2011{v}" for v in paper.VERSIONS.values()]
        width = 0.8 / max(len(labels), 1)
        for i, label in enumerate(labels):
            part = frame[frame["generator"] == label].set_index("version").reindex(versions)
            x = np.arange(len(versions)) + (i - (len(labels) - 1) / 2) * width
            ax.bar(x, part["pmse"].to_numpy(dtype=float), width, label=label, color=colours[label])
            ax.scatter(x, part["paper"].to_numpy(dtype=float), marker="_", s=200, color="black", zorder=3)
        ax.set_xticks(np.arange(len(versions)), versions)
        ax.set_ylabel("pMSE (black: paper)")
        ax.legend(frameon=False, fontsize=8)
        run.save_figure(fig, "pmse_by_version")


def _runtime_table(run: ReproductionRun) -> None:
    rows = []
    for version, (description, ctgan, ds, sp_csv, sp_pkg) in paper.TABLE1.items():
        row: dict[str, Any] = {"version": version, "description": description, "paper_ctgan": ctgan,
                               "paper_datasynthesizer": ds, "paper_synthpop_csv": sp_csv, "paper_synthpop_package": sp_pkg}  # fmt: skip
        if version == "v00":
            row |= {
                f"ours_{g}": seconds(run, g, "sd2011", **(CTGAN_MAIN if g == CTGAN else {}))
                for g in GENERATORS
            }
        rows.append(row)
    for dataset in ("sd2011_b", "sd2011_c"):
        rows.append({"version": f"ours {paper.VERSIONS[dataset]}", "description": f"SD2011{paper.VERSIONS[dataset]} (not in Table 1)"}
                    | {f"ours_{g}": seconds(run, g, dataset, **(CTGAN_MAIN if g == CTGAN else {})) for g in GENERATORS})  # fmt: skip
    caption = (
        "Table 1 run times (seconds; paper: 2022 MacBook Air M2) next to ours (fit + sample wall seconds, mean per "
        f"copy; {_machine(run)}; cost data only, not comparable)"
    )
    run.write_table("runtime_table1", pd.DataFrame(rows), caption=caption, digits=2)


def _machine(run: ReproductionRun) -> str:
    """The machine the trials ran on (``reproduction.json``), as costs only compare within one."""
    path = run.out_dir / "reproduction.json"
    machine = json.loads(path.read_text()).get("machine", {}) if path.is_file() else {}
    if not machine:
        return "machine not recorded"
    return f"{machine.get('cpu')}, {machine.get('cores')} cores, {machine.get('memory_gb')} GB, GPU {machine.get('gpu')}"


def _fig2_table(run: ReproductionRun) -> None:
    cells, total = fig2_cells(run)
    if not total:
        return
    cells = cells.assign(share=cells["n"] / total)
    _fig2_figure(run, cells)
    summary = pd.DataFrame([{"agegr": "total", "age_group": "", "n": int(cells["n"].sum()),
                             "share": float(cells["n"].sum()) / total}])  # fmt: skip
    run.write_table(
        "agegr_misclassification", pd.concat([cells, summary], ignore_index=True),
        caption=f"DataSynthesizer on SD2011(a): synthetic agegr vs the age group of the synthetic age, mismatches only, "
        f"summed over copies ({total:,} rows; paper Fig. 2: 7.88 % in total)", digits=4,
    )  # fmt: skip


def _fig2_figure(run: ReproductionRun, cells: pd.DataFrame) -> None:
    """Fig. 2 redrawn: mismatching rows per synthetic agegr, coloured by the age group of the synthetic age."""
    from harness.report.style import figure_style, new_figure, palette

    groups = ["16-24", "25-34", "35-44", "45-59", "60-64", "65+"]
    table = cells.pivot_table(index="agegr", columns="age_group", values="n", aggfunc="sum", fill_value=0)
    table = table.reindex(
        index=[g for g in groups if g in table.index], columns=[g for g in groups if g in table.columns]
    )
    with figure_style():
        fig = new_figure(6.0, 3.2)
        ax = fig.add_subplot(1, 1, 1)
        colours = palette(list(table.columns))
        bottom = np.zeros(len(table.index))
        for group in table.columns:  # stacked: one bar per synthetic agegr
            heights = table[group].to_numpy(dtype=float)
            ax.bar(
                np.arange(len(table.index)), heights, 0.6, bottom=bottom, label=group, color=colours[group]
            )
            bottom += heights
        ax.set_xticks(np.arange(len(table.index)), list(table.index))
        ax.set_xlabel("synthetic agegr")
        ax.set_ylabel("rows (summed over copies)")
        ax.legend(title="age group of synthetic age", frameon=False, fontsize=8, title_fontsize=8)
        run.save_figure(fig, "agegr_misclassification")
