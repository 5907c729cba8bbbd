"""The report of ``sidtui check``: :class:`CheckReport` and its parts, with the JSON shape.

What the format defines (record types, metadata keys) and the three readings of a field that
never landed are here too; :mod:`sidtui.core.views.check` fills a report from disk.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: Metadata keys FORMAT.md §3.7 defines.
DEFINED_METADATA_KEYS = (
    "kind",
    "summary",
    "session_name",
    "usage_stats",
    "side_call_stats",
    "todo_state",
    "goal_state",
    "hypothesis_ledger",
    "agent_setting",
    "trace_session_id",
    "forked_from",
    "file_changes",
)


#: The three readings of a field that landed zero times (FORMAT.md §13.3).
READINGS = (
    {
        "reading": "dead code",
        "means": "no production call site can write it (e.g. a type makes the branch "
        "unreachable): delete it or document that it is unreachable",
    },
    {
        "reading": "not triggered",
        "means": "a call site exists and every hop passes the value; these sessions never "
        "reached it: build a scenario that does to confirm",
    },
    {
        "reading": "broken wiring",
        "means": "the producer passes the value but a hop in between drops it: check each "
        "hop (producer → adapter → writer)",
    },
)


#: What is known of sid-code's own code for these fields (FORMAT.md §13.3; a hint, not a
#: verdict on this home).
KNOWN_CAUSES = {
    "record.tool_result": "FORMAT.md §3.5: sid-code's tool_result branch is unreachable (roles "
    "are only user|assistant; tool results travel as user_message blocks) — dead code",
    "record.context_compact": "FORMAT.md §3.6: wired, written only once a session is long "
    "enough to compact — not triggered",
    "file_changes.lastSnapshotId": "FORMAT.md §3.7, §13.3: the tool executor passes the "
    "snapshot id, the app's 2-argument adapter drops it — broken wiring",
    "file_changes.snapshotIds": "FORMAT.md §3.7, §13.3: fed by the same dropped argument as "
    "lastSnapshotId — broken wiring",
}


STRUCTURAL_FAULTS = frozenset(
    {
        "session_start_missing",
        "session_start_multiple",
        "head_missing",
        "head_multiple",
        "unreadable_file",
        "unreadable_folder",
        "checkpoint_unrecoverable",
        "checkpoint_index_unreadable",
    }
)


@dataclass(frozen=True)
class Finding:
    """A fault (structural: exit 1) or a warning (reported, not a fault).

    Attributes:
        kind: e.g. ``session_start_multiple``, ``head_missing``, ``dangling_parent``.
        file: the file it is about (absolute path as a string).
        detail: one sentence for users (line numbers, counts).
    """

    kind: str
    file: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "file": self.file, "detail": self.detail}


@dataclass(frozen=True)
class BadLineReport:
    """A line JSON.parse rejects (``strict_only`` False) or only a strict parser rejects.

    Attributes:
        file: path; line: 1-based physical line; offset: byte offset of its first byte;
        reason: why it is refused; terminated: False for a final line without ``\\n``.
    """

    file: str
    line: int
    offset: int
    reason: str
    terminated: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "offset": self.offset,
            "reason": self.reason,
            "terminated": self.terminated,
        }


@dataclass
class FileCounts:
    """What one transcript file holds (main or sidechain).

    Attributes:
        path, project, session_id, kind (``main``/``sidechain``), size (bytes).
        chained: some record has a string uuid (v3); else a linear legacy (v2) file.
        lines / blank / bad: non-blank physical lines, blank lines, lines JSON.parse rejects.
        session_starts, heads (null parent), fork_heads, records_without_uuid,
        dangling_parents: structure counts (chained files; see :func:`run_check`).
        session_ends: ``session_end`` records; ends_with_session_end: it is the last record.
        metadata_files_changes: ``file_changes`` records (for the coverage reasons).
        trace_ids: ``trace_session_id`` values recorded in the file.
    """

    path: str
    project: str
    session_id: str
    kind: str
    size: int
    chained: bool = False
    lines: int = 0
    blank: int = 0
    bad: int = 0
    session_starts: int = 0
    heads: int = 0
    fork_heads: int = 0
    records_without_uuid: int = 0
    dangling_parents: int = 0
    session_ends: int = 0
    ends_with_session_end: bool = False
    file_changes: int = 0
    trace_ids: list[str] = field(default_factory=list)


@dataclass
class CheckpointTotals:
    """Checkpoint layer totals (FORMAT.md §13.4).

    Attributes:
        indexes: readable ``index.json`` files; unreadable: those that are not.
        snapshots: snapshots in all indexes; largest / largest_session: the most in one.
        full / compressed / diff / other: file entries by type (compressed ⊂ full).
        bytes: total size of the ``index.json`` files.
        restore_snapshots: snapshots sidtui appended before restoring (``sidtui-restore``).
        unrecoverable: entries whose content cannot be rebuilt, each
            ``{session, snapshot, file, reason}``.
        ids: session ids of the indexes counted.
    """

    indexes: int = 0
    unreadable: int = 0
    snapshots: int = 0
    largest: int = 0
    largest_session: str | None = None
    full: int = 0
    compressed: int = 0
    diff: int = 0
    other: int = 0
    bytes: int = 0
    restore_snapshots: int = 0
    unrecoverable: list[dict[str, str]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    @property
    def diff_share(self) -> float | None:
        n = self.full + self.diff
        return self.diff / n if n else None

    def to_json(self) -> dict[str, Any]:
        return {
            "indexes": self.indexes,
            "unreadable_indexes": self.unreadable,
            "snapshots": self.snapshots,
            "largest": {"session": self.largest_session, "snapshots": self.largest},
            "full": self.full,
            "compressed": self.compressed,
            "diff": self.diff,
            "other": self.other,
            "diff_share": self.diff_share,
            "bytes": self.bytes,
            "sidtui_restore_snapshots": self.restore_snapshots,
            "unrecoverable": len(self.unrecoverable),
            "unrecoverable_entries": self.unrecoverable,
        }


@dataclass
class CheckReport:
    """Everything ``sidtui check`` reports. Build with :func:`run_check`.

    Attributes:
        home: the home root; scope: ``{"project": .., "session": ..}`` filters used.
        files: per-file counts (main JSONL files and sidechains).
        v1_files: paths of v1 whole-file JSON sessions.
        record_types / sidechain_record_types: ``{type: count}`` over main / sidechain
            files (``(no type)`` for objects without a string type, ``(not an object)``
            for valid JSON that is not an object).
        metadata_keys: ``{key: count}`` over metadata records of main files.
        human_prompts / tool_result_records / tool_result_blocks / max_tool_results:
            user_message records split as the loader splits them
            (:attr:`sidtui.core.transcript.messages.Message.is_human_prompt`).
        bad_lines / strict_only: lines JSON.parse rejects / lines only a strict parser
            rejects.
        landings: ``{field: (count, out_of, denominator label)}`` for every scanned field.
        checkpoints: :class:`CheckpointTotals`.
        coverage: sessions vs indexes, each with its own denominator and reasons.
        faults / warnings: :class:`Finding` lists.
    """

    home: str
    scope: dict[str, str | None]
    files: list[FileCounts] = field(default_factory=list)
    v1_files: list[str] = field(default_factory=list)
    record_types: Counter = field(default_factory=Counter)
    sidechain_record_types: Counter = field(default_factory=Counter)
    metadata_keys: Counter = field(default_factory=Counter)
    human_prompts: int = 0
    tool_result_records: int = 0
    other_user_records: int = 0
    tool_result_blocks: int = 0
    max_tool_results: int = 0
    bad_lines: list[BadLineReport] = field(default_factory=list)
    strict_only: list[BadLineReport] = field(default_factory=list)
    landings: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    checkpoints: CheckpointTotals = field(default_factory=CheckpointTotals)
    coverage: dict[str, Any] = field(default_factory=dict)
    faults: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    # --- derived ------------------------------------------------------------------------

    @property
    def main_files(self) -> list[FileCounts]:
        return [f for f in self.files if f.kind == "main"]

    @property
    def sidechain_files(self) -> list[FileCounts]:
        return [f for f in self.files if f.kind == "sidechain"]

    @property
    def session_start_records(self) -> int:
        return sum(f.session_starts for f in self.main_files)

    @property
    def zero_landing(self) -> list[dict[str, Any]]:
        """Fields that landed zero times where they could have (a non-empty denominator)."""
        out = []
        for name, (count, out_of, of) in self.landings.items():
            if count == 0 and out_of > 0:
                out.append(
                    {
                        "field": name,
                        "count": 0,
                        "out_of": out_of,
                        "of": of,
                        "readings": [r["reading"] for r in READINGS],
                        "known_cause": KNOWN_CAUSES.get(name),
                    }
                )
        return out

    @property
    def sizes(self) -> dict[str, int | None]:
        """Main JSONL file sizes: n, min, p50, p95, max (nearest-rank percentiles), total."""
        sizes = sorted(f.size for f in self.main_files)
        return size_distribution(sizes)

    @property
    def session_end(self) -> dict[str, Any]:
        mains = self.main_files
        with_end = sum(1 for f in mains if f.session_ends)
        last = sum(1 for f in mains if f.ends_with_session_end)
        return {
            "files_with": with_end,
            "files": len(mains),
            "share": with_end / len(mains) if mains else None,
            "records": sum(f.session_ends for f in mains),
            "last_record": last,
        }

    @property
    def exit_code(self) -> int:
        """0 when nothing is wrong, 1 when a structural fault was found."""
        return 1 if self.faults else 0

    def to_json(self) -> dict[str, Any]:
        """The ``sidtui check --json`` object."""
        mains = self.main_files
        return {
            "home": self.home,
            "scope": self.scope,
            "files": {
                "main": len(mains),
                "sidechain": len(self.sidechain_files),
                "v1_json": len(self.v1_files),
                "main_linear": sum(1 for f in mains if not f.chained),
            },
            "lines": {
                "non_blank": sum(f.lines for f in self.files),
                "blank": sum(f.blank for f in self.files),
                "bad": len(self.bad_lines),
                "strict_only": len(self.strict_only),
            },
            "session_start": self.session_start_records,
            "heads": {
                "null_parent": sum(f.heads for f in mains),
                "forked": sum(f.fork_heads for f in mains),
            },
            "records_without_uuid": sum(f.records_without_uuid for f in mains if f.chained),
            "record_types": dict(self.record_types.most_common()),
            "sidechain_record_types": dict(self.sidechain_record_types.most_common()),
            "metadata_keys": dict(self.metadata_keys.most_common()),
            "prompts": {
                "human": self.human_prompts,
                "tool_result_records": self.tool_result_records,
                "other_user_records": self.other_user_records,
                "tool_result_blocks": self.tool_result_blocks,
                "max_tool_results_per_record": self.max_tool_results,
            },
            "bad_lines": [b.to_json() for b in self.bad_lines],
            "strict_parser_only": [b.to_json() for b in self.strict_only],
            "zero_landing": self.zero_landing,
            "landings": [
                {"field": k, "count": c, "out_of": n, "of": of}
                for k, (c, n, of) in self.landings.items()
            ],
            "session_end": self.session_end,
            "sizes": self.sizes,
            "checkpoints": self.checkpoints.to_json(),
            "coverage": self.coverage,
            "faults": [f.to_json() for f in self.faults],
            "warnings": [w.to_json() for w in self.warnings],
        }


def size_distribution(sizes: list[int]) -> dict[str, int | None]:
    """n, min, p50, p95, max (nearest-rank: the ⌈p·n⌉-th smallest) and total of ``sizes``.

    Args:
        sizes: byte sizes, sorted ascending.
    """
    n = len(sizes)
    if not n:
        return {"n": 0, "min": None, "p50": None, "p95": None, "max": None, "total": 0}

    def rank(p: float) -> int:
        return sizes[max(math.ceil(p * n), 1) - 1]

    return {
        "n": n,
        "min": sizes[0],
        "p50": rank(0.50),
        "p95": rank(0.95),
        "max": sizes[-1],
        "total": sum(sizes),
    }
