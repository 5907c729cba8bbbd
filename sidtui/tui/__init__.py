"""The full-screen Textual app (browser, session tabs, rewind/undo/fork modals).

Drives only :mod:`sidtui.core` functions the CLI also uses; `make_app` / `run` live in
:mod:`sidtui.tui.app`.
"""
