"""The two errors a player can cause: an action the rules refuse, and text that cannot be read."""

from __future__ import annotations


class RuleError(ValueError):
    """An action the rules refuse. ``str(error)`` is the sentence to show the player.

    ``code`` is a stable machine-readable reason (``not-your-turn``, ``hierarchy``, ...) and
    ``rule`` the digest rule it enforces (``R43``), or ``""`` for input that is simply malformed.
    The state the action was applied to is never changed by a refused action.
    """

    def __init__(self, code: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.message = message

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.rule!r}, {self.message!r})"


class NotationError(ValueError):
    """Text that cannot be read: a cell, an Age, a building, a colour, a list of cards, an action or a
    position written wrongly. ``str(error)`` says what is wrong and shows good input (``e.g. C4``).

    Nothing was applied: a state is never changed by text that could not be read.
    """
