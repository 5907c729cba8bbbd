"""``sidtui usage`` for any set of sources: their events through the one engine.

Each source yields its transcripts' usage events (:meth:`~.base.Source.usage_events`);
:func:`usage_report` hands them all to :func:`~sidtui.core.usage.aggregate.aggregate`, so a
response recorded in two homes or files is still counted once. Nothing here knows which
agent a source is.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from sidtui.core.sources.base import Source
from sidtui.core.usage.aggregate import FileUsage, UsageReport, aggregate_files


def usage_report(
    sources: Sequence[Source],
    by: str = "day",
    *,
    since: int | None = None,
    until: int | None = None,
    project: str | None = None,
    tz: tzinfo | None = None,
    errors: list[str] | None = None,
    use_cache: bool = True,
    by_model: bool = False,
) -> UsageReport:
    """The usage of ``sources`` grouped ``by`` (see :func:`~sidtui.core.usage.aggregate.aggregate` for the arguments).

    The report's ``notes`` say what a source does not record (its ``usage_gaps``);
    ``by_model`` splits each row per model.
    """
    files: list[FileUsage] = []
    for src in sources:
        files += src.usage_events(project, errors=errors, use_cache=use_cache)
    report = aggregate_files(
        files, by, tz=tz, since=since, until=until, project=project, by_model=by_model
    )
    report.notes += [f"{s.label}: {s.usage_gaps}" for s in sources if s.usage_gaps]
    return report
