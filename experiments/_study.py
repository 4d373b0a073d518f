"""Tables every resampling study writes (segmentation and QA alike)."""

from __future__ import annotations


def write_convergence(out, conv, *, tolerance: float, lenient: float):
    """orders.csv, curves.parquet, curves_summary.csv, convergence.csv; returns the convergence points."""
    import pandas as pd

    out.write_csv("orders.csv", conv.orders_frame(), index=False)
    out.write_parquet("curves.parquet", conv.to_frame())
    out.write_csv("curves_summary.csv", conv.summary(level=0.9), index=False)
    points = pd.concat([conv.convergence_points(tolerance=tolerance).assign(tolerance=tolerance),
                        conv.convergence_points(tolerance=lenient).assign(tolerance=lenient)], ignore_index=True)
    out.write_csv("convergence.csv", points, index=False)
    return points


def write_bootstrap(out, boot, tests):
    """bootstrap_ci.csv, rank_distribution.csv, stability.csv, pairwise.parquet; returns the percentile CIs."""
    import numpy as np
    import pandas as pd

    ci = boot.intervals(method="percentile")
    out.write_csv("bootstrap_ci.csv", pd.concat([ci, boot.intervals(method="bca")], ignore_index=True), index=False)
    out.write_csv("rank_distribution.csv", boot.rank_distribution(), index=False)
    out.write_csv("stability.csv", boot.stability(), index=False)
    systems = np.asarray(boot.schemes.systems, dtype=object)
    wins = []
    for s, (strat, metric, average) in enumerate(boot.schemes.names):
        w = boot.wins[s]
        ii, jj = np.where(~np.eye(w.shape[0], dtype=bool))
        wins.append(pd.DataFrame({"strategy": strat, "metric": metric, "average": average, "system": systems[ii],
                                  "other": systems[jj], "win_share": w[ii, jj]}))
    pairwise = pd.concat(wins, ignore_index=True)
    if len(tests):
        pairwise = pairwise.merge(tests, on=["strategy", "metric", "average", "system", "other"], how="left")
    out.write_parquet("pairwise.parquet", pairwise)
    return ci


def md_table(df, floatfmt="{:.4f}"):
    """A pandas frame as a Markdown table."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_figure(out, name: str):
    """Draw ``figures.<name>`` from the results in ``out`` into ``out/figures`` (PNG + PDF) and record the files."""
    import importlib

    import matplotlib

    matplotlib.use("Agg")
    module = importlib.import_module(f"figures.{name}")
    for path in module.make(out.path, out.path / "figures" / name):
        out.written.append(str(path.relative_to(out.path)))
