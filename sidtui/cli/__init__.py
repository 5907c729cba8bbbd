"""The `sidtui` command line: one subcommand module per verb, all driving sidtui.core.

Each module in :data:`SUBCOMMANDS` exposes ``register(subparsers, parents)`` which adds its
parser and sets ``func`` to a ``run(args) -> int`` callable. Modules import the core lazily
inside ``run`` so ``sidtui ls`` never pays for Textual. With no subcommand the app opens.

Errors: every :class:`~sidtui.core.base.errors.SidtuiError` becomes a one-line message on stderr
and its exit code (2 bad arguments / unknown session, 1 unreadable input); anything else is
reported as an internal error without a traceback unless ``SIDTUI_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import os
import sys
from collections.abc import Sequence

# Order is the order in `sidtui --help`.
SUBCOMMANDS: list[str] = [
    "ls",
    "show",
    "check",
    "rewind",
    "branch",
    "fork",
    "salvage",
    "repair",
    "checkpoints",
    "undo",
    "restore",
    "redo",
    "rename",
    "demo",
    "search",
    "watch",
    "usage",
    "export",
]


#: One-shot commands that build large object graphs and exit (GC paused while they run).
_BATCH_COMMANDS = frozenset(
    {"show", "ls", "check", "checkpoints", "search", "salvage", "fork", "repair", "usage", "export"}
)


class _Parser(argparse.ArgumentParser):
    """argparse exits with 2 on bad arguments already; its message is one line here
    (no usage block), naming ``--help``."""

    def error(self, message: str):  # type: ignore[override]
        if message == "argument --project: expected one argument":
            message += " (for a key that starts with '-', write --project=KEY)"
        # one line, as every other bad input (argparse would print the usage block first)
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")


class _Version(argparse.Action):
    """``--version``, with the version looked up only when asked (it costs start-up time)."""

    def __init__(
        self,
        option_strings,
        dest=argparse.SUPPRESS,
        default=argparse.SUPPRESS,
        help="show the version and exit",
    ) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        import sidtui

        print(f"sidtui {sidtui.__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """Build the full parser (every subcommand registered)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home",
        default=argparse.SUPPRESS,
        help="sid-code home to read (default: $SID_CONFIG_DIR, else ~/.sid-code)",
    )
    common.add_argument(
        "--claude-home",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="Claude Code home to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude)",
    )
    common.add_argument(
        "--codex-home",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="Codex CLI home to read (default: $CODEX_HOME, else ~/.codex)",
    )
    parser = _Parser(
        prog="sidtui",
        description="Look inside sid-code's saved sessions and undo what the agent did.",
    )
    parser.add_argument("--version", action=_Version)
    parser.add_argument(
        "--home",
        default=None,
        help="sid-code home to read (default: $SID_CONFIG_DIR, else ~/.sid-code)",
    )
    parser.add_argument(
        "--claude-home",
        default=None,
        metavar="DIR",
        help="Claude Code home to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude); "
        "with no home flag, every home that exists is read",
    )
    parser.add_argument(
        "--codex-home",
        default=None,
        metavar="DIR",
        help="Codex CLI home to read (default: $CODEX_HOME, else ~/.codex)",
    )
    parser.add_argument(
        "--theme", choices=["dark", "light"], default=None, help="app theme (no subcommand)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"sidtui.cli.{name}")
        module.register(subparsers, [common])
    return parser


#: Options whose value may start with ``-``: a Claude Code project key is its path with
#: ``/`` replaced (``-home-me-proj``), which argparse would take for an option.
_DASH_VALUE_OPTIONS = frozenset({"--project"})


def join_dash_values(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--project -KEY`` written as ``--project=-KEY`` (argparse refuses
    the spaced form). Any value starting with one ``-`` but ``-`` itself is joined (``-x``
    too: a missing key then says "no project folder"; argparse would only say "expected
    one argument", even for ``-h``); nothing after ``--`` changes."""
    out: list[str] = []
    it = iter(argv)
    for tok in it:
        out.append(tok)
        if tok == "--":
            out.extend(it)
            break
        if tok in _DASH_VALUE_OPTIONS:
            value = next(it, None)
            if value is None:
                break
            if len(value) >= 2 and value.startswith("-") and not value.startswith("--"):
                out[-1] = f"{tok}={value}"
            else:
                out.append(value)
    return out


#: What a one-shot command built and left in ``args.keep`` (see :func:`entry`).
_KEPT: list = []


def entry() -> None:
    """The ``sidtui`` console script and ``python -m sidtui``: run :func:`main` and exit.

    A command may leave the big object graph it built in ``args.keep`` (``show`` keeps
    the session view: a 100 MB session is millions of objects). Freeing them one by one
    takes ~0.2 s and achieves nothing at exit, so then the streams are flushed and the
    process ends with ``os._exit`` (such commands are read-only: nothing else to close).
    """
    _whole_writes_to_stdout()
    try:
        code = main()
    except KeyboardInterrupt:  # between main's own handlers (e.g. while it returns)
        code = _interrupted()
    if _KEPT:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(code)
    sys.exit(code)


class _WholeWrites(io.RawIOBase):
    """stdout's descriptor for a piped run of the console script: a write that a Ctrl-C
    interrupts is finished first, then the KeyboardInterrupt is raised in the caller.

    CPython's buffered stdout drops the rest of a write to a full pipe when the signal
    handler raises during it (what ``print`` or Rich had handed over never reaches the
    reader, and the next flush writes after a gap). Here the bytes go out with
    ``os.write`` in a loop under a SIGINT handler that only notes the first Ctrl-C (a
    raising one could land between a write and the count of its bytes, which writes them
    twice); it is re-raised with ``_thread.interrupt_main`` once the write has returned,
    so the buffer above stays consistent. A second Ctrl-C during the same write gives up
    on a reader that does not read.
    """

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False

    def write(self, b) -> int:  # type: ignore[override]
        import signal

        data = memoryview(b).cast("B")
        noted: list[int] = []

        def note(signum, frame) -> None:  # never between os.write and counting its bytes
            if noted:
                raise KeyboardInterrupt  # the second: give up
            noted.append(signum)

        try:
            previous = signal.signal(signal.SIGINT, note)
        except ValueError:  # not the main thread
            previous = None
        done = 0
        try:
            while done < len(data):
                done += os.write(self._fd, data[done:])
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        if noted:
            import _thread

            _thread.interrupt_main()  # raised in the caller, after this write returned
        return done


def _whole_writes_to_stdout() -> None:
    """Give a piped stdout :class:`_WholeWrites` (a terminal, or a test's capture, keeps
    its stream: the app draws on it)."""
    try:
        fd = sys.stdout.fileno()
        if os.isatty(fd):
            return
        sys.stdout.flush()
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(_WholeWrites(fd), buffer_size=1 << 16),
            encoding=sys.stdout.encoding,
            errors=sys.stdout.errors,
            line_buffering=sys.stdout.line_buffering,
            write_through=False,
        )
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return


def _interrupted() -> int:
    """Ctrl-C: the one line saying what it left (a second Ctrl-C while it is written is
    ignored, so it stays one line), then what the verb had printed and stdout still holds
    is written (a second Ctrl-C there gives up on a reader that does not read); returns
    130. Every verb's Ctrl-C ends here."""
    import signal

    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to hold off
        previous = None
    try:
        from sidtui.cli.common import report_interrupt

        report_interrupt()
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    try:
        sys.stdout.flush()
    except KeyboardInterrupt:  # given up: the exit must not block on the same write
        _stdout_to_devnull()
    except (OSError, ValueError):
        pass
    return 130


def _stdout_to_devnull() -> None:
    """Point stdout's descriptor at /dev/null, so the interpreter's final flush neither
    fails nor blocks (a reader gone away, or one that does not read)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the process exit code (never raises on user errors).

    A Ctrl-C at any point — while the parser is built (it imports every verb's module),
    while arguments are parsed, or while a verb runs — is one line on stderr and 130.
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return _interrupted()


class _SigintHeld:
    """While it is entered, a Ctrl-C is noted, not raised; on exit it is raised then.

    For imports of C extensions: orjson's module init, interrupted by a KeyboardInterrupt
    raised in the Python code it calls, crashes the interpreter (SIGSEGV, exit 139) instead
    of raising. Only the main thread can hold it (elsewhere it is a no-op).
    """

    def __enter__(self) -> None:
        import signal

        self._pending = False

        def note(signum, frame) -> None:
            self._pending = True

        try:
            self._previous = signal.signal(signal.SIGINT, note)
        except ValueError:
            self._previous = None

    def __exit__(self, *exc: object) -> None:
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        if self._pending and exc[0] is None:
            raise KeyboardInterrupt


def _main(argv: Sequence[str] | None) -> int:
    with _SigintHeld():
        try:
            import orjson  # noqa: F401 - see _SigintHeld; nearly every verb reads JSON
        except ImportError:  # pragma: no cover - a declared dependency
            pass
    from sidtui.core.base.errors import SidtuiError

    journal = sys.modules.get("sidtui.core.checkpoints.journal")
    if journal is not None:  # an earlier run in this process (tests): its copies are not ours
        journal.forget_runs()
    for stream in (sys.stdout, sys.stderr):
        # a C/ASCII locale must not turn "…" or a CJK prompt into a crash
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass
    parser = build_parser()
    try:
        args = parser.parse_args(join_dash_values(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # argparse: --help (0) or bad arguments (2)
        return int(exc.code or 0)
    from sidtui.cli.common import unescape_arg

    # as copied from JSON output (see unescape_arg)
    for name in ("session", "project", "home", "claude_home", "codex_home"):
        value = getattr(args, name, None)
        if isinstance(value, str):
            setattr(args, name, unescape_arg(value))
    if args.command in _BATCH_COMMANDS:
        # Short-lived, allocation-heavy, cycle-free: the cyclic GC only costs time here.
        gc.disable()
    try:
        if args.command is None:
            from sidtui.cli.app import run_app

            return run_app(args)
        code = int(args.func(args) or 0)
        if getattr(args, "keep", None) is not None:
            _KEPT.append(args)  # see entry(): freed by the process exit, not object by object
        return code
    except SidtuiError as exc:
        from sidtui.cli.common import followups_in

        print(f"sidtui: error: {followups_in(str(exc), args)}", file=sys.stderr)
        candidates = getattr(exc, "candidates", None)
        if candidates:
            print("candidates:", file=sys.stderr)
            for c in candidates[:20]:
                print(f"  {c}", file=sys.stderr)
            if len(candidates) > 20:
                print(f"  … and {len(candidates) - 20} more", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        # stdout closed early (e.g. `| head`): not an error for a CLI, and it never changes
        # the exit code — a verb that knows its code before printing sets args.exit_code.
        # Point the fd at /dev/null so the interpreter's final flush does not fail (120).
        _stdout_to_devnull()
        return int(getattr(args, "exit_code", 0) or 0)
    except Exception as exc:  # last resort: a message, never a traceback
        if os.environ.get("SIDTUI_DEBUG"):
            raise
        print(
            f"sidtui: internal error: {type(exc).__name__}: {exc} "
            "(set SIDTUI_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 1
