"""What every session model hands its export and its screens, from the modules its reader
names: one definition of the calls (docs/ARCHITECTURE.md "Sources")."""

from __future__ import annotations

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
