"""What a Claude Code session last left in a file, from its tool results (docs/CLAUDE-CODE.md
§10.5): the drift check's proof that a file modified after the session is still its content.

A ``user`` record's ``toolUseResult`` names the file it edited (``filePath``) and holds enough
to rebuild what the tool wrote: ``Write`` the whole ``content``; ``Edit`` the
``originalFile`` and one ``oldString`` → ``newString`` replacement (``replaceAll``);
``MultiEdit`` the ``originalFileContents`` and its ``edits`` in order. Anything else (a
``userModified`` edit, a missing original, an ``oldString`` not in it) is unknown, never a
guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sidtui.core.checkpoints.drift import Expected, digest
from sidtui.core.claude.kinds import tool_result_ids

UNKNOWN = "unknown"


def _replace(text: str, old: Any, new: Any, every: Any) -> str | None:
    if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
        return None
    return text.replace(old, new) if every is True else text.replace(old, new, 1)


def post_image(result: dict[str, Any]) -> bytes | str:
    """The bytes a file-editing tool left (``"unknown"`` when its result does not prove them).

    Args:
        result: a ``toolUseResult`` object with a ``filePath``.
    """
    if result.get("userModified") is True:
        return UNKNOWN
    content = result.get("content")
    if isinstance(content, str) and result.get("type") in ("create", "update"):
        return content.encode("utf-8", "surrogatepass")
    text: str | None = None
    if "oldString" in result:
        orig = result.get("originalFile")
        if isinstance(orig, str):
            text = _replace(
                orig, result.get("oldString"), result.get("newString"), result.get("replaceAll")
            )
    elif isinstance(result.get("edits"), list):
        cur = result.get("originalFileContents")
        for e in result["edits"]:
            if not isinstance(cur, str) or not isinstance(e, dict):
                cur = None
                break
            cur = _replace(cur, e.get("old_string"), e.get("new_string"), e.get("replace_all"))
        text = cur if isinstance(cur, str) else None
    return UNKNOWN if text is None else text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class LastEdit:
    """The last tool result of a session that edited one file.

    Attributes:
        line: its line in the transcript; timestamp: its ``timestamp`` (ISO) or None.
        after: the bytes left (:func:`post_image`) or ``"unknown"``.
    """

    line: int
    timestamp: str | None
    after: bytes | str

    def expected(self) -> Expected:
        """The drift module's :class:`~sidtui.core.checkpoints.drift.Expected` of this edit."""
        if isinstance(self.after, str):
            return Expected(False, source=f"line {self.line}: its tool result does not prove it")
        return Expected(True, True, digest(self.after), f"line {self.line} tool result")


class LastEdits:
    """Path → :class:`LastEdit` of one session, read on first use (full records of the user
    records carrying tool results only)."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self._by_path: dict[str, LastEdit] | None = None

    def _read(self) -> dict[str, LastEdit]:
        out: dict[str, LastEdit] = {}
        v = self.view
        objs, lines = v.scan.objs, v.scan.lines
        for i, o in enumerate(objs):
            if o.type != "user" or not tool_result_ids(o):
                continue
            d = v.full_record(i)
            r = d.get("toolUseResult") if isinstance(d, dict) else None
            p = r.get("filePath") if isinstance(r, dict) else None
            if isinstance(p, str) and p:
                out[p] = LastEdit(lines[i], o.timestamp, post_image(r))  # type: ignore[arg-type]
        return out

    def get(self, path: str) -> LastEdit | None:
        """The last edit of the absolute ``path`` (None: no tool result names it)."""
        if self._by_path is None:
            self._by_path = self._read()
        return self._by_path.get(path)
