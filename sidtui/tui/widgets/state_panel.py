"""The State tab: the items a resume restores, where each comes from, and the warnings.

Everything is read from :class:`sidtui.core.resume.state.RestoredState` (items with source, note
and warning; usage already split into stock and flow with the cache hit ratio by
:func:`sidtui.core.resume.state.split_usage`) and ``SessionView.warnings``.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from sidtui.fmt import pct, printable, short_value
from sidtui.tui.fmt import cost as fmt_cost
from sidtui.tui.fmt import plain

#: A number with a long fraction (what a sum of costs prints as: 0.055447500000000004).
_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{7,}(?:[eE][-+]?\d+)?(?![\w.])")


def _short(v: Any, width: int = 70) -> str:
    """:func:`sidtui.fmt.short_value` with long fractions cut to 6 significant digits
    (a pass over the text: values nested thousands deep cost no recursion)."""
    return _FLOAT.sub(lambda m: f"{float(m.group()):.6g}", short_value(v, width, spaced=True))


def _num(key: str, v: Any) -> str:
    """One usage figure: costs in dollars, other floats rounded, ints as they are."""
    if isinstance(v, float):
        return fmt_cost(v) if "cost" in key.lower() else f"{v:.6g}"
    return str(v)


def state_renderable(view, home_label: str | None = None) -> RenderableType:
    """A Rich renderable of a session view's restored state.

    ``home_label`` replaces the home root in sources (stable output for snapshots).
    Values from the session go into the tables as ``Text``: a ``str`` cell of a Rich table
    is read as markup.
    """
    root = str(view.home.root)

    def src(text: str) -> str:
        return text.replace(root, home_label) if home_label and text else text

    parts: list[RenderableType] = []
    items = Table(title="Restored on resume", title_justify="left", expand=True, show_edge=False)
    items.add_column("#", width=3)
    items.add_column("item", style="bold", width=18)
    items.add_column("value", ratio=2)
    items.add_column("source", ratio=1, style="dim")
    by_name = {}
    for it in view.state.items:
        by_name[it.name] = it
        val = (
            Text(_short(it.value)) if it.restored else Text(it.note or "not restored", style="dim")
        )
        if it.warning:
            val.append(f"\n⚠ {it.warning}", style="bold red")
        items.add_row(str(it.number or "—"), plain(it.name), val, plain(src(it.source)))
    if "permission_mode" not in by_name:
        items.add_row("—", "permission mode", Text("not restored (by design)", style="dim"), "—")
    parts.append(items)

    usage = by_name.get("usage")
    if usage is not None and isinstance(usage.value, dict):
        u = usage.value
        t = Table(
            title="Usage (stock = last request size · flow = summed over the session)",
            title_justify="left",
            expand=True,
            show_edge=False,
        )
        t.add_column("model", style="bold")
        t.add_column("stock", ratio=2)
        t.add_column("flow", ratio=3)
        t.add_column("cache hit", justify="right")
        for name, mu in (u.get("models") or {}).items():
            stock = ", ".join(f"{k}={_num(k, v)}" for k, v in (mu.get("stock") or {}).items())
            flow = ", ".join(f"{k}={_num(k, v)}" for k, v in (mu.get("flow") or {}).items())
            t.add_row(
                plain(name), plain(stock or "—"), plain(flow or "—"), pct(mu.get("cacheHitRatio"))
            )
        cost = u.get("totalCostUSD")
        t.caption = (
            f"total cost {fmt_cost(cost) if isinstance(cost, (int, float)) else '—'} · "
            f"cache hit ratio {pct(u.get('cacheHitRatio'))} (flow / flow)"
        )
        t.caption_justify = "left"
        parts.append(t)

    todos = by_name.get("todos")
    if todos is not None and todos.restored and isinstance(todos.value, list):
        t = Table(
            title=f"Todo list ({len(todos.value)})",
            title_justify="left",
            expand=True,
            show_edge=False,
            show_header=False,
        )
        t.add_column("status", width=12)
        t.add_column("todo")
        for td in todos.value:
            if isinstance(td, dict):
                status = str(td.get("status", ""))
                mark = {"completed": "✔", "in_progress": "▶"}.get(status, "○")
                t.add_row(
                    plain(f"{mark} {status}"),
                    plain(td.get("content") or td.get("text") or _short(td)),
                )
        parts.append(t)

    goal = by_name.get("goal")
    if goal is not None and goal.value is not None:
        parts.append(
            Text.assemble(
                ("Goal: ", "bold"),
                printable(_short(goal.value, 200)),
                (f"  ({goal.note})" if goal.note else "", "dim"),
            )
        )

    fc = by_name.get("file_changes")
    if fc is not None and isinstance(fc.value, dict):
        files = fc.value.get("files") or []
        t = Table(
            title=f"Changed files ({len(files)})",
            title_justify="left",
            expand=True,
            show_edge=False,
            show_header=False,
        )
        t.add_column("path")
        for f in files:
            t.add_row(plain(f if isinstance(f, str) else _short(f)))
        parts.append(t)

    if view.warnings:
        w = Text("Warnings\n", style="bold")
        for line in view.warnings:
            w.append(printable(f"⚠ {src(line)}\n"), style="yellow")
        parts.append(w)
    else:
        parts.append(Text("No warnings.", style="dim"))
    notes = getattr(view, "notes", None) or []
    if notes:
        n = Text("Notes\n", style="bold")
        for line in notes:
            n.append(printable(f"· {line}\n"), style="dim")
        parts.append(n)
    return Group(*parts)


class StatePanel(VerticalScroll):
    """Scrollable restored-state report; ``show(view)`` sets it."""

    DEFAULT_CSS = """
    StatePanel { padding: 0 1; }
    """

    def compose(self):
        yield Static("", id="state-body")

    def show(self, view) -> None:
        self.query_one("#state-body", Static).update(state_renderable(view, self.app.home_label))
