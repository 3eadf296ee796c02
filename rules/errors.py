"""The one error a refused action raises."""

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
