"""Helpers shared by the subcommands: the home root, JSON output, Rich consoles."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from sidtui.core.base.home import Home


def home_from_args(args: argparse.Namespace) -> Home:
    """The home root: ``--home``, else ``$SID_CONFIG_DIR``, else ``~/.sid-code`` (FORMAT.md §1.1)."""
    return Home.resolve(getattr(args, "home", None), os.environ)


def session_home(args: argparse.Namespace, arg: str | None = None) -> Home:
    """The home of a verb that takes a SESSION argument ``arg`` (default ``args.session``).

    A path to a file that lies in a home (``<root>/sessions/<project>/<file>``, or a flat
    ``<root>/sessions/<file>``) uses ``<root>`` when neither ``--home`` nor
    ``$SID_CONFIG_DIR`` is given: the process registry, checkpoints and progress of that
    session live there. When one is given and the file lies in another home, the given
    home is kept and a warning line says so. Anything but an existing path needs the home
    to exist (:meth:`Home.require`).

    Raises:
        UsageError: the home is needed and missing (exit 2).
        UnreadableInput: the path cannot be looked at (a parent folder we may not
            search): ``permission denied reading …`` (exit 1).
    """
    from sidtui.core.base.resolve import home_root_of, path_exists

    if arg is None:
        arg = getattr(args, "session", None)
    given = getattr(args, "home", None) is not None or bool(os.environ.get("SID_CONFIG_DIR"))
    home = home_from_args(args)
    if not arg or arg == "latest" or not path_exists(arg):
        return home.require()
    root = home_root_of(arg)
    if root is None:
        return home
    if not given:
        return Home(root)
    try:
        same = home.root.expanduser().resolve() == root
    except (OSError, RuntimeError):
        same = False
    if not same:
        print(
            f"sidtui: warning: {arg} belongs to the home {root}, not {home.root} "
            "(processes and checkpoints are looked up in the latter)",
            file=sys.stderr,
        )
    return home


def finish_verb(
    p: argparse.ArgumentParser,
    run: Any,
    *,
    dry_run: str | None = None,
    force: str | None = None,
    json: str = "print one JSON object",
) -> None:
    """The flags a verb's parser ends with — ``--dry-run`` and ``--force`` when given their
    help, then ``--json`` — and the function that runs it."""
    if dry_run is not None:
        p.add_argument("--dry-run", action="store_true", help=dry_run)
    if force is not None:
        p.add_argument("--force", action="store_true", help=force)
    p.add_argument("--json", action="store_true", help=json)
    p.set_defaults(func=run)


_ROOTED_VERBS = frozenset({"undo", "redo", "restore", "rewind"})
"""Verbs that take ``--root`` and ``--allow-outside-root`` (they write project files)."""


def followup(args: argparse.Namespace, *words: object) -> str:
    """A ``sidtui …`` command to print for the user to run next, runnable as printed: with
    each home flag that was given (absolute), and for a verb that
    writes project files the ``--root`` (absolute) and ``--allow-outside-root`` this run
    was given (the follow-up writes in the same place); every word shell-quoted."""
    import shlex

    from sidtui.core.sources import SOURCES, flag_dest

    cmd = ["sidtui"]
    for cls in SOURCES:
        value = getattr(args, flag_dest(cls.home_flag), None)
        if value is not None:
            root = cls.home_class.resolve(value, os.environ).root
            cmd += [cls.home_flag, os.path.abspath(root)]
    cmd += [str(w) for w in words]
    if words and str(words[0]) in _ROOTED_VERBS:
        root = getattr(args, "root", None)
        if root is not None:
            cmd += ["--root", os.path.abspath(os.path.expanduser(str(root)))]
        if getattr(args, "allow_outside_root", False):
            cmd.append("--allow-outside-root")
    return shlex.join(cmd)


_COMMAND_IN_TEXT = re.compile(r"`sidtui ([^`]+)`")


#: Verbs whose first argument is SESSION (a follow-up without one fails in argparse).
_SESSION_VERBS = frozenset(
    {"show", "check", "rewind", "branch", "fork", "salvage", "repair", "checkpoints"}
    | {"undo", "restore", "redo"}
)


def followups_in(text: str, args: argparse.Namespace) -> str:
    """``text`` (a core message) with each ```sidtui …``` command in it made runnable as
    printed (:func:`followup`: this run's home and root flags added; a session verb named
    without its SESSION gets this run's session)."""
    import shlex

    session = getattr(args, "session", None)

    def one(m: re.Match[str]) -> str:
        try:
            words = shlex.split(m.group(1))
        except ValueError:
            return m.group(0)
        bare = len(words) == 1 or (len(words) > 1 and words[1].startswith("-"))
        if words and words[0] in _SESSION_VERBS and bare and isinstance(session, str):
            words.insert(1, session_word(args, session))
        return f"`{followup(args, *words)}`"

    return _COMMAND_IN_TEXT.sub(one, text) if "`sidtui " in text else text


def session_word(args: argparse.Namespace, session_id: str) -> str:
    """How a printed follow-up names the session: an existing path given as SESSION stays
    a path (made absolute: it lies in the home it decides), else the full session id (a
    prefix may stop being unique, e.g. after a fork)."""
    arg = getattr(args, "session", None)
    if isinstance(arg, str) and ("/" in arg or arg.endswith((".jsonl", ".json"))):
        p = os.path.abspath(os.path.expanduser(arg))
        if os.path.exists(p):
            return p
    return session_id


def registrations_warned(home: Home) -> list:
    """The home's registrations, each one sidtui cannot read (or that is not shaped as the
    agent writes it) named in one warning line on stderr."""
    from sidtui.core.resume.process import read_registrations

    warnings: list[str] = []
    regs = read_registrations(home, warnings)
    for line in warnings:
        print(f"sidtui: warning: {line}", file=sys.stderr)
    return regs


def pending_journals_warned(sources, session_ids=None) -> dict[tuple[str, str], Any]:
    """Say each journal a killed sidtui write left in these sources' homes (all, or these
    sessions'), one ``sidtui: warning:`` line each on stderr; return them by
    ``(source name, session)`` (a fork's by its source session)."""
    found: dict[tuple[str, str], Any] = {}
    for src in sources:
        for p in warn_pending(src.pending_journals(session_ids)):
            found.setdefault((src.name, p.session), p)
    return found


def warn_pending(pending: list) -> list:
    """Print each :class:`~sidtui.core.checkpoints.journal.PendingJournal` as one warning
    line on stderr; return them."""
    for p in pending:
        print(f"sidtui: warning: {p.describe()}", file=sys.stderr)
    return pending


def print_json(obj: Any) -> None:
    """Print one JSON document to stdout (UTF-8, non-ASCII kept, 2-space indent).

    A string holding a lone surrogate (a ``"\\ud800"`` escape in a transcript, or a file
    name byte that is not UTF-8, which ``os.listdir`` decodes with ``surrogateescape``) is
    written with the escape kept (``"\\udce9"``): see :func:`sidtui.core.base.jsonout.dumps_lenient`.
    """
    import orjson

    from sidtui.core.base.jsonout import dumps_lenient

    data = dumps_lenient(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str)
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.flush()


def _piped_width(stream) -> tuple[int | None, bool]:
    """``(width, unwrapped)`` of a console on ``stream``: a terminal's own width (None);
    piped, $COLUMNS (text wraps to it: asked for) else 200 with text never wrapped (tables
    stay readable, a long path stays one line)."""
    if stream.isatty():
        return None, False
    columns = int(os.environ.get("COLUMNS", "0") or 0)
    return columns or 200, not columns


def stdout_console():
    """A Rich console on stdout (data); piped, tables are wide and text is not wrapped
    (:func:`_piped_width`)."""
    from rich.console import Console

    width, unwrapped = _piped_width(sys.stdout)

    class _Console(_SafeConsole(Console)):
        def on_broken_pipe(self) -> None:
            # stdout closed early (`| head`): the CLI's own handler ends quietly with 0
            # (Rich's default exits with 1)
            self.quiet = True
            raise BrokenPipeError

    return _Console(highlight=False, soft_wrap=False, width=width, piped=unwrapped)


def stderr_console():
    """A Rich console on stderr (diagnostics, progress); piped as stdout's."""
    from rich.console import Console

    width, unwrapped = _piped_width(sys.stderr)
    return _SafeConsole(Console)(stderr=True, highlight=False, width=width, piped=unwrapped)


def _SafeConsole(base):
    """``base`` (Rich's Console) that shows control characters in printed text as ``\\xNN``
    (:func:`sidtui.fmt.printable`): session text reaches the terminal as text, never as
    escape sequences. Rich's own control segments and styles pass unchanged. With
    ``piped=True`` text (not tables or panels) is printed unwrapped."""
    from rich.segment import Segment
    from rich.text import Text

    from sidtui.fmt import printable

    class SafeConsole(base):
        def __init__(self, *args, piped: bool = False, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.piped = piped

        def print(self, *objects, soft_wrap=None, **kwargs) -> None:
            # Piped, a line of text is never wrapped (tables and panels lay out to the width)
            if (
                soft_wrap is None
                and self.piped
                and not kwargs.keys() & {"crop", "no_wrap", "overflow", "width"}  # as asked
                and all(isinstance(o, str | Text) for o in objects)
            ):
                soft_wrap = True
            super().print(*objects, soft_wrap=soft_wrap, **kwargs)

        def _render_buffer(self, buffer):  # the one place every printed segment passes
            return super()._render_buffer(
                seg if seg.control else Segment(printable(seg.text), seg.style) for seg in buffer
            )

    return SafeConsole


def has_project_folder(src, project: str) -> bool:
    """Whether ``src`` (a source) has the project folder ``project`` (False: unreadable)."""
    try:  # a source whose projects are no folders (Codex: the sessions' cwd) lists them
        return (src.projects_dir / project).is_dir() or project in src.project_folders()
    except OSError:
        return False


def no_project_in_any(sources: list, project: str) -> None:
    """``--project`` names a folder of neither home: one usage error naming both homes
    and the folders of each."""
    from sidtui.core.base.errors import UsageError

    if "/" in project or project in ("", ".", ".."):
        raise UsageError("--project takes a project folder name, not a path")
    wheres, lists = [], []
    for src in sources:
        where, names = src.projects_dir, src.project_folders()
        shown = ", ".join(names[:20]) + (" …" if len(names) > 20 else "")
        wheres.append(str(where))
        lists.append(f"{src.name}: {shown or 'none'}")
    raise UsageError(
        f"no project folder {project!r} under {' or '.join(wheres)} (projects: {'; '.join(lists)})"
    )


#: ``\udc80``–``\udcff``: how JSON output (``ls --json``, ``search --json``, ...) writes a file
#: name byte that is not UTF-8 (Python's ``surrogateescape``: byte 0xE9 → ``\udce9``).
_ESCAPED_BYTE = re.compile(r"\\u[dD][cC][89a-fA-F][0-9a-fA-F]")


def unescape_arg(value: str) -> str:
    """A session id, path or project folder as the user typed it, with each
    ``\\udc80``–``\\udcff`` escape copied from sidtui's JSON output read back as the raw file
    name byte it stands for (``…-\\udce9x.jsonl`` → the file whose name holds byte 0xE9).

    The value is kept as typed when it holds no such escape or names an existing file or
    folder as it is (a name may hold a literal backslash).
    """
    if "\\u" not in value or _ESCAPED_BYTE.search(value) is None:
        return value
    try:
        if os.path.lexists(os.path.expanduser(value)):
            return value
    except (OSError, ValueError):
        pass
    return _ESCAPED_BYTE.sub(lambda m: chr(int(m.group()[2:], 16)), value)


def sources_from_args(args: argparse.Namespace) -> tuple[list[Any], bool]:
    """The sources a read verb covers (:func:`sidtui.core.sources.homes`): the homes the
    flags name, else every home that exists. Returns ``(sources, named by a flag)``."""
    from sidtui.core.sources import SOURCES, flag_dest, homes_from_flags

    flags = {cls.home_flag: getattr(args, flag_dest(cls.home_flag), None) for cls in SOURCES}
    return homes_from_flags(flags, os.environ)


def read_session(args: argparse.Namespace, arg: str | None = None) -> tuple[Any, Any]:
    """``(source, file)`` of a read verb's SESSION argument, whichever agent wrote it.

    A path names its own source by its content (:func:`sidtui.core.sources.source_of_file`;
    a transcript of a source other than the default one is read as its own anywhere on
    disk: its home from its place, else its flag or variable — :func:`path_source`). An
    id, prefix or ``latest`` is looked up in the homes :func:`sources_from_args` gives: in
    the default source's home exactly as before when it is the only one; else in each,
    and a match in more than one is ambiguous (``latest``: the newer file).

    Raises:
        SessionNotFound, AmbiguousSession, UsageError: exit 2; UnreadableInput: exit 1.
    """
    from sidtui.core.base.errors import AmbiguousSession, SessionNotFound, UnreadableInput
    from sidtui.core.base.resolve import path_exists, resolve_session
    from sidtui.core.sources import DEFAULT, source_of_file

    if arg is None:
        arg = args.session
    looks_like_path = "/" in arg or arg.endswith((".jsonl", ".json"))
    if arg != "latest" and looks_like_path and path_exists(arg):
        p = os.path.expanduser(arg)
        name = source_of_file(p) if os.path.isfile(p) else None
        if name is not None and name != DEFAULT.name:
            return path_source(args, name, arg)
        home = session_home(args, arg)  # the default source's own rules and messages
        return DEFAULT(home), resolve_session(home, arg)
    sources, _named = sources_from_args(args)
    if all(isinstance(s, DEFAULT) for s in sources):
        home = session_home(args, arg)  # the default home alone, as before
        return DEFAULT(home), resolve_session(home, arg)
    hits: list[tuple[Any, Any]] = []
    first_error: Exception | None = None
    unreadable: Exception | None = None  # a name that is no regular file: says more
    for src in sources:
        try:
            src.require()
            hits.append((src, src.resolve(arg)))
        except SessionNotFound as exc:
            first_error = first_error or exc
        except UnreadableInput as exc:
            unreadable = unreadable or exc
    if not hits:
        error = unreadable or first_error
        assert error is not None
        raise error
    if len(hits) > 1:
        if arg == "latest":
            return max(hits, key=lambda h: _mtime(h[1].path))
        flags = " or ".join(s.home_flag for s, _f in hits)
        raise AmbiguousSession(
            f"{arg!r} names sessions of several agents; pass {flags}",
            [f"{s.name}: {f.session_id}  {f.path}" for s, f in hits],
        )
    return hits[0]


def _mtime(path: Any) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def path_source(args: argparse.Namespace, name: str, arg: str) -> tuple[Any, Any]:
    """``(source, file)`` of a transcript of the source ``name`` given by path: the home
    its flag names, else the home it lies in (:meth:`~sidtui.core.sources.base.Source.home_of_file`),
    else its variable's or default place."""
    from pathlib import Path

    from sidtui.core.sources import by_name, flag_dest

    cls = by_name(name)
    p = Path(arg).expanduser()
    flag = getattr(args, flag_dest(cls.home_flag), None)
    root = cls.home_of_file(p) if flag is None else None
    src = cls(cls.home_class(root)) if root is not None else cls.resolve_home(flag, os.environ)
    return src, src.file_at(p)


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (a person reads it) rather than a pipe or a file."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def write_stored(content: str | bytes, what: str, *, full: bool = False) -> int:
    """Print a stored version of a file (``checkpoints --show``); returns the exit code.

    To a pipe or a file: raw and whole (UTF-8 for text; a lone surrogate as U+FFFD).
    To a terminal: control characters as ``\\xNN`` (:func:`sidtui.fmt.printable`); without
    ``full``, the preview rule bounds it (:func:`sidtui.core.checkpoints.sidebyside.
    too_large_to_diff`): above ``SIDTUI_MAX_DIFF_BYTES``/``_LINES`` nothing is printed and
    one line says how to get it (exit 1); below, lines are cut at 1,000 characters.

    Args:
        content: the version (str: text; bytes: a binary entry or a backup).
        what: ``PATH at ID`` for the message.
        full: print it whole to a terminal too.
    """
    from sidtui.core.checkpoints.sidebyside import cut_line, too_large_to_diff
    from sidtui.fmt import printable

    step = 1 << 20
    out = sys.stdout.buffer
    if not stdout_is_terminal():
        for i in range(0, len(content), step):  # text encoded in pieces: never a whole copy
            piece = content[i : i + step]
            out.write(piece if isinstance(piece, bytes) else _utf8(piece))
        sys.stdout.flush()
        return 0
    if not full and too_large_to_diff(content, None) is not None:
        raw = content if isinstance(content, bytes) else _utf8(content)
        size, lines = len(raw), raw.count(b"\n") + (raw[-1:] not in (b"", b"\n"))
        print(
            f"sidtui: {what} is {size:,} bytes ({lines:,} lines), more than a terminal is "
            "shown (SIDTUI_MAX_DIFF_BYTES / SIDTUI_MAX_DIFF_LINES); not printed: redirect "
            "it to a file (> FILE) or add --full",
            file=sys.stderr,
        )
        return 1
    text = content if isinstance(content, str) else content.decode("utf-8", errors="replace")
    lines_ = text.split("\n")
    for i, line in enumerate(lines_):
        end = "\n" if i < len(lines_) - 1 else ""
        if not line and not end:
            break
        cr = "\r" if line.endswith("\r") and end else ""  # CRLF: the CR is no control to show
        shown = printable(line[: len(line) - len(cr)])
        out.write(_utf8((shown if full else cut_line(shown)) + cr + end))
    sys.stdout.flush()
    return 0


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (possible in JSON text): U+FFFD, as Node
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def report_interrupt() -> None:
    """Ctrl-C: one line on stderr saying what state the write was left in
    (:func:`sidtui.core.checkpoints.journal.interrupted_line`). Never raises."""
    try:
        from sidtui.core.checkpoints.journal import interrupted_line

        line = interrupted_line()
    except Exception:  # noqa: BLE001 - the exit must not fail on the report
        line = "interrupted"
    try:
        print(f"sidtui: {line}", file=sys.stderr)
    except (OSError, ValueError):
        pass
