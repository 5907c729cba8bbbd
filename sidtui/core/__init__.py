"""sidtui's core: everything that reads or writes a sid-code home.

Never imports Textual (a test enforces it). One module per concept: ``home`` (layout),
``jsonparse`` (JSON.parse-compatible line parser), ``records`` (line index + partial
decode), ``chain`` (rebuild + record tree), ``loader`` (what the agent loads),
``recovery`` (six cleaning layers, integrity, interruption), ``state`` (the ten restored
items), ``process`` (registrations, file intents), ``sidechain``, ``session`` (the one
view the CLI and app show), ``listing`` (fast summaries for ``ls``).
"""
