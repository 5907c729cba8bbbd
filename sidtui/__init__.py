"""sidtui: look inside sid-code's saved sessions and undo what the agent did.

The package has two layers: :mod:`sidtui.core` (files, records, chains, checkpoints,
rewinds; never imports Textual) and :mod:`sidtui.tui` (the Textual app). The CLI in
:mod:`sidtui.cli` drives the same core functions as the app.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("sidtui")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+local"
