"""What a rewind shows, for every source: the modes, a message's preview, the diff of one file.

Shared by sid-code's rewind (:mod:`sidtui.core.edits.rewind`) and Claude Code's
(:mod:`sidtui.core.claude.rewind`), so it sits below both.
"""

from __future__ import annotations

from sidtui.core.base.errors import UsageError
from sidtui.core.checkpoints.diff import edit_hunks
from sidtui.core.checkpoints.sidebyside import cut_line, too_large_to_diff

MODES = ("conversation", "code", "conversation-and-code")
MODE_ALIASES = {"both": "conversation-and-code", "all": "conversation-and-code"}

#: Characters of a prompt shown in a list of rewind points.
PREVIEW_CHARS = 60


def normalize_mode(mode: str) -> str:
    """``conversation`` / ``code`` / ``conversation-and-code`` (``both`` accepted).

    Raises:
        UsageError: any other value.
    """
    m = MODE_ALIASES.get(mode, mode)
    if m not in MODES:
        raise UsageError(f"unknown rewind mode {mode!r}: use conversation, code or both")
    return m


def message_preview(m) -> str:
    """A message's first 60 text characters, else its tool calls/results in brackets."""
    text = m.preview(PREVIEW_CHARS)
    if text:
        return text
    if m.tool_names:
        return f"[{', '.join(m.tool_names)}]"
    results = sum(1 for b in m.blocks if b.type == "tool_result")
    if results:
        return f"[{results} tool result{'s' if results > 1 else ''}]"
    return "[" + ", ".join(str(t) for t in m.block_types) + "]"


def _diff_lines(data: bytes | None) -> list[str]:
    if not data:
        return []
    text = data.decode("utf-8", errors="replace")
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])  # last line without a newline
    return lines


def mode_lines(f) -> str:
    """git's mode lines for a file a restore writes with other permission bits:
    ``old mode 100644`` / ``new mode 100755`` (``new file mode`` for one created), else ""."""
    mode, old_mode = getattr(f, "mode", None), getattr(f, "old_mode", None)
    if getattr(f, "action", None) != "restored" or mode is None:
        return ""
    if f.old is None:
        return f"new file mode 100{mode:03o}\n"
    if old_mode is not None and old_mode != mode:
        return f"old mode 100{old_mode:03o}\nnew mode 100{mode:03o}\n"
    return ""


def unified_diff(f, context: int = 3) -> str:
    """Unified diff current → restored for one :class:`~sidtui.core.checkpoints.restore.FileRestore`.

    Uses :func:`sidtui.core.checkpoints.diff.compute_ops` (prefix/suffix stripping, never quadratic),
    not difflib. Returns "" when nothing differs; above
    :func:`~sidtui.core.checkpoints.sidebyside.too_large_to_diff` the two headers and that
    reason instead of hunks. A line longer than ``PREVIEW_LINE_CHARS`` is cut with a marker.
    A change of permission bits comes first, as git says it (:func:`mode_lines`).
    """
    a = f"a{f.path}" if f.old is not None else "/dev/null"
    b = f"b{f.path}" if f.new is not None else "/dev/null"
    out = [mode_lines(f), f"--- {a}\n", f"+++ {b}\n"]
    if reason := too_large_to_diff(f.old, f.new):
        if f.old == f.new:
            return ""
        return "".join(out) + reason + "\n"
    old, new = _diff_lines(f.old), _diff_lines(f.new)
    if old == new:
        return ""
    hunks = edit_hunks(old, new, context)
    for part in hunks:
        n_old = sum(1 for r in part if r[0] != "+")
        n_new = sum(1 for r in part if r[0] != "-")
        o0 = part[0][1] + (1 if n_old else 0)
        n0 = part[0][2] + (1 if n_new else 0)
        out.append(f"@@ -{o0},{n_old} +{n0},{n_new} @@\n")
        for tag, _, _, full in part:
            line = cut_line(full)
            out.append(
                tag + line
                if line.endswith("\n")
                else f"{tag}{line}\n\\ No newline at end of file\n"
            )
    return "".join(out)
