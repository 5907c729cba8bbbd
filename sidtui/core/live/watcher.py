"""Watch any source's home as agents write it (FORMAT.md §1, §8, §12).

:class:`Watcher` turns file changes under the home (watchfiles/notify, or its own stat
polling where notify cannot watch) and PID polls into batches of
:mod:`~sidtui.core.live.events`, delivered on its thread or as an async iterator.

Each home is followed through its own layout (:mod:`.layouts`: a Claude Code or Codex CLI
home has no checkpoint index, no intents, no sid-code chain). Design notes: docs/ARCHITECTURE.md,
“core/live/watcher.py”.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from sidtui.core.base.errors import UnreadableInput
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.live import events as ev
from sidtui.core.live.layouts import layout_of
from sidtui.core.live.tail import SETTLE_S, FileTail
from sidtui.core.resume.process import (
    find_conflicts,
    read_json_tolerant,
)

if TYPE_CHECKING:
    from sidtui.core.claude.layout import ClaudeFile, ClaudeHome

Batch = list[ev.Event]


#: Checkpoint indexes above this size are not parsed to count snapshots (FORMAT.md §14: 4 MB).
CHECKPOINT_PARSE_MAX = 4 << 20

#: Filesystems where inotify/FSEvents do not see other machines' writes.
NETWORK_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb",
        "smb2",
        "smb3",
        "smbfs",
        "sshfs",
        "fuse.sshfs",
        "9p",
        "afs",
        "ceph",
        "fuse.ceph",
        "glusterfs",
        "fuse.glusterfs",
        "lustre",
        "gpfs",
        "fuse.rclone",
        "davfs",
        "fuse.davfs",
        "fuse.gcsfuse",
        "fuse.s3fs",
        "virtiofs",
        "vboxsf",
        "prl_fs",
        "fuse.vmhgfs-fuse",
        "afpfs",
        "webdav",
        "drvfs",
    }
)


def needs_polling(path: str | os.PathLike[str]) -> tuple[bool, str]:
    """Whether notify cannot watch ``path`` (it lives on a network/virtual filesystem).

    Returns:
        (poll, filesystem type or "unknown"). Never raises.
    """
    try:
        import psutil

        target = os.path.realpath(path)
        best, fstype = "", "unknown"
        for part in psutil.disk_partitions(all=True):
            mp = part.mountpoint
            if (target == mp or target.startswith(mp.rstrip(os.sep) + os.sep)) and len(mp) > len(
                best
            ):
                best, fstype = mp, part.fstype
        return fstype.lower() in NETWORK_FS, fstype
    except Exception:  # noqa: BLE001 - exotic platforms: let notify try  # pragma: no cover
        return False, "unknown"


class Watcher:
    """Follow a home (or one session) and deliver event batches.

    Args:
        home: the home to watch (must exist).
        on_batch: callback ``(batch: list[Event]) -> None`` called from the watcher thread;
            more can be added with :meth:`subscribe`.
        session: follow only this session file (plus its sidechains, its checkpoint
            index, registrations and intents).
        force_polling: True to poll, False to use notify, None to decide from the
            filesystem (:func:`needs_polling`).
        poll_interval: seconds between registration/PID polls (and ticks).
        settle_s: seconds before an unchanged partial final line is decided.
        step_ms / debounce_ms: passed to :func:`watchfiles.watch` (notify mode).
        poll_delay_ms: milliseconds between stat scans in polling mode.

    Attributes:
        tails: path → :class:`FileTail` of every transcript touched since start.
        polling: whether the thread polls instead of using notify.
    """

    def __init__(
        self,
        home: Home | ClaudeHome,
        on_batch: Callable[[Batch], None] | None = None,
        *,
        session: SessionFile | ClaudeFile | None = None,
        force_polling: bool | None = None,
        poll_interval: float = 1.0,
        settle_s: float = SETTLE_S,
        step_ms: int = 10,
        debounce_ms: int = 250,
        poll_delay_ms: int = 250,
    ) -> None:
        self.home = home
        self._layout = layout_of(home)
        self.session = session
        self.poll_interval = poll_interval
        self.settle_s = settle_s
        self.step_ms, self.debounce_ms, self.poll_delay_ms = step_ms, debounce_ms, poll_delay_ms
        if force_polling is None:
            force_polling, self.fstype = needs_polling(home.root)
        self.polling = bool(force_polling)
        self.tails: dict[str, FileTail] = {}
        self._files: dict[str, SessionFile | None] = {}
        self._start_sizes: dict[str, int] = {}
        self._start_inodes: dict[str, int] = {}
        self._regs: dict[str, tuple[str | None, int | None, bool, str | None]] = {}
        self._conflicts: set[tuple] = set()
        self._subscribers: list[Callable[[Batch], None]] = [on_batch] if on_batch else []
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._primed = False
        self._last_tick = 0.0
        self._intents_dirty = False
        self._polled = False
        #: set once the watch is registered and writes made before it were caught up
        self.ready = threading.Event()
        self.errors: list[str] = []
        self._warned: set[tuple[str, str]] = set()
        #: non-fatal problems (e.g. notify failed and the watcher fell back to polling)
        self.warnings: list[str] = []

    # --- lifecycle ------------------------------------------------------------------------

    def subscribe(self, fn: Callable[[Batch], None]) -> Callable[[], None]:
        """Add a batch callback; returns a function that removes it."""
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn) if fn in self._subscribers else None

    def prime(self) -> None:
        """Record the starting state (file sizes, registrations, conflicts) without events.

        Called by :meth:`start`; tests call it to drive the watcher by hand.
        """
        with self._lock:
            if self._primed:
                return
            self._primed = True
            for path in self._initial_files():
                try:
                    st = os.stat(path)
                    self._start_sizes[path], self._start_inodes[path] = st.st_size, st.st_ino
                except OSError:
                    continue
            self.poll_liveness()
            self._conflicts = self._conflict_keys()

    def start(self) -> None:
        """Prime and start the watcher thread (idempotent)."""
        self.home.require()
        self.prime()
        if self._thread is not None:
            return
        self._stop.clear()
        self.ready.clear()
        self._thread = threading.Thread(target=self._run, name="sidtui-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread, close every tail and end :meth:`batches` iterators."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if not self._thread.is_alive():
                self._thread = None
        # bounded: a thread stuck in a system call must not keep the caller from exiting
        if self._lock.acquire(timeout=timeout):
            try:
                for t in self.tails.values():
                    t.close()
            finally:
                self._lock.release()
        self._deliver(None)

    @property
    def alive(self) -> bool:
        """The watcher thread is running."""
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def batches(self) -> AsyncIterator[Batch]:
        """Event batches as an async iterator (ends when the watcher stops).

        Must be iterated inside a running event loop; batches are handed over with
        ``loop.call_soon_threadsafe``.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Batch | None] = asyncio.Queue()

        def put(batch: Batch | None) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, batch)

        unsubscribe = self.subscribe(put)
        try:
            while True:
                batch = await queue.get()
                if batch is None:
                    return
                yield batch
        finally:
            unsubscribe()

    # --- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        if not self.polling:
            try:
                self._run_notify()
                return
            except Exception as exc:  # noqa: BLE001 - inotify limits, unsupported fs...: poll instead
                if self._stop.is_set():
                    return
                self.warnings.append(
                    f"filesystem notifications failed ({type(exc).__name__}: {exc}); polling"
                )
                self.polling = True
        try:
            self._run_polling()
        except Exception as exc:  # noqa: BLE001 - the home vanished...: report, stop
            self.errors.append(f"watcher stopped: {type(exc).__name__}: {exc}")

    def _after_changes(self, paths: list[str]) -> None:
        batch = self.process_paths(paths)
        now = time.monotonic()
        if now - self._last_tick >= self.poll_interval * 0.9:
            self._last_tick = now
            batch += self.tick()
        if batch:
            self._deliver(batch)

    def _run_notify(self) -> None:
        import watchfiles

        for changes in watchfiles.watch(
            self.home.root,
            watch_filter=None,
            debounce=self.debounce_ms,
            step=self.step_ms,
            stop_event=self._stop,
            rust_timeout=max(int(self.poll_interval * 1000), 50),
            yield_on_timeout=True,
            raise_interrupt=False,
            force_polling=False,
        ):
            paths = [p for _, p in changes]
            if not self.ready.is_set():
                # writes between prime() and the watch being registered were not seen
                paths += self._changed_since_prime()
                self.ready.set()
            self._after_changes(paths)
            if self._stop.is_set():
                break

    def _run_polling(self) -> None:
        # Our own stat poller: notify's PollWatcher compares mtimes in whole seconds and
        # misses appends made within the same second.
        sigs = self._signatures()
        if not self.ready.is_set():
            self._after_changes(self._changed_since_prime())
            self.ready.set()
        delay = self.poll_delay_ms / 1000
        while not self._stop.wait(delay):
            new = self._signatures()
            changed = [p for p in new.keys() | sigs.keys() if new.get(p) != sigs.get(p)]
            sigs = new
            self._after_changes(changed)

    def _signatures(self) -> dict[str, tuple[int, int, int]]:
        """(inode, size, mtime_ns) of every watched file (polling mode)."""
        out: dict[str, tuple[int, int, int]] = {}

        def add(folder: Path, want: Callable[[str], bool], depth: int) -> None:
            try:
                with os.scandir(folder) as it:
                    for e in it:
                        try:
                            if e.is_dir(follow_symlinks=False):
                                if depth > 0:
                                    add(Path(e.path), want, depth - 1)
                            elif want(e.name):
                                st = e.stat()
                                out[e.path] = (st.st_ino, st.st_size, st.st_mtime_ns)
                        except OSError:
                            continue
            except OSError:
                return

        lay = self._layout
        if self.session is not None:
            own = self.session.path
            add(
                own.parent,
                lambda n: n.endswith(".jsonl") and self._wanted_session_path(str(own.parent / n)),
                0,
            )
            if not lay.chain:  # a Claude Code session's subagents sit in <stem>/subagents/
                add(own.parent / own.stem / "subagents", lambda n: n.endswith(".jsonl"), 0)
            if lay.checkpoints is not None:
                add(lay.checkpoints / self._checkpoint_id(), lambda n: n == "index.json", 0)
        else:
            add(lay.transcripts, lambda n: n.endswith(".jsonl"), lay.depth)
            if lay.checkpoints is not None:
                add(lay.checkpoints, lambda n: n == "index.json", 1)
        add(lay.registrations_dir, lambda n: True, 0)
        if lay.intents_dir is not None:
            add(lay.intents_dir, lambda n: True, 0)
        return out

    def _deliver(self, batch: Batch | None) -> None:
        for fn in list(self._subscribers):
            try:
                fn(batch)  # type: ignore[arg-type]
            except Exception as exc:  # noqa: BLE001 - a subscriber's bug must not kill the watcher
                if batch is not None:
                    self.errors.append(f"subscriber failed: {type(exc).__name__}: {exc}")

    def _changed_since_prime(self) -> list[str]:
        out = []
        for path in self._initial_files():
            try:
                size = os.stat(path).st_size
            except OSError:
                size = -1
            if size != self._start_sizes.get(path, -2):
                out.append(path)
        for path in self._start_sizes:
            if not os.path.exists(path):
                out.append(path)
        out.append(str(self._layout.registrations_dir / "_"))
        if self._layout.intents_dir is not None:
            out.append(str(self._layout.intents_dir / "_"))
        return out

    # --- mapping paths to events ------------------------------------------------------------

    def _initial_files(self) -> list[str]:
        if self.session is not None:
            return [str(self.session.path)]
        out: list[str] = []
        for dirpath, _dirs, files in os.walk(self._layout.transcripts):
            out.extend(os.path.join(dirpath, f) for f in files if f.endswith(".jsonl"))
        return out

    def _wanted_session_path(self, p: str) -> bool:
        if self.session is None:
            return True
        return self._layout.wanted(self.session, p)

    def process_paths(self, paths: Iterable[str]) -> Batch:
        """Turn changed paths into events (called by the thread; public for tests).

        Args:
            paths: absolute paths that changed (duplicates and unrelated paths are fine).

        Returns:
            The events, in path order (sorted, so a session's records precede its
            sidechain's).
        """
        with self._lock:
            self.prime()
            out: Batch = []
            lay = self._layout
            sessions = str(lay.transcripts) + os.sep
            checkpoints = str(lay.checkpoints) + os.sep if lay.checkpoints is not None else None
            regs_changed = False
            for p in sorted(set(paths)):
                if p.startswith(sessions) and p.endswith(".jsonl"):
                    if self._wanted_session_path(p):
                        out += self._safe_tail(p)
                elif (
                    checkpoints is not None
                    and p.startswith(checkpoints)
                    and p.endswith(os.sep + "index.json")
                ):
                    out += self._checkpoint_event(p)
                elif p.startswith(str(lay.registrations_dir) + os.sep):
                    regs_changed = True
                elif lay.intents_dir is not None and p.startswith(str(lay.intents_dir) + os.sep):
                    self._intents_dirty = True
            if regs_changed:
                out += self.poll_liveness()
            if self._intents_dirty:
                self._intents_dirty = False
                out += self._conflict_events()
            return out

    def _safe_tail(self, p: str) -> Batch:
        """:meth:`_tail_events`, a file that cannot be read being one warning."""
        try:
            return self._tail_events(p)
        except OSError as exc:  # unreadable now: say so, keep watching
            self._warn_once(p, f"{p}: {exc.strerror or exc}")
        except UnreadableInput as exc:  # a FIFO, a device: never opened
            self._warn_once(p, str(exc))
        return []

    def _warn_once(self, path: str, line: str) -> None:
        """A warning about ``path``, unless this one was given already."""
        if (path, line) not in self._warned:
            self._warned.add((path, line))
            self.warnings.append(line)

    def tick(self) -> Batch:
        """Periodic work: the registration poll, then held partial lines re-polled."""
        with self._lock:
            out = self.poll_liveness()
            for p, t in list(self.tails.items()):
                if t.pending:
                    out += self._safe_tail(p)
            return out

    def _writer_alive(self, session_id: str | None) -> bool | None:
        if session_id is None:
            return None
        matched = [r for r in self._regs.values() if session_id in (r[0], r[3])]
        if not matched:
            return None
        return any(r[2] for r in matched)

    def _tail_events(self, p: str) -> Batch:
        out: Batch = []
        tail = self.tails.get(p)
        if tail is None:
            existed = p in self._start_sizes
            start_at = self._start_sizes.get(p, 0)
            if existed:
                # shrunk or replaced before its first change was seen: report it all again
                try:
                    st = os.stat(p)
                except OSError:
                    st = None
                if st is not None and st.st_ino != self._start_inodes.get(p):
                    out.append(ev.FileReset(Path(p).stem, p, "replaced"))
                    start_at = 0
                elif st is not None and st.st_size < start_at:
                    out.append(ev.FileReset(Path(p).stem, p, "truncated"))
                    start_at = 0
            tail = FileTail(p, start_at=start_at, settle_s=self.settle_s, chain=self._layout.chain)
            self.tails[p] = tail
            self._files[p] = self._layout.classify(p) if existed else None
        sf = self._files.get(p)
        sid = sf.session_id if sf else Path(p).stem
        upd = tail.poll(writer_alive=self._writer_alive(sid))
        if upd.reset == "removed":
            self.tails.pop(p).close()
            self._files.pop(p, None)
            self._start_sizes.pop(p, None)
            return [ev.FileReset(sid, p, "removed")]
        if sf is None and tail.rf.records:
            sf = self._layout.classify(p)
            self._files[p] = sf
            if sf is not None:
                sid = sf.session_id
                if sf.kind == "sidechain":
                    out.append(ev.SidechainStarted(sid, p, sf.parent_session_id, sf.agent_id))
                else:
                    out.append(ev.SessionCreated(sid, p, sf.project, sf.kind))
        kind = sf.kind if sf else "main"
        if upd.reset and upd.reset != "removed":
            out.append(ev.FileReset(sid, p, upd.reset))
        if upd.records:
            out.append(ev.RecordsAppended(sid, p, tuple(upd.records), kind))
        for bad in upd.bad_lines:
            out.append(ev.BadLineFound(sid, p, bad))
        if upd.branched:
            out.append(ev.ChainBranched(sid, p, upd.branched[0], upd.branched[1], upd.rewind))
        if kind == "sidechain":
            for r in upd.records:
                if r.ref.type == "sidechain_end":
                    status = r.record.get("status") if isinstance(r.record, dict) else None
                    out.append(
                        ev.SidechainEnded(
                            sid,
                            p,
                            sf.parent_session_id if sf else None,
                            status if isinstance(status, str) else None,
                        )
                    )
        return out

    def _checkpoint_id(self) -> str:
        """The followed session's checkpoint folder name (FORMAT.md §10.13: the file name's
        id; a sidechain's parent's); only asked when a session is followed."""
        assert self.session is not None
        return str(getattr(self.session, "checkpoint_id", self.session.session_id))

    def _checkpoint_event(self, p: str) -> Batch:
        sid = Path(p).parent.name
        if self.session is not None and sid != self._checkpoint_id():
            return []
        try:
            size = os.stat(p).st_size
        except OSError:
            return []
        if size > CHECKPOINT_PARSE_MAX:  # indexes reach 200 MB: let the consumer load it
            return [ev.CheckpointIndexChanged(sid, p, -1)]
        d = read_json_tolerant(Path(p))
        snaps = d.get("snapshots") if isinstance(d, dict) else None
        if snaps is None and isinstance(d, dict) and isinstance(d.get("files"), dict):
            snaps = [
                e
                for f in d["files"].values()
                if isinstance(f, dict)
                for e in f.get("entries") or []
            ]
        n = len(snaps) if isinstance(snaps, list) else -1
        return [ev.CheckpointIndexChanged(sid, p, n)]

    # --- the process layer ------------------------------------------------------------------

    def poll_liveness(self) -> Batch:
        """One registration poll: read ``active-sessions``, probe every PID (psutil).

        Returns:
            ``SessionBecameLive`` / ``SessionBecameStale`` / ``SessionUnregistered`` for
            every registration whose state changed since the previous poll (none on the
            first poll, which records the starting state).
        """
        with self._lock:
            regs = self._layout.registrations()
            now = {
                str(r.path): (r.session_id, r.pid, r.live, r.logical_session_id, r.reason)
                for r in regs
            }
            out: Batch = []
            first, self._polled = not self._polled, True
            if not first:
                for path, (sid, pid, live, logical, reason) in now.items():
                    before = self._regs.get(path)
                    if before is not None and before[2] == live and before[1] == pid:
                        continue
                    if live:
                        out.append(ev.SessionBecameLive(sid or "", pid, logical))
                    else:
                        out.append(ev.SessionBecameStale(sid or "", pid, reason, logical))
                for path, before in self._regs.items():
                    if path not in now:
                        out.append(ev.SessionUnregistered(before[0] or "", before[1]))
            self._regs = {k: v[:4] for k, v in now.items()}
            return out

    def _conflict_keys(self) -> set[tuple]:
        return {
            (c.path, c.session_id, c.other_session_id, c.severity)
            for c in find_conflicts(self._layout.intents())
        }

    def _conflict_events(self) -> Batch:
        conflicts = find_conflicts(self._layout.intents())
        out: Batch = []
        keys = set()
        for c in conflicts:
            k = (c.path, c.session_id, c.other_session_id, c.severity)
            keys.add(k)
            if k not in self._conflicts:
                out.append(ev.FileIntentConflictAppeared(c))
        self._conflicts = keys
        return out
