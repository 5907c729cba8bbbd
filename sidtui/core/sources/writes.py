"""What every source's writing verbs answer in, whichever agent's files they write
(docs/ARCHITECTURE.md "The write path").

A source (:class:`~sidtui.core.sources.base.Source`) writes through these shapes:

* a **rewind point** (:class:`RewindPointLike`): just before one typed prompt, with the
  checkpoint a code rewind restores from;
* a **code store** (:class:`CodeStore`): the session's "file states before prompt N" —
  listing with chain health, one stored version, and the one undo / redo / restore engine
  (drift check, safety snapshot, journal, the restore write) behind ``undo``, ``redo``,
  ``restore_before``;
* a **finishing** (:class:`Finishing`): what finishing the journal a killed sidtui write
  left does, said the same way for every source.

What differs between agents is a capability on the source (its class attributes), never a
test of its name: see :class:`~sidtui.core.sources.base.Source`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sidtui.core.checkpoints.finishing import Finishing, Shown

__all__ = [
    "MARKER",
    "NEW_SESSION",
    "PROMPT",
    "TOOL_BATCH",
    "CodeStore",
    "Finishing",
    "RewindPointLike",
    "Shown",
    "WriteOptions",
]

#: How a conversation rewind keeps what it drops (``Source.conversation_rewind``).
MARKER = "marker"  # a marker record appended to the same file; `branch` takes it back
NEW_SESSION = "new-session"  # a new session is written; the original is never edited

#: What one checkpoint of a code store is (``Source.checkpoint_unit``).
TOOL_BATCH = "tool-batch"  # a snapshot before each file-changing tool batch
PROMPT = "prompt"  # a checkpoint before each typed prompt


class RewindPointLike(Protocol):
    """Just before one typed prompt (both sources' points have these).

    ``restore_from``: the checkpoint a code rewind writes back (None: none after it).
    """

    id: int
    message_index: int
    preview: str
    timestamp: str | None

    @property
    def restore_from(self) -> str | None: ...

    def to_json(self) -> dict[str, Any]: ...


class CodeStore(Protocol):
    """A session's checkpoints: the file states before each prompt (or batch), their
    chains' health, and the restore engine writing them back.

    Attributes:
        session_id: the session whose checkpoints these are.
        project: the :class:`~sidtui.core.base.project.ProjectRoot` writes are confined to.
        root_first: a report says the project root before the result's warnings (else
            after them).
        followup_id: the id printed follow-up commands name the session by (None: as given).
        dry_refusal: why a real run would be refused before it starts (a live session), for
            a dry run to say (None: it would not be).
        warnings: lines about the store itself (malformed entries), said first.
    """

    session_id: str
    project: Any
    root_first: bool
    followup_id: str | None
    dry_refusal: str | None

    @property
    def warnings(self) -> Sequence[str]: ...

    @property
    def shown_root(self) -> str | None:
        """The folder paths are shown relative to (the project root as known so far)."""

    def require(self) -> None:
        """Raise :class:`~sidtui.core.base.errors.SidtuiError` when there are no checkpoints."""

    def pending(self) -> list[Any]:
        """The journals killed sidtui writes of this session left
        (:class:`~sidtui.core.checkpoints.journal.PendingJournal`)."""

    def listing(self) -> dict[str, Any]:
        """The ``checkpoints --json`` object (without ``pendingJournal``)."""

    def show(self, spec: str) -> Shown:
        """The version ``PATH@ID`` names (UsageError: a malformed or unknown spec)."""

    def match_path(self, given: str) -> str:
        """The tracked path ``given`` names (UsageError: none, or several)."""

    def pending_journal(self) -> dict[str, Any] | None:
        """The raw journal a killed write of this session left (None: none)."""

    def finish_interrupted(self, *, dry_run: bool) -> Finishing | None:
        """Finish what a killed write of this session left (None: nothing pending)."""

    def undo(self, *, dry_run: bool, force: bool, path: str | None = None) -> Any: ...

    def redo(self, *, dry_run: bool, force: bool) -> Any: ...

    def restore_before(self, checkpoint: str, *, dry_run: bool, force: bool) -> Any: ...


@dataclass
class WriteOptions:
    """How a writing verb runs (the CLI's ``--root``, ``--allow-outside-root``, ``--force``,
    ``--dry-run``, ``--fork``)."""

    root: str | None = None
    allow_outside_root: bool = False
    force: bool = False
    dry_run: bool = False
    as_fork: bool = False  # a rewind writes its result as a new session (``--fork``)
    writes: bool = False  # a code store for undo/redo/restore (the live and drift checks)
