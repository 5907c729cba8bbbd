"""Tokens and cost, counted once for every source (docs/ARCHITECTURE.md "Usage").

:mod:`.events` is what a source's reader yields (one :class:`~.events.UsageEvent` per
API response it recorded), :mod:`.pricing` the vendored price table, :mod:`.aggregate`
the one engine: dedupe by message and request id, group, price, total.
"""
