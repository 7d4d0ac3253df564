"""The privacy-audit section: membership-inference audit tables and the audit-failure banner.

The ``mia_audit`` metric (Stadler et al.'s TAPAS threat model) writes one row per (trial,
variant): ``auc`` (the headline attack's AUC and CI, with per-target ``records``, ROC curves
and audit costs in its details), ``tpr_at_fpr_*`` (TPR at a low FPR with a Clopper–Pearson
CI), ``epsilon_lb`` (an empirical ε lower bound; ``details.exceeds_configured`` says whether
it lies above the configured ε of a formally DP generator), ``privacy_gain`` and per-attack
``auc_<attack>`` rows. This module turns them into

* :func:`audit_table` / :func:`audit_display` — one row per dataset and generator variant:
  AUC [CI], TPR at 0.1 %, 1 % and 10 % FPR [CI], ε lower bound, configured ε, games, fits
  and audit seconds, each the mean over the variant's trials;
* :func:`record_table` / :func:`record_display` — the most exposed target records (by
  per-record AUC, over all trials), identified by a keyed reference only (never a value, a
  split or a position);
* :func:`audit_findings` — the ε lower bounds above a generator's configured ε;
* :func:`audit_blocks` and :func:`audit_warning_blocks` — the report blocks.

Rows with a status other than ``ok`` and missing or malformed details are ignored.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from harness.report.document import Block, Heading, Paragraph, TableBlock
from harness.report.formatting import MISSING, format_number
from harness.report.prepare import block_keys, ordered_rows, row_keys
from harness.report.render import DisplayTable

if TYPE_CHECKING:
    from harness.report.index import TableWriter

METRIC = "mia_audit"
HEADING = "Privacy audit (membership inference)"
WARNING_HEADING = "⚠ Privacy audit failure"
WARNING_PREFIX = "⚠ AUDIT FAILURE:"
NOT_DP = "—"
UNRESOLVED = "†"
TOP_RECORDS = 10
# (variant, column stem, header)
TPR_LEVELS: tuple[tuple[str, str, str], ...] = (
    ("tpr_at_fpr_0.1pct", "tpr_0.1pct", "TPR @ 0.1 % FPR"),
    ("tpr_at_fpr_1pct", "tpr_1pct", "TPR @ 1 % FPR"),
    ("tpr_at_fpr_10pct", "tpr_10pct", "TPR @ 10 % FPR"),
)
# (details key of the auc row, numeric column, header)
COSTS: tuple[tuple[str, str, str], ...] = (
    ("n_games", "games", "games"),
    ("n_fits", "fits", "fits"),
)
# Derived from the row's metric_s (the audit's wall time; the details hold no timing).
TIMES: tuple[tuple[str, str], ...] = (("audit_s", "audit s"), ("fits_per_s", "fits / s"))
# What a shareable report may say about a target record: its keyed reference (harness.record_keys),
# never a split, a position or a public hash of its content (issue 29: those disclose membership)
RECORD_FIELDS: tuple[str, ...] = ("record", "group", "auc", "attack")
TEXT = (
    "A membership-inference audit plays repeated games: a target record is or is not in the training data, "
    "the generator is fitted and sampled, and attacks guess from the release whether the target was in. "
    "AUC 0.5 is chance (the attacks cannot tell members from non-members); 1 is certain membership. The TPR "
    "at a low FPR is the share of members caught while almost never accusing a non-member, the regime that "
    "matters for individuals. The ε lower bound is a statistical lower bound on the ε any mechanism with "
    "this behaviour must have, at the stated confidence, valid for every generator, DP or not. For a "
    "formally DP generator a bound above its configured ε means a bug in the generator or in its privacy "
    "accounting."
)


def parse_details(text: object) -> dict[str, Any]:
    """The ``details`` JSON object of a row, or ``{}`` when it is missing, empty or malformed.

    Parameters
    ----------
    text : object
        The cell (a JSON string, NA or anything else).

    Returns
    -------
    dict
    """
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def audit_rows(frame: pd.DataFrame, variant: str | None = None) -> pd.DataFrame:
    """The ok ``mia_audit`` rows of a prepared frame (of one variant when given)."""
    rows = frame[(frame["metric"] == METRIC) & (frame["status"] == "ok")]
    if variant is not None:
        rows = rows[rows["variant"] == variant]
    return rows


def has_audit(frame: pd.DataFrame) -> bool:
    """True when a prepared frame holds at least one ok ``mia_audit`` row."""
    return bool(len(audit_rows(frame))) if len(frame) else False


def as_float(value: object) -> float:
    """``value`` as a float; NaN for None, NA, booleans and non-numbers."""
    if value is None or value is pd.NA or isinstance(value, bool):
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def _keys(frame: pd.DataFrame) -> list[str]:
    """Row keys of the audit tables: the blocks (dataset, …) and the variant label."""
    return [*block_keys(row_keys(frame)), "label"]


def _variant_means(rows: pd.DataFrame, keys: list[str], stem: str) -> pd.DataFrame:
    """Mean value, CI low and CI high over trials, per row key."""
    grouped = rows.groupby(keys, sort=False)
    return pd.DataFrame(
        {
            stem: grouped["value"].mean(),
            f"{stem}_low": grouped["ci_low"].mean(),
            f"{stem}_high": grouped["ci_high"].mean(),
        }
    )


def configured_epsilon(row: Any) -> float:
    """The configured ε of an ``epsilon_lb`` row: its baseline, else ``details.configured_epsilon``."""
    baseline = as_float(row.baseline)
    if math.isfinite(baseline):
        return baseline
    return as_float(parse_details(row.details).get("configured_epsilon"))


def audit_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Numbers of the audit table: one row per dataset (and other blocks) and generator variant.

    Parameters
    ----------
    frame : DataFrame
        A prepared results table (:func:`harness.report.prepare.prepare`).

    Returns
    -------
    DataFrame
        Columns: the row keys, ``trials`` (ok ``auc`` rows), ``attack`` (headline attack(s)),
        ``auc``/``auc_low``/``auc_high``, per FPR level ``tpr_<level>`` with ``_low``/``_high``
        and ``_unresolvable`` (trials whose audit had too few OUT games for the level),
        ``epsilon_lb``, ``confidence``, ``configured_epsilon`` (NaN: not DP), ``games``,
        ``fits``, ``audit_s`` (the row's ``metric_s``) and ``fits_per_s``. Numbers are means over the variant's ok trials. Empty when
        there is no ok ``mia_audit/auc`` row.
    """
    keys = _keys(frame)
    auc = audit_rows(frame, "auc")
    if auc.empty:
        return pd.DataFrame(columns=[*keys, "trials"])
    index = pd.MultiIndex.from_frame(ordered_rows(auc, row_keys(frame))[keys])
    details = auc["details"].map(parse_details)
    auc = auc.assign(
        _attack=[str(d.get("attack", "")) for d in details],
        **{column: [as_float(d.get(key)) for d in details] for key, column, _ in COSTS},
    )
    seconds = pd.to_numeric(auc["metric_s"], errors="coerce")
    auc = auc.assign(audit_s=seconds, fits_per_s=auc["fits"] / seconds.where(seconds > 0))
    grouped = auc.groupby(keys, sort=False)
    parts: list[pd.DataFrame | pd.Series] = [
        grouped["trial_id"].nunique().rename("trials"),
        grouped["_attack"].agg(lambda s: ", ".join(a for a in dict.fromkeys(s) if a)).rename("attack"),
        _variant_means(auc, keys, "auc"),
    ]
    for variant, stem, _ in TPR_LEVELS:
        rows = audit_rows(frame, variant)
        parts.append(_variant_means(rows, keys, stem))
        unresolvable = [parse_details(d).get("resolvable") is False for d in rows["details"]]
        parts.append(
            rows.assign(_u=unresolvable).groupby(keys, sort=False)["_u"].sum().rename(f"{stem}_unresolvable")
        )
    parts.append(_epsilon_means(audit_rows(frame, "epsilon_lb"), keys))
    parts.append(grouped[[*(column for _, column, _ in COSTS), *(column for column, _ in TIMES)]].mean())
    table = pd.concat([p.reindex(index) for p in parts], axis=1)
    from_auc = auc.assign(_eps=[as_float(d.get("configured_epsilon")) for d in details])
    table["configured_epsilon"] = table["configured_epsilon"].fillna(
        from_auc.groupby(keys, sort=False)["_eps"].mean()
    )
    for _, stem, _ in TPR_LEVELS:
        table[f"{stem}_unresolvable"] = table[f"{stem}_unresolvable"].fillna(0).astype(int)
    return table.reset_index()


def _epsilon_means(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean ε lower bound, its confidence and the configured ε, per row key."""
    columns = ["epsilon_lb", "confidence", "configured_epsilon"]
    if rows.empty:
        return pd.DataFrame(columns=columns, dtype=float)
    numbers = rows.assign(
        confidence=[as_float(parse_details(d).get("confidence")) for d in rows["details"]],
        configured_epsilon=[configured_epsilon(r) for r in rows.itertuples(index=False)],
    )
    grouped = numbers.groupby(keys, sort=False)
    return pd.DataFrame(
        {
            "epsilon_lb": grouped["value"].mean(),
            "confidence": grouped["confidence"].mean(),
            "configured_epsilon": grouped["configured_epsilon"].mean(),
        }
    )


def format_interval(value: float, low: float, high: float) -> str:
    """``value [low, high]`` (three significant digits); just the value when the CI is missing.

    Examples
    --------
    >>> format_interval(0.8123, 0.79, 0.8345)
    '0.812 [0.790, 0.835]'
    """
    if not math.isfinite(value):
        return MISSING
    if not (math.isfinite(low) and math.isfinite(high)):
        return format_number(value)
    return f"{format_number(value)} [{format_number(low)}, {format_number(high)}]"


def audit_display(table: pd.DataFrame) -> DisplayTable:
    """Display table of :func:`audit_table`.

    A TPR cell of a variant with a trial whose audit could not resolve that FPR level is
    marked ``†``; the configured ε of a generator that is not formally DP is ``—``.
    """
    keys = [c for c in table.columns if c in ("experiment", "dataset", "qi_set", "label")]
    text = table[keys].astype(str).rename(columns={"label": "generator", "qi_set": "QI set"})
    text["trials"] = [str(int(n)) for n in table["trials"]]
    text["attack"] = table["attack"].astype(str)
    text["AUC [CI]"] = [format_interval(*r) for r in zip(table["auc"], table["auc_low"], table["auc_high"])]
    for _, stem, header in TPR_LEVELS:
        cells = [format_interval(*r) for r in zip(table[stem], table[f"{stem}_low"], table[f"{stem}_high"])]
        marks = table[f"{stem}_unresolvable"] > 0
        text[header] = [f"{c}{UNRESOLVED}" if m and c != MISSING else c for c, m in zip(cells, marks)]
    text["ε lower bound"] = [format_number(v) for v in table["epsilon_lb"]]
    text["configured ε"] = [
        format_number(v) if math.isfinite(v) else NOT_DP for v in table["configured_epsilon"]
    ]
    for column, header in [*((c, h) for _, c, h in COSTS), *TIMES]:
        text[header] = [format_number(v) for v in table[column]]
    numeric = frozenset(c for c in text.columns if c not in ("generator", "attack", *keys, "QI set"))
    group_by = tuple(c for c in ("experiment", "dataset", "QI set") if c in text.columns)
    return DisplayTable(text=text.reset_index(drop=True), numeric=numeric, group_by=group_by)


def record_table(frame: pd.DataFrame, top: int = TOP_RECORDS) -> pd.DataFrame:
    """The ``top`` most exposed target records over all trials, by per-record AUC (highest first).

    Only :data:`RECORD_FIELDS` of ``details.records`` are kept (the keyed reference, group,
    AUC, attack): no value, split, position or public hash of a record reaches the report, also
    from rows written before references were keyed (their records show no reference).

    Returns
    -------
    DataFrame
        Columns ``label``, ``dataset``, ``gen_seed`` and :data:`RECORD_FIELDS`.
    """
    columns = ["label", "dataset", "gen_seed", *RECORD_FIELDS]
    found: list[dict[str, Any]] = []
    for row in audit_rows(frame, "auc").itertuples(index=False):
        records = parse_details(row.details).get("records")
        if not isinstance(records, list):
            continue
        for record in records:
            if not isinstance(record, dict) or not math.isfinite(as_float(record.get("auc"))):
                continue
            entry = {field: record.get(field) for field in RECORD_FIELDS}
            entry["auc"] = as_float(record.get("auc"))
            found.append({"label": row.label, "dataset": row.dataset, "gen_seed": row.gen_seed, **entry})
    table = pd.DataFrame.from_records(found, columns=columns)
    if table.empty:
        return table
    return table.sort_values("auc", ascending=False, kind="stable").head(top).reset_index(drop=True)


def record_display(table: pd.DataFrame) -> DisplayTable:
    """Display table of :func:`record_table`."""
    text = pd.DataFrame(
        {
            "generator": table["label"].astype(str),
            "dataset": table["dataset"].astype(str),
            "record (keyed)": table["record"].map(_text),
            "group": table["group"].map(_text),
            "AUC": [format_number(v) for v in table["auc"]],
            "attack": table["attack"].map(_text),
        }
    )
    return DisplayTable(text=text, numeric=frozenset({"AUC"}))


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return str(value)


def audit_findings(frame: pd.DataFrame) -> pd.DataFrame:
    """The ok ``epsilon_lb`` rows whose details say ``exceeds_configured: true``.

    Returns
    -------
    DataFrame
        Columns ``label``, ``dataset``, ``split_seed``, ``fold``, ``gen_seed``, ``bound``,
        ``configured_epsilon``, ``confidence``, ``delta``, ``attack`` and ``scope`` (what the
        generator's own ``formal_dp`` says its guarantee does not cover; empty when nothing).
    """
    columns = [
        "label",
        "dataset",
        "split_seed",
        "fold",
        "gen_seed",
        "bound",
        "configured_epsilon",
        "confidence",
        "delta",
        "attack",
        "scope",
    ]
    found = []
    for row in audit_rows(frame, "epsilon_lb").itertuples(index=False):
        details = parse_details(row.details)
        if details.get("exceeds_configured") is not True:
            continue
        found.append(
            {
                "label": row.label,
                "dataset": row.dataset,
                "split_seed": row.split_seed,
                "fold": row.fold,
                "gen_seed": row.gen_seed,
                "bound": as_float(row.value),
                "configured_epsilon": configured_epsilon(row),
                "confidence": as_float(details.get("confidence")),
                "delta": as_float(details.get("delta", details.get("configured_delta"))),
                "attack": str(details.get("attack", "")),
                "scope": guarantee_scope(details),
            }
        )
    return pd.DataFrame.from_records(found, columns=columns)


def guarantee_scope(details: dict[str, Any]) -> str:
    """What the generator itself says its guarantee leaves out ("" for an end-to-end record-level one)."""
    unit = details.get("configured_unit")
    parts = []
    if details.get("configured_end_to_end") is False:
        parts.append("declared not end to end (part of the fit reads the data without budget)")
    if unit and unit not in ("original_records", "records"):
        parts.append(
            f"declared for neighbouring {str(unit).replace('_', ' ')}, not for records of the training data"
        )
    return "; ".join(parts)


def _percent(confidence: float) -> str:
    return f"{100 * confidence:.4g} %" if math.isfinite(confidence) else "an unrecorded confidence"


def finding_text(finding: pd.Series) -> str:
    """The banner sentence of one :func:`audit_findings` row."""
    seeds = ", ".join(
        f"{name} {_text(finding[key])}"
        for key, name in (("split_seed", "split seed"), ("fold", "fold"), ("gen_seed", "generator seed"))
        if not pd.isna(finding[key])
    )
    attack = f" by the {finding['attack']} attack" if finding["attack"] else ""
    delta = f", δ = {format_number(finding['delta'])}" if math.isfinite(finding["delta"]) else ""
    return (
        f"{WARNING_PREFIX} {finding['label']} on {finding['dataset']} ({seeds}): the empirical ε lower bound "
        f"{format_number(finding['bound'])}{attack} exceeds the configured ε = "
        f"{format_number(finding['configured_epsilon'])}{delta} at {_percent(finding['confidence'])} confidence. "
        "A correctly implemented and accounted DP generator cannot show this except by chance (below one minus "
        "the confidence): this indicates a bug in the generator or in its privacy accounting."
        + (
            f" The generator's guarantee is {finding['scope']}: the audit measures what that leaves out."
            if finding.get("scope")
            else ""
        )
    )


def audit_warning_blocks(frame: pd.DataFrame) -> list[Block]:
    """The audit-failure banner: a heading and one paragraph per ε bound above its configured ε.

    Parameters
    ----------
    frame : DataFrame
        A prepared results table.

    Returns
    -------
    list of Block
        Empty when no ok ``mia_audit/epsilon_lb`` row has ``details.exceeds_configured`` true.
    """
    if not len(frame):
        return []
    findings = audit_findings(frame)
    if findings.empty:
        return []
    blocks: list[Block] = [Heading(WARNING_HEADING)]
    blocks += [Paragraph(finding_text(f)) for _, f in findings.iterrows()]
    return blocks


def _audit_note(table: pd.DataFrame) -> str:
    confidences = sorted({c for c in table["confidence"] if math.isfinite(c)})
    level = " or ".join(_percent(c) for c in confidences) or "the confidence in the CSV"
    note = (
        f"Means over the ok trials (seeds and folds) of a variant; 'trials' counts them. CIs are means of the "
        f"trials' CIs (TPR: Clopper–Pearson). ε lower bound at {level} confidence; configured ε {NOT_DP}: the "
        "generator is not formally DP."
    )
    if any((table[f"{stem}_unresolvable"] > 0).any() for _, stem, _ in TPR_LEVELS):
        note += (
            f" {UNRESOLVED}: in at least one trial the audit had too few OUT games to resolve this FPR; the value "
            "is not a TPR at that FPR."
        )
    return note


def audit_blocks(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    """The privacy-audit section: heading, explanation, audit table and most exposed records.

    Parameters
    ----------
    frame : DataFrame
        A prepared results table.
    writer : TableWriter
        Writes the tables (``mia_audit`` and ``mia_audit_records``) as Markdown, CSV and LaTeX.

    Returns
    -------
    list of Block
        Empty when there is no ok ``mia_audit`` row.
    """
    if not has_audit(frame):
        return []
    blocks: list[Block] = [Heading(HEADING), Paragraph(TEXT)]
    table = audit_table(frame)
    if table.empty:
        blocks.append(Paragraph("No ok mia_audit/auc row: the audit table is omitted."))
    else:
        display = audit_display(table)
        caption = "Membership-inference audit per generator variant (headline attack)"
        files = writer.write(display, table, "mia_audit", caption)
        blocks.append(TableBlock(display, caption, files, _audit_note(table)))
    records = record_table(frame)
    if not records.empty:
        display = record_display(records)
        caption = f"Most exposed records (top {len(records)} by per-record AUC over all trials)"
        files = writer.write(display, records, "mia_audit_records", caption)
        note = (
            "Records are named by a reference keyed with the user's secret (harness.record_keys): "
            "a reader cannot find a candidate record here or tell whether it was trained on; "
            "the key's owner resolves them with `privbench records RUN_DIR`."
        )
        blocks.append(TableBlock(display, caption, files, note))
    return blocks
