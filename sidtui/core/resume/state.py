"""The twelve items the agent restores on resume, each on its own (FORMAT.md §7).

Each item is restored on its own: one failing gets a warning and the others go on. Metadata
is last-wins; ``permissionMode`` and finished or cleared goals are never restored; a ``cwd``
in another project is warned about; usage keeps stock and flow apart.

Design notes: docs/ARCHITECTURE.md, “core/resume/state.py”.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.project import git_toplevel
from sidtui.core.base.regular import read_regular
from sidtui.core.transcript.loader import LoadedSession

STOCK_FIELDS = ("inputTokens", "stockPromptTokens")
FLOW_FIELDS = (
    "cumulativePromptTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
    "requests",
    "costUSD",
    "cacheSavingsUSD",
)
TERMINAL_GOAL_STATUSES = frozenset({"complete", "completed", "impossible"})
CLEARED_GOAL = "__CLEARED__"


@dataclass
class StateItem:
    """One restored item.

    Attributes:
        number: 1–10 (the FORMAT.md §7.1 list), 11+ for the extra mechanisms.
        name: short name (``messages``, ``model``, ``usage`` ...).
        value: what would be restored (None when nothing is).
        source: where it comes from (record line, metadata key, file).
        restored: False when the agent would not restore it (by design or missing).
        note: why not, or a remark.
        warning: a failure or a condition the user should know about.
    """

    number: int
    name: str
    value: Any
    source: str
    restored: bool = True
    note: str | None = None
    warning: str | None = None


@dataclass
class RestoredState:
    """All items plus the warnings collected while restoring them."""

    items: list[StateItem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> StateItem | None:
        return next((i for i in self.items if i.name == name), None)


def _md_lines(ls: LoadedSession) -> dict[str, tuple[int | None, int]]:
    """Per metadata key: (line of its last record, number of records), in one pass."""
    out: dict[str, tuple[int | None, int]] = {}
    get = out.get
    for e in ls.metadata_entries:
        k = e.key
        prev = get(k)
        out[k] = (e.line, prev[1] + 1 if prev is not None else 1)
    return out


def _md_source(
    ls: LoadedSession, key: str, index: dict[str, tuple[int | None, int]] | None = None
) -> str:
    """Where a metadata item comes from: its last record's line and how many there are.

    Args:
        ls: the loaded session.
        key: the metadata key.
        index: :func:`_md_lines` of ``ls`` when several keys are asked (one pass for all).
    """
    hit = (index if index is not None else _md_lines(ls)).get(key)
    if hit is None:
        return f"metadata {key} (absent)"
    line, n = hit
    return f"metadata {key}, line {line} (last of {n})" if n > 1 else f"metadata {key}, line {line}"


def split_usage(usage_stats: Any) -> dict[str, Any]:
    """Usage with stock and flow kept apart, and the cache hit ratio (flow/flow).

    Args:
        usage_stats: the ``usage_stats`` metadata value.

    Returns:
        ``{totalCostUSD, models: {model: {stock: {...}, flow: {...}, cacheHitRatio}},
        cacheHitRatio}``. The ratio is ``cacheReadInputTokens / (cumulativePromptTokens +
        cacheReadInputTokens + cacheCreationInputTokens)``, all flows: in the agent's
        files ``cumulativePromptTokens`` counts only uncached input (the fixtures show
        it), so cached reads and writes are added to get every prompt token processed.
        Stock fields never enter a ratio (FORMAT.md §3.11).

    Raises:
        ValueError: ``usage_stats`` is not an object.
    """
    if not isinstance(usage_stats, dict):
        raise ValueError("usage_stats is not an object")
    models = usage_stats.get("modelUsage") or {}
    out_models: dict[str, Any] = {}
    tot_read = tot_all = 0.0
    if isinstance(models, dict):
        for name, mu in models.items():
            if not isinstance(mu, dict):
                continue
            stock = {k: mu[k] for k in STOCK_FIELDS if k in mu}
            flow = {k: mu[k] for k in FLOW_FIELDS if k in mu}
            read = _num(mu.get("cacheReadInputTokens"))
            total = (
                _num(mu.get("cumulativePromptTokens"))
                + read
                + _num(mu.get("cacheCreationInputTokens"))
            )
            out_models[name] = {
                "stock": stock,
                "flow": flow,
                "cacheHitRatio": (read / total) if total else None,
            }
            tot_read += read
            tot_all += total
    return {
        "totalCostUSD": usage_stats.get("totalCostUSD"),
        "sideCostUSD": usage_stats.get("sideCostUSD"),
        "models": out_models,
        "cacheHitRatio": (tot_read / tot_all) if tot_all else None,
    }


def _num(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def parse_goal(value: Any) -> Any:
    """``goal_state`` is stored as a JSON string (or an object); decode it."""
    if isinstance(value, str) and value != CLEARED_GOAL:
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


@dataclass
class _Context:
    """What every item of :func:`restore_state` reads."""

    home: Home
    session: SessionFile
    loaded: LoadedSession
    md: dict[str, Any]
    md_index: Any
    message_count: int | None
    unfinished_sidechains: list[dict] | None
    current_cwd: Path | None
    warnings: list[str]

    def source(self, key: str) -> str:
        return _md_source(self.loaded, key, self.md_index)


def _messages(c: _Context) -> StateItem:
    if not c.loaded.loadable:
        msg = f"the agent loads nothing from this file: {c.loaded.load_failure}"
        c.warnings.append(msg)
        return StateItem(1, "messages", 0, "transcript chain", False, warning=msg)
    n = c.message_count if c.message_count is not None else len(c.loaded.messages)
    return StateItem(1, "messages", n, f"transcript chain ({len(c.loaded.messages)} loaded)")


def _model(c: _Context) -> StateItem:
    setting = c.md.get("agent_setting")
    if isinstance(setting, dict) and isinstance(setting.get("model"), str):
        return StateItem(
            2,
            "model",
            {"model": setting["model"], "provider": c.loaded.provider},
            c.source("agent_setting") + " (provider from session_start)",
        )
    return StateItem(
        2, "model", {"model": c.loaded.model, "provider": c.loaded.provider}, "session_start"
    )


def _usage(c: _Context) -> StateItem:
    if "usage_stats" not in c.md:
        return StateItem(
            3,
            "usage",
            None,
            c.source("usage_stats"),
            False,
            note="no usage recorded: counters start at zero",
        )
    return StateItem(3, "usage", split_usage(c.md["usage_stats"]), c.source("usage_stats"))


def _file_changes(c: _Context) -> StateItem:
    v = c.md.get("file_changes")
    if v is None:
        return StateItem(
            4,
            "file_changes",
            None,
            c.source("file_changes"),
            False,
            note="no file changes recorded",
        )
    if not isinstance(v, dict):
        raise ValueError("file_changes is not an object")
    return StateItem(4, "file_changes", v, c.source("file_changes"))


def _todos(c: _Context) -> StateItem:
    v = c.md.get("todo_state")
    if v is None:
        return StateItem(
            5, "todos", None, c.source("todo_state"), False, note="no todo list recorded"
        )
    if not isinstance(v, dict) or not isinstance(v.get("todos", []), list):
        raise ValueError("todo_state has no todos list")
    return StateItem(5, "todos", v.get("todos", []), c.source("todo_state"))


def _cwd(c: _Context) -> StateItem:
    it = StateItem(6, "cwd", c.loaded.cwd, "session_start.cwd", c.loaded.cwd is not None)
    if c.loaded.cwd is None:
        it.note = "no cwd recorded (legacy session): a resume runs in the current directory"
    elif c.current_cwd is not None:
        here = git_toplevel(c.current_cwd)
        there = (
            git_toplevel(Path(c.loaded.cwd)) if Path(c.loaded.cwd).exists() else Path(c.loaded.cwd)
        )
        if here != there:
            it.warning = (
                f"cross-project resume: the session belongs to {there}, the current "
                f"directory to {here}; tools would run here and paths in the history "
                "may not match"
            )
            c.warnings.append(it.warning)
    return it


def _effort(c: _Context) -> StateItem:
    setting = c.md.get("agent_setting")
    if setting is None:
        return StateItem(
            7,
            "effort",
            None,
            c.source("agent_setting"),
            False,
            note="no agent setting recorded: defaults apply",
        )
    if not isinstance(setting, dict):
        raise ValueError("agent_setting is not an object")
    val = {k: setting[k] for k in ("effortLevel", "thinking") if k in setting}
    it = StateItem(7, "effort", val, c.source("agent_setting"))
    if "permissionMode" in setting:
        it.note = "agent_setting.permissionMode is a legacy field: read and ignored"
    return it


def _goal(c: _Context) -> StateItem:
    if "goal_state" not in c.md:
        return StateItem(8, "goal", None, c.source("goal_state"), False, note="no goal recorded")
    raw = c.md["goal_state"]
    if raw == CLEARED_GOAL:
        return StateItem(
            8,
            "goal",
            None,
            c.source("goal_state"),
            False,
            note="goal cleared (/clear): nothing to restore",
        )
    g = parse_goal(raw)
    status = g.get("status") if isinstance(g, dict) else None
    if status in TERMINAL_GOAL_STATUSES:
        return StateItem(
            8,
            "goal",
            g,
            c.source("goal_state"),
            False,
            note=f"goal is {status}: a finished goal is not restored",
        )
    return StateItem(8, "goal", g, c.source("goal_state"))


def _sidechains(c: _Context) -> StateItem:
    sc = c.unfinished_sidechains or []
    return StateItem(
        9,
        "unfinished_sidechains",
        sc,
        "sidechain files without sidechain_end",
        bool(sc),
        note=None if sc else "no unfinished sub-agent",
    )


def _worktree(c: _Context) -> StateItem:
    if not c.loaded.cwd:
        return StateItem(10, "worktree", None, "—", False, note="no cwd, no worktree config")
    cfg = Path(c.loaded.cwd) / ".sid-code" / "session-config.json"
    if not cfg.exists():
        return StateItem(
            10, "worktree", None, str(cfg), False, note="no worktree recorded for this project"
        )
    return StateItem(10, "worktree", orjson.loads(read_regular(cfg, 1 << 20)), str(cfg))


def _progress(c: _Context) -> StateItem:
    sid = c.loaded.session_id or c.session.session_id
    p = c.home.root / "progress" / f"{sid}.md"
    if not p.exists():
        return StateItem(11, "progress_file", None, str(p), False, note="no progress file")
    text = read_regular(p, 8192, head=True).decode("utf-8", errors="replace")
    return StateItem(11, "progress_file", text[:2000], str(p))


def _ledger(c: _Context) -> StateItem:
    v = c.md.get("hypothesis_ledger")
    return StateItem(
        12,
        "hypothesis_ledger",
        v,
        c.source("hypothesis_ledger"),
        v is not None,
        note=None if v is not None else "no ledger recorded",
    )


#: The twelve items in FORMAT.md §7.1's order: (number, name, how it is restored).
_ITEMS = (
    (1, "messages", _messages),
    (2, "model", _model),
    (3, "usage", _usage),
    (4, "file_changes", _file_changes),
    (5, "todos", _todos),
    (6, "cwd", _cwd),
    (7, "effort", _effort),
    (8, "goal", _goal),
    (9, "unfinished_sidechains", _sidechains),
    (10, "worktree", _worktree),
    (11, "progress_file", _progress),
    (12, "hypothesis_ledger", _ledger),
)


def restore_state(
    home: Home,
    session: SessionFile,
    loaded: LoadedSession,
    *,
    message_count: int | None = None,
    unfinished_sidechains: list[dict] | None = None,
    current_cwd: Path | None = None,
) -> RestoredState:
    """Compute the twelve restored items (FORMAT.md §7.1) for a loaded session.

    Args:
        home: the home (for the progress file).
        session: the session file.
        loaded: the loader's output.
        message_count: messages after recovery (defaults to the loader's count).
        unfinished_sidechains: ``[{agentId, agentType, description, messages}]`` for
            sidechains without ``sidechain_end`` (item 9).
        current_cwd: the directory a resume would run in; when given, a ``cwd`` in
            another project gives a warning (FORMAT.md §7.5).

    Returns:
        A :class:`RestoredState`; never raises (each item's failure is its warning).
    """
    st = RestoredState()
    c = _Context(
        home,
        session,
        loaded,
        loaded.metadata,
        _md_lines(loaded),  # one pass over the metadata records for every item
        message_count,
        unfinished_sidechains,
        current_cwd,
        st.warnings,
    )
    for number, name, fn in _ITEMS:
        try:
            st.items.append(fn(c))
        except Exception as exc:  # noqa: BLE001 - each item independent: a warning, never a failure
            why = str(exc) if isinstance(exc, SidtuiError) else f"{type(exc).__name__}: {exc}"
            msg = f"{name}: could not be restored ({why})"
            st.items.append(StateItem(number, name, None, "—", False, warning=msg))
            st.warnings.append(msg)
    st.items.append(
        StateItem(
            0,
            "permission_mode",
            None,
            "—",
            False,
            note="not restored (by design): every resume starts in default or the CLI's mode",
        )
    )
    return st
