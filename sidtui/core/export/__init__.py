"""Export: a session of any source as HTML, Markdown or JSON (docs/EXPORT.md).

One module per concept: :mod:`.document` (the session read through its source, walked in
order, sub-agents opened on demand), :mod:`.blocks` (what a content block is to a reader:
tool calls, results, edits as diffs), :mod:`.sink` (output in chunks), the writers
:mod:`.html`, :mod:`.markdown` and :mod:`.jsonexport` (the versioned schema), and
:mod:`.index` (the page that lists a ``--project``/``--all`` export). Everything is
written as it is read: the output of a big session is never held whole.
"""

from __future__ import annotations

from typing import Any, BinaryIO

from sidtui.core.export.document import Document, Tally, Usage, session_usages

__all__ = ["FORMATS", "SUFFIX", "Document", "Tally", "Usage", "session_usages", "write"]

#: Export formats, and the file suffix of each.
FORMATS = ("html", "md", "json")
SUFFIX = {"html": ".html", "md": ".md", "json": ".json", "jsonl": ".jsonl"}


def write(doc: Document, fmt: str, out: BinaryIO, *, jsonl: bool = False) -> Tally:
    """Write ``doc`` in ``fmt`` (one of :data:`FORMATS`) to the binary stream ``out``."""
    if fmt == "html":
        from sidtui.core.export.html import write_html

        return write_html(doc, out)
    if fmt == "md":
        from sidtui.core.export.markdown import write_markdown

        return write_markdown(doc, out)
    from sidtui.core.export.jsonexport import write_json, write_jsonl

    return (write_jsonl if jsonl else write_json)(doc, out)


def open_document(source: Any, ref: Any, usage: Usage | None = None) -> Document:
    """Read ``ref`` through ``source`` into a :class:`Document`."""
    return Document(source, source.open(ref), usage)
