"""The Discord front end: parse, call the table service (``bot.service``), render what it returns.

* ``client`` — ``TiempoBot``, the client: its command ``Tree``, start-up and shut-down;
* ``commands`` — ``TiempoGroup``: ``/tiempo``, one method per command (``TiempoGroup.build`` is
  ``/tiempo build``), described from the service's command catalogue;
* ``completion`` — what the options suggest while the player types;
* ``items`` — the persistent buttons and menus (``DynamicItem``s whose custom ids carry the game);
* ``exporting`` — ``/tiempo records export``: progress while the pictures are drawn, then the files;
* ``answering`` — answering an interaction: the reply, a refusal's sentence, or an apology, in time;
* ``sending`` — a ``Post`` as discord.py's arguments, markdown, pages, and the ``ChannelOutbox``;
* ``context`` — who asks (``caller_of``) and the service of an interaction.

It imports only the service's public interface, the wording layer and the settings.
"""

from __future__ import annotations

from .client import PERMISSIONS, TiempoBot, serve
from .commands import TiempoGroup
from .items import DYNAMIC_ITEMS
from .sending import MAX_TEXT, ChannelOutbox, markdown, pages

__all__ = ["DYNAMIC_ITEMS", "MAX_TEXT", "PERMISSIONS", "ChannelOutbox", "TiempoBot", "TiempoGroup", "markdown",
           "pages", "serve"]
