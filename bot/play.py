"""Playing a game from commands: who sits where, turning a command's options into an engine action,
refusing what a player may not do with a sentence that says why (and a code), and how far an undo goes.

Pure (no Discord, no storage): the service (``bot.service.moves``) calls ``act`` and stores what it
returns. The errors a player may meet are here: ``Refusal`` (with a ``RefusalCode``) and ``Stale``;
``Disagreement`` is the bot's own fault.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum

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

from .storage import SeatRecord
from .texts import who
from .words import Code, Command, Text, as_text, say


class RefusalCode(Enum):
    """Why a request is refused, for code that acts on the reason rather than the words (as
    boardgame.io's ``InactivePlayer``, ``GameOver``): the words say it to the player."""

    NO_GAME = "no game"  #: no game in this channel (or of this id)
    NOT_STARTED = "not started"  #: the game is still a lobby, or was cancelled before it started
    STARTED = "started"  #: the game has started: the lobby's seats are fixed
    GAME_OVER = "game over"  #: the game ended or was cancelled
    NOT_SEATED = "not seated"  #: the caller does not play in this game
    SEATS = "seats"  #: the lobby is full, or the caller is already seated
    NOT_ALLOWED = "not allowed"  #: only the opener (or a channel manager, or a player) may do this
    BUSY = "busy"  #: the channel already has a game
    MOVED_ON = "moved on"  #: a button or panel drawn for a position the game has left (stale)
    NOT_YOUR_TURN = "not your turn"  #: another player is to move, or to answer a question
    DECISION_FIRST = "decision first"  #: the caller has a question to answer first
    NO_DECISION = "no decision"  #: ``choose`` with no question open
    NOTHING_TO_UNDO = "nothing to undo"  #: nothing of the caller's that undo may take back
    RULES = "rules"  #: the rules refuse the action (a ``rules.RuleError``: it names the rule)
    BAD_INPUT = "bad input"  #: text or options that cannot be read (a ``rules.NotationError``, a bad value)
    INCOMPLETE = "incomplete"  #: more must be said (an option left out, the board, the origin, the payment)
    STOOD_IN = "stood in"  #: the AI plays the caller's seat for now (or does not, for ``back``)
    OTHER = "other"  #: a refusal that names no code (a front end's own)


class Refusal(Exception):
    """Something a player asked for that cannot be done; ``text`` is what to tell them (privately),
    ``str()`` the same in plain words, ``code`` why, for code. The game is unchanged."""

    def __init__(self, text: Text | str, code: RefusalCode = RefusalCode.OTHER) -> None:
        self.text = as_text(text)
        self.code = code
        super().__init__(self.text.plain())


class Stale(Refusal):
    """A button or panel drawn for a position the game has since left (its version is not the
    game's): nothing was played; show the game as it is now."""

    def __init__(self, text: Text | str) -> None:
        super().__init__(text, RefusalCode.MOVED_ON)


class Disagreement(RuntimeError):
    """The engine refused an action that its own list of legal actions offered (``legal_actions``
    and ``apply`` disagree): a fault of the bot, never the player's. Raised from the ``RuleError``."""


def start(seats: Sequence[SeatRecord], *, seed: int, holdem: bool = False) -> GameState:
    """The first position of a game for these seats (R9–R10)."""
    return new_game([s.name for s in seats], seed=seed, options=Options(holdem=holdem),
                    colours=[Colour(s.colour) for s in seats])


def seat_of(seats: Sequence[SeatRecord], user_id: int) -> int:
    """The seat of ``user_id`` (a person: an AI seat is no one's); a Refusal if the user is not
    playing. (``bot.service.games.find_seat`` answers None instead.)"""
    for i, seat in enumerate(seats):
        if seat.user_id == user_id and seat.ai_level is None:
            return i
    raise Refusal(say("You are not playing in this game. Watch, or ask for a seat in the next one ({new}).",
                      new=Command("new")), RefusalCode.NOT_SEATED)


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
                          option=missing.args[0]), RefusalCode.INCOMPLETE) from None
    if command == "upgrade" and "at" in given:
        text += f" at {given['at']}"
    if "pay" in given:
        text += f" pay {given['pay']}"
    if command == "end" and "discard" in given:
        text += f" discard {given['discard']}"
    return text


def act(state: GameState, seats: Sequence[SeatRecord], user_id: int, command: str,
        options: dict[str, str | None]) -> tuple[GameState, list[ev.Event], Action]:
    """Play ``command`` for ``user_id``. Returns the new state, the events and the action played;
    raises Refusal with the reason (not seated, not your turn, a decision pending, bad input, or the
    rule that forbids it)."""
    seat = seat_of(seats, user_id)
    if state.finished:
        raise Refusal(say("This game is over. Start another with {new}.", new=Command("new")), RefusalCode.GAME_OVER)
    if state.pending is not None:
        d = state.pending.decision
        if command != "choose" or d.player != seat:
            if d.player == seat:
                raise Refusal(say("First {what} — use {choose}.", what=describe_decision(state, d),
                                  choose=Command("choose")), RefusalCode.DECISION_FIRST)
            raise Refusal(say("Waiting for {who} to {what}.", who=who(state, d.player),
                              what=describe_decision(state, d)),
                          RefusalCode.NOT_YOUR_TURN)
    elif command == "choose":
        raise Refusal("There is no decision to make right now.", RefusalCode.NO_DECISION)
    elif state.active != seat:
        raise Refusal(say("It is {who}'s turn, not yours.", who=who(state, state.active)), RefusalCode.NOT_YOUR_TURN)
    if command in BOARD_COMMANDS and not (options.get("age") or "").strip():
        return _on_the_one_board(state, seat, command, options)
    return _play(state, seat, command, options)


#: commands whose board is given by ``age:`` (Might or Faith), or found when only one fits
BOARD_COMMANDS = ("build", "upgrade", "demolish")


#: a payment as typed: the cards, then (optionally) how many each pawn plays, ``MM 1+1``
_PAYMENT = re.compile(r"[MRC]+(\s+\d\+\d)?", re.IGNORECASE)
_CARDS = re.compile(r"[MRC]+", re.IGNORECASE)


def _check_typed(command: str, options: dict[str, str | None]) -> None:
    """The options the notation would refuse in its own words (a colour, 'on M'): refused in the
    command's, with an example of the command as typed."""
    pawn = (options.get("pawn") or "").strip()
    if command == "travel" and pawn and pawn not in ("1", "2"):
        raise Refusal(say("{pawn} is 1 or 2 (each player has two pawns), e.g. {example}.", pawn=Code("pawn"),
                          example=Command("travel", "1 Faith")), RefusalCode.BAD_INPUT)
    pay = (options.get("pay") or "").strip()
    if pay and _CARDS.fullmatch(pay.split()[0]) and not _PAYMENT.fullmatch(pay):  # (bad cards: the rules say so)
        raise Refusal(say("{pay} is the cards, then how many each pawn plays, e.g. {example} (or the cards alone: "
                          "the pawns are then chosen for you).", pay=Code("pay"), example=Code("MM 1+1")),
                      RefusalCode.BAD_INPUT)


def _play(state: GameState, seat: int, command: str,
          options: dict[str, str | None]) -> tuple[GameState, list[ev.Event], Action]:
    _check_typed(command, options)
    text = f"{state.players[seat].colour.value} {action_text(command, options)}"
    try:
        action = parse_action(text, state)
    except NotationError as err:  # the player's mistake; anything else is a bug
        raise Refusal(str(err), RefusalCode.BAD_INPUT) from None
    return (*refused_or_applied(state, action), action)


def refused_or_applied(state: GameState, action: Action) -> tuple[GameState, list[ev.Event]]:
    """``apply(state, action)`` for an action a player named; the rules' refusal (a RuleError) as a
    Refusal that cites the rule."""
    try:
        return apply(state, action)
    except RuleError as err:
        raise Refusal(str(err), RefusalCode.RULES) from None


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
        raise Refusal(say("This can be played on Might or on Faith: say which with {age}.", age=Code("age:")),
                      RefusalCode.INCOMPLETE)
    raise refusals[0]


def undo_span(state: GameState, seat: int, done: Sequence[tuple[Action, Sequence[ev.Event]]]) -> int:
    """How many of the last actions ``done`` (with their events, oldest first) an undo by ``seat`` takes
    back: the player's own last action of the turn they are playing, with every answer given to the
    questions it raised (whoever gave them), as long as none of it revealed a hidden card. Raises
    Refusal saying why there is nothing to undo."""
    i = len(done) - 1
    while i >= 0 and isinstance(done[i][0], Choose):  # the answers to what the action asked
        i -= 1
    if i < 0:
        raise Refusal("Nothing to undo yet.", RefusalCode.NOTHING_TO_UNDO)
    action, events = done[i]
    if action.player != seat or state.active != seat or any(isinstance(e, ev.TurnEnded) for e in events):
        raise Refusal("Nothing of yours to undo: undo takes back only your own last action of the turn you are "
                      "playing.", RefusalCode.NOTHING_TO_UNDO)
    if any(isinstance(e, (ev.CardsDrawn, ev.Reshuffled, ev.TurnEnded)) for _, evs in done[i:] for e in evs):
        raise Refusal("That action drew cards or ended the turn, so it cannot be undone.", RefusalCode.NOTHING_TO_UNDO)
    return len(done) - i
