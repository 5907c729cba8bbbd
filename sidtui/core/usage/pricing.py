"""The vendored price table (``prices.json`` beside this module) and the cost of a response.

The table gives USD per million tokens for input, output, cache writes (five-minute and
one-hour) and cache reads per model, the price above the tier threshold where the model
has one (each count's tokens past 200,000 in one response), and the fast-mode multiplier.
Its date and source are in the file; how it was measured is in docs/DECISIONS.md
"The price table". A model the table does not know has no price (:func:`price_of` gives
None): its cost is unknown, never 0.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from sidtui.core.usage.events import UsageEvent

#: The model of a reply the agent made up itself (an API error shown as a reply): no call
#: was billed, it costs 0 and is named in no report.
SYNTHETIC = "<synthetic>"

_FIELDS = ("input", "output", "cache_write", "cache_write_1h", "cache_read")


@dataclass(frozen=True)
class Rates:
    """USD per token of each kind of token."""

    input: float
    output: float
    cache_write: float
    cache_write_1h: float
    cache_read: float

    @classmethod
    def of(cls, d: dict[str, Any], per: float) -> Rates:
        return cls(*(float(d[k]) / per for k in _FIELDS))


@dataclass(frozen=True)
class ModelPrice:
    """One model's prices: ``base`` rates, ``above`` the threshold (None: no tier),
    ``threshold`` tokens, ``fast`` multiplier."""

    name: str
    base: Rates
    above: Rates | None
    threshold: int
    fast: float = 1.0


@dataclass(frozen=True)
class PriceTable:
    """Prices by model id (:attr:`models`), :attr:`aliases`, and the table's
    :attr:`date` and :attr:`source`."""

    models: dict[str, ModelPrice]
    aliases: dict[str, str]
    date: str
    source: str
    memo: dict[str, ModelPrice | None] = field(default_factory=dict, repr=False, compare=False)

    def price_of(self, model: str | None) -> ModelPrice | None:
        """The price of ``model``, or None when the table does not know it.

        Matching: the id as is; without a ``[…]`` suffix (``[1m]``) or a provider prefix
        (``anthropic/``); without a trailing ``-YYYYMMDD`` date; an alias (``sonnet``); else
        the longest table id that starts the name at a ``-`` (``claude-opus-4-6-thinking``).
        """
        if not model:
            return None
        try:
            return self.memo[model]
        except KeyError:
            key = self._match(model)
            found = self.memo[model] = None if key is None else self.models[key]
            return found

    def _match(self, model: str) -> str | None:
        name = _SUFFIX.sub("", model.strip().lower()).rsplit("/", 1)[-1]
        for cand in (name, _DATE.sub("", name)):
            if cand in self.models:
                return cand
            if cand in self.aliases:
                return self.aliases[cand]
        best = None
        for key in self.models:
            if name.startswith(key + "-") and (best is None or len(key) > len(best)):
                best = key
        return best


_DATE = re.compile(r"-\d{8}$")
_SUFFIX = re.compile(r"\[[^\]]*\]$")


def parse_table(data: dict[str, Any]) -> PriceTable:
    """A :class:`PriceTable` from the JSON shape of ``prices.json``.

    Raises:
        KeyError, ValueError, TypeError: the data is not that shape.
    """
    per = float(data["per_tokens"])
    threshold = int(data["tier_threshold"])
    models = {}
    for name, d in data["models"].items():
        above = d.get("above_threshold")
        models[name] = ModelPrice(
            name,
            Rates.of(d, per),
            Rates.of(above, per) if above else None,
            threshold,
            float(d.get("fast_multiplier", 1)),
        )
    aliases = {k: v for k, v in data.get("aliases", {}).items() if v in models}
    return PriceTable(models, aliases, str(data["date"]), str(data["about"]))


@cache
def default_table() -> PriceTable:
    """The table shipped in the package (read once)."""
    raw = resources.files("sidtui.core.usage").joinpath("prices.json").read_bytes()
    return parse_table(json.loads(raw))


def _tiered(tokens: int, rate: float, above: float | None, threshold: int) -> float:
    if above is None or tokens <= threshold:
        return tokens * rate
    return threshold * rate + (tokens - threshold) * above


def _cost(e: UsageEvent, p: ModelPrice) -> float:
    b, hi, t = p.base, p.above, p.threshold
    five_min = e.cache_creation_tokens - e.cache_creation_1h_tokens
    return (
        _tiered(e.input_tokens, b.input, hi.input if hi else None, t)
        + _tiered(e.output_tokens, b.output, hi.output if hi else None, t)
        + _tiered(five_min, b.cache_write, hi.cache_write if hi else None, t)
        + _tiered(
            e.cache_creation_1h_tokens, b.cache_write_1h, hi.cache_write_1h if hi else None, t
        )
        + _tiered(e.cache_read_tokens, b.cache_read, hi.cache_read if hi else None, t)
    )


def cost_of(e: UsageEvent, table: PriceTable | None = None) -> float | None:
    """USD of one response: the cost the agent recorded, else its tokens priced by the
    table; None when neither (the model is unknown or not recorded)."""
    if e.cost_usd is not None:
        return e.cost_usd
    if e.model == SYNTHETIC:
        return 0.0
    p = (table or default_table()).price_of(e.model)
    if p is None:
        return None
    usd = _cost(e, p)
    return usd * p.fast if e.fast else usd
