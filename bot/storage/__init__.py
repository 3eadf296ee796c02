"""Games on disk: a SQLite file (a path, the default) or a PostgreSQL database (a ``postgresql://`` URL),
behind one interface, ``Storage``.

* ``records``  — statuses, seats, games, actions, and the errors storage raises;
* ``schema``   — the tables and their migration steps (per backend where the SQL differs);
* ``backend``  — what ``Storage`` needs of a database (``Database``, ``Tx``), and database URLs;
* ``sqlite``, ``postgres`` — the two backends (asyncpg is imported only for a PostgreSQL URL);
* ``store``    — ``Storage``: every query, written once;
* ``outbox``   — the posts stored with the actions that cause them, until they are sent;
* ``progress`` — what each person has learnt: the lessons of the course, the tips;
* ``check``    — the start-up check, which explains in one sentence why a database cannot be used;
* ``copy``     — every game copied to another database (``tiempo-bot copy-games``).
"""

from .backend import Database, has_password, is_postgres_url, without_password
from .hints import HintCounts
from .notify import MODES, Letter, Notices, QueuedLetter
from .outbox import Body, Posted, PostQueue, QueuedPost
from .progress import Progress
from .records import (
    KEEP,
    PLAYED_FOR_SEAT,
    TRANSITIONS,
    ActionRecord,
    ChannelBusyError,
    DatabaseBusyError,
    DatabaseFaultError,
    GameBusyError,
    GameNotFoundError,
    GameRecord,
    SchemaError,
    SeatRecord,
    StaleSeqError,
    StandIn,
    Status,
    StatusError,
    StorageError,
    with_stand_in,
)
from .schema import MIGRATIONS, SCHEMA_VERSION, Step
from .store import Storage

__all__ = [
    "KEEP",
    "MIGRATIONS",
    "MODES",
    "PLAYED_FOR_SEAT",
    "SCHEMA_VERSION",
    "TRANSITIONS",
    "ActionRecord",
    "Body",
    "ChannelBusyError",
    "Database",
    "DatabaseBusyError",
    "DatabaseFaultError",
    "GameBusyError",
    "GameNotFoundError",
    "GameRecord",
    "HintCounts",
    "Letter",
    "Notices",
    "PostQueue",
    "Posted",
    "Progress",
    "QueuedLetter",
    "QueuedPost",
    "SchemaError",
    "SeatRecord",
    "StaleSeqError",
    "StandIn",
    "Status",
    "StatusError",
    "Step",
    "Storage",
    "StorageError",
    "has_password",
    "is_postgres_url",
    "with_stand_in",
    "without_password",
]
