"""The index of a ``--project``/``--all`` export: one row per session written, linking its
file (names sidtui made, escaped all the same), in HTML or Markdown (JSON: one object)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any, BinaryIO
from urllib.parse import quote

from sidtui.core.export.blocks import json_text, one_line
from sidtui.core.export.html import CSP, STYLE
from sidtui.core.export.sink import Sink


@dataclass
class Entry:
    """One exported session: its file name (in the same folder), what it is."""

    file: str
    source: str
    session_id: str
    project: str | None
    title: str | None
    updated_at: str | None
    messages: int
    cost_usd: float | None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def write_index(entries: list[Entry], fmt: str, out: BinaryIO) -> None:
    """Write the index of ``entries`` in ``fmt`` (``html``, ``md`` or ``json``)."""
    sink = Sink(out)
    w = sink.write
    if fmt == "json":
        w(json_text({"sessions": [x.to_json() for x in entries]}) + "\n")
    elif fmt == "md":
        w(
            f"# Sessions ({len(entries):,})\n\n| Session | Project | Last activity | Messages | Cost |\n"
        )
        w("|---|---|---|---:|---:|\n")
        for x in entries:
            title = escape(one_line(x.title or x.session_id, 80))
            title = title.replace("|", "\\|").replace("]", "\\]").replace("[", "\\[")
            proj = escape(x.project or "").replace("|", "\\|")
            w(
                f"| [{title}](<{quote(x.file)}>) | {proj} | "
                f"{escape(x.updated_at or '')} | {x.messages:,} | {_cost(x.cost_usd)} |\n"
            )
    else:
        w(
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>Sessions — sidtui export</title><style>{STYLE}</style></head><body>"
            f"<h1>Sessions ({len(entries):,})</h1><table><thead><tr><th>Session</th>"
            "<th>Project</th><th>Last activity</th><th>Messages</th><th>Cost</th></tr></thead><tbody>"
        )
        for x in entries:
            w(
                f'<tr><td><a href="./{escape(quote(x.file))}">'
                f"{escape(one_line(x.title or x.session_id, 100))}</a></td>"
                f"<td>{escape(x.project or '')}</td><td>{escape(x.updated_at or '')}</td>"
                f"<td>{x.messages:,}</td><td>{_cost(x.cost_usd)}</td></tr>"
            )
        w("</tbody></table></body></html>\n")
    sink.close()


def _cost(usd: float | None) -> str:
    return "—" if usd is None else f"${usd:,.2f}"
