"""What a source is: one agent whose home sidtui reads (docs/ARCHITECTURE.md "Sources").

A :class:`Source` wraps one home of one agent and answers everything the CLI and the app
ask: find sessions (:meth:`~Source.discover`, :meth:`~Source.resolve`), read one into the
common model (:meth:`~Source.open` → a :class:`SessionModel`), list and count them
(:meth:`~Source.list_sessions`, :meth:`~Source.check`), who runs now
(:meth:`~Source.registrations`), what its API calls used (:meth:`~Source.usage_events`), its checkpoints (:meth:`~Source.checkpoints`, None where
the source has none yet), what killed sidtui writes left (:meth:`~Source.pending_journals`)
and which changes it supports (:attr:`~Source.mutations`).

It is also the writer the one set of write verbs drives (docs/ARCHITECTURE.md "The write
path"): rewind points and a rewind (:meth:`~Source.rewind_points`, :meth:`~Source.rewind`),
the code store behind undo/redo/restore (:meth:`~Source.code_store`), fork, branch switch,
repair and salvage. What an agent does differently is a capability (a class attribute:
:attr:`~Source.conversation_rewind`, :attr:`~Source.checkpoint_unit`,
:attr:`~Source.rewind_finishes_interrupted`, :attr:`~Source.tags_json`), said in words
where it shows, never a test of the source's name.
The models themselves are the sources' own classes; :class:`SessionModel` and
:class:`SessionRef` name what every one of them has.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from sidtui.core.base.roots import HomeRoot
from sidtui.core.resume.process import Registration
from sidtui.core.sources.model import (
    CheckResult,
    ConversationReading,
    MessageLike,
    SessionModel,
    SessionRef,
)
from sidtui.core.views.summary import SessionSummary

if TYPE_CHECKING:
    from sidtui.core.checkpoints.journal import PendingJournal
    from sidtui.core.sources.writes import CodeStore, WriteOptions
    from sidtui.core.transcript.title import Renamed
    from sidtui.core.usage.aggregate import FileUsage

__all__ = [
    "CODE_MUTATIONS",
    "MUTATIONS",
    "CheckProgress",
    "CheckResult",
    "ConversationReading",
    "MessageLike",
    "Progress",
    "SessionModel",
    "SessionRef",
    "Source",
]

#: The verbs that write a session's files back from its checkpoints.
CODE_MUTATIONS = frozenset({"undo", "redo", "restore"})
#: The changes a source may support (the CLI verbs that write).
MUTATIONS = frozenset(
    {"rewind", "fork", "branch", "salvage", "repair", "undo", "restore", "redo", "rename"}
)


Progress = Callable[[int, int], None]
CheckProgress = Callable[[int, int, str], None]


class Source(ABC):
    """One home of one agent (see the module docstring).

    An adapter's binding (``core/sources/<agent>.py``) declares what it is and names its
    reader functions as ``"module:function"`` (imported when first called: ``ls`` never
    loads the checker); this class calls each the one way every source is called. Only
    :meth:`open` and :meth:`exists` are the adapter's own code.

    Class attributes:
        name: the id in ``--json`` (``"sid-code"``, ``"claude-code"``).
        label: for people (``"sid-code"``, ``"Claude Code"``).
        mutations: the writing verbs it supports (a subset of :data:`MUTATIONS`).
        home_flag, home_env: the CLI flag and the environment variable naming its home.
        usage_gaps: what its transcripts do not record of usage (said beside a report).
        home_class: its :class:`~sidtui.core.base.roots.HomeRoot` (``Home``, ``ClaudeHome``).
        discoverer: ``(home, project, errors, *, include_sidechains) -> [file]``.
        resolver: ``(home, arg, *, cwd) -> file`` (``SessionNotFound``/``AmbiguousSession``).
        lister: ``(home, project, *, include_sidechains, progress) -> (rows, errors)``.
        checker: ``(home, *, project, session, progress, **check_options()) -> report``.
        usage_reader: ``(path, project, errors) -> [UsageEvent]`` of one transcript.
        registry: ``(home, warnings) -> [Registration]``.

    Capabilities of the writer (docs/ARCHITECTURE.md "The write path"):
        conversation_rewind: how a conversation rewind (and a branch switch) is written:
            :data:`~sidtui.core.sources.writes.MARKER` (a marker appended to the same file;
            ``branch`` takes it back) or :data:`~sidtui.core.sources.writes.NEW_SESSION`
            (a new session; the original is never edited).
        checkpoint_unit: what one checkpoint is: a snapshot before each file-changing tool
            batch (:data:`~sidtui.core.sources.writes.TOOL_BATCH`) or the files before each
            typed prompt (:data:`~sidtui.core.sources.writes.PROMPT`).
        rewind_finishes_interrupted: the rewind engine finishes what a killed write left
            itself (the result's ``resumed``); False: the verb finishes the code store's
            journal first.
        tags_json: the writing verbs' ``--json`` objects name the source (``"source"``).
        no_points_reason: why a session has no rewind points, in words.
    """

    name: ClassVar[str]
    label: ClassVar[str]
    mutations: ClassVar[frozenset[str]] = frozenset()
    #: The word of the browser's ``source:WORD`` filter (``sid``, ``claude``).
    short: ClassVar[str] = ""
    #: The mark its sessions and projects carry beside the others' in a list (None: the
    #: unmarked source, sid-code's own).
    badge: ClassVar[str | None] = None
    #: What its reader gives beyond the conversation (the session screen's tabs, said on
    #: screen): ``records`` (every record in file order, raw; a branch made live by an
    #: appended marker), ``leaves`` (every leaf of the record tree; a branch forked into a
    #: session of its own), ``state`` (the restored state items), ``sidechains`` (its
    #: sub-agent transcripts listed), ``snapshots`` (checkpoints: snapshots of the files,
    #: with a diff per file) or ``file-history`` (checkpoints: a backup of each file before
    #: each prompt).
    views: ClassVar[frozenset[str]] = frozenset()
    #: How a conversation rewind writes: ``marker`` (a marker appended to the session
    #: file) or ``new-session`` (a new session file; the old one is never edited).
    conversation_rewind: ClassVar[str] = "marker"
    home_flag: ClassVar[str]
    home_env: ClassVar[str]
    usage_gaps: ClassVar[str | None] = None
    checkpoint_unit: ClassVar[str | None] = None
    rewind_finishes_interrupted: ClassVar[bool] = True
    tags_json: ClassVar[bool] = False
    no_points_reason: ClassVar[str] = "no typed prompts"
    #: what its ``ls`` rows record beyond every source's columns (``cost``, ``ended``)
    row_fields: ClassVar[frozenset[str]] = frozenset()
    #: a transcript with no message is a normal session of it (dimmed in ``ls``), not a
    #: file its agent fails to load
    quiet_empty: ClassVar[bool] = False
    home_class: ClassVar[type[HomeRoot]]
    discoverer: ClassVar[str]
    resolver: ClassVar[str]
    lister: ClassVar[str]
    checker: ClassVar[str]
    usage_reader: ClassVar[str]
    registry: ClassVar[str]
    #: ``"module:function"``: ``(home) -> [project folder names]``, sorted
    folder_lister: ClassVar[str | None] = None
    #: the module whose ``title_of(model)`` and ``write_title(model, title, policy=)`` read
    #: and write a session's title (None: the source keeps none)
    titles: ClassVar[str | None] = None

    def __init__(self, home: Any) -> None:
        self._home = home

    @staticmethod
    def reader(spec: str) -> Callable[..., Any]:
        """The function ``"module:function"`` names."""
        from importlib import import_module

        module, _, name = spec.partition(":")
        fn: Callable[..., Any] = getattr(import_module(module), name)
        return fn

    @classmethod
    def resolve_home(cls, flag: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Self:
        """The source of the home ``flag`` names, else its variable in ``env``, else the
        default place (:meth:`~sidtui.core.base.roots.HomeRoot.resolve`)."""
        return cls(cls.home_class.resolve(flag, env))

    @property
    def home(self) -> Any:
        """The source's own home object (``Home``, ``ClaudeHome``)."""
        return self._home

    @property
    def root(self) -> Path:
        """The home's root folder."""
        return Path(self._home.root)

    @abstractmethod
    def exists(self) -> bool:
        """A home of this source is at :attr:`root` (it has sessions to list)."""

    def require(self) -> Self:
        """Self, or :class:`~sidtui.core.base.errors.UsageError` when the home is missing."""
        self._home.require()
        return self

    @staticmethod
    def claims_record(d: dict[str, Any]) -> bool:
        """This agent wrote the decoded record ``d`` (a type only it writes): how
        :func:`~sidtui.core.sources.sniff` tells a transcript's agent from its first lines."""
        return False

    @staticmethod
    def claims_place(path: Path) -> bool:
        """A file whose content does not tell (empty) is this agent's by where it lies."""
        return False

    def resume_agent(self) -> str | None:
        """The agent's own resume named for people with the version whose rules the reader
        follows (``show`` says what it sends "as Claude Code 2.1.332 does"); None: the
        reader predicts no resume."""
        return None

    def lost_notice(self, group: Any) -> str:
        """One sentence about a group of messages on disk its resume will not load
        (``show`` prints it below the group)."""
        return f"{group.messages} messages above are not loaded on resume"

    def lost_counts(self, group: Any) -> bool:
        """The group counts among the messages a resume loses (a compaction's summary
        stands in for its messages: they do not)."""
        return True

    @classmethod
    def home_of_file(cls, path: Path) -> Path | None:
        """The root of the home a transcript at ``path`` lies in, from its place alone
        (None: it tells nothing): a path given without a home flag is read in that home."""
        return None

    def check_options(self) -> dict[str, Any]:
        """More keyword arguments for the checker (none by default)."""
        return {}

    def discover(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        include_sidechains: bool = True,
    ) -> list[SessionRef]:
        """Every transcript (main files, and sidechains unless asked not to)."""
        found: list[SessionRef] = self.reader(self.discoverer)(
            self._home, project, errors, include_sidechains=include_sidechains
        )
        return found

    def resolve(self, arg: str, *, cwd: Path | None = None) -> Any:
        """A session argument (path, id, unique id prefix, ``latest``) as a file.

        Raises:
            SessionNotFound, AmbiguousSession: exit 2.
        """
        return self.reader(self.resolver)(self._home, arg, cwd=cwd)

    @abstractmethod
    def open(
        self,
        ref: SessionRef,
        *,
        current_cwd: Path | None = None,
        terminal_tool_names: frozenset[str] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> SessionModel:
        """Read one session completely into the common model (``terminal_tool_names``:
        the tools that end a turn where the agent has such a setting; ``warn``: called
        with each line worth a warning about the agent's process registrations).

        Raises:
            UnreadableInput: the file cannot be read.
        """

    def list_sessions(
        self,
        project: str | None = None,
        *,
        include_sidechains: bool = False,
        progress: Progress | None = None,
    ) -> tuple[list[SessionSummary], list[str]]:
        """Every session's ``ls`` row (``source`` set), newest activity first, and one
        error line per file that cannot be read."""
        rows: tuple[list[SessionSummary], list[str]] = self.reader(self.lister)(
            self._home, project, include_sidechains=include_sidechains, progress=progress
        )
        return rows

    def check(
        self,
        *,
        project: str | None = None,
        session: SessionRef | None = None,
        progress: CheckProgress | None = None,
    ) -> Any:
        """Count what is on disk (the source's own counts, a :class:`CheckResult`); faults
        give exit code 1."""
        return self.reader(self.checker)(
            self._home, project=project, session=session, progress=progress, **self.check_options()
        )

    def registrations(self, warnings: list[str] | None = None) -> Sequence[Registration]:
        """The registered agent processes, each with its liveness."""
        regs: Sequence[Registration] = self.reader(self.registry)(self._home, warnings)
        return regs

    def usage_events(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        use_cache: bool = True,
    ) -> list[FileUsage]:
        """The usage events of its transcripts, per file: one
        :class:`~sidtui.core.usage.events.UsageEvent` per line that records a response
        (``FileUsage.load()``; repeats are for :func:`~sidtui.core.usage.aggregate.dedupe`),
        read by the ``usage_reader`` and cached per file
        (:func:`~sidtui.core.index.usage_cache.cached_usage`). ``errors`` gets a line per
        file or line that cannot be read."""
        from sidtui.core.index.usage_cache import cached_usage

        return cached_usage(
            self._home,
            self.reader(self.usage_reader),
            project=project,
            errors=errors,
            use_cache=use_cache,
        )

    def checkpoints(self, model: SessionModel) -> Any:
        """The session's checkpoint store, or None when the source has none (yet)."""
        return None

    @property
    def journals_dir(self) -> Path | None:
        """The folder whose ``<session>/`` folders hold sidtui's journals of this source's
        sessions (None: sidtui writes none)."""
        return None

    def pending_journals(self, session_ids: Iterable[str] | None = None) -> list[PendingJournal]:
        """What killed sidtui writes left pending in this home (all, or these sessions'):
        :func:`~sidtui.core.checkpoints.journal.pending_journals`."""
        from sidtui.core.checkpoints.journal import pending_journals  # read verbs: only then

        folder = self.journals_dir
        return [] if folder is None else pending_journals(folder, session_ids)

    def title_of(self, model: SessionModel) -> str | None:
        """The title the session was given (by a user or the agent), None when none was
        (or the source keeps no titles: no :attr:`titles` module)."""
        if self.titles is None:
            return None
        title: str | None = self.reader(f"{self.titles}:title_of")(model)
        return title

    def write_title(self, model: SessionModel, title: str, *, policy: Any = None) -> int:
        """Append what the agent itself writes to rename ``model``'s session; records
        written. Only sources with ``"rename"`` in :attr:`mutations` implement it (their
        :attr:`titles` module's ``write_title``)."""
        if self.titles is None:
            raise NotImplementedError
        written: int = self.reader(f"{self.titles}:write_title")(model, title, policy=policy)
        return written

    def rename(
        self, ref: SessionRef, title: str, *, force: bool = False, policy: Any = None
    ) -> Renamed:
        """Give the session ``title`` as the agent's own rename does (append-only).

        Raises:
            UsageError: the source cannot rename, or the title is not one line of text
                (exit 2). SidtuiError: a running agent writes the session and ``force``
                is not set, or the append was refused (a torn tail; exit 1).
        """
        from sidtui.core.base.errors import SidtuiError, UsageError
        from sidtui.core.transcript.title import Renamed, clean_title

        if not self.supports("rename"):
            raise UsageError(f"{self.label} sessions cannot be renamed by sidtui")
        title = clean_title(title)
        if ref.kind == "sidechain":
            raise UsageError(
                f"{ref.path} is a sub-agent's transcript: it has no title of its own "
                "(rename the session that spawned it)"
            )
        model = self.open(ref)
        live = [r for r in model.liveness.registrations if getattr(r, "live", False)]
        if model.liveness.live and not force:
            pid = f" (pid {live[0].pid})" if live and getattr(live[0], "pid", None) else ""
            raise SidtuiError(
                f"{model.session_id} is being written by a running {self.label}{pid}: "
                "its title could change under it; stop it first or pass --force"
            )
        previous = self.title_of(model)
        written = 0 if previous == title else self.write_title(model, title, policy=policy)
        return Renamed(self.name, model.session_id, ref.path, title, previous, written)

    @abstractmethod
    def owns(self, ref: Any) -> bool:
        """``ref`` is one of this source's session files (its kind, any home)."""

    @abstractmethod
    def file_at(
        self, path: str | os.PathLike[str], project: str | None = None
    ) -> SessionRef | None:
        """The session file at ``path`` (a fork just written, a sub-agent's transcript;
        ``project``: the session's it came from), None when it is no transcript of it.

        Raises:
            OSError, ValueError: the path cannot be read as one.
        """

    @property
    @abstractmethod
    def projects_dir(self) -> Path:
        """The folder whose sub-folders are its projects (``--project NAME``)."""

    def project_folders(self) -> list[str]:
        """The names of its project folders, sorted (:attr:`folder_lister` of its home)."""
        if self.folder_lister is None:
            raise NotImplementedError
        names: list[str] = self.reader(self.folder_lister)(self._home)
        return names

    def require_project(self, project: str | None) -> None:
        """Raise :class:`~sidtui.core.base.errors.UsageError` (exit 2) when ``--project``
        names no folder of this source, its folders listed (None: nothing to check)."""
        from sidtui.core.base.errors import UsageError

        if project is None:
            return
        try:
            if (self.projects_dir / project).is_dir():
                return
        except OSError:
            pass
        where = self.projects_dir
        if "/" in project or project in ("", ".", ".."):
            raise UsageError(f"--project takes a folder name under {where}, not a path")
        names = self.project_folders()
        shown = ", ".join(names[:20]) + (" …" if len(names) > 20 else "")
        raise UsageError(
            f"no project folder {project!r} under {where} (projects: {shown or 'none'})"
        )

    def empty_listing(self, project: str | None) -> str:
        """What an empty ``ls`` (of ``project``) says of this home: where it looked."""
        folder = self.projects_dir
        return f"no sessions under {folder / project if project else folder}"

    def unreadable_folders(self, project: str | None) -> list[tuple[Path, str]]:
        """``(folder, why)`` of each folder a listing (of ``project``) cannot read, found
        before any file is read (none: the listing says it of each file it reads)."""
        return []

    @abstractmethod
    def file_of(self, summary: SessionSummary) -> SessionRef:
        """The session file of one of its ``ls`` rows (no I/O)."""

    def leaves(self, model: SessionModel) -> list[dict[str, Any]]:
        """Every leaf of the record tree as rows (``live``, ``kind``, ``line``,
        ``messages``, ``records``, ``timestamp``, ``uuid``) where ``"leaves"`` is in
        :attr:`views`; else none."""
        return []

    def supports(self, mutation: str) -> bool:
        return mutation in self.mutations

    def same_root(self, other: str | os.PathLike[str]) -> bool:
        """``other`` is this home's root (resolved)."""
        try:
            return Path(other).expanduser().resolve() == self.root.expanduser().resolve()
        except (OSError, RuntimeError):
            return False

    # ------------------------------------------------------------------ writing

    def unsupported(self, mutation: str, arg: str) -> str:
        """The one line refusing ``mutation`` on session ``arg`` of this source (a source
        with no :attr:`checkpoint_unit` keeps no file states: said so for the code verbs)."""
        if self.checkpoint_unit is None and mutation in CODE_MUTATIONS:
            return (
                f"{arg} is a {self.label} session: {self.label} keeps no file states, "
                "so there is nothing to undo, redo or restore"
            )
        return f"{arg} is a {self.label} session: sidtui cannot {mutation} it"

    def _refuse(self, mutation: str, arg: str = "this") -> Any:
        from sidtui.core.base.errors import UsageError

        raise UsageError(self.unsupported(mutation, arg))

    def json_head(self) -> dict[str, Any]:
        """What a writing verb's ``--json`` object starts with (``source`` when
        :attr:`tags_json`)."""
        return {"source": self.name} if self.tags_json else {}

    def resume_command(self, session_id: str) -> str | None:
        """The agent's own command resuming ``session_id`` (None: not printed)."""
        return None

    def fork_copied(self, result: Any) -> str | None:
        """What a fork copied beside the records, in words (None: the checkpoint
        snapshots it inherited)."""
        return None

    def open_for_write(self, ref: SessionRef) -> SessionModel:
        """Read ``ref`` for a writing verb (a transcript it cannot write: UsageError)."""
        return self.open(ref)

    def rewind_points(self, model: Any) -> list[Any]:
        """Every rewind point of the session (:class:`~sidtui.core.sources.writes.
        RewindPointLike`), oldest first."""
        return self._refuse("rewind")

    def rewind(self, model: Any, to: int, mode: str, options: WriteOptions) -> Any:
        """Rewind the conversation, the code or both to before point ``to`` (``mode``:
        ``conversation`` / ``code`` / ``both``), as :attr:`conversation_rewind` says; the
        result has sid-code's ``RewindResult`` attributes."""
        return self._refuse("rewind")

    def fork(self, model: Any, at: int | None, *, dry_run: bool = False) -> Any:
        """A new session with the history up to just before point ``at`` (None: all)."""
        return self._refuse("fork")

    def branch_tips(self, model: Any) -> list[dict[str, Any]]:
        """Every leaf of the record tree with the length of its conversation."""
        return self._refuse("branch")

    def switch_branch(self, model: Any, tip: str | int, options: WriteOptions) -> Any:
        """Make the branch ending at the record ``tip`` (a uuid prefix; an int: the
        record's index in the model, where the source has one) the one resume picks, as
        :attr:`conversation_rewind` says (a marker, or a new session)."""
        return self._refuse("branch")

    def repair(self, model: Any, *, dry_run: bool = False) -> Any:
        """A new session the agent resumes whole (every complete record on disk)."""
        return self._refuse("repair")

    def salvage(self, model: Any, *, dry_run: bool = False) -> Any:
        """A loadable copy of a session the agent cannot load or resume."""
        return self._refuse("salvage")

    def code_store(self, session: SessionRef | str, options: WriteOptions) -> CodeStore:
        """The session's checkpoints with the restore engine (``session``: a file, or an
        argument this source resolves by its own rules)."""
        arg = session if isinstance(session, str) else session.session_id
        return self._refuse("restore", arg)

    def restore_store(self, model: Any, checkpoints: Any = None) -> CodeStore:
        """The code store of a session open in the app (``checkpoints``: what
        :meth:`checkpoints` or the Checkpoints tab already read for it, else read now)."""
        return self._refuse("restore", model.session_id)

    @classmethod
    def of_model(cls, model: Any) -> Source:
        """The source of an open session (the writer the app's dialogs drive)."""
        return cls(model.home)

    def rewind_unavailable(self, model: Any) -> str:
        """Why a session has no rewind point, for the app's rewind dialog."""
        return self.no_points_reason
