"""Claude Code as a second source: reading ``~/.claude`` (docs/CLAUDE-CODE.md).

One module per concept: :mod:`.layout` (the home, discovery, resolving a session),
:mod:`.scan` (one msgspec pass over a transcript, damaged lines salvaged),
:mod:`.tree` (the uuid DAG: dedupe, bridges, compaction links, leaves, the leaf resume
picks, the chain, parallel-tool side branches), :mod:`.conversation` (messages, merged by
``message.id``, human prompts, interruption), :mod:`.subagents`, :mod:`.liveness` and
:mod:`.session` (everything ``show`` and the app display). Nothing here imports Textual.
"""
