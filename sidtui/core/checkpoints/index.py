"""The checkpoint index model: ``checkpoints/<sessionId>/index.json`` (FORMAT.md §10.1–10.3, §10.8).

:class:`CheckpointIndex` keeps the parsed JSON (unknown fields survive a rewrite), migrates
the legacy shape through the one :func:`migrate`, writes ``JSON.stringify(index, null, 2)``
byte-exact and atomically; :func:`encode_full` / :func:`decode_entry` handle gzip+base64 and
binary contents.

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/index.py”.
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.errors import SidtuiError, UnreadableInput
from sidtui.core.base.jsonout import raw_fragment, stringify_pretty
from sidtui.core.base.jsonparse import JSONParseError, parse_line
from sidtui.core.base.regular import ceiling, read_regular
from sidtui.core.base.safefs import write_atomic
from sidtui.core.checkpoints.diff import invalid_ops

COMPRESS_THRESHOLD = 1024  # UTF-16 code units (JS string .length), FORMAT.md §10.3
_ID_RE = re.compile(r"^s(\d+)$")
# Number tokens orjson may print differently from JS in indented output: integral floats
# ("1.0", "-0.0") and exponents ("1e+21"). A match inside a string only costs speed.
_RISKY_NUMBER = re.compile(rb"[:,\[]\s*-?\d+(?:\.0\s*[,}\]]|(?:\.\d+)?[eE])")


class CorruptIndex(SidtuiError):
    """``index.json`` cannot be read as a checkpoint index (exit 1)."""


class CorruptEntry(SidtuiError):
    """A stored entry's content cannot be decoded (bad base64/gzip)."""


#: the UTF-8 continuation bytes, and the lead bytes of 4-byte sequences, deleted by
#: ``translate`` to count the others
_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b <= 0xBF)
_NOT_LEAD4 = bytes(b for b in range(256) if not 0xF0 <= b <= 0xF7)
_WINDOW = 4 << 20


def utf16_len_of_utf8(data: bytes) -> int:
    """:func:`utf16_len` of ``data.decode("utf-8", "surrogatepass")``, counted on the bytes
    a window at a time (no str of a 450 MB index, nor its UTF-16 copy): one unit per
    character, two for one past U+FFFF (a 4-byte sequence)."""
    if data.isascii():
        return len(data)
    n = 0
    for i in range(0, len(data), _WINDOW):
        w = data[i : i + _WINDOW]
        n += len(w) - len(w.translate(None, _NOT_CONTINUATION))
        n += len(w.translate(None, _NOT_LEAD4))
    return n


def utf16_len(text: str) -> int:
    """JavaScript ``text.length``: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _gzip(data: bytes) -> bytes:
    # zlib's gzip wrapper at level 6 writes the same header Bun does (mtime 0, OS 3).
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def encode_full(content: str | bytes) -> dict[str, Any]:
    """``{"content", "compressed"[, "binary"]}`` for a full entry.

    Args:
        content: text (str) or raw bytes that are not UTF-8 (stored ``binary``).
    """
    if isinstance(content, bytes):
        return {
            "content": base64.b64encode(_gzip(content)).decode("ascii"),
            "compressed": True,
            "binary": True,
        }
    if utf16_len(content) > COMPRESS_THRESHOLD:
        data = content.encode("utf-8", "surrogatepass")
        return {"content": base64.b64encode(_gzip(data)).decode("ascii"), "compressed": True}
    return {"content": content, "compressed": False}


def decode_entry(entry: dict[str, Any]) -> str | bytes:
    """The content of a ``full`` entry: str, or bytes when ``binary`` is set.

    Raises:
        CorruptEntry: bad base64 or gzip data.
    """
    content = entry.get("content")
    if not isinstance(content, str):
        content = ""
    if not entry.get("compressed") and not entry.get("binary"):
        return content
    try:
        raw = base64.b64decode(content)
        data = inflate(raw, entry.get("filePath")) if entry.get("compressed") else raw
    except (binascii.Error, ValueError, zlib.error) as exc:
        raise CorruptEntry(
            f"stored content of {entry.get('filePath')!r} is corrupt: {exc}"
        ) from None
    if entry.get("binary"):
        return bytes(data)
    # Bun's Buffer.toString("utf-8") replaces bad bytes; so do we.
    return data.decode("utf-8", errors="replace")


#: Environment variable and default of the hard ceiling on one entry's unpacked size.
INFLATE_ENV, INFLATE_CEILING = "SIDTUI_MAX_INFLATE_BYTES", 1 << 30
#: An entry may unpack to this many times its compressed size (real text: 3-20×)...
INFLATE_RATIO = 64
#: ...but always to this much (a repetitive log packs far beyond 64×).
INFLATE_FLOOR = 64 << 20


def inflate_limit(compressed: int) -> int:
    """Bytes a ``compressed``-byte gzip stream may unpack to (docs/DECISIONS.md)."""
    return min(
        ceiling(INFLATE_ENV, INFLATE_CEILING), max(INFLATE_RATIO * compressed, INFLATE_FLOOR)
    )


def inflate(raw: bytes, file_path: Any = None) -> bytearray:
    """``gunzip(raw)`` in steps, never past :func:`inflate_limit` (a gzip bomb stops there).

    Raises:
        CorruptEntry: the stream unpacks to more than the limit.
        zlib.error: it is not a gzip/zlib stream.
    """
    limit = inflate_limit(len(raw))
    # a gzip stream ends with its size mod 2**32 (ISIZE): the true size is at least that,
    # so an honest bomb is refused before a byte is unpacked (a lying one at the limit)
    if len(raw) >= 18 and raw[:2] == b"\x1f\x8b" and int.from_bytes(raw[-4:], "little") > limit:
        raise _too_big_entry(file_path, limit, len(raw))
    out = bytearray()
    buf = raw
    while True:  # gzip members back to back unpack to their concatenation, as Node's gunzip
        d = zlib.decompressobj(47)
        while not d.eof:
            chunk = d.decompress(buf, 1 << 20)
            if not chunk and not d.unconsumed_tail:
                chunk = d.flush()  # what zlib still holds (at most its 32 KiB window)
                if not chunk:
                    break
            out += chunk
            if len(out) > limit:  # one cap over all members together
                raise _too_big_entry(file_path, limit, len(raw))
            buf = d.unconsumed_tail
        if not d.eof:
            raise zlib.error("Error -5 while decompressing data: incomplete or truncated stream")
        buf = d.unused_data
        # Node goes on while the next byte starts a gzip header; anything else is ignored
        if raw[:2] != b"\x1f\x8b" or buf[:1] != b"\x1f":
            return out


def _too_big_entry(file_path: Any, limit: int, packed: int) -> CorruptEntry:
    return CorruptEntry(
        f"stored content of {file_path!r} unpacks to more than {limit:,} bytes, "
        f"the limit for {packed:,} compressed bytes ({INFLATE_RATIO}× that, at "
        f"least {INFLATE_FLOOR >> 20} MiB, at most {INFLATE_ENV} = "
        f"{ceiling(INFLATE_ENV, INFLATE_CEILING):,}): a gzip bomb or a file too big "
        "to unpack; not unpacked"
    )


#: Environment variable and default of the largest ``index.json`` sidtui reads: 2.5× the
#: agent's own 200 MB quota (it may exceed it: eviction never goes below 11 snapshots).
INDEX_ENV, INDEX_CEILING = "SIDTUI_MAX_INDEX_BYTES", 512 << 20


def snapshot_number(snapshot_id: Any) -> int | None:
    """``N`` of ``"s<N>"``, else None."""
    if isinstance(snapshot_id, str):
        m = _ID_RE.match(snapshot_id)
        if m:
            return int(m.group(1))
    return None


def migrate(raw: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Bring a parsed index to the current shape (the one migration function).

    Args:
        raw: parsed ``index.json`` (current or legacy shape). Not modified.

    Returns:
        ``(index, migrated)``: ``migrated`` is True when ``raw`` was legacy. Unknown
        top-level keys are kept (the legacy ``files`` map is replaced by ``snapshots``).

    Raises:
        CorruptIndex: neither shape.
    """
    if not isinstance(raw, dict):
        raise CorruptIndex("index.json is not a JSON object")
    if isinstance(raw.get("snapshots"), list):
        for s in raw["snapshots"]:
            if not isinstance(s, dict) or not isinstance(s.get("files", []), list):
                raise CorruptIndex("a snapshot is not an object with a files list")
            s.setdefault("files", [])
        return raw, False
    files = raw.get("files")
    if not isinstance(files, dict):
        raise CorruptIndex("index.json has neither snapshots[] nor the legacy files{} map")
    snapshots: list[dict[str, Any]] = []
    latest_full: dict[str, str] = {}
    n = 0
    for path, info in files.items():
        entries = info.get("entries") if isinstance(info, dict) else None
        if not isinstance(entries, list):
            continue
        for e in entries:
            if not isinstance(e, dict):
                continue
            n += 1
            sid = f"s{n}"
            fp = e["filePath"] if isinstance(e.get("filePath"), str) else path
            entry: dict[str, Any] = {"filePath": fp}
            kind = e.get("type")
            content = e.get("content")
            # A legacy full with empty content is how a file that did not exist was kept.
            entry["existedBefore"] = not (kind == "full" and not content)
            entry["type"] = kind
            for key, value in e.items():
                if key not in ("filePath", "timestamp", "type"):
                    entry[key] = value
            if kind == "full":
                latest_full[fp] = sid
            snapshots.append(
                {
                    "id": sid,
                    "timestamp": e.get("timestamp", 0),
                    "toolName": "write",
                    "toolSummary": fp,
                    "files": [entry],
                }
            )
    snapshots.sort(key=lambda s: s["timestamp"] if isinstance(s["timestamp"], (int, float)) else 0)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "files":
            out["nextId"] = n + 1
            out["snapshots"] = snapshots
            out["latestFullMap"] = latest_full
        else:
            out[key] = value
    return out, True


@dataclass
class CheckpointIndex:
    """A session's checkpoint index (current shape), backed by the parsed JSON dict.

    Attributes:
        data: the JSON object (key order and unknown fields preserved).
        migrated: True when it was read in the legacy shape.
        path: where it was read from (None for a new one).
    """

    data: dict[str, Any]
    migrated: bool = False
    path: Path | None = None
    _by_path: dict[str, list[tuple[int, dict[str, Any]]]] | None = field(
        default=None, repr=False, compare=False
    )
    # id(ops) -> (that ops list, held so its id stays its own; invalid_ops' verdict)
    _ops_verdicts: dict[int, tuple[list[Any], str | None]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def parse(cls, raw: bytes, path: Path | None = None) -> CheckpointIndex:
        """Parse ``index.json`` bytes (JSON.parse rules) and migrate a legacy shape.

        Raises:
            CorruptIndex: not JSON (e.g. a torn write by the agent) or not an index.
        """
        try:
            # orjson first, JSON.parse's rules for what it refuses; at most
            # SIDTUI_MAX_LINE_VALUES values built (a 40 MB index of [] is 13 M lists)
            value = parse_line(raw)
        except JSONParseError as exc:
            where = f"{path}: " if path else ""
            raise CorruptIndex(f"{where}index.json is not valid JSON ({exc.reason})") from None
        data, migrated = migrate(value)
        return cls(data, migrated, path)

    @classmethod
    def load(cls, path: Path) -> CheckpointIndex:
        """Read and parse ``path``.

        Raises:
            CorruptIndex: unreadable or not an index.
        """
        try:
            raw = read_regular(
                path,
                ceiling(INDEX_ENV, INDEX_CEILING),
                too_big="{path} is {size} bytes, more than the {limit} sidtui reads of a "
                f"checkpoint index (set {INDEX_ENV} to read it anyway); not read",
            )
        except OSError as exc:
            raise CorruptIndex(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnreadableInput as exc:  # not a regular file, or above the ceiling
            raise CorruptIndex(str(exc)) from None
        return cls.parse(raw, Path(path))

    @classmethod
    def empty(cls, session_id: str, now_ms: int, path: Path | None = None) -> CheckpointIndex:
        """A new index as the agent creates it."""
        return cls(
            {
                "sessionId": session_id,
                "createdAt": now_ms,
                "nextId": 1,
                "snapshots": [],
                "latestFullMap": {},
            },
            False,
            path,
        )

    def copy(self) -> CheckpointIndex:
        """A deep copy (structuredClone): changing it never changes this one (FORMAT.md §10.11)."""
        return CheckpointIndex(copy.deepcopy(self.data), self.migrated, self.path)

    # --- reading -------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        sid = self.data.get("sessionId")
        return sid if isinstance(sid, str) else ""

    @property
    def snapshots(self) -> list[dict[str, Any]]:
        """The snapshot objects in index order (the live list: edits change the index)."""
        snaps = self.data.get("snapshots")
        if not isinstance(snaps, list):
            snaps = self.data["snapshots"] = []
        return snaps

    def invalidate(self) -> None:
        """Drop cached lookups after changing ``snapshots`` or their entries (an entry's
        ops changed in place included)."""
        self._by_path = None
        self._ops_verdicts.clear()

    def ops_problem(self, ops: list[Any]) -> str | None:
        """:func:`~sidtui.core.checkpoints.diff.invalid_ops` of a stored diff's ``ops``,
        judged once per ops list of this index: every later rebuild reuses the verdict
        (checking every line of a 50-diff chain was ~60% of a rebuild).

        Returns:
            Why the ops are invalid, or None when they are valid.
        """
        hit = self._ops_verdicts.get(id(ops))
        if hit is not None and hit[0] is ops:
            return hit[1]
        verdict = invalid_ops(ops)
        self._ops_verdicts[id(ops)] = (ops, verdict)
        return verdict

    def index_of(self, snapshot_id: str) -> int:
        """Position of ``snapshot_id`` in :attr:`snapshots`, or -1."""
        for i, s in enumerate(self.snapshots):
            if s.get("id") == snapshot_id:
                return i
        return -1

    def _entries(self) -> dict[str, list[tuple[int, dict[str, Any]]]]:
        if self._by_path is None:
            by: dict[str, list[tuple[int, dict[str, Any]]]] = {}
            for i, s in enumerate(self.snapshots):
                for e in s.get("files") or []:
                    if isinstance(e, dict) and isinstance(e.get("filePath"), str):
                        by.setdefault(e["filePath"], []).append((i, e))
            self._by_path = by
        return self._by_path

    def malformed_entries(self) -> list[str]:
        """One line per file entry that names no file (no string ``filePath``): such an entry
        can be neither rebuilt nor restored, and every reader skips it."""
        out = []
        for s in self.snapshots:
            for n, e in enumerate(s.get("files") or [], 1):
                if not (isinstance(e, dict) and isinstance(e.get("filePath"), str)):
                    out.append(
                        f"{self.path or 'index.json'}: entry {n} of snapshot {s.get('id')} has "
                        "no filePath; it is skipped (its file cannot be rebuilt or restored)"
                    )
        return out

    def entries_for(self, file_path: str) -> list[tuple[int, dict[str, Any]]]:
        """``[(snapshot position, entry)]`` for ``file_path``, oldest first."""
        return self._entries().get(file_path, [])

    def tracked_files(self) -> list[str]:
        """Every file with at least one entry, in first-seen order."""
        return list(self._entries())

    def entry_at(self, file_path: str, position: int) -> dict[str, Any] | None:
        """The entry of ``file_path`` in snapshot ``position``, or None."""
        for i, e in self.entries_for(file_path):
            if i == position:
                return e
        return None

    # --- writing -------------------------------------------------------------------

    def allocate_id(self) -> str:
        """Take ``s<nextId>`` and advance ``nextId`` (ids may skip: unsaved snapshots)."""
        n = self.data.get("nextId")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            n = len(self.snapshots) + 1
        # Never reuse an id still present (a hand-edited nextId).
        used = {snapshot_number(s.get("id")) for s in self.snapshots}
        while n in used:
            n += 1
        self.data["nextId"] = n + 1
        return f"s{n}"

    def to_bytes(self) -> bytes:
        """``JSON.stringify(index, null, 2)`` as UTF-8 (no trailing newline, as the agent).

        orjson's 2-space indent is the same text whenever no number could print
        differently from JS (the check :func:`sidtui.core.base.jsonout.stringify` uses) and no
        string holds a lone surrogate; otherwise the exact encoder runs (≈ 8× slower).
        """
        try:
            # a RawValue (a field too big to decode) is written verbatim either way: by
            # orjson as a fragment, never as a str of it in the exact encoder (3 copies)
            out = orjson.dumps(self.data, option=orjson.OPT_INDENT_2, default=raw_fragment)
        except TypeError:  # lone surrogates, ints beyond 64 bits
            pass
        else:
            if _RISKY_NUMBER.search(out) is None:
                return out
        return stringify_pretty(self.data, 2).encode("utf-8", "surrogatepass")

    def to_text(self) -> str:
        """``JSON.stringify(index, null, 2)``."""
        return self.to_bytes().decode("utf-8", "surrogatepass")

    def serialized_size(self) -> int:
        """``JSON.stringify(index, null, 2).length`` (UTF-16 units, as the agent measures)."""
        return utf16_len_of_utf8(self.to_bytes())

    def write(self, path: Path | None = None) -> Path:
        """Write atomically: temp in the same folder, fsync, ``os.replace``, fsync folder.

        Returns:
            The path written. Raises ``OSError`` on I/O failure (the old file is intact).
        """
        target = Path(path or self.path or "")
        if not str(target):
            raise ValueError("no path to write the checkpoint index to")
        atomic_write_bytes(target, self.to_bytes())
        self.path = target
        return target


def atomic_write_bytes(target: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``target`` atomically (:func:`sidtui.core.base.safefs.write_atomic`:
    an ``O_EXCL | O_NOFOLLOW`` temp file under an unpredictable name, fsync, rename, fsync
    of the folder; the folder is created when missing).

    Args:
        target: final path.
        data: bytes to write.
        mode: permission bits for the file (default: those of the file replaced, else 0o644
            less the umask).

    Raises:
        OSError / sidtui.core.base.safefs.UnsafePath: the old file is intact.
    """
    write_atomic(target, data, mode)
