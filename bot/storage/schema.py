"""The tables, the steps that build them, and the rows read back as records.

Both backends have the same tables, columns and constraints, and the same numbered migration steps;
only a step's SQL may differ per backend (SQLite's ``AUTOINCREMENT`` is PostgreSQL's identity column).
Queries are written once, with ``?`` placeholders; the PostgreSQL backend numbers them (``$1``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from .records import ActionRecord, GameRecord, SchemaError, SeatRecord, StandIn, Status

Dialect = Literal["sqlite", "postgresql"]


class Row(Protocol):
    """A row as both drivers give it: by column name or position (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: Any, /) -> Any: ...


@dataclass(frozen=True)
class Step:
    """One migration step: the statements taking the schema one version up, run in one transaction."""

    sqlite: tuple[str, ...]
    postgresql: tuple[str, ...]

    @classmethod
    def same(cls, *statements: str) -> Step:
        """A step written the same way for both backends."""
        return cls(statements, statements)

    def statements(self, dialect: Dialect) -> tuple[str, ...]:
        """The step's statements for ``dialect``."""
        return self.sqlite if dialect == "sqlite" else self.postgresql


_ACTIVE_INDEX = """
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status IN ('lobby', 'playing')
"""
_STATUS_INDEX = "CREATE INDEX games_by_status ON games (status, id)"
_DEADLINE_INDEX = "CREATE INDEX games_by_deadline ON games (turn_deadline) WHERE turn_deadline IS NOT NULL"

# Step 2: the games' locks between processes (SQLite: a row per held lock, with the time it lapses;
# PostgreSQL uses advisory locks instead, so the table stays empty there) and the outbox: the channel
# posts an action causes, stored with it and deleted once sent.
_LOCKS_AND_OUTBOX: Final = Step(
    sqlite=(
        """
        CREATE TABLE game_locks (
            game_id INTEGER PRIMARY KEY,
            holder  TEXT    NOT NULL,
            until   REAL    NOT NULL
        )
        """,
        """
        CREATE TABLE outbox (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            guild_id   INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            body       TEXT    NOT NULL,
            created_at REAL    NOT NULL
        )
        """,
        "CREATE INDEX outbox_by_guild ON outbox (guild_id, id)",
    ),
    postgresql=(
        """
        CREATE TABLE game_locks (
            game_id BIGINT PRIMARY KEY,
            holder  TEXT   NOT NULL,
            until   DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE outbox (
            id         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            guild_id   BIGINT  NOT NULL,
            channel_id BIGINT  NOT NULL,
            body       TEXT    NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        )
        """,
        "CREATE INDEX outbox_by_guild ON outbox (guild_id, id)",
    ),
)

# Step 4: the games' board message is no longer recorded (the channel's live message is the courier's).
_NO_BOARD_MESSAGE: Final = Step.same("ALTER TABLE games DROP COLUMN board_message_id")


def _community_tables(big: str, real: str) -> tuple[str, ...]:
    """Step 5's statements, with the backend's names of a 64-bit integer and a double."""
    return (
        # one row per seat of a finished game; the people's rows make profiles (ai = 0), all of a
        # game's rows say that it was recorded. rated: the game counts for the ratings (two or more
        # people, no AI seat).
        f"""
        CREATE TABLE results (
            game_id       {big}   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat          INTEGER NOT NULL CHECK (seat >= 0),
            guild_id      {big}   NOT NULL,
            channel_id    {big}   NOT NULL,
            user_id       {big}   NOT NULL,
            name          TEXT    NOT NULL,
            ai            SMALLINT NOT NULL DEFAULT 0 CHECK (ai IN (0, 1)),
            players       INTEGER NOT NULL,
            place         INTEGER NOT NULL CHECK (place >= 1),
            ecus          INTEGER NOT NULL,
            won           SMALLINT NOT NULL DEFAULT 0 CHECK (won IN (0, 1)),
            rated         SMALLINT NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
            finished_at   {real}  NOT NULL,
            ripples       INTEGER NOT NULL DEFAULT 0,
            paradoxes     INTEGER NOT NULL DEFAULT 0,
            cards         INTEGER NOT NULL DEFAULT 0,
            built_might   INTEGER NOT NULL DEFAULT 0,
            built_faith   INTEGER NOT NULL DEFAULT 0,
            built_reason  INTEGER NOT NULL DEFAULT 0,
            income_might  INTEGER NOT NULL DEFAULT 0,
            income_faith  INTEGER NOT NULL DEFAULT 0,
            income_reason INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (game_id, seat)
        )
        """,
        # a profile on one server, and across servers: a player's rows, latest first
        "CREATE INDEX results_by_player ON results (guild_id, user_id, finished_at)",
        "CREATE INDEX results_by_user ON results (user_id, finished_at)",
        # a server's ratings: Plackett-Luce's mu and sigma, and the number shown (bot/service/ratings.py)
        f"""
        CREATE TABLE ratings (
            guild_id   {big}   NOT NULL,
            user_id    {big}   NOT NULL,
            name       TEXT    NOT NULL,
            mu         {real}  NOT NULL,
            sigma      {real}  NOT NULL,
            rating     INTEGER NOT NULL,
            games      INTEGER NOT NULL DEFAULT 0,
            updated_at {real}  NOT NULL,
            PRIMARY KEY (guild_id, user_id)
        )
        """,
        "CREATE INDEX ratings_board ON ratings (guild_id, rating DESC, user_id)",
        # what each rated game changed: the number shown before and after, and the model's state after
        f"""
        CREATE TABLE rating_changes (
            game_id  {big}   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            user_id  {big}   NOT NULL,
            guild_id {big}   NOT NULL,
            rating_before INTEGER NOT NULL,
            rating_after  INTEGER NOT NULL,
            mu       {real}  NOT NULL,
            sigma    {real}  NOT NULL,
            PRIMARY KEY (game_id, user_id)
        )
        """,
    )

# Step 6: what each person has learnt (bot/storage/progress.py): the course's lessons they finished and
# the first-time tips they were given, one row per person and item.
_PROGRESS: Final = Step(
    sqlite=(
        """
        CREATE TABLE progress (
            user_id INTEGER NOT NULL,
            item    TEXT    NOT NULL,
            done_at REAL    NOT NULL,
            PRIMARY KEY (user_id, item)
        ) WITHOUT ROWID
        """,
    ),
    postgresql=(
        """
        CREATE TABLE progress (
            user_id BIGINT NOT NULL,
            item    TEXT   NOT NULL,
            done_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (user_id, item)
        )
        """,
    ),
)


def _notify_tables(big: str, real: str, key: str) -> tuple[str, ...]:
    """Step 7's statements, with the backend's names of a 64-bit integer, a double and an id column."""
    return (
        # how each person is told of their turn (bot/storage/notify.py): channel, dm or off; told_closed:
        # they were told once that their direct messages are closed
        f"""
        CREATE TABLE notify_settings (
            user_id     {big}    PRIMARY KEY,
            mode        TEXT     NOT NULL DEFAULT 'channel' CHECK (mode IN ('channel', 'dm', 'off')),
            told_closed SMALLINT NOT NULL DEFAULT 0 CHECK (told_closed IN (0, 1)),
            updated_at  {real}   NOT NULL
        )
        """,
        # the direct outbox: a direct message to a person, stored with the action that makes it due,
        # sent when due_at comes while the game still has seq actions, then deleted
        f"""
        CREATE TABLE direct_outbox (
            id         {key},
            game_id    {big}   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            guild_id   {big}   NOT NULL,
            channel_id {big}   NOT NULL,
            user_id    {big}   NOT NULL,
            seq        INTEGER NOT NULL,
            due_at     {real}  NOT NULL,
            body       TEXT    NOT NULL,
            fallback   TEXT    NOT NULL,
            created_at {real}  NOT NULL
        )
        """,
        "CREATE INDEX direct_outbox_due ON direct_outbox (due_at, id)",
    )


#: migration i takes the schema from version i to version i + 1. Never edit a released step: add one.
MIGRATIONS: Final[tuple[Step, ...]] = (
    Step(
        sqlite=(
            # Game ids are never reused (AUTOINCREMENT): buttons on old messages carry them.
            """
            CREATE TABLE games (
                id               INTEGER PRIMARY KEY AUTOINCREMENT,
                guild_id         INTEGER NOT NULL,
                channel_id       INTEGER NOT NULL,
                opener_id        INTEGER NOT NULL,
                status           TEXT    NOT NULL DEFAULT 'lobby'
                                 CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
                options          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
                seats            TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(seats)),
                seed             INTEGER NOT NULL,
                created_at       REAL    NOT NULL,
                updated_at       REAL    NOT NULL,
                snapshot         TEXT,
                action_count     INTEGER NOT NULL DEFAULT 0 CHECK (action_count >= 0),
                turn_deadline    REAL,
                half_warned      INTEGER NOT NULL DEFAULT 0 CHECK (half_warned IN (0, 1)),
                board_message_id INTEGER,
                CHECK (snapshot IS NOT NULL OR status IN ('lobby', 'cancelled'))
            )
            """,
            _ACTIVE_INDEX,  # at most one game that is not over per channel
            _STATUS_INDEX,
            _DEADLINE_INDEX,
            """
            CREATE TABLE actions (
                game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                seq        INTEGER NOT NULL CHECK (seq >= 1),
                actor_id   INTEGER NOT NULL,
                action     TEXT    NOT NULL,
                created_at REAL    NOT NULL,
                PRIMARY KEY (game_id, seq)
            ) WITHOUT ROWID
            """,
        ),
        postgresql=(
            # An identity column draws ids from a sequence, which never hands one out twice. The json
            # type checks the text and keeps it as written.
            """
            CREATE TABLE games (
                id               BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                guild_id         BIGINT  NOT NULL,
                channel_id       BIGINT  NOT NULL,
                opener_id        BIGINT  NOT NULL,
                status           TEXT    NOT NULL DEFAULT 'lobby'
                                 CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
                options          JSON    NOT NULL DEFAULT '{}',
                seats            JSON    NOT NULL DEFAULT '[]',
                seed             BIGINT  NOT NULL,
                created_at       DOUBLE PRECISION NOT NULL,
                updated_at       DOUBLE PRECISION NOT NULL,
                snapshot         TEXT,
                action_count     INTEGER NOT NULL DEFAULT 0 CHECK (action_count >= 0),
                turn_deadline    DOUBLE PRECISION,
                half_warned      SMALLINT NOT NULL DEFAULT 0 CHECK (half_warned IN (0, 1)),
                board_message_id BIGINT,
                CHECK (snapshot IS NOT NULL OR status IN ('lobby', 'cancelled'))
            )
            """,
            _ACTIVE_INDEX,
            _STATUS_INDEX,
            _DEADLINE_INDEX,
            """
            CREATE TABLE actions (
                game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                seq        INTEGER NOT NULL CHECK (seq >= 1),
                actor_id   BIGINT  NOT NULL,
                action     TEXT    NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (game_id, seq)
            )
            """,
        ),
    ),
    _LOCKS_AND_OUTBOX,
    # Step 3: a seed too big for a 64-bit column (the keyed seeds new games are dealt from: 128 bits of
    # key) is kept as its decimal text in seed_text, and seed is then 0; older games keep their seed.
    # A channel's games by id, newest first: the last game that ended there is found without reading
    # the server's other games.
    Step.same("ALTER TABLE games ADD COLUMN seed_text TEXT", "CREATE INDEX games_by_channel ON games (channel_id, id)"),
    # Step 4: the board message's id, which nothing reads any more, goes.
    _NO_BOARD_MESSAGE,
    # Step 5: what the players keep of their finished games (bot/storage/community.py): a result per seat,
    # the skill ratings per server, and each rated game's change of rating.
    Step(sqlite=_community_tables("INTEGER", "REAL"), postgresql=_community_tables("BIGINT", "DOUBLE PRECISION")),
    # Step 6: what each person has learnt (the course's lessons, the first-time tips).
    _PROGRESS,
    # Step 7: how each person is told of their turn (/tiempo notify), and the direct messages waiting
    # to tell them (bot/storage/notify.py).
    Step(sqlite=_notify_tables("INTEGER", "REAL", "INTEGER PRIMARY KEY AUTOINCREMENT"),
         postgresql=_notify_tables("BIGINT", "DOUBLE PRECISION", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")),
    # Step 8: the seats the AI keeps warm (a person away, or whose turn timed out twice in a row) and the
    # time-outs in a row per seat: a JSON list of ``StandIn`` entries, NULL when there are none.
    Step.same("ALTER TABLE games ADD COLUMN stand_ins TEXT"),
    # Step 9: how many hints each seat asked for (a JSON list of counts by seat, NULL when none yet).
    Step.same("ALTER TABLE games ADD COLUMN hints TEXT"),
    # Step 10: an outbox post's pictures as binary (their bytes one after the other; the body's JSON
    # says where each ends), NULL when it has none; posts stored before keep theirs in base64 in the body.
    Step(sqlite=("ALTER TABLE outbox ADD COLUMN pictures BLOB",),
         postgresql=("ALTER TABLE outbox ADD COLUMN pictures BYTEA",)),
    # Step 11: PostgreSQL stores an outbox post's pictures as they are, without trying to compress them
    # (PNGs are compressed already: trying cost the server about a third of its CPU per action, which
    # runs on the bot's core); SQLite never compresses.
    Step(sqlite=(), postgresql=("ALTER TABLE outbox ALTER COLUMN pictures SET STORAGE EXTERNAL",)),
)


#: the schema version this code writes
SCHEMA_VERSION: Final = len(MIGRATIONS)


def next_step(name: str, version: int) -> Step | None:
    """The migration step after schema ``version`` of the database ``name``, or None when it is
    current. Raises SchemaError for a database written by a newer Tiempo."""
    if version > SCHEMA_VERSION:
        raise SchemaError(f"{name}: the database has schema version {version}, newer than this Tiempo knows "
                          f"({SCHEMA_VERSION}). Upgrade Tiempo.")
    return MIGRATIONS[version] if version < SCHEMA_VERSION else None

GAME_COLUMNS: Final = (
    "id, guild_id, channel_id, opener_id, status, options, seats, seed, created_at, updated_at, snapshot, "
    "action_count, turn_deadline, half_warned, seed_text, stand_ins, hints"
)
ACTION_COLUMNS: Final = "game_id, seq, actor_id, action, created_at"

#: games whose action_count disagrees with their log: (id, action_count, actions, highest seq)
BROKEN_LOGS: Final = (
    "SELECT g.id, g.action_count, COUNT(a.seq), COALESCE(MAX(a.seq), 0) FROM games g "
    "LEFT JOIN actions a ON a.game_id = g.id GROUP BY g.id, g.action_count "
    "HAVING g.action_count != COUNT(a.seq) OR g.action_count != COALESCE(MAX(a.seq), 0)"
)


def game_of(row: Row) -> GameRecord:
    """A GameRecord from a row of ``GAME_COLUMNS``."""
    return GameRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        opener_id=row["opener_id"],
        status=Status(row["status"]),
        options=json.loads(row["options"]),
        seats=tuple(SeatRecord.from_json(s) for s in json.loads(row["seats"])),
        seed=int(row["seed_text"]) if row["seed_text"] is not None else row["seed"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        snapshot=row["snapshot"],
        action_count=row["action_count"],
        turn_deadline=row["turn_deadline"],
        half_warned=bool(row["half_warned"]),
        stand_ins=tuple(StandIn.from_json(s) for s in json.loads(row["stand_ins"] or "[]")),
        hints=tuple(int(n) for n in json.loads(row["hints"] or "[]")),
    )


def action_of(row: Row) -> ActionRecord:
    """An ActionRecord from a row of ``ACTION_COLUMNS``."""
    return ActionRecord(row["game_id"], row["seq"], row["actor_id"], row["action"], row["created_at"])


#: the largest seed the ``seed`` column holds (a signed 64-bit integer); a larger one goes in ``seed_text``
SEED_COLUMN_MAX: Final = 2**63 - 1


def seed_columns(seed: int) -> tuple[int, str | None]:
    """The ``seed`` and ``seed_text`` columns for ``seed``."""
    return (seed, None) if 0 <= seed <= SEED_COLUMN_MAX else (0, str(seed))


def seats_json(seats: Sequence[SeatRecord]) -> str:
    """The ``seats`` column for ``seats``."""
    return json.dumps([s.to_json() for s in seats], ensure_ascii=False)


def stand_ins_json(stand_ins: Sequence[StandIn]) -> str | None:
    """The ``stand_ins`` column for ``stand_ins`` (NULL for none)."""
    return json.dumps([s.to_json() for s in stand_ins]) if stand_ins else None


def options_json(options: Mapping[str, Any]) -> str:
    """The ``options`` column for ``options``."""
    return json.dumps(dict(options), ensure_ascii=False, sort_keys=True)


def now_or(now: float | None) -> float:
    """``now`` (as a float), or the wall clock when None."""
    return time.time() if now is None else float(now)
