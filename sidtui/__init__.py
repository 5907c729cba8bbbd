"""sidtui: look inside sid-code's saved sessions and undo what the agent did.

The package has two layers: :mod:`sidtui.core` (files, records, chains, checkpoints,
rewinds; never imports Textual) and :mod:`sidtui.tui` (the Textual app). The CLI in
:mod:`sidtui.cli` drives the same core functions as the app.
"""


def __getattr__(name: str) -> str:
    # ``__version__`` is looked up on first use: importlib.metadata costs ~50 ms of
    # start-up that every CLI run would pay
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("sidtui")
        except PackageNotFoundError:  # running from a source tree without install
            v = "0.0.0+local"
        globals()["__version__"] = v
        return v
    raise AttributeError(f"module 'sidtui' has no attribute {name!r}")
