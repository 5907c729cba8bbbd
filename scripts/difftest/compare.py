"""What sidtui and the agent's loader each say about one file, and where they disagree.

:func:`sidtui_view` opens a file the way ``sidtui show --json`` does; :func:`compare` sets
that object beside the oracle's JSON (``oracle --batch`` output, one object per file) and
returns the disagreements, each as ``(field, signature, detail)``. The regression test
(tests/test_oracle_cases.py) and the differential loop (``python -m scripts.difftest``)
both use this module, so a vendored case is judged exactly as the loop judged it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The fields compared, in report order.
FIELDS = (
    "loadable",
    "session",
    "messages",
    "resumed",
    "dropped",
    "interruption",
    "resume_fails",
    "integrity",
    "sidechain",
)


#: The signature of a difference kept on purpose (docs/DECISIONS.md, "Reading files
#: exactly as the agent: differential tests"): a tool_result before its tool_use.
KNOWN_ORDER = "result before its use (kept: sidtui pairs in order)"
KNOWN = frozenset({KNOWN_ORDER})


@dataclass(frozen=True)
class Disagreement:
    """One field on which sidtui and the agent differ for a file.

    Attributes:
        field: one of :data:`FIELDS`.
        signature: a short, case-independent description (the class key).
        detail: what each side said, for this file.
    """

    field: str
    signature: str
    detail: str

    @property
    def key(self) -> str:
        return f"{self.field}: {self.signature}"

    @property
    def known(self) -> bool:
        """A difference kept on purpose (:data:`KNOWN`)."""
        return self.signature in KNOWN


def sidtui_view(path: Path) -> dict[str, Any]:
    """``show --json`` of ``path``, read from a private temporary home (so the file's
    folder, registrations and sidechains around it never matter).

    Raises:
        sidtui.core.base.errors.SidtuiError: the file cannot be read at all.
    """
    from sidtui.core.base.discover import classify_file
    from sidtui.core.base.home import Home
    from sidtui.core.views.session import open_session

    with tempfile.TemporaryDirectory(prefix="sidtui-difftest-") as tmp:
        home_dir = Path(tmp)
        folder = home_dir / "sessions" / "p"
        folder.mkdir(parents=True)
        target = folder / path.name
        try:
            target.symlink_to(path.resolve())
        except OSError:
            shutil.copyfile(path, target)
        home = Home(home_dir)
        sf = classify_file(target, "p")
        if sf is None:
            raise ValueError(f"{path.name} is not a session file name (.jsonl or .json)")
        return open_session(home, sf, registrations=[], with_sidechains=False).to_json()


# --------------------------------------------------------------------------- the two sides


def oracle_state(o: dict[str, Any]) -> str:
    """``loads``, ``nothing`` (the loader returns null) or ``throws`` (its load() threw)."""
    if o.get("loadError"):
        return "throws"
    return "nothing" if o.get("result") is None else "loads"


def _text(v: Any) -> str:
    """A JSON value as sidtui shows a name or role that is no string: its JSON text."""
    if isinstance(v, str):
        return v
    if v is None or v is False or v == 0 or v == "":
        return ""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _o_msg(m: dict[str, Any]) -> tuple:
    # sidtui's role is the string as written, else null (a representation: the agent's
    # choices test role === "user"/"assistant", which reads the same either way)
    role = m.get("role")
    return (m.get("uuid"), m.get("line"), role if isinstance(role, str) else None, m.get("blocks"))


def _s_msg(m: dict[str, Any]) -> tuple:
    return (m.get("uuid"), m.get("line"), m.get("role"), m.get("blocks"))


def _same(o: tuple, s: tuple, names: tuple[str, ...], wild: set[str]) -> list[str]:
    """The names of the components that differ (a name in ``wild`` is not compared)."""
    return [n for n, a, b in zip(names, o, s, strict=True) if n not in wild and a != b]


def _wildcards(m: dict[str, Any]) -> set[str]:
    """Components the oracle could not tell: its runner maps a message to its line by
    aligning the agent's reader's lines with the text, and gives null when it cannot
    (a raw U+2028 in a big file; a message that is not an object has neither a uuid nor
    a line it can find)."""
    wild = set()
    if "srcIndex" in m and m.get("srcIndex") is None:  # a rewritten message it lost track of
        return {"uuid", "line", "src_index"}
    if m.get("line") is None:
        wild.add("line")
        if m.get("messageNotObject") or m.get("uuid") is None:
            wild.add("uuid")
    return wild


_MSG = ("uuid", "line", "role", "blocks")


class _Lines:
    """The file's physical lines, split only when a line number is in question."""

    def __init__(self, file: bytes | Path | None) -> None:
        self.file = file
        self.lines: list[bytes] | None = None

    def same_text(self, a: Any, b: Any) -> bool:
        """Lines ``a`` and ``b`` (1-based) are byte-identical (a duplicated line)."""
        if self.file is None or not isinstance(a, int) or not isinstance(b, int):
            return False
        if self.lines is None:
            data = self.file if isinstance(self.file, bytes) else self.file.read_bytes()
            self.lines = data.split(b"\n")
        n = len(self.lines)
        return 0 < a <= n and 0 < b <= n and self.lines[a - 1] == self.lines[b - 1]


def _compare_lists(
    field: str,
    o_rows: list[dict],
    s_rows: list[dict],
    extra: tuple[str, ...] = (),
    lines: _Lines | None = None,
) -> Disagreement | None:
    """The first difference between two message lists, as a :class:`Disagreement`.

    A line number is not compared when the two lines are byte-identical: the oracle's
    runner finds a message's line by its text (the first of two equal lines) when the
    agent's streaming reader has split a line, while the agent took the later one, whose
    content is the same (docs/DECISIONS.md, representations)."""
    names = _MSG + extra
    if len(o_rows) != len(s_rows):
        rel = "oracle>sidtui" if len(o_rows) > len(s_rows) else "oracle<sidtui"
        o_u = [r.get("uuid") for r in o_rows]
        s_u = [r.get("uuid") for r in s_rows]
        return Disagreement(
            field,
            f"count {rel}",
            f"oracle {len(o_rows)} {_short(o_u)} / sidtui {len(s_rows)} {_short(s_u)}",
        )
    for i, (om, sm) in enumerate(zip(o_rows, s_rows, strict=True)):
        o = _o_msg(om) + tuple(om.get(_ORACLE_KEY.get(n, n)) for n in extra)
        s = _s_msg(sm) + tuple(sm.get(n) for n in extra)
        diff = _same(o, s, names, _wildcards(om))
        if "line" in diff and lines is not None and lines.same_text(o[1], s[1]):
            diff.remove("line")
        if diff:
            return Disagreement(
                field,
                "+".join(diff),
                f"#{i}: oracle {dict(zip(names, o, strict=True))} / sidtui "
                f"{dict(zip(names, s, strict=True))}",
            )
    return None


_ORACLE_KEY = {"src_index": "srcIndex"}


def _short(v: Any, n: int = 300) -> str:
    t = repr(v)
    return t if len(t) <= n else t[: n - 1] + "…"


def compare(
    oracle: dict[str, Any], out: dict[str, Any], file: bytes | Path | None = None
) -> list[Disagreement]:
    """Every field on which ``out`` (``show --json``) differs from ``oracle``.

    Args:
        oracle: the oracle's object for the file.
        out: sidtui's ``show --json`` object for the same file.
        file: the file itself (its path or bytes), read only to tell whether two lines a
            message is placed on are the same text.

    Returns:
        The disagreements, at most one per field, in :data:`FIELDS` order.
    """
    found: list[Disagreement] = []
    add = found.append
    o_side = "sidechain" in oracle
    s_side = out.get("kind") == "sidechain"
    if o_side != s_side:
        add(
            Disagreement(
                "sidechain",
                f"kind oracle={'sidechain' if o_side else 'main'} "
                f"sidtui={'sidechain' if s_side else 'main'}",
                f"sidtui kind {out.get('kind')!r}",
            )
        )
    elif o_side:
        d = _compare_sidechain(oracle["sidechain"], out.get("sidechain") or {})
        if d is not None:
            add(d)
    o_state = oracle_state(oracle)
    s_state = "loads" if out.get("loadable") else "nothing"
    if (o_state == "loads") != (s_state == "loads"):
        add(
            Disagreement(
                "loadable",
                f"oracle={o_state} sidtui={s_state}",
                f"oracle {oracle.get('loadError') or oracle.get('note') or ''} / sidtui "
                f"{out.get('load_failure')}",
            )
        )
    result = oracle.get("result") or {}
    o_msgs = (result.get("messages") or []) if o_state == "loads" else []
    s_msgs = out.get("messages") or []
    if o_state == "loads" and s_state == "loads":
        d = _compare_session(result, out)
        if d is not None:
            add(d)
    lines = _Lines(file)
    d = _compare_lists("messages", o_msgs, s_msgs, lines=lines)
    if d is not None:
        add(d)
    if o_state != "loads" and s_state != "loads":
        return found
    rec = oracle.get("recovery") if o_state == "loads" else None
    o_fails = isinstance(rec, dict) and "error" in rec
    s_fails = bool(out.get("resume_fails"))
    if o_fails != s_fails and (o_state == "loads" or s_fails):
        add(
            Disagreement(
                "resume_fails",
                f"oracle={'throws' if o_fails else 'resumes'} "
                f"sidtui={'fails' if s_fails else 'resumes'}",
                f"oracle {rec.get('error') if o_fails else ''} / sidtui "
                f"{out.get('resume_failure')}",
            )
        )
    o_res = [] if (o_fails or not rec) else rec.get("messages") or []
    s_res = out.get("resumed") or []
    d = _compare_lists("resumed", o_res, s_res, ("changed", "src_index"), lines)
    if d is not None:
        add(d)
    if o_fails or not rec or s_fails or s_state != "loads":
        return found
    o_drop = sorted(rec.get("droppedSrcIndexes") or [])
    s_drop = _dropped(out)
    lost = sum(1 for m in o_res if m.get("srcIndex") is None)  # it counts those as dropped
    prompt = (rec.get("turnInterruptionState") or {}).get("message") or {}
    if "srcIndex" in prompt and prompt.get("srcIndex") is None:  # a rewritten prompt, too
        lost += 1
    if o_drop != s_drop and not (
        lost and set(s_drop) <= set(o_drop) and len(o_drop) - len(s_drop) == lost
    ):
        more = set(o_drop) - set(s_drop)
        rel = "oracle drops more" if more else "sidtui drops more"
        add(Disagreement("dropped", rel, f"oracle {o_drop} / sidtui {s_drop}"))
    d = _compare_interruption(rec.get("turnInterruptionState") or {}, out.get("interruption"))
    if d is not None:
        add(d)
    d = _compare_integrity(oracle.get("integrity") or {}, out.get("integrity") or {})
    if d is not None:
        add(d)
    return found


def _dropped(out: dict[str, Any]) -> list[int]:
    """The loaded messages that are not sent: not in ``resumed`` and not the re-queued
    prompt (which the agent does not count as dropped)."""
    sent = {m.get("src_index") for m in out.get("resumed") or []}
    prompt = (out.get("interruption") or {}).get("message") or {}
    sent.add(prompt.get("src_index"))
    return [i for i in range(len(out.get("messages") or [])) if i not in sent]


#: The loader's session fields beside ``show --json``'s names for them.
_SESSION_FIELDS = (
    ("id", "session_id"),
    ("version", "format_version"),
    ("model", "model"),
    ("provider", "provider"),
    ("cwd", "cwd"),
    ("createdAt", "created_at"),
    ("updatedAt", "updated_at"),
)


def _compare_session(result: dict[str, Any], out: dict[str, Any]) -> Disagreement | None:
    diff = [
        name for name, ours in _SESSION_FIELDS if not _same_value(out.get(ours), result.get(name))
    ]
    if "id" in diff and not isinstance(result.get("id"), str) and out.get("path"):
        # sidtui names a session the loader gives no id, or one that is no string (a
        # number), by its file (a representation: docs/DECISIONS.md)
        if out.get("session_id") == Path(out["path"]).name.split(".")[0]:
            diff.remove("id")
    keys = result.get("metadataKeys") or []
    if result.get("metadata") is not None and set((out.get("metadata") or {}).keys()) != set(keys):
        diff.append("metadata keys")
    if not diff:
        return None
    o_vals = {n: result.get(n) for n, _ in _SESSION_FIELDS if n in diff}
    s_vals = {n: out.get(ours) for n, ours in _SESSION_FIELDS if n in diff}
    return Disagreement(
        "session",
        "+".join(diff),
        f"oracle {o_vals} keys={keys} / sidtui {s_vals} "
        f"keys={list((out.get('metadata') or {}).keys())}",
    )


def _same_value(a: Any, b: Any) -> bool:
    """JSON values equal as JavaScript compares them (``True`` is not ``1``)."""
    return (
        type(a) is type(b)
        and a == b
        or (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a == b
        )
    )


def _compare_interruption(state: dict[str, Any], s: dict[str, Any] | None) -> Disagreement | None:
    s = s or {}
    kind = state.get("kind")
    if s.get("kind") != kind:
        return Disagreement(
            "interruption", f"kind oracle={kind} sidtui={s.get('kind')}", f"oracle {state}"
        )
    names = [_text(n) for n in state.get("lastToolNames", [])]  # sidtui: names as text
    if kind == "interrupted_turn" and s.get("tool_names") != names:
        return Disagreement(
            "interruption",
            "tool names",
            f"oracle {state.get('lastToolNames')} / sidtui {s.get('tool_names')}",
        )
    if kind == "interrupted_prompt":
        om = state.get("message") or {}
        sm = s.get("message") or {}
        if "srcIndex" in om and om.get("srcIndex") is None and om.get("uuid") is None:
            # a prompt a layer rewrote (layer 2 stripped its permissionMode) that the
            # runner lost track of: only its text can be compared (see _wildcards)
            if om.get("text") != sm.get("text"):
                return Disagreement(
                    "interruption", "re-queued prompt", f"oracle {om} / sidtui {sm}"
                )
            return None
        if (om.get("srcIndex"), om.get("uuid")) != (sm.get("src_index"), sm.get("uuid")):
            return Disagreement("interruption", "re-queued prompt", f"oracle {om} / sidtui {sm}")
    return None


def _ids(items: list[Any]) -> list[Any]:
    return [x.get("toolUseId") if isinstance(x, dict) else x for x in items]


def _compare_integrity(integ: dict[str, Any], s: dict[str, Any]) -> Disagreement | None:
    loaded = integ.get("loaded") or {}
    diff = []
    o_orph, o_dang = _ids(loaded.get("orphans") or []), _ids(loaded.get("dangling") or [])
    s_orph, s_dang = s.get("orphans", []), s.get("dangling", [])
    if o_orph != s_orph:
        diff.append("orphans")
    if o_dang != s_dang:
        diff.append("dangling")
    if not diff:
        return None
    more_o = [x for x in s_orph if x not in o_orph]
    more_d = [x for x in s_dang if x not in o_dang]
    if (
        set(o_orph) <= set(s_orph)
        and set(o_dang) <= set(s_dang)
        and more_o
        and sorted(map(str, more_o)) == sorted(map(str, more_d))
    ):
        # a result before its use: sidtui pairs in order, the agent by id (DECISIONS)
        return Disagreement("integrity", KNOWN_ORDER, f"sidtui {s_orph} {s_dang}")
    return Disagreement(
        "integrity",
        "+".join(diff),
        f"oracle {_ids(loaded.get('orphans') or [])} {_ids(loaded.get('dangling') or [])} / "
        f"sidtui {s.get('orphans')} {s.get('dangling')}",
    )


def _compare_sidechain(sc: dict[str, Any], s: dict[str, Any]) -> Disagreement | None:
    diff = []
    if bool(s.get("unfinished")) != bool(sc.get("unfinished")):
        diff.append("unfinished")
    if s.get("agent_id") != sc.get("agentIdFromRecord"):
        diff.append("agent id")
    if s.get("parent_session_id") != sc.get("parentSessionId"):
        diff.append("parent id")
    o_msgs = [
        (m.get("role"), m.get("blocks"))
        for m in (sc.get("reconstructed") or {}).get("messages") or []
    ]
    s_msgs = [(m.get("role"), m.get("blocks")) for m in s.get("resumed") or []]
    if o_msgs != s_msgs:
        diff.append("messages")
    if not diff:
        return None
    return Disagreement(
        "sidechain",
        "+".join(diff),
        f"oracle unfinished={sc.get('unfinished')} agent={sc.get('agentIdFromRecord')!r} "
        f"parent={sc.get('parentSessionId')!r} msgs={_short(o_msgs, 200)} / sidtui "
        f"unfinished={s.get('unfinished')} agent={s.get('agent_id')!r} "
        f"parent={s.get('parent_session_id')!r} msgs={_short(s_msgs, 200)}",
    )
