"""sidtui's core: everything that reads or writes a sid-code home; never imports Textual or Rich.

Subpackages, bottom layer first (docs/ARCHITECTURE.md; ``lint-imports`` checks the order):
``base`` (errors, the home's layout, JSON in and out, the process pool, the GC pause),
``transcript`` (records, chain, loader, the one writer), ``resume`` (recovery, restored
state, sidechains, processes) and ``checkpoints`` (index, diffs, rebuild, manager, restore, eviction),
``views`` (the session view, ``show --json``, summaries and listings, ``check``), ``edits``
(rewind points, rewind, fork, salvage) and ``live`` (tails, the watcher, events), ``index``
(the SQLite catalog and search).
"""
