"""What ``/tiempo``'s options suggest while the player types: cells, cards and payments, from the
service; where it has none, one entry that says why (never a silent empty list)."""

from __future__ import annotations

import logging

from discord import app_commands

from .context import Interaction, caller_of, service_of

log = logging.getLogger("tiempo.discord")

Choices = list[app_commands.Choice[str]]

#: the options a payment depends on, per command (``to`` is the service's ``kind``)
PAYMENT_OPTIONS = {"build": ("kind", "cell", "age"), "upgrade": ("cell", "to", "at", "age"),
                   "demolish": ("cell", "age"), "populate": ("cell",), "renovate": ("cell",)}


def choices(values: list[str]) -> Choices:
    """Each value as a choice named as it is."""
    return [app_commands.Choice(name=v, value=v) for v in values]


async def _explained(interaction: Interaction, command: str, current: str, values: list[str], *,
                     kind: str | None = None, target: str | None = None) -> Choices:
    """The suggestions, or one entry saying why there are none."""
    if values:
        return choices(values)
    why = await service_of(interaction).why_no_suggestion(caller_of(interaction), command, current, kind=kind,
                                                          target=target)
    return [app_commands.Choice(name=why[:100], value=current.strip()[:100] or "?")]


async def cells(interaction: Interaction, command: str, current: str) -> Choices:
    """The cells ``command`` can use (``upgrade-at``: where the upgraded building can stand)."""
    ns = interaction.namespace
    kind = getattr(ns, "kind", None) or getattr(ns, "to", None)
    target = getattr(ns, "cell", None) if command == "upgrade-at" else None
    try:
        found = await service_of(interaction).suggest_described_cells(
            caller_of(interaction), command, current, kind=kind, age=getattr(ns, "age", None), target=target)
        if found:  # the cell, and what it does to the score: "C4 · +1 Ecu at income: joins the Might domain …"
            return [app_commands.Choice(name=words[:100], value=cell) for cell, words in found]
        return await _explained(interaction, command, current, [], kind=kind, target=target)
    except Exception:
        log.exception("cell autocompletion failed")
        return []


async def cards(interaction: Interaction, command: str, current: str) -> Choices:
    """The card lists ``command`` can take (``swap-take``: from the reserve)."""
    try:
        found = await service_of(interaction).suggest_cards(caller_of(interaction), command, current)
        return await _explained(interaction, command, current, found)
    except Exception:
        log.exception("card autocompletion failed")
        return []


async def payments(interaction: Interaction, command: str, current: str) -> Choices:
    """The ways to pay for ``command`` with the options given so far, each with what it means."""
    ns = interaction.namespace
    options: dict[str, str | None] = {}
    for name in PAYMENT_OPTIONS[command]:
        value = getattr(ns, name, None)
        options["kind" if name == "to" else name] = None if value is None else str(value)
    try:
        pays = await service_of(interaction).suggest_payments(caller_of(interaction), command, options, current)
        if pays:  # the value, and what it means: "MM 1+1 — 2 Military cards, 1 card through each pawn"
            return [app_commands.Choice(name=f"{pay} — {words}"[:100], value=pay) for pay, words in pays]
        return await _explained(interaction, "pay", current, [], target=options.get("cell"))
    except Exception:
        log.exception("payment autocompletion failed")
        return []


__all__ = ["Choices", "cards", "cells", "choices", "payments"]
