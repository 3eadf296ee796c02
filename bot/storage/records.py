"""What the games are made of as stored: statuses, seats, games and actions, and the errors storage
raises. Nothing here knows which database holds them."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final


class Status(enum.StrEnum):
    """Where a game is in its life."""

    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def is_active(self) -> bool:
        """Lobby or playing: the game holds its channel."""
        return self in (Status.LOBBY, Status.PLAYING)


#: status -> the statuses a game may move to from it
TRANSITIONS: Final[Mapping[Status, frozenset[Status]]] = {
    Status.LOBBY: frozenset({Status.PLAYING, Status.CANCELLED}),
    Status.PLAYING: frozenset({Status.FINISHED, Status.CANCELLED}),
    Status.FINISHED: frozenset(),
    Status.CANCELLED: frozenset(),
}


class _Keep(enum.Enum):
    """Type of ``KEEP``."""

    KEEP = "keep"


#: "leave this column as it is" for optional arguments where None is a meaningful value
KEEP: Final = _Keep.KEEP


# ---------------------------------------------------------------------------------------------
# Errors


class StorageError(Exception):
    """Something the database refused; ``str()`` says what and for which game."""


class GameBusyError(StorageError):
    """Another command (in this process or another one on the same database) holds the game's lock
    for longer than a player should wait."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"Game #{game_id} is busy with another move; try again in a moment.")
        self.game_id = game_id


class DatabaseBusyError(StorageError):
    """Another program held the database's write lock for longer than a player should wait (SQLite:
    ``sqlite.BUSY_S``): nothing was changed."""

    def __init__(self) -> None:
        super().__init__("The game is busy (its database is in use elsewhere), so nothing was changed. "
                         "Try again in a moment.")


class DatabaseFaultError(StorageError):
    """The database failed for a reason outside the game: a full disk, a read-only file, a disk error,
    the PostgreSQL server restarting or the connection to it lost. Nothing was written (a transaction
    is all or nothing); play resumes by itself once the fault is over. ``what`` names the fault for the
    host's log; ``str()`` is the sentence a player reads."""

    def __init__(self, what: str) -> None:
        super().__init__(f"The game's database failed ({what}), so this move did not count. It is a fault on "
                         "the host's side, not of your move: try again in a moment, and tell the host if it "
                         "keeps happening.")
        self.what = what


class SchemaError(StorageError):
    """The database file's schema is not one this version of Tiempo can use."""


class GameNotFoundError(StorageError, LookupError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"There is no game #{game_id}.")
        self.game_id = game_id


class ChannelBusyError(StorageError):
    """The channel already has a game that is not finished or cancelled."""

    def __init__(self, channel_id: int, game_id: int) -> None:
        super().__init__(f"Channel {channel_id} already has game #{game_id} in progress.")
        self.channel_id = channel_id
        self.game_id = game_id


class StaleSeqError(StorageError):
    """The game's action log is not where the caller thought: someone else changed the game first."""

    def __init__(self, game_id: int, expected_seq: int, action_count: int) -> None:
        super().__init__(f"Game #{game_id} changed since it was loaded: the caller expected action "
                         f"{expected_seq}, but the game has {action_count} action(s). Reload it and try again.")
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.action_count = action_count


class StatusError(StorageError):
    """The game's status does not allow this change."""

    def __init__(self, game_id: int, status: Status, wanted: str) -> None:
        super().__init__(f"Game #{game_id} is {status.value}; cannot {wanted}.")
        self.game_id = game_id
        self.status = status


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class SeatRecord:
    """One seat: a Discord user, or an AI (``ai_level`` set), and a colour (the rules' colour name)."""

    user_id: int
    name: str
    colour: str
    ai_level: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The seat as stored in the ``seats`` column."""
        return {"user_id": self.user_id, "name": self.name, "colour": self.colour, "ai_level": self.ai_level}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatRecord:
        """A seat from its stored form."""
        return cls(int(data["user_id"]), str(data["name"]), str(data["colour"]), data.get("ai_level"))


@dataclass(frozen=True)
class StandIn:
    """What the AI keeps warm for one person's seat (``GameRecord.stand_ins``). ``misses``: the seat's
    turn time-outs in a row (reset when the person acts); ``by``: why the AI plays the seat now —
    ``"away"`` (the person handed it over) or ``"time"`` (two time-outs in a row) — or None when the
    person plays it; ``back``: the person came back while the AI was playing for them, so the seat is
    theirs once the game no longer waits on it; ``stood``: the AI played the seat at some time in this
    game (told in the final ranking)."""

    seat: int
    misses: int = 0
    by: str | None = None
    back: bool = False
    stood: bool = False

    @property
    def is_standing(self) -> bool:
        """Whether the AI plays the seat now."""
        return self.by is not None

    def to_json(self) -> dict[str, Any]:
        """The entry as stored in the ``stand_ins`` column."""
        return {"seat": self.seat, "misses": self.misses, "by": self.by, "back": self.back, "stood": self.stood}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StandIn:
        """An entry from its stored form."""
        return cls(int(data["seat"]), int(data.get("misses", 0)), data.get("by"), bool(data.get("back")),
                   bool(data.get("stood")))


def with_stand_in(stand_ins: tuple[StandIn, ...], entry: StandIn) -> tuple[StandIn, ...]:
    """``stand_ins`` with ``entry`` in place of its seat's (an entry with nothing to keep is dropped),
    in seat order."""
    kept = [s for s in stand_ins if s.seat != entry.seat]
    if entry != StandIn(entry.seat):
        kept.append(entry)
    return tuple(sorted(kept, key=lambda s: s.seat))


@dataclass(frozen=True)
class GameRecord:
    """A game as stored. ``action_count`` is also the game's version: the seq of its last action."""

    id: int
    guild_id: int
    channel_id: int
    opener_id: int
    status: Status
    options: Mapping[str, Any]
    seats: tuple[SeatRecord, ...]
    seed: int
    created_at: float
    updated_at: float
    snapshot: str | None
    action_count: int
    turn_deadline: float | None
    half_warned: bool
    #: the seats the AI keeps warm, or counts the time-outs of (one entry per seat that has any)
    stand_ins: tuple[StandIn, ...] = ()
    #: how many hints each seat asked for, by seat (seats past the end asked for none)
    hints: tuple[int, ...] = ()

    def hints_of(self, seat: int) -> int:
        """How many hints seat ``seat`` asked for."""
        return self.hints[seat] if seat < len(self.hints) else 0

    def stand_in(self, seat: int) -> StandIn:
        """What the AI keeps of seat ``seat`` (an empty entry when nothing)."""
        return next((s for s in self.stand_ins if s.seat == seat), StandIn(seat))

    @property
    def next_seq(self) -> int:
        """The seq the next appended action takes (what ``append_action`` expects)."""
        return self.action_count + 1

    @property
    def is_active(self) -> bool:
        """Lobby or playing."""
        return self.status.is_active


#: the ``actor_id`` of an action played for a person's seat rather than by them: by the AI while it
#: keeps their seat warm (away, or two time-outs in a row), or by the turn clock when their time was up.
#: No Discord user has it. Actions stored before it existed carry the person's own id.
PLAYED_FOR_SEAT: Final = -1


@dataclass(frozen=True)
class ActionRecord:
    """One accepted action of a game's log, numbered from 1. ``actor_id`` is who played it: the
    person (or the AI seat's own id), or ``PLAYED_FOR_SEAT`` for one the AI or the clock played for a
    person."""

    game_id: int
    seq: int
    actor_id: int
    action: str
    created_at: float

    @property
    def played_for_seat(self) -> bool:
        """Whether the AI or the turn clock played it for the seat's person (``PLAYED_FOR_SEAT``)."""
        return self.actor_id == PLAYED_FOR_SEAT

