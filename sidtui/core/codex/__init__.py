"""Codex CLI's rollouts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) read into the
common model, for :class:`~sidtui.core.sources.codex.CodexSource` (docs/CODEX.md)."""
