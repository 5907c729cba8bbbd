"""Two answers every source's code store gives in one shape (:mod:`sidtui.core.sources.writes`):
what finishing a killed write does (:class:`Finishing`), and one stored version of a file
(:class:`Shown`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Finishing:
    """What finishing (or dropping) the journal a killed sidtui write left does.

    Attributes:
        said: the one line that says it (a dry run: what the real run does).
        changed: it writes (or would write) files; False: it only drops the journal, and
            the verb goes on with what was asked.
        note: a further line to say when nothing changed (None: none).
        warnings: further lines a dry run says as warnings.
        files: the result whose ``changed``/``skipped`` are the files it writes (None: none).
        doc: the real run's ``--json`` object.
        report: a real run reports this result in full, as an undo's (None: the short
            form: ``said``, ``doc`` with ``--json``, each skipped file).
        finished: what the app says after a real run finished it (default: ``said``).
    """

    said: str
    changed: bool
    note: str | None = None
    warnings: list[str] = field(default_factory=list)
    files: Any = None
    doc: dict[str, Any] = field(default_factory=dict)
    report: Any = None
    finished: str = ""

    def __post_init__(self) -> None:
        self.finished = self.finished or self.said


@dataclass
class Shown:
    """One stored version of a file (``checkpoints --show``): ``content`` with ``what``
    (``PATH at ID``), else ``error``, the one line that says why not (exit 1)."""

    what: str
    content: str | bytes | None = None
    error: str | None = None


def match_tracked(tracked: Any, given: str, candidates: list[str], missing: str) -> str:
    """The tracked path ``given`` names: as stored, else the first of ``candidates`` (the
    store's own readings of it: joined to a root, made absolute) tracked, else the one
    tracked path ending in ``/given``.

    Raises:
        UsageError: none (``given`` then ``missing`` say it), or several.
    """
    from sidtui.core.base.errors import UsageError

    if given in tracked:
        return given
    for cand in candidates:
        if cand in tracked:
            return cand
    hits = [t for t in tracked if t.endswith("/" + given.lstrip("/"))]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise UsageError(f"{given!r} matches several tracked files: {', '.join(hits)}")
    raise UsageError(f"{given!r} {missing}")


def split_spec(spec: str, example: str) -> tuple[str, str]:
    """``PATH@ID`` as ``(PATH, ID)`` (UsageError: malformed, ``example`` shows one)."""
    from sidtui.core.base.errors import UsageError

    path, sep, cid = spec.rpartition("@")
    if not sep or not path or not cid:
        raise UsageError(f"--show takes {example}")
    return path, cid
