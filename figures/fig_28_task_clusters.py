"""Tasks clustered by their rankings (challengeR's ``dendrogram()`` and ``network()``), per consensus and method.

Drawn for consensus families of three tasks or more (two tasks have one distance, in ``task_distances.csv``).
"""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them: several tasks).
NEEDS = ("task_distances.csv", "ranking.csv")


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, task_plots

    dist, ranking = read(results_dir, "task_distances.csv"), read(results_dir, "ranking.csv")
    dist = dist.assign(scheme=dist["scheme"].fillna("").astype(str))
    size = {k: len(set(g.task) | set(g.other)) for k, g in dist.groupby(["scheme", "ranking"], sort=False)}
    panels = [k for k in dict.fromkeys(zip(dist.scheme, dist.ranking)) if size[k] >= 3]  # two tasks: one distance
    if not panels:
        return []
    width = max(len(set(dist.task) | set(dist.other)), 3)
    with plotting.style():
        fig, axes = plt.subplots(len(panels), 2, figsize=(10.0, max(3.2, 0.3 * width + 1.5) * len(panels)),
                                 layout="constrained", squeeze=False)
        for k, (s, method) in enumerate(panels):
            d = dist[(dist.scheme == s) & (dist.ranking == method)]
            tasks = list(dict.fromkeys([*d.task, *d.other]))
            r = ranking[(ranking.ranking == method) & ranking.task.isin(tasks)]
            winners = {t: " = ".join(map(str, sorted(g[g["rank"] == g["rank"].min()].run, key=str)))
                       for t, g in r.groupby("task", sort=False)}
            task_plots.task_dendrogram(d, tasks, ax=axes[k, 0])
            task_plots.task_network(d, tasks, winners, ax=axes[k, 1])
            where = f"{s}: " if s else ""
            axes[k, 0].set_title(f"{where}{method}: tasks clustered by their rankings", fontsize=9)
            axes[k, 1].set_title(f"{where}{method}: closer tasks rank the runs more alike", fontsize=9)
        fig.suptitle("Distance between two tasks: the ordered pairs of runs the two rankings order differently "
                     "(symmetric difference); no resampling", fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
