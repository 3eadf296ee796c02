"""Entry point: ``tiempo-bot`` or ``python -m bot``."""

from __future__ import annotations

import os
import sys

NO_TOKEN = """\
Tiempo needs a Discord bot token to go online.

  1. Open https://discord.com/developers/applications and press "New Application".
  2. In "Bot", press "Reset Token" and copy the token.
  3. Start Tiempo with it:   DISCORD_TOKEN=<your token> tiempo-bot

Try the game offline meanwhile, with no Discord at all:

  python -m rules new --players 3 --seed 1 > game.txt      # a new game position
  python -m rules legal game.txt                            # what the first player may do
  python -m rules apply game.txt moves.txt                  # play moves written one per line
"""

NOT_YET = """\
This version of Tiempo contains the rules engine and the board pictures; the Discord commands
(/tiempo new, join, build, ...) are not part of it yet, so the bot does not go online.
Play offline with `python -m rules` (see README.md).
"""


def main(argv: list[str] | None = None) -> int:
    """Start the bot, or explain what is missing. Returns the process exit code."""
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        sys.stderr.write(NO_TOKEN)
        return 2
    sys.stderr.write(NOT_YET)
    return 3


if __name__ == "__main__":
    raise SystemExit(main())
