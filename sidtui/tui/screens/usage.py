"""Usage (``ctrl+u``, the palette's "Usage"): tokens and cost per day as bars, split by
model, over the four weeks up to the last day with usage; per project over the same days;
the selected session's share of all the cost; the numbers beside every bar.

The numbers are ``sidtui usage``'s (:func:`sidtui.core.sources.usage.usage_report`, the one
engine, on every home the app reads), computed in a worker; bars are Rich text in Textual
``Static`` widgets (block characters, one colour per model), so they need no plotting
library and render the same in every terminal and in SVG snapshots.
"""

from __future__ import annotations

from datetime import date

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sidtui.tui.messages import UsageCounted
from sidtui.tui.worker_errors import ReportsWorkerErrors

#: Days shown (the window ends on the last day with usage).
WINDOW_DAYS = 28
#: Projects shown (by cost).
TOP_PROJECTS = 8
#: A colour per model, in the order of their cost.
COLOURS = ("dodger_blue1", "orange1", "green3", "magenta", "yellow3", "cyan", "red3", "grey62")


def usd(v: float | None) -> str:
    return "unknown" if v is None else f"${v:,.2f}"


def tokens(n: int) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def stacked_bar(parts: list[tuple[float, str]], scale: float, width: int) -> Text:
    """One bar of ``width`` cells at most: each ``(value, colour)`` part its share of
    ``value / scale``; a part too small for a cell still shows as one when it is not 0."""
    t = Text()
    used = 0
    for value, colour in parts:
        if value <= 0 or scale <= 0:
            continue
        n = max(1, round(value / scale * width))
        n = min(n, width - used)
        if n <= 0:
            break
        t.append("█" * n, style=colour)
        used += n
    t.append(" " * (width - used))
    return t


class UsageScreen(ReportsWorkerErrors, ModalScreen[None]):
    """Bars of tokens and cost; Esc closes."""

    CSS_PATH = ["modal.tcss", "usage.tcss"]
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, session_id: str | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.result: UsageCounted | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static("Usage: tokens and cost", classes="modal-title", id="usage-title")
            yield Static(" counting…", id="usage-status")
            with VerticalScroll(id="usage-body"):
                yield Static("", id="usage-days")
                yield Static("", id="usage-legend")
                yield Static("", id="usage-projects")
                yield Static("", id="usage-session")

    def on_mount(self) -> None:
        self.count(self.app.sources, self.session_id, self.app.catalog_path)

    @work(
        thread=True,
        exclusive=True,
        group="usage",
        exit_on_error=False,
        description="counting usage",
    )
    def count(self, sources, session_id: str | None, catalog_path) -> None:
        """Every home's usage through the engine (cached per file as ``sidtui usage``)."""
        import sqlite3

        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.sources.usage import usage_report

        sources = [s for s in sources if s.exists()]
        cache = catalog_path != ":memory:"
        try:
            every = usage_report(sources, "day", use_cache=cache)
            if not every.rows:
                self.post_message(UsageCounted(every, None, None))
                return
            last = date.fromisoformat(every.rows[-1].key).toordinal()
            since = last - WINDOW_DAYS + 1
            days = usage_report(
                sources, "day", since=since, until=last, use_cache=cache, by_model=True
            )
            projects = usage_report(sources, "project", since=since, until=last, use_cache=cache)
            share = None
            if session_id is not None:
                per = usage_report(sources, "session", use_cache=cache)
                mine = next((r for r in per.rows if r.key == session_id), None)
                share = (session_id, mine.cost if mine else 0.0, per.totals.cost)
        except (SidtuiError, OSError, sqlite3.Error) as exc:
            self.post_message(UsageCounted(error=f"usage cannot be counted: {exc}"))
            return
        self.post_message(UsageCounted(days, projects, share))

    def on_usage_counted(self, msg: UsageCounted) -> None:
        self.result = msg
        status = self.query_one("#usage-status", Static)
        if msg.error:
            status.update(Text(" " + msg.error, style="red"))
            return
        if msg.days is None or not msg.days.rows:
            status.update(" no usage recorded in the sessions read")
            return
        self._draw(msg)

    def _inner_width(self) -> int:
        """Cells a line has inside the box: the whole screen at the narrow breakpoint,
        else 90 % less border and padding; less the scroll bar."""
        w = self.app.size.width
        return (w if w <= 100 else int(w * 0.9) - 4) - 2

    def _draw(self, msg: UsageCounted) -> None:
        width = self._inner_width()
        days = msg.days
        first, last = days.rows[0].key, days.rows[-1].key
        t = days.totals
        self.query_one("#usage-status", Static).update(
            f" {first} … {last}: {usd(t.cost)}, {tokens(t.total_tokens)} tokens "
            f"(in {tokens(t.input_tokens)}, out {tokens(t.output_tokens)}, "
            f"cache write {tokens(t.cache_creation_tokens)}, read {tokens(t.cache_read_tokens)}); "
            f"prices of {days.prices_date}"
        )
        models: dict[str, float] = {}
        for r in days.rows:
            for m, sub in (r.by_model or {}).items():
                models[m] = models.get(m, 0.0) + sub.cost_usd
        order = sorted(models, key=lambda m: (-models[m], m))
        colour = {m: COLOURS[min(i, len(COLOURS) - 1)] for i, m in enumerate(order)}
        top = max(r.cost_usd for r in days.rows) or 1.0
        out = Text("Cost per day, by model\n", style="bold")
        for r in days.rows:
            d = date.fromisoformat(r.key)
            out.append(f"{d:%a} {r.key[5:]} ")
            split = [
                (sub.cost_usd, colour[m])
                for m, sub in sorted((r.by_model or {}).items(), key=lambda kv: order.index(kv[0]))
            ]
            out.append_text(stacked_bar(split, top, max(4, width - 34)))
            out.append(f" {usd(r.cost):>10} {tokens(r.total_tokens):>7} tok\n")
        self.query_one("#usage-days", Static).update(out)
        legend = Text()
        for m in order:
            legend.append("█ ", style=colour[m])
            legend.append(f"{m} {usd(models[m])}   ")
        self.query_one("#usage-legend", Static).update(legend)
        self._draw_projects(msg, width)

    def _draw_projects(self, msg: UsageCounted, width: int) -> None:
        out = Text("\nCost per project (same days)\n", style="bold")
        rows = msg.projects.rows[:TOP_PROJECTS] if msg.projects else []
        top = max((r.cost_usd for r in rows), default=0.0) or 1.0
        for r in rows:
            name = r.key if len(r.key) <= 24 else "…" + r.key[-23:]
            out.append(f"{name:<24} ")
            out.append_text(stacked_bar([(r.cost_usd, "dodger_blue1")], top, max(4, width - 49)))
            out.append(f" {usd(r.cost):>10} {tokens(r.total_tokens):>7} tok\n")
        self.query_one("#usage-projects", Static).update(out)
        share = Text()
        if msg.session is not None:
            sid, mine, total = msg.session
            share.append("\nSelected session (all time)\n", style="bold")
            if mine is None or total is None or total <= 0:
                share.append(f"{sid}: {usd(mine)} of {usd(total)}")
            else:
                share.append(f"{sid[:24]:<24} ")
                share.append_text(stacked_bar([(mine, "orange1")], total, max(4, width - 62)))
                share.append(f" {usd(mine):>10} {mine / total:>6.1%} of {usd(total)}")
        self.query_one("#usage-session", Static).update(share)

    def action_close(self) -> None:
        self.dismiss(None)
