"""The checkpoint and rewind verbs on a Claude Code session (not a subcommand module).

Each verb module calls :func:`sidtui.cli.claude_dispatch.claude_target` first and, for a
Claude Code session, the function of the same name here; the output has the same shape as
for sid-code (the same report and diff printers), plus the project root and drift.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from sidtui.cli.common import followup, print_json, stdout_console


def open_view(target: tuple[Any, Any], *, mutating: bool = True) -> Any:
    """Read the session (a subagent transcript is refused for the mutating verbs)."""
    from sidtui.core.base.errors import UsageError
    from sidtui.core.claude.session import open_claude_session

    home, cf = target
    if mutating and cf.kind != "main":
        raise UsageError(
            f"{cf.path.name} is a subagent transcript; give its session "
            f"({cf.parent_session_id or 'unknown'})"
        )
    return open_claude_session(home if home.exists else None, cf)


def _require_checkpoints(fh: Any) -> None:
    """Like sid-code's verbs: a session without checkpoints is an error (exit 1)."""
    from sidtui.core.base.errors import SidtuiError

    if not fh.checkpoints:
        raise SidtuiError(
            f"session {fh.session_id} has no file checkpoints (its transcript has no "
            "file-history-snapshot records)"
        )


def _restorer(args: argparse.Namespace, view: Any) -> Any:
    from sidtui.core.claude.code_restore import CodeRestorer

    root = getattr(args, "root", None)
    r = CodeRestorer(
        view,
        allow_outside_root=bool(getattr(args, "allow_outside_root", False)),
        root=root or None,  # --root: explicit_root (a usage error when not a folder)
    )
    _require_checkpoints(r.fh)
    return r


def finish_first(args: argparse.Namespace, r: Any, verb: str) -> int | None:
    """Finish what a killed sidtui restore of this session left (its journal): then that
    is all this run does (its exit code); None when nothing was pending. A dry run says
    what the real run does there, with its exit code."""
    from sidtui.cli.checkpoint_args import report_finish

    done = r.finish_interrupted(dry_run=args.dry_run)
    if done is None:
        return None
    said = done.warnings[0]
    if done.safety_snapshot_id is None and not done.files:
        print(f"sidtui: {'dry run: ' if args.dry_run else ''}{said}", file=sys.stderr)
        done.warnings = done.warnings[1:]
        if done.note:
            print(f"sidtui: {done.note}", file=sys.stderr)
        return None  # it had changed nothing (said above): this run does what was asked
    if args.dry_run:
        for w in done.warnings[1:]:
            print(f"warning: {w}", file=sys.stderr)
        return report_finish(args, done, said, doc=done.to_json())
    print(f"sidtui: {said}", file=sys.stderr)
    done.warnings = done.warnings[1:]
    return _report(args, done, verb, r)


# --------------------------------------------------------------------------- checkpoints


def checkpoints(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    from sidtui.core.claude.file_history import read_file_history
    from sidtui.core.claude.rewind import rewind_points

    view = open_view(target, mutating=False)
    fh = read_file_history(view)
    for w in fh.warnings:
        print(f"sidtui: warning: {w}", file=sys.stderr)
    _require_checkpoints(fh)
    pending = _pending(view)
    if args.show:
        return _show(view, fh, args.show, getattr(args, "full", False))
    points = {p.checkpoint: p for p in rewind_points(view, fh) if p.exact}
    doc = checkpoints_json(view, fh, points)
    if args.json:
        if pending:
            doc["pendingJournal"] = pending[0].to_json()
        print_json(doc)
        return 0
    _render_checkpoints(doc)
    return 0


def _pending(view: Any) -> list[Any]:
    """The journal a killed sidtui restore of this session left, said on stderr."""
    from sidtui.cli.common import warn_pending
    from sidtui.core.checkpoints.journal import pending_journals

    if view.home is None:
        return []
    return warn_pending(pending_journals(view.home.restores_dir, [view.session_id]))


def checkpoints_json(view: Any, fh: Any, points: dict[Any, Any]) -> dict[str, Any]:
    """The machine-readable listing (the keys of sid-code's where they mean the same)."""
    return {
        "source": "claude-code",
        "sessionId": fh.session_id,
        "index": str(fh.folder),
        "folderExists": fh.folder_exists,
        "projectRoot": view.cwd,
        "snapshots": [
            c.to_json(points[c.id].id if c.id in points else None) for c in fh.checkpoints
        ],
        "files": [ch.to_json() for ch in fh.chains()],
        "unrecoverable": [b.name for b in fh.unrecoverable()],
        "warnings": fh.warnings,
    }


def _render_checkpoints(doc: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from sidtui.fmt import local_time

    c = stdout_console()
    root = doc["projectRoot"]

    def short(p: str) -> str:
        if root and p.startswith(root.rstrip("/") + "/"):
            return p[len(root.rstrip("/")) + 1 :]
        return p

    t = Table(title=f"checkpoints of {doc['sessionId']}", title_justify="left")
    for col in ("id", "time", "prompt", "files"):
        t.add_column(col, style="bold" if col == "id" else None)
    for s in doc["snapshots"]:
        parts = []
        for f in s["files"]:
            kind = "absent" if not f["existedBefore"] else f"v{f['version']}"
            bad = "" if f["rebuilds"] else " ✗"
            parts.append(f"{short(f['absPath'] or f['filePath'])} ({kind}){bad}")
        prompt = f"#{s['point']}" if s["point"] else ("—" if s["promptInFile"] else "(not here)")
        extra = []
        if s["updates"]:
            extra.append(f"{s['updates']} update{'s' * (s['updates'] != 1)}")
        if s["deltas"]:
            extra.append(f"{s['deltas']} delta{'s' * (s['deltas'] != 1)}")
        if extra:
            prompt += f" ({', '.join(extra)})"
        t.add_row(
            s["id"],
            local_time(s["timestamp"], seconds=True) or "—",
            Text(prompt),
            Text("\n".join(parts) or "(no files)"),
        )
    c.print(t)
    c.print(Text("chains", style="bold"))
    for f in doc["files"]:
        style = "green" if f["healthy"] else "red"
        c.print(Text(f"  {short(f['filePath'])}: ", style="bold"), Text(f["drawing"], style=style))
        for e in f["entries"]:
            if not e["rebuilds"]:
                c.print(Text(f"      {e['reason']}", style="red"))
    if not doc["folderExists"] and doc["snapshots"]:
        c.print(
            Text(f"(no blob folder {doc['index']}: every backup is unrecoverable)", style="dim")
        )


def _match_path(view: Any, fh: Any, given: str) -> str:
    from sidtui.core.base.errors import UsageError

    tracked = fh.tracked()
    if given in tracked:
        return given
    for base in (view.cwd, os.getcwd()):
        if base:
            cand = os.path.join(base, given)
            if cand in tracked:
                return cand
    hits = [t for t in tracked if t.endswith("/" + given.lstrip("/"))]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise UsageError(f"{given!r} matches several tracked files: {', '.join(hits)}")
    raise UsageError(f"{given!r} is not tracked in the checkpoints of {fh.session_id}")


def _show(view: Any, fh: Any, spec: str, full: bool = False) -> int:
    from sidtui.core.base.errors import UsageError

    path, sep, cid = spec.rpartition("@")
    if not sep or not path or not cid:
        raise UsageError("--show takes PATH@CHECKPOINT, e.g. src/app.py@c3")
    cp = fh.get(cid)
    p = _match_path(view, fh, path)
    state = fh.state_before(cp.position)
    if p not in state:
        raise UsageError(f"{p} is not tracked at or after {cp.id}: its state then is the file now")
    b, _ = state[p]
    if not b.existed:
        print(f"sidtui: {p} did not exist before {cp.id}", file=sys.stderr)
        return 1
    if not b.restorable:
        print(f"sidtui: unrecoverable: {p} at {cp.id}: {b.reason}", file=sys.stderr)
        return 1
    try:
        data = b.read()
    except OSError as exc:
        print(f"sidtui: unrecoverable: {p} at {cp.id}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    from sidtui.cli.common import write_stored

    return write_stored(data, f"{p} at {cp.id}", full=full)


# --------------------------------------------------------------------------- undo/redo/restore


def _report(args: argparse.Namespace, res: Any, verb: str, r: Any) -> int:
    from sidtui.cli.checkpoint_args import report

    return report(args, res, verb, project=r.project)


def undo(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    view = open_view(target)
    r = _restorer(args, view)
    if (done := finish_first(args, r, "undo")) is not None:
        return done
    path = None
    if args.file:
        path = _match_path(view, r.fh, args.file)
    res = r.undo(dry_run=args.dry_run, force=args.force, path=path)
    return _report(args, res, "undo", r)


def redo(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    view = open_view(target)
    r = _restorer(args, view)
    if (done := finish_first(args, r, "redo")) is not None:
        return done
    res = r.redo(dry_run=args.dry_run, force=args.force)
    return _report(args, res, "redo", r)


def restore(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    view = open_view(target)
    r = _restorer(args, view)
    if (done := finish_first(args, r, "restore")) is not None:
        return done
    res = r.restore_before(args.before, dry_run=args.dry_run, force=args.force)
    return _report(args, res, "restore", r)


# --------------------------------------------------------------------------- rewind


def rewind(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    from sidtui.cli.rewind import exit_code, render_result
    from sidtui.core.claude.rewind import rewind as do_rewind
    from sidtui.core.claude.rewind import rewind_points

    view = open_view(target)
    if args.to is None:
        points = rewind_points(view)
        if args.json:
            print_json(
                {
                    "source": "claude-code",
                    "session_id": view.session_id,
                    "points": [p.to_json() for p in points],
                }
            )
            return 0
        _render_points(view, points)
        return 0
    if (args.mode or "both") != "conversation":
        from sidtui.core.claude.code_restore import CodeRestorer

        r = CodeRestorer(view, allow_outside_root=args.allow_outside_root, root=args.root)
        pending = r.pending_journal()
        if (done := finish_first(args, r, "rewind")) is not None:
            if args.dry_run or done != 0 or not _same_rewind(pending, args):
                return done
            # the interrupted run was this very rewind: its conversation step is still due
            print("sidtui: the rest of that rewind follows (the conversation)", file=sys.stderr)
            view = open_view(target)
    res = do_rewind(
        view,
        args.to,
        args.mode or "both",
        force=args.force,
        dry_run=args.dry_run,
        allow_outside_root=args.allow_outside_root,
        root=args.root,
    )
    if args.fork and res.mode == "code":
        res.warnings.append("--fork: a code rewind writes no session (nothing to fork)")
    code = exit_code(res)  # the one rule, as sid-code's rewind (dry run or not)
    args.exit_code = code
    if args.json:
        print_json(res.to_json())
        return code
    render_result(res, args, safety_session=view.session_id)  # kept with the source
    if res.fork is not None and res.dry_run:
        print(
            "would write the rewound conversation as a new session (the original is "
            "unchanged); the real run prints its `claude --resume` command",
            file=sys.stderr,
        )
    elif res.fork is not None:
        print(
            "wrote the rewound conversation as a new session (the original is unchanged); "
            f"resume it with: claude --resume {res.fork.session_id}",
            file=sys.stderr,
        )
    return code


def _same_rewind(journal: dict[str, Any] | None, args: argparse.Namespace) -> bool:
    """Whether ``journal`` (a pending restore's) is of a rewind with this point and mode
    whose conversation step was still to do when it was interrupted."""
    from sidtui.core.views.rewind_text import normalize_mode

    part = journal.get("rewind") if isinstance(journal, dict) else None
    if not isinstance(part, dict) or part.get("point") != args.to:
        return False
    mode = normalize_mode(args.mode or "both")
    return part.get("mode") == mode and mode != "code"


def _render_points(view: Any, points: list[Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from sidtui.fmt import local_time

    c = stdout_console()
    if not points:
        c.print(Text(f"{view.session_id}: no rewind points (no typed prompts)"))
        return
    t = Table(title=Text(f"rewind points of {view.session_id}"), title_justify="left")
    for col, kw in (
        ("#", {"justify": "right"}),
        ("time (local)", {"no_wrap": True}),
        ("message", {"justify": "right"}),
        ("code restores from", {"no_wrap": True}),
        ("prompt", {"overflow": "ellipsis", "no_wrap": True}),
    ):
        t.add_column(col, **kw)
    for p in points:
        files = (
            p.checkpoint
            if p.exact
            else f"{p.checkpoint} (a later one)"
            if p.checkpoint
            else "— (no checkpoint)"
        )
        t.add_row(
            str(p.id),
            local_time(p.timestamp, seconds=True) or "—",
            str(p.message_index),
            Text(files),
            Text(p.preview or ""),
        )
    c.print(t)
    c.print(
        "[dim]a conversation rewind writes a new session (the original is never edited); "
        "code restores from: the checkpoint whose backups a code rewind writes back[/]"
    )


# --------------------------------------------------------------------------- fork / branch


def _render_fork(res: Any, verb: str) -> None:
    from sidtui.cli.fork import render

    render(
        res,
        verb,
        copied=f"{res.blobs_copied} file-history backups copied",
        resume=f"claude --resume {res.session_id}",
    )


def fork(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    from sidtui.core.claude.fork import fork_session
    from sidtui.core.claude.rewind import get_point

    view = open_view(target)
    before = get_point(view, args.at).message_index if args.at is not None else None
    if before == 0:
        from sidtui.core.base.errors import UsageError

        raise UsageError("rewind point 1 is the first message: a fork before it would be empty")
    res = fork_session(view, before=before, dry_run=args.dry_run)
    if args.json:
        print_json(res.to_json())
        return 0
    _render_fork(res, "fork")
    return 0


def list_tips(view: Any) -> list[dict[str, Any]]:
    """Every leaf of the tree with its kind and the length of its conversation."""
    from sidtui.core.claude.fork import branch_tips

    return [{k: v for k, v in t.items() if k != "index"} for t in branch_tips(view)]


def branch(args: argparse.Namespace, target: tuple[Any, Any]) -> int:
    from rich.text import Text

    from sidtui.core.base.errors import UsageError
    from sidtui.core.claude.fork import fork_session
    from sidtui.core.claude.scan import DAG_TYPES

    view = open_view(target)
    if args.tip is None:
        tips = list_tips(view)
        if args.json:
            print_json({"source": "claude-code", "session_id": view.session_id, "tips": tips})
            return 0
        c = stdout_console()
        for t in tips:
            note = "  (resume picks this)" if t["live"] else f"  ({t['kind']})"
            if t["rewind"]:
                note += " rewind"
            c.print(
                Text(f"{t['uuid']}  line {t['line']}  {t['type']}  {t['messages']} messages{note}")
            )
        if any(t["kind"] == "branch" for t in tips):
            c.print(
                Text(
                    "a branch resume will not pick can be forked into a session of its own: "
                    + followup(args, "branch", view.session_id, "--tip", "UUID_PREFIX"),
                    style="dim",
                )
            )
        return 0
    objs = view.scan.objs
    hits = sorted(
        {
            i
            for i, o in enumerate(objs)
            if o.type in DAG_TYPES
            and o.uuid
            and o.uuid.startswith(args.tip)
            and view.tree.parent[i] != -2
        }
    )
    if not args.tip or not hits:
        raise UsageError(f"no record of {view.file.path.name} has a uuid starting {args.tip!r}")
    if len({objs[i].uuid for i in hits}) > 1:
        raise UsageError(f"{args.tip!r} matches {len(hits)} records; give more of the uuid")
    i = hits[0]
    if i == view.tree.leaf:
        raise UsageError(
            f"{objs[i].uuid} is the leaf resume already picks (use `sidtui fork` for a copy)"
        )
    res = fork_session(view, tip=i, dry_run=args.dry_run)
    if args.json:
        print_json(res.to_json())
        return 0
    _render_fork(res, "forked the branch into")
    return 0
