"""Exports written to files: one session (:func:`export_file`), or many sessions plus an
index page in a folder (:func:`export_folder`).

Every file is written through :func:`~sidtui.core.base.safefs.streamed_replace`: a temp
file created ``O_EXCL | O_NOFOLLOW`` next to it, renamed into place when complete, so a
killed export never leaves a half file under the final name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sidtui.core.base.safefs import streamed_replace
from sidtui.core.export import SUFFIX, Document, Tally, Usage, session_usages, write
from sidtui.core.export.index import Entry, write_index
from sidtui.core.sources.base import Source

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def file_stem(session_id: str) -> str:
    """A file name stem for a session id (anything but ``[A-Za-z0-9._-]`` as ``_``; never
    hidden, never empty)."""
    stem = _UNSAFE.sub("_", session_id)[:200].lstrip(".")
    return stem or "session"


def existing_parent(path: str | Path) -> None:
    """Refuse an output path whose folder does not exist: export never makes folders a
    typo named (``-o /nonexisting/dir/x.html``).

    Raises:
        UsageError: the folder is missing or no folder (exit 2).
    """
    from sidtui.core.base.errors import UsageError

    parent = Path(path).expanduser().parent
    if not parent.is_dir():
        raise UsageError(f"no folder {parent}: create it first (export writes into a folder)")


def export_file(doc: Document, fmt: str, path: str | Path, *, jsonl: bool = False) -> Tally:
    """Write ``doc`` to ``path`` (replaced whole when complete, see the module docstring).

    Raises:
        UsageError: ``path``'s folder does not exist (:func:`existing_parent`).
    """
    existing_parent(path)
    with streamed_replace(path) as out:
        return write(doc, fmt, out, jsonl=jsonl)


def export_folder(
    sources: Sequence[Source],
    project: str | None,
    fmt: str,
    folder: str | Path,
    *,
    jsonl: bool = False,
    errors: list[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[Entry]:
    """Every main session of ``sources`` (one project, or all) to ``folder``, one file each
    (``<session id>.<suffix>``), then ``index.<suffix>`` listing them; sub-agents are in
    their parent's file. A session that cannot be read is a line in ``errors``.

    Returns:
        The index's entries, in the order written.

    Raises:
        UsageError: ``folder``'s parent does not exist.
    """
    from sidtui.core.base.errors import SidtuiError
    from sidtui.core.base.safefs import make_dirs

    errs: list[str] = errors if errors is not None else []
    folder = Path(folder)
    existing_parent(folder)  # the folder itself is made, never its parents
    make_dirs(folder)
    suffix = SUFFIX["jsonl" if jsonl else fmt]
    todo: list[tuple[Source, Any, dict[str, Usage]]] = []
    for src in sources:
        refs = src.discover(project, errors=errs, include_sidechains=False)
        if not refs:
            continue
        usages = session_usages(src, project, errs)
        todo += [(src, ref, usages) for ref in refs]
    entries: list[Entry] = []
    taken: set[str] = set()
    for n, (src, ref, usages) in enumerate(todo):
        if progress is not None:
            progress(n, len(todo), ref.session_id)
        stem = file_stem(ref.session_id)
        if stem in taken or stem == "index":
            stem = f"{src.name}-{stem}"
        taken.add(stem)
        try:
            doc = Document(src, src.open(ref), usages.get(ref.session_id))
            tally = export_file(doc, fmt, folder / (stem + suffix), jsonl=jsonl)
        except (SidtuiError, OSError) as exc:
            errs.append(f"{ref.path}: {exc}")
            continue
        f = doc.head.facts
        u = doc.head.usage
        entries.append(
            Entry(
                stem + suffix,
                src.name,
                ref.session_id,
                f.project,
                f.title,
                f.updated_at,
                tally.messages,
                u.cost_usd if u is not None else None,
            )
        )
        errs += doc.errors
    entries.sort(key=lambda x: x.updated_at or "", reverse=True)
    index_fmt = "json" if fmt == "json" else fmt
    with streamed_replace(folder / f"index{SUFFIX[index_fmt]}") as out:
        write_index(entries, index_fmt, out)
    return entries
