"""The Sidechains (Sub-agents) tab: each sub-agent transcript of a session, finished or
unfinished: sid-code's sidechain files as its reader gives them (:meth:`show`), any other
source's from the common model's ``subagent_links()`` (:meth:`show_links`)."""

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

        def __init__(self, path: Path, ref=None) -> None:
            super().__init__()
            self.path = path
            #: the transcript to open when the source gave it (``SubagentLink.ref``)
            self.ref = ref

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.links: list = []

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

    def show_links(self, links: list) -> None:
        """One row per sub-agent of ``links`` (``SessionModel.subagent_links()``), nested
        ones too; one whose transcript is not on disk is listed, not opened."""
        self.clear()
        for key in ("messages", "started"):  # sid-code's sidechain files say these only
            if key in self.columns:
                self.remove_column(key)
        self.links = list(links)
        for i, x in enumerate(self.links):
            status = x.status or ""
            style = (
                "green"
                if status == "completed"
                else "bold yellow"
                if status in ("unfinished", "running")
                else "dim"
                if x.ref is None
                else ""
            )
            self.add_row(
                cell(x.label),
                cell(x.agent_type or ""),
                Text(status if x.ref is not None else f"{status} (no transcript)", style=style),
                cell(one_line(x.description, 60)),
                key=f"link-{i}",
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value or ""
        if key.startswith("link-"):
            x = self.links[int(key[len("link-") :])]
            if x.ref is None:
                self.notify(
                    f"sub-agent {x.label}: its transcript is not on disk",
                    severity="warning",
                    markup=False,
                )
                return
            self.post_message(self.SidechainOpened(Path(x.ref.path), x.ref))
            return
        self.post_message(self.SidechainOpened(Path(key)))
