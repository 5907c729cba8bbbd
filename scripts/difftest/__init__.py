"""Differential tests: sidtui against the agent's own loader on generated transcripts.

``python -m scripts.difftest run --oracle CMD --cases 5000`` (or ``SIDTUI_ORACLE=CMD``):
:mod:`.gen` writes the cases, :mod:`.oracle` runs the agent's loader, :mod:`.compare`
judges sidtui against it (the regression test uses the same code), :mod:`.runner` groups
the disagreements into classes, :mod:`.vendor` stores a case under tests/fixtures.
"""
