"""What every session model hands its export and its screens, from the modules its reader
names: one definition of the calls, and the fields every reading holds
(docs/ARCHITECTURE.md "Sources")."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, ClassVar


class ModelViews:
    """``conversation_items``, ``subagent_links``, ``facts`` (export's walk) and
    ``reading`` (the conversation as a screen draws it) of a session model, each the
    function of that name in :attr:`export_items` or :attr:`reading_module` called on it."""

    #: the module with ``conversation_items``, ``subagent_links`` and ``facts``
    export_items: ClassVar[str]
    #: the module with ``reading``
    reading_module: ClassVar[str]

    def _call(self, module: str, name: str) -> Any:
        return getattr(import_module(module), name)(self)

    def conversation_items(self) -> Any:
        return self._call(self.export_items, "conversation_items")

    def subagent_links(self) -> Any:
        return self._call(self.export_items, "subagent_links")

    def facts(self) -> Any:
        return self._call(self.export_items, "facts")

    def reading(self) -> Any:
        """The conversation as a screen draws it."""
        return self._call(self.reading_module, "reading")


@dataclass(repr=False)
class ReadingFields:
    """What every source's conversation reading holds (the fields of
    :class:`~sidtui.core.sources.base.ConversationReading`); a source's reading adds how
    it gets a message's content and lines."""

    view: Any
    messages: list[Any] = field(default_factory=list)
    dropped: dict[int, str] = field(default_factory=dict)
    block_dropped: dict[tuple[int, int], str] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)
    compacts: dict[int, list[int]] = field(default_factory=dict)
    banner: list[str] = field(default_factory=list)
    banner_kind: str = "none"
    head: tuple[list[tuple[str, str | None]], list[Any]] = ([], [])
    where: str = ""
