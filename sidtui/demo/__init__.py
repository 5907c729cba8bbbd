"""``sidtui demo``: a realistic agent home written by a simulated agent.

Core-level code: nothing here imports Textual. Modules:

* :mod:`sidtui.demo.agent` — :class:`~sidtui.demo.agent.SimAgent`, the simulated agent
  process, built on our own ``SessionStore``, ``SidechainWriter`` and
  ``CheckpointManager`` (no second writer).
* :mod:`sidtui.demo.scenarios` — :func:`build_demo_home` (the case catalogue below).
* :mod:`sidtui.demo.crafted` — the hand-made files no correct writer produces.
* :mod:`sidtui.demo.live` — the background agent of ``sidtui demo --live``.
* :mod:`sidtui.demo.scale` — :func:`~sidtui.demo.scale.write_scale_home` and
  :func:`~sidtui.demo.scale.write_huge_session` for benchmarks.
* :mod:`sidtui.demo.projects`, :mod:`sidtui.demo.registry`, :mod:`sidtui.demo.clock`,
  :mod:`sidtui.demo.content` — scratch projects, process-layer files, fake clock and ids,
  file contents.

``build_demo_home(dir, seed=0)`` writes ``dir/home`` (the agent home) and ``dir/projects``
(five projects: ``webshop``, ``pytool`` and ``datalab`` are git repositories when git is
installed; ``笔记 notes`` has a non-ASCII name with a space; ``oldproj`` holds the legacy
files) in about a second, and returns a ``DemoHome`` whose ``cases`` maps each case to
its session id. Same seed ⇒ same bytes, apart from PIDs (and absolute paths when built in
another folder). Session ids with ``seed=0`` (they depend only on the seed):

=========================  ===========================  ======================================
case                       session id (seed 0)          what shows it
=========================  ===========================  ======================================
clean, goal_state          20261123-010000-6379294a     3 turns, 3 parallel reads, 2 parallel
                                                        edits, todo_write, bash, agent_setting,
                                                        goal_state active→complete, name,
                                                        summary; ``session_end``; checkpoints:
                                                        gzip full (README), plain fulls, a new
                                                        file (``existedBefore: false``), a diff
interrupted_prompt         20261123-040000-315cab72     last prompt unanswered (Ctrl+C) then
                                                        ``session_end``; cwd is ``src/``;
                                                        permission mode changed to acceptEdits
interrupted_turn           20261123-050000-f60ee9e8     headless deepseek (no cache-creation
                                                        key): 2 parallel bash results, exit
                                                        without ``session_end``
killed,                    20261123-060000-99a77d0a     SIGKILL mid-turn: tool_use and snapshot
stale_registration,                                     s2 landed, file_changes + result lost;
expired_intent                                          recovery drops 2; registration and
                                                        intents left with a dead PID (stale,
                                                        expired)
resumed                    20261123-070000-fdc087ce     3 processes, 2 ``trace_session_id``,
                                                        3 ``session_end`` (2 mid-chain)
fork                       20261123-100321-d22b1b88     fork of *clean*: start's parentUuid =
                                                        source id, ``forked_from``, ``_meta``
                                                        copies, inherited s1–s3, new s4
concurrent                 20261123-110000-c4ca096e     two processes resumed at once: 2 tips,
                                                        the last writer's branch is live
rewind                     20261123-130000-1f6e702a     ``rewind`` marker (parent = record
                                                        before prompt 2): 2 tips
sidechains                 20261123-150000-1976ac01     sub-agents completed + failed (parallel)
                                                        and one killed (no ``sidechain_end``);
                                                        resumed later
context_compact,           20261123-170000-612912f1     Chinese project; redacted_thinking,
non_ascii_project                                       ``context_compact``, thinking-only
                                                        message (dropped), summaries/ file
checkpoints, reanchored    20261123-190000-ee97ead7     max 4 entries/file: re-anchored gzip
                                                        full, diffs, delete via ``bash rm`` then
                                                        re-create (``existedBefore: false``)
evicted_base               20261123-210000-0bad8f08     full base removed without re-anchoring:
                                                        every diff of notes.txt unrecoverable
lone_surrogate             20261123-220000-e39fa76d     a ``\\ud83d`` escape strict parsers
                                                        reject and JSON.parse accepts
half_line                  20261123-230000-008100e5     last line half written, no newline
cycle                      20261124-000000-363f3de1     a duplicated uuid: the parent walk
                                                        repeats (cycle) and never reaches the
                                                        start
torn_glued                 20261124-010000-eb3fd516     torn ``session_end`` with the next
                                                        process's record glued on: unloadable
reused_id                  20261124-020210-b0443bed     ``--session-id`` reused: a second
                                                        ``session_start`` (2 heads, 2 tips)
legacy_v1,                 20260301-101010-1111aaaa     v1 whole-file JSON (1.0, no cwd) with a
legacy_checkpoints                                      legacy checkpoint index
legacy_v1_no_version       8f3c2a1b                     v1 without ``version`` (8-hex id)
legacy_v2                  20260302-161500-0a1b2c3d     v2 JSONL (no uuids), torn last fragment
legacy_flat                5d2e9f01                     flat v2 without cwd in ``_legacy/``
long_session               20261124-030453-90bb49f1     one prompt, many tool batches (most
                                                        user records are tool results), 8
                                                        parallel results merged in one record
filler                     20261124-030646-96c84a59     first of six everyday sessions (2 end
                                                        with ``session_end``)
=========================  ===========================  ======================================

With ``--live`` a background agent (:mod:`sidtui.demo.live`) adds a live session in
``projects/live-app`` with a live registration, active intents and one expired intent.

Beside the sid-code home, :mod:`sidtui.demo.claude` writes a Claude Code home in
``dir/claude`` (projects in ``dir/claude-projects``): file checkpoints with deltas and a
pruned blob, an in-app rewind's stranded branch, a compaction, nested and background
subagents, an interrupted ending, a torn last line, sidtui's own fork and an empty
transcript (``DemoHome.claude_home`` / ``claude_cases``). The sid-code home is the same
bytes with or without it.
"""

from sidtui.demo.scenarios import DemoHome, build_demo_home

__all__ = ["DemoHome", "build_demo_home"]
