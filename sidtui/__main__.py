"""`python -m sidtui` entry point."""

from sidtui.cli import entry

entry()
