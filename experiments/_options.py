"""The one table from the library's parameters to the commands' options.

The library's errors, warnings and reports name a parameter as :func:`robustness.errors.parameter` writes it
(```RankingOptions.missing```), which is what a Python caller sets. A command prints the option that sets it
instead (``--missing-scores``): :func:`for_command_line` rewrites a message through :data:`OPTIONS`, and the
commands hand it to the reports they write (``publish``'s ``spell``).
"""

from __future__ import annotations

__all__ = ["OPTIONS", "for_command_line", "DATA_FLAGS", "data_tokens", "SYNTHETIC_FLAGS", "synthetic_tokens"]

#: A parameter as the library's messages name it -> the command-line option that sets it.
OPTIONS = {
    "`RankingOptions.missing`": "--missing-scores",
    "`loader.missing`='empty'": "--missing-masks empty",  # load_dermavqa, load_raters
    "`loader.mismatched`='skip'": "--skip-mismatched",
    "`load_answers.missing`='not_mentioned'": "--missing-answers not_mentioned",
    "`read_case_table.case_column`": "--case",
    "`read_case_table.run_column`": "--algorithm",
    "`read_case_table.value_column`": "--value",
    "`read_case_table.unit_column`": "--unit",
    "`read_case_table.task_column`": "--task",
    "`publish.force`=True": "--force",
    "`publish.out`": "--out",
    "`prepare.force`=True": "--force",  # the design study's twin
    "`prepare.only_task`": "--only-task",  # the per-case table study
    "`TableOptions.task_weights`": "--task-weights",
    "`ScoringOptions.primary`": "--primary",
    "`options.target`": "--target",
    "`load_raters.gold`=[R1, R2, ..]": "--layout raters --gold R1,R2,..",
    "`load_raters.gold`": "--gold",
    "`load_raters.labels` as regions": "--regions",
    "`load_raters.labels`='all'": "--labels all",
    "`load_raters.labels`": "--labels",
    "`RaterOptions.empty_folders`='skip'": "--skip-empty-folders",
    "`load_dermavqa.empty_folders`='skip'": "--skip-empty-folders",
    "`load_raters.foreground`": "--foreground",
    "`load_raters.background`": "--background",
    "`MaskFormat.binarize`=True": "--binarize",
    "`MaskFormat.threshold`": "--threshold",
    "`parallel_backend.scheduler`": "--scheduler",
    "`RaterOptions.threshold`": "--threshold",
    "`load_raters.runs`": "--runs",
    "`options.empty`": "--empty",
    "`ResamplingOptions.all_curves`=True": "--all-curves",
    "`ResamplingOptions.margin`": "--margin",
    "`RankingOptions.lower_better`=True": "--lower-better",
    "`RankConvergenceOptions.primary`": "--primary",
    "`RankConvergenceOptions.one_slice`": "--one-slice",
    "`RankConvergenceOptions.empty_distance`": "--empty-distance",
    "`RankConvergenceOptions.border`": "--border",
    "`RankConvergenceOptions.min_lesion_size`": "--min-lesion-size",
    "`TableOptions.step`": "--step",
    "`prepare.challenge`": "--like",  # the design study's
    "`DesignStudyOptions.quick`=True": "--quick",
    "`DesignStudyOptions.pool`": "--pool",
    "`DesignStudyOptions.replicates`": "--replicates",
    "`DesignStudyOptions.populations`": "--populations",
    "`DesignStudyOptions.max_encounters`": "--max-encounters",
}


def for_command_line(message: str) -> str:
    """``message`` with every parameter of :data:`OPTIONS` replaced by its command-line option.

    Parameters
    ----------
    message : str

    Returns
    -------
    str

    Examples
    --------
    >>> for_command_line("no score: choose a treatment with `RankingOptions.missing` worst|drop")
    'no score: choose a treatment with --missing-scores worst|drop'
    """
    for name in sorted(OPTIONS, key=len, reverse=True):  # the longer first
        if name in message:
            message = message.replace(name, OPTIONS[name])
    return message


#: The options a challenge's folder is read with, as every command takes them: the namespace's name -> the option.
DATA_FLAGS = {"gold": "--gold", "runs": "--runs", "foreground": "--foreground", "background": "--background",
              "threshold": "--threshold", "binarize": "--binarize", "strict": "--strict", "labels": "--labels",
              "regions": "--regions", "missing": "--missing-masks", "skip_mismatched": "--skip-mismatched",
              "skip_empty_folders": "--skip-empty-folders"}


def data_tokens(args) -> list[str]:
    """The data options ``args`` holds, as command-line tokens that read the challenge the same way.

    What the reports print for another command on the same challenge (the design study's ``--like``): every option
    given, its value spelled as the option takes it (``--labels 1,2``, ``--regions WT=1,2 X=7``); a default is left
    out. tests/experiments/test_options.py parses them back.

    Parameters
    ----------
    args : argparse.Namespace
        A command's parsed options.

    Returns
    -------
    list of str
    """
    return _tokens(args, DATA_FLAGS)


#: The embedded synthetic challenge's shape, as the commands take it (the design study plans with it).
SYNTHETIC_FLAGS = {"synthetic_size": "--synthetic-size", "synthetic_depth": "--synthetic-depth",
                   "synthetic_spacing": "--synthetic-spacing"}


def synthetic_tokens(args) -> list[str]:
    """The embedded synthetic challenge's shape options ``args`` holds (not their defaults), as tokens.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    list of str
    """
    return _tokens(args, SYNTHETIC_FLAGS)


#: The options' defaults a command line need not repeat (beside None and False).
_DEFAULTS = {"missing": "error", "synthetic_size": "small"}


def _tokens(args, flags: dict[str, str]) -> list[str]:
    """The options of ``flags`` that ``args`` sets to other than their defaults, spelled as the commands take them."""
    def text(v) -> str:
        return f"{v:g}" if isinstance(v, float) else str(v)

    out: list[str] = []
    for name, flag in flags.items():
        value = getattr(args, name, None)
        if value is None or value is False or _DEFAULTS.get(name) == value:
            continue
        if value is True:
            out.append(flag)
        elif name == "regions":
            out += [flag, *(f"{region}={','.join(map(text, labels))}" for region, labels in value)]
        else:
            said = ",".join(map(text, value)) if isinstance(value, (tuple, list)) else text(value)
            out += [f"{flag}={said}"] if said.startswith("-") else [flag, said]  # a value argparse reads as one
    return out
