"""The Sidechains tab: each sub-agent transcript of a session, finished or unfinished."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from sidtui.tui.fmt import cell, one_line, short_time
from sidtui.tui.widgets.row_table import RowTable


class SidechainsTable(RowTable):
    """One row per sidechain; Enter posts :class:`SidechainOpened`."""

    class SidechainOpened(Message):
        """The user asked to open the sidechain file at ``path``."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def on_mount(self) -> None:
        self.zebra_stripes = True
        for col in ("agent", "type", "status", "messages", "started", "description"):
            self.add_column(col, key=col)

    def show(self, view) -> None:
        self.clear()
        for s in view.sidechains:
            if s.ended:
                status = Text(
                    s.status or "ended", style="green" if s.status == "completed" else "red"
                )
            else:
                status = Text("unfinished", style="bold yellow")
            self.add_row(
                cell(s.agent_id or "?"),
                cell(s.agent_type or ""),
                status,
                str(len(s.messages)),
                short_time(s.started_at),
                cell(one_line(s.description, 60)),
                key=str(s.path),
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.SidechainOpened(Path(event.row_key.value)))
