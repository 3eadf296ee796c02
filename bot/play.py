"""Playing a game from commands: who sits where, turning a command's options into an engine action,
refusing what a player may not do with a sentence that says why, and undo by replay.

Pure (no Discord, no storage): the slash-command handlers call ``act`` and store what it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules import (
    Action,
    Age,
    Choose,
    Colour,
    GameState,
    NotationError,
    Options,
    RuleError,
    apply,
    describe_decision,
    new_game,
    parse_action,
)
from rules import events as ev

from .texts import who
from .words import Code, Command, Text, as_text, say


class Refusal(Exception):
    """Something a player asked for that cannot be done; ``text`` is what to tell them (privately),
    ``str()`` the same in plain words. The game is unchanged."""

    def __init__(self, text: Text | str) -> None:
        self.text = as_text(text)
        super().__init__(self.text.plain())


@dataclass(frozen=True)
class Seat:
    """A seat at the table: a Discord user (or an AI, with ``ai`` set to its level) and a colour."""

    user_id: int
    name: str
    colour: Colour
    ai: str | None = None


def start(seats: Sequence[Seat], *, seed: int, holdem: bool = False) -> GameState:
    """The first position of a game for these seats (R9–R10)."""
    return new_game([s.name for s in seats], seed=seed, options=Options(holdem=holdem),
                    colours=[s.colour for s in seats])


def seat_of(seats: Sequence[Seat], user_id: int) -> int:
    """The seat of ``user_id``; a Refusal if the user is not playing."""
    for i, seat in enumerate(seats):
        if seat.user_id == user_id and seat.ai is None:
            return i
    raise Refusal(say("You are not playing in this game. Watch, or ask for a seat in the next one ({new}).",
                      new=Command("new")))


#: command -> how its options make an action in the notation (docs/notation.md)
TEMPLATES: dict[str, str] = {
    "travel": "travel {pawn} {age}",
    "build": "build {kind} {cell} on {age}",
    "upgrade": "upgrade {cell} on {age} to {kind}",
    "demolish": "demolish {cell} on {age}",
    "populate": "populate {cell}",
    "renovate": "renovate {cell}",
    "exchange": "exchange {cards}",
    "swap": "swap take {take} give {give}",
    "end": "end",
    "choose": "choose {cell}",
}


def action_text(command: str, options: dict[str, str | None]) -> str:
    """The notation of a command from its options: ``build`` with kind Keep, cell B2, age M gives
    ``build Keep B2 on M``; optional ``at``, ``pay`` and ``discard`` options are appended."""
    given = {k: v.strip() for k, v in options.items() if v is not None and v.strip()}
    template = TEMPLATES[command]
    if "age" not in given:  # the board may be left out when the pawns leave no doubt
        template = template.replace(" on {age}", "")
    try:
        text = template.format(**given)
    except KeyError as missing:
        raise Refusal(say("{command} needs the option {option}.", command=Command(command),
                          option=missing.args[0])) from None
    if command == "upgrade" and "at" in given:
        text += f" at {given['at']}"
    if "pay" in given:
        text += f" pay {given['pay']}"
    if command == "end" and "discard" in given:
        text += f" discard {given['discard']}"
    return text


def act(state: GameState, seats: Sequence[Seat], user_id: int, command: str,
        options: dict[str, str | None]) -> tuple[GameState, list[ev.Event], Action]:
    """Play ``command`` for ``user_id``. Returns the new state, the events and the action played;
    raises Refusal with the reason (not seated, not your turn, a decision pending, bad input, or the
    rule that forbids it)."""
    seat = seat_of(seats, user_id)
    if state.finished:
        raise Refusal(say("This game is over. Start another with {new}.", new=Command("new")))
    if state.pending is not None:
        d = state.pending.decision
        if command != "choose" or d.player != seat:
            if d.player == seat:
                raise Refusal(say("First {what} — use {choose}.", what=describe_decision(state, d),
                                  choose=Command("choose")))
            raise Refusal(f"Waiting for {who(state, d.player)} to {describe_decision(state, d)}.")
    elif command == "choose":
        raise Refusal("There is no decision to make right now.")
    elif state.active != seat:
        raise Refusal(f"It is {who(state, state.active)}'s turn, not yours.")
    if command in BOARD_COMMANDS and not (options.get("age") or "").strip():
        return _on_the_one_board(state, seat, command, options)
    return _play(state, seat, command, options)


#: commands whose board is given by ``age:`` (Might or Faith), or found when only one fits
BOARD_COMMANDS = ("build", "upgrade", "demolish")


def _play(state: GameState, seat: int, command: str,
          options: dict[str, str | None]) -> tuple[GameState, list[ev.Event], Action]:
    text = f"{state.players[seat].colour.value} {action_text(command, options)}"
    try:
        action = parse_action(text, state)
        new, events = apply(state, action)
    except (RuleError, NotationError) as err:  # the player's mistake; anything else is a bug
        raise Refusal(str(err)) from None
    return new, events, action


def _on_the_one_board(state: GameState, seat: int, command: str,
                      options: dict[str, str | None]) -> tuple[GameState, list[ev.Event], Action]:
    """A build, upgrade or demolition given without ``age:``: played on the one board where it is
    legal; where it is legal on both, the player is asked which; where on neither, the refusal for
    the board of the first pawn says why."""
    boards = [age for age in (Age.MIGHT, Age.FAITH) if age in state.players[seat].pawns]
    played: list[tuple[GameState, list[ev.Event], Action]] = []
    refusals: list[Refusal] = []
    for age in boards or [Age.MIGHT]:
        try:
            played.append(_play(state, seat, command, {**options, "age": age.letter}))
        except Refusal as refusal:
            refusals.append(refusal)
    if len(played) == 1:
        return played[0]
    if played:
        raise Refusal(say("This can be played on Might or on Faith: say which with {age}.", age=Code("age:")))
    raise refusals[0]


def replay(first: GameState, actions: Sequence[Action]) -> GameState:
    """The state after ``actions`` from ``first`` (the engine is deterministic)."""
    state = first
    for a in actions:
        state, _ = apply(state, a)
    return state


def undo_span(state: GameState, seat: int, done: Sequence[tuple[Action, Sequence[ev.Event]]]) -> int:
    """How many of the last actions ``done`` (with their events, oldest first) an undo by ``seat`` takes
    back: the player's own last action of the turn they are playing, with every answer given to the
    questions it raised (whoever gave them), as long as none of it revealed a hidden card. Raises
    Refusal saying why there is nothing to undo."""
    i = len(done) - 1
    while i >= 0 and isinstance(done[i][0], Choose):  # the answers to what the action asked
        i -= 1
    if i < 0:
        raise Refusal("Nothing to undo yet.")
    action, events = done[i]
    if action.player != seat or state.active != seat or any(isinstance(e, ev.TurnEnded) for e in events):
        raise Refusal("Nothing of yours to undo: undo takes back only your own last action of the turn you are "
                      "playing.")
    if any(isinstance(e, (ev.CardsDrawn, ev.Reshuffled, ev.TurnEnded)) for _, evs in done[i:] for e in evs):
        raise Refusal("That action drew cards or ended the turn, so it cannot be undone.")
    return len(done) - i
