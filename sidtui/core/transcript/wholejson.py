"""What sid-code's loader returns for a v1 whole-file JSON session (FORMAT.md §5.8).

One JSON object (``SessionData``) with a ``messages`` list: its session fields as written,
each message as the agent keeps it — one that is not an object, or whose content is not
a list, is kept with its :attr:`~sidtui.core.transcript.messages.Message.shape`, on which
the agent's resume pipeline throws (:func:`sidtui.core.resume.recovery.resume_failure`).
"""

from __future__ import annotations

import orjson

from sidtui.core.base.jsonparse import JSONParseError, js_falsy, parse_line_slow
from sidtui.core.transcript.loader import LoadedSession, nonempty_str
from sidtui.core.transcript.messages import (
    NOT_AN_OBJECT,
    Message,
    blocks_from_content,
    content_shape,
    json_kind,
)

__all__ = ["load_v1_json"]


def load_v1_json(data: bytes) -> LoadedSession:
    """Load a v1 whole-file JSON session (``SessionData``), as the agent does.

    Returns:
        A :class:`LoadedSession` with ``record``/``uuid``/``line`` None on every message.
        A file JSON.parse rejects, or one that is not an object with a ``messages`` list,
        is not loadable (``load_failure`` says why).
    """
    ls = LoadedSession()
    if data[:3] == b"\xef\xbb\xbf":  # its text decoder drops one BOM (no other trim)
        data = data[3:]
    try:
        try:
            d = orjson.loads(data)
        except orjson.JSONDecodeError:
            d = parse_line_slow(data)
    except JSONParseError as exc:
        ls.load_failure = f"the v1 JSON file is not valid JSON: {exc.reason}"
        return ls
    if not isinstance(d, dict):
        ls.load_failure = "the v1 JSON file is not an object"
        return ls
    msgs = d.get("messages")
    if msgs is None:  # missing or null: the agent's loader returns nothing
        ls.load_failure = "the v1 JSON file has no messages list"
        return ls
    if not isinstance(msgs, list):  # anything else opens as an empty session
        ls.warnings.append(
            f"its messages field is {json_kind(msgs)}, not a list: the agent opens the "
            "session with no messages"
        )
        msgs = []
    v = d.get("version")
    ls.version = v if isinstance(v, str) and v else "0.0"
    # the session fields as the agent returns them (any JSON type; a falsy version is 0.0)
    ls.agent_fields = {
        "id": d.get("id"),
        "model": d.get("model"),
        "provider": d.get("provider"),
        "cwd": d.get("cwd"),
        "createdAt": d.get("createdAt"),
        "updatedAt": d.get("updatedAt"),
        "version": "0.0" if js_falsy(v) else v,
    }
    ls.session_id = nonempty_str(d.get("id"))
    ls.model = nonempty_str(d.get("model"))
    ls.provider = nonempty_str(d.get("provider"))
    ls.cwd = nonempty_str(d.get("cwd"))
    ls.created_at = nonempty_str(d.get("createdAt"))
    ls.updated_at = nonempty_str(d.get("updatedAt"))
    ls.summary = nonempty_str(d.get("summary"))
    ls.kind = nonempty_str(d.get("kind"))
    dirs = d.get("directories")
    ls.directories = dirs if isinstance(dirs, list) else None
    md = d.get("metadata")
    if isinstance(md, dict):
        ls.metadata = dict(md)
        ls.metadata_keys = list(md)
    for m in msgs:
        if not isinstance(m, dict):  # kept, as the agent's loader keeps it: its resume throws
            shape = f"{NOT_AN_OBJECT} ({json_kind(m)})"
            ls.messages.append(
                Message(len(ls.messages), None, None, None, None, None, [], {}, shape=shape)
            )
            continue
        content = m.get("content")
        blocks, is_str = blocks_from_content(content)
        meta = dict(m["_meta"]) if isinstance(m.get("_meta"), dict) else {}
        role = m.get("role")
        ls.messages.append(
            Message(
                len(ls.messages),
                None,
                None,
                None,
                None,
                role if isinstance(role, str) else None,
                blocks,
                meta,
                None,
                is_str,
                raw=m,
                shape=content_shape(content, role),
            )
        )
    ls.loadable = True
    return ls
