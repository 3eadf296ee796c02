"""``tiempo-bot console``: a table in the terminal over the real service and storage. Lines go in on
standard input as a person would type them; we read what the terminal shows."""

from __future__ import annotations

import io
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot import console
from bot.config import default_ai_processes
from bot.console import InputError, parse_line, parse_seats, to_terminal
from bot.discord import markdown
from bot.play import start
from bot.service.suggest import Suggestions
from bot.storage import SeatRecord
from bot.words import HERE, Button, Command, Mention, Strong, say
from rules import Colour, Construct, GameState, format_action, from_json, legal_actions
from tests.support.console_play import args, run_console

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------------------------
# Input lines


def test_options_by_name_or_in_the_slash_commands_order_mean_the_same() -> None:
    named = parse_line("build kind:Keep cell:C4 age:Might")
    placed = parse_line("build Keep C4 Might")
    assert named == placed
    command, options = placed
    assert command.word == "build" and options == {"kind": "Keep", "cell": "C4", "age": "Might", "pay": None}
    assert parse_line("/tiempo build Keep C4 Might")[1] == options
    # the last option takes the rest of the line; an optional Age left out is skipped
    assert parse_line("build Keep C4 Might MM 1+1")[1]["pay"] == "MM 1+1"
    assert parse_line("build Keep C4 pay:MM 1+1")[1] == {"kind": "Keep", "cell": "C4", "age": None, "pay": "MM 1+1"}
    assert parse_line("build Keep C4 MM 1+1")[1] == {"kind": "Keep", "cell": "C4", "age": None, "pay": "MM 1+1"}
    assert parse_line("upgrade C4 Castle Might")[1] == {"cell": "C4", "to": "Castle", "at": None, "age": "Might",
                                                       "pay": None}
    assert parse_line("upgrade C4 Castle B3 F")[1]["at"] == "B3"
    assert parse_line("travel 1 Faith")[1] == {"pawn": "1", "to": "Faith"}
    assert parse_line("END discard:MC")[1] == {"discard": "MC"}
    assert parse_line("end")[1] == {"discard": None}
    assert parse_line("board reason")[1] == {"age": "reason"}


def test_input_that_is_not_a_command_says_why() -> None:
    with pytest.raises(InputError, match="no command 'dance'"):
        parse_line("dance")
    with pytest.raises(InputError, match=r"`build` needs cell: `build kind cell \[age\] \[pay\]`, e.g."):
        parse_line("build Keep")
    with pytest.raises(InputError, match="`travel` needs to"):
        parse_line("travel pawn:1")
    with pytest.raises(InputError, match="given twice"):
        parse_line("build kind:Keep kind:Castle cell:C4")
    with pytest.raises(InputError, match="takes no options"):
        parse_line("hand please")


def test_the_console_is_built_from_the_command_catalogue() -> None:
    """Every catalogue command but the lobby's (``--seats`` sets the table) is a console command with
    the catalogue's summary (its words for a table where the summary speaks of Discord), options in order,
    required ones and example; the console adds only its words for Discord's buttons."""
    from bot.console.commands import LOBBY
    from bot.service import CATALOGUE

    ours = {w: c for w, c in console.COMMANDS.items() if c.entry is not None}
    # (``back`` is the console's own word too: the panel's previous question, or the seat back from the AI)
    assert list(ours) == [w for w in CATALOGUE if w not in LOBBY and w != "back"]
    for word, command in ours.items():
        entry = CATALOGUE[word]
        assert command.entry is entry and command.plays == entry.plays
        assert command.summary == (entry.at_table or entry.summary)
        for discord_words in ("channel", "server", "buttons", "taps", "only you see", "DM", "(greedy)"):
            # (notify's modes are named channel and dm)
            assert discord_words not in command.summary or word == "notify", (word, command.summary)
        assert [(o.name, o.required, o.service_key) for o in command.options] == \
            [(o.name, o.required, o.service_key) for o in entry.options], word
        assert command.example in entry.examples, word
    assert set(console.COMMANDS) - set(ours) == {"play", "pick", "ok", "back", "menu", "yes", "rematch", "next",
                                                 "prev", "help", "quit"}


def test_seats_and_the_words_at_the_terminal_and_on_discord() -> None:
    assert parse_seats("Ana, Ben ,ai:strong,AI") == [console.SeatSpec("Ana"), console.SeatSpec("Ben"),
                                                     console.SeatSpec("", "strong"), console.SeatSpec("", "greedy")]
    for bad, words in [("Ana", "2 to 5"), ("ai,ai", "at least one seat must be a person"), ("Ana,ai:wise", "wise"),
                       ("Ana,,Ben", "empty"), ("Ana,ana", "two seats"), ("a,b,c,d,e,f", "2 to 5")]:
        with pytest.raises(ValueError, match=words):
            parse_seats(bad)
    words = say("{over}\n{ben}, your turn. Answer with {choose}. Play again: {rematch}. Join {here}.",
                over=Strong("Game #1 is over."), ben=Mention(2, "Ben"), choose=Command("choose"),
                rematch=Button("Rematch", "rematch", " under the ranking"), here=HERE)
    assert to_terminal(words) == (
        "Game #1 is over.\nBen, your turn. Answer with `choose`. Play again: type `rematch`. Join this table.")
    assert markdown(words) == ("**Game #1 is over.**\n<@2>, your turn. Answer with `/tiempo choose`. Play again: "
                               "press Rematch under the ranking. Join this channel.")
    assert to_terminal(Strong("x") + "", bold=True) == "\033[1mx\033[0m"


def test_every_command_has_a_handler() -> None:
    """The dispatch is a table from a command's word to its handler: none is left out, none is extra."""
    from bot.console.handlers import ANYWHERE, HANDLERS, LOCAL, OWN, SLASH

    assert set(HANDLERS) | set(LOCAL) | ANYWHERE == set(console.COMMANDS)
    assert not set(HANDLERS) & set(LOCAL) and not set(SLASH) & set(OWN) and not ANYWHERE & set(HANDLERS)
    assert {c.word for c in console.COMMANDS.values() if c.plays} <= set(SLASH)


def test_the_console_talks_to_the_service_only() -> None:
    """It imports of the project only the service's public interface, the words, the settings and the
    event loop, and stays small: no class over 300 lines, no function over 80 (docs/layout.md)."""
    import ast

    from tests.support.imports import imports_of as _imports

    allowed = {"bot.service", "bot.words", "bot.config", "bot.loop"}
    found = []
    for path in sorted((ROOT / "bot" / "console").glob("*.py")):
        for line, module in _imports(path):
            if module.split(".")[0] in ("bot", "rules", "render") and module not in allowed \
                    and not module.startswith("bot.console"):
                found.append(f"{path.name}:{line} imports {module}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > (300 if isinstance(node, ast.ClassDef) else 80):
                    found.append(f"{path.name}:{node.lineno} {node.name} has {size} lines")
    assert not found, "\n".join(found)


# ---------------------------------------------------------------------------------------------
# Playing


def first_build(seed: int, names: list[str]) -> tuple[GameState, Construct]:
    """The first position of a console game with these people, and a legal build for the one to play."""
    seats = [SeatRecord(i + 1, n, c.value) for i, (n, c) in enumerate(zip(names, Colour, strict=False))]
    state = start(seats, seed=seed)
    build = next(a for a in legal_actions(state) if isinstance(a, Construct) and a.age.title == "Might")
    return state, build


@pytest.mark.slow
def test_a_real_terminal_session_in_a_subprocess(tmp_path: Path) -> None:
    state, build = first_build(5, ["Ana", "Ben"])
    mover = state.players[state.active].name
    lines = "\n".join([
        "hand",
        "populate A1",                                     # refused, with the rule's reason
        "build Keep",                                      # a missing option: the usage
        "hop",                                             # not a command: the help
        "biuld",                                           # a slip: the command it is close to
        f"build kind:{build.kind.value} cell:{build.origin} age:Might",
        "board Faith",
        "end",
        "status",
        "rules ripples",
    ]) + "\n"
    out = subprocess.run([sys.executable, "-m", "bot", "console", "--seats", "Ana,Ben", "--seed", "5",
                          "--out", str(tmp_path / "pics")], input=lines, capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Traceback" not in text + out.stderr and "Something went wrong" not in text
    assert "Seats: Ana (Red), Ben (White)" in text and "seed 5" in text
    assert "Your hand: " in text and f"(`{state.players[state.active].hand}`)" in text
    assert "`build` needs cell" in text
    assert "There is no command 'hop'." in text and "Commands (give options by name" in text
    assert "There is no command 'biuld'. Did you mean `build`? (`help` lists them all.)\n" in text
    assert text.count("Commands (give options by name") == 1  # (the help after 'hop' only)
    assert f"{mover} ({state.players[state.active].colour.value}) builds a {build.kind.value} at {build.origin}" in text
    assert "Faith — game #1, round 1 of 7." in text
    assert "Time ripples." in text  # rules ripples
    assert f"[round 1] {mover} ({state.players[state.active].colour.value}) > " in text  # the prompt says who types
    assert "<@" not in text and "**" not in text and "/tiempo" not in text
    pictures = sorted((tmp_path / "pics").glob("*.png"))
    assert len(pictures) >= 3  # the first board, the Faith board, the board after the turn
    for p in pictures:
        assert p.read_bytes().startswith(PNG)
        assert str(p) in text and (f"[picture: {p}]" in text or "[pictures: " in text)
    assert any("faith" in p.name for p in pictures)
    assert "The game was not kept" in text


def test_a_whole_game_with_ai_seats_ends_with_the_ranking_and_a_rematch(tmp_path: Path) -> None:
    text = run_console(tmp_path, "end\n" * 7 + "end\nlog 5\nrematch\nstatus\nquit\n",
                       "--seats", "Ana,ai:random,ai:greedy", "--seed", "3", "--no-pictures")
    assert "Dice (White, AI random)" in text and "Magpie (Green, AI greedy)" in text
    assert text.count("Ana (Red) ends the turn.") >= 7
    assert "Game #1 is over." in text and "🥇" in text and "Play again: type `rematch`." in text
    assert "what the AI would have played instead: `review game:1`." in text
    after = text.partition("Game #1 is over.")[2]
    assert "[game #1 is over] > end\n  Game #1 is over" in after or "This game is over" in after  # the eighth `end`
    assert "[game #1 is over] > " in after
    assert "A rematch: game #2, same seats." in after and "Game #2 begins" in after
    assert not (tmp_path / "pictures").exists()  # --no-pictures


class Player(io.TextIOBase):
    """A person at the keyboard who looks at the game (in the SQLite file) before each line: answers a
    decision with ``choose``, often builds, may travel, then ends the turn; after the game, quits."""

    def __init__(self, db: Path, seed: int) -> None:
        self.db, self.rng, self.typed = db, random.Random(seed), []  # type: list[str]
        self.built = False

    def state(self) -> GameState | None:
        with sqlite3.connect(self.db) as c:
            row = c.execute("SELECT snapshot, status FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None or row[1] != "playing" else from_json(row[0])

    def readline(self, size: int | None = -1) -> str:
        line = self.next_line()
        self.typed.append(line)
        return line + "\n"

    def next_line(self) -> str:
        if len(self.typed) > 600:
            return "quit"
        state = self.state()
        if state is None:
            return "quit"
        if state.pending is not None:
            return f"choose {state.pending.decision.options[0]}"
        actions = legal_actions(state)
        builds = [a for a in actions if isinstance(a, Construct)]
        if builds and self.rng.random() < 0.6:
            a = self.rng.choice(builds)
            if self.rng.random() < 0.5:
                return f"build {a.kind.value} {a.origin} {a.age.title}"
            pay = format_action(state, a).split(" pay ")[1]
            return f"build kind:{a.kind.value} cell:{a.origin} age:{a.age.letter} pay:{pay}"
        return "end"


@pytest.mark.slow
def test_a_person_who_builds_and_answers_decisions_plays_a_whole_game(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    player = Player(db, 1)
    text = run_console(tmp_path, player, "--seats", "Ana,ai:random", "--seed", "8", "--no-pictures", "--db", str(db))
    assert "Game #1 is over." in text, player.typed[-5:]
    assert player.typed[-1] == "quit"
    builds = [t for t in player.typed if t.startswith("build")]
    assert builds and text.count("Ana (Red) builds") >= len(builds) // 2
    refusals = [line for line in text.splitlines() if line.startswith("  ") and "not" in line.lower()
                and "Your hand" not in line]
    assert len(refusals) < len(builds), refusals  # legal actions typed both ways are accepted


def test_several_people_share_the_keyboard(tmp_path: Path) -> None:
    state, _ = first_build(4, ["Ana", "Ben"])
    first, second = (state.players[state.active], state.players[1 - state.active])
    text = run_console(tmp_path, "end\nhand\n", "--seats", "Ana,Ben", "--seed", "4", "--no-pictures")
    # the one who ended reads their new hand before the keyboard passes, and the next one is told to take it
    ended = text.index(f"{first.name} ({first.colour.value}) ends the turn.")
    assert text.rfind(f"(for {first.name} only)", 0, ended) > 0
    assert f"── Pass the keyboard to {second.name} ({second.colour.value})." in text[ended:]
    assert f"[round 1] {second.name} ({second.colour.value}) > hand" in text
    assert f"It is {first.name}" in text or "Your turn" in text


def test_after_a_cancelled_game_the_table_says_so_and_new_opens_the_next(tmp_path: Path) -> None:
    """A game cancelled at the console: ``status`` says it was cancelled and how to open another, and
    ``new`` (a rematch with the same seats) opens game #2, which begins at once."""
    text = run_console(tmp_path, "cancel\nyes\nstatus\nnew\nstatus\n", "--seats", "Ana,Ben", "--seed", "4",
                       "--no-pictures")
    cancelled = text.index("Game #1 was cancelled by ")
    assert "Game #1 was cancelled. Open another with `new`." in text[cancelled:]
    assert "is not over" not in text
    rematch = text.index("A rematch: game #2, same seats.", cancelled)
    assert "Game #2 begins: 2 players, 7 rounds." in text[rematch:]
    assert "[round 1] " in text[rematch:]


def test_a_kept_game_resumes_where_it_was(tmp_path: Path) -> None:
    db = tmp_path / "kept.sqlite3"
    state, build = first_build(6, ["Ana", "Ben"])
    mover = state.players[state.active]
    text = run_console(tmp_path, f"build {build.kind.value} {build.origin} Might\n", "--seats", "Ana,Ben",
                       "--seed", "6", "--no-pictures", "--db", str(db))
    assert f"Game #1 is saved in {db}" in text
    again = run_console(tmp_path, "hand\nundo\n", "--db", str(db), "--no-pictures", "--seats", "X,Y")
    assert "Resuming game #1" in again and "--seats is for a new one" in again
    assert f"[round 1] {mover.name} ({mover.colour.value}) > hand" in again
    assert "takes back" in again and "Undone." in again


def test_a_database_in_a_new_folder_is_made_and_one_that_cannot_be_used_is_one_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--db saves/new/game.db`` makes its folders, as the bot does; a file that is not a database, or
    a folder, is said in one sentence (exit 2), never a traceback."""
    new = tmp_path / "saves" / "new" / "game.db"
    assert f"Game #1 is saved in {new}" in run_console(tmp_path, "quit\n", "--no-pictures", "--db", str(new))
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 50)
    for wrong, said in ((notes, "is not a Tiempo database"), (tmp_path, "is a folder, not a file")):
        out = io.StringIO()
        assert console.play(args(tmp_path, "--db", str(wrong)), stdin=io.StringIO("quit\n"), stdout=out) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"tiempo-bot console: The database {wrong} {said}") or \
            err.startswith(f"tiempo-bot console: {wrong} {said}"), err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and not out.getvalue(), err


def test_bad_seats_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert console.play(args(tmp_path, "--seats", "Ana"), stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert "2 to 5 players" in capsys.readouterr().err


def test_the_pictures_folder_counts_on(tmp_path: Path) -> None:
    pictures = console.Pictures(tmp_path / "p")
    first = pictures.save(PNG, "a.png")
    again = console.Pictures(tmp_path / "p").save(PNG, "a.png")
    assert first is not None and again is not None
    assert (first.name, again.name) == ("001-a.png", "002-a.png")


def test_a_question_mark_or_a_missing_cell_lists_what_fits_now(tmp_path: Path) -> None:
    _, build = first_build(5, ["Ana", "Ben"])
    text = run_console(tmp_path, f"build {build.kind.value}\nend discard:?\nrules ?\nbuild ? {build.origin}\n"
                                 f"build {build.kind.value} {build.origin} {build.age.title} pay:?\n",
                       "--seats", "Ana,Ben", "--seed", "5", "--no-pictures")
    assert "`build` needs cell" in text
    cells = text.split(f"Cells for {'an' if build.kind.value[0] in 'AEIOU' else 'a'} {build.kind.value} now: ")[1]
    assert str(build.origin) in cells.split("\n")[0]
    assert "Cards from your hand: " in text and "Topics: turn, cards," in text and "Buildings: Watchtower," in text
    pays = text.split("Ways to pay (cards, then cards per pawn): ")[1].split("\n")[0]
    assert " card" in pays and "pawn" in pays and "(" in pays, pays  # each way with what it means
    many = run_console(tmp_path, "build Hamlet ?\n", "--seats", "Ana,Ben", "--seed", "5", "--no-pictures")
    hamlets = many.split("Cells for a Hamlet now: ")[1].split("\n")[0]  # (more than 25 places on the first turn)
    listed, more = hamlets.split(" … ")
    assert len(listed.split(", ")) == 25 and more == "(the first 25: `play` offers every one, by areas of the board)."


def test_exactly_as_many_places_as_are_shown_are_not_said_to_be_the_first_of_more(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def cells(self: object, caller: object, command: str, typed: str, *, limit: int,
                    **where: object) -> list[str]:
        return [f"{c}{r}" for c in "ABCDE" for r in range(1, 1 + n)][:limit]

    monkeypatch.setattr(Suggestions, "cells", cells)
    for n, said in ((5, "."), (6, " … (the first 25: `play` offers every one, by areas of the board).")):
        text = run_console(tmp_path, "build Hamlet ?\n", "--seats", "Ana,Ben", "--seed", "5", "--no-pictures")
        listed = text.split("Cells for a Hamlet now: ")[1].split("\n")[0]
        assert len(listed.split(" … ")[0].rstrip(".").split(", ")) == 25 and listed.endswith(said), (n, listed)
        assert listed.startswith("A1, A2, A3, A4, A5")


def test_the_number_of_processes_and_the_thinking_time_are_checked(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert args(tmp_path).processes == default_ai_processes()
    code = console.play(args(tmp_path, "--processes", "50"), stdin=io.StringIO(""), stdout=io.StringIO())
    assert code == 2
    assert capsys.readouterr().err == "tiempo-bot console: --processes must be from 1 to 8\n"
    for think in ("0", "-1", "nan"):  # (the config's ai_think_seconds must be above 0 too)
        code = console.play(args(tmp_path, "--think", think), stdin=io.StringIO(""), stdout=io.StringIO())
        assert code == 2
        assert capsys.readouterr().err == ("tiempo-bot console: --think must be a number of seconds greater than 0, "
                                           "like --think 2.5\n")


def test_the_turn_panel_at_the_console_builds_by_numbers_and_ok(tmp_path: Path) -> None:
    """The same panel as on Discord: numbered lists, a preview, then `ok`."""
    out = run_console(tmp_path, "play\n2\n1\n1\nok\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "3",
                      "--no-pictures")
    assert "What do you do?" in out and "2. Build a Watchtower (1×1)" in out
    assert "First pick an area of the board." in out and "1. Columns A–E, rows 1–4" in out
    assert "To play it, type `ok`" in out and "press Confirm" not in out
    assert "Done." in out
    built = ("Ana (Red) builds a Watchtower at A1 on Might with 1 Military + 1 Civil cards, 1 of them for the forest "
             "at A1.")
    after = out[out.index("> ok"):]
    assert after.count(built) == 1  # said to the table, not again in the panel's answer below it
    assert after.index(built) < after.index("Done.")
    again = run_console(tmp_path, "play\n2\n1\n1\nok\nlog\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "3",
                        "--no-pictures")
    assert again[again.index("> log"):].count(built) == 1  # a later look at the log says it again
    # the end of a turn by the panel: its answer comes before the table's post, which does not repeat it
    ended = run_console(tmp_path, "play\n8\nok\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "3", "--no-pictures")
    assert ended[ended.index("> ok"):].count("Ana (Red) ends the turn.") == 1
    tables = run_console(tmp_path, "end\nquit\n", "--seats", "Ana,ai:greedy,ai:greedy", "--seed", "3", "--no-pictures")
    posts = [p for p in tables.split("\n\n") if " to play. " in p]  # two AI turns in a row: each post whole
    assert len(posts) >= 3 and all(p.count(" cubes, ") == 3 for p in posts)  # a line for each player


def test_a_stray_number_or_a_look_at_the_hand_leaves_the_panel_to_act_on(tmp_path: Path) -> None:
    """As on Discord, where a refusal or one's hand is a message of its own: the previewed action is
    still there to confirm with `ok`."""
    out = run_console(tmp_path, "play\n2\n1\n1\n7\nhand\nok\nquit\n", "--seats", "Ana,ai:greedy", "--seed",
                      "3", "--no-pictures")
    assert "There is nothing to pick now." in out or "Pick a number from 1 to" in out
    assert "Open the turn panel first" not in out and "Done." in out
    assert ("Ana (Red) builds a Watchtower at A1 on Might with 1 Military + 1 Civil cards, 1 of them for the forest "
            "at A1.") in out


def test_panel_words_outside_a_panel_say_what_to_do(tmp_path: Path) -> None:
    out = run_console(tmp_path, "ok\n3\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "3", "--no-pictures")
    assert out.count("Open the turn panel first: `play`.") == 2


def test_a_secret_deal_s_seed_is_never_shown_and_a_chosen_one_is(tmp_path: Path) -> None:
    """A deal from a secret key would tell every hand to whoever reads its seed: the greeting names a
    seed only when it was chosen with --seed, to play that deal again."""
    text = run_console(tmp_path / "a", "quit\n", "--seats", "Ana,Ben")
    greeting = next(line for line in text.splitlines() if line.startswith("Khronos at this terminal:"))
    assert greeting == "Khronos at this terminal: game #1, standard rules. Seats: Ana (Red), Ben (White)."
    text = run_console(tmp_path / "b", "quit\n", "--seats", "Ana,Ben", "--seed", "5")
    assert "standard rules, seed 5." in text


def test_the_course_at_the_console_by_numbers_and_ok(tmp_path: Path) -> None:
    """``--learn``: the lessons' list, a lesson by numbers (a wrong move, then the right one), ``menu``."""
    from bot.service.course import COURSE
    from bot.service.steps import SEP, step
    from rules import Action, parse_action
    from tests.support.course_play import wrong_move

    lesson = COURSE["ripples"]
    state = lesson.state_at(0)

    def numbers(action: Action) -> list[str]:
        """The numbers a player types to reach ``action`` in the lesson's lists."""
        from bot.service.steps import path_to

        target = path_to(state, state.waiting_on, action)
        typed: list[str] = []
        base: tuple[str, ...] = ()
        while True:
            shown = step(state, state.waiting_on, base)
            if shown.path == target:
                return typed
            rest = target[len(shown.next_base):]
            i, choice = next((i, c) for i, c in enumerate(shown.choices, 1)
                             if tuple(c.key.split(SEP)) == rest[:len(c.key.split(SEP))])
            typed.append(str(i))
            base = (*shown.next_base, *choice.key.split(SEP))

    wrong = numbers(wrong_move(lesson, 0))
    right = numbers(parse_action(lesson.tasks[0].answer, state))
    out = run_console(tmp_path, "\n".join(["ok", "learn ripples", "back", *wrong, "ok", *right, "ok", "menu",
                                           "learn nothing", "quit"]) + "\n", "--learn", "--no-pictures")
    assert "Learn Khronos" in out and "13 short lessons" in out
    assert "Type a number to pick, `learn cards` to start." in out
    assert "Lesson 6 of 13: Ripples" in out and "Your move: You are Red." in out
    assert "There is no previous question" in out
    assert "but not this lesson's move" in out and "Try again." in out
    assert "Well played." in out and "Lesson done. Next: Paradoxes (type `learn paradox`)." in out
    assert "1 of 13 lessons done." in out and "  ✓ 6. Ripples" in out
    assert "There is no lesson nothing." in out
    assert "No game is running" not in out  # the course needs no game


def test_one_s_games_profile_and_the_rules_at_a_table(tmp_path: Path) -> None:
    out = run_console(tmp_path, "games\nprofile\nleaderboard\nrules ripples\nquit\n", "--seats", "Ana,ai:random",
                      "--no-pictures")
    assert "#1 in channel 1: round 1 of 7" in out, out
    assert "You have not finished a game yet" in out
    assert "No rated game has been finished on this server yet" in out


def test_notify_is_kept_at_the_console_which_says_direct_messages_are_discord_s(tmp_path: Path) -> None:
    """``notify dm`` at the terminal: kept (for Discord), and the person is still named at their turn."""
    text = run_console(tmp_path, "notify dm\nnotify\nnotify off\nnotify pigeon\n", "--seats", "Ana,Ben", "--seed",
                       "4", "--no-pictures")
    assert "Saved, for every game on every server." in text
    assert text.count("Mentions and direct messages exist only on Discord: at this table you are named at your turn "
                      "as before.") == 3  # (dm, what it is now, and off)
    assert "`pigeon` is not a choice: channel, dm, off, e.g. `notify mode:dm`." in text


def test_away_hands_the_seat_to_the_ai_and_back_is_refused_when_the_seat_is_ones_own(tmp_path: Path) -> None:
    """`away` at the console: the AI (greedy) plays the rest of the turn, the keyboard passes on; `back` from
    someone whose seat the AI does not play says so (docs/ai.md, seats the AI keeps warm)."""
    state, _ = first_build(4, ["Ana", "Ben"])
    first, second = (state.players[state.active], state.players[1 - state.active])
    out = run_console(tmp_path, "away\nback\nquit\n", "--seats", "Ana,Ben", "--seed", "4", "--no-pictures")
    assert "The AI plays your seat in game #1 from now on" in out
    assert f"{first.name} hands their seat to the AI for now" in out
    assert "> back" in out and "Your seat in game #1 is yours: the AI does not play it." in out
    assert f"{second.name} ({second.colour.value}) > back" in out
    assert "Your hand" not in out.split("> away", 1)[1]


def test_a_table_without_a_database_says_at_once_that_its_game_is_not_kept(tmp_path: Path) -> None:
    """Without --db the game lives as long as the table: the greeting says so, not only the goodbye
    (when it is too late); with --db the greeting does not, and the goodbye says where it is kept."""
    text = run_console(tmp_path / "a", "quit\n", "--seats", "Ana,ai:greedy", "--no-pictures")
    lines = text.splitlines()
    greeting = next(i for i, line in enumerate(lines) if line.startswith("Khronos at this terminal:"))
    said = "This game is not kept when you leave: to keep it for later, start with `--db FILE`."
    assert said in lines[greeting + 1:greeting + 4], lines[:greeting + 4]
    db = tmp_path / "kept.sqlite3"
    text = run_console(tmp_path / "b", "quit\n", "--seats", "Ana,ai:greedy", "--no-pictures", "--db", str(db))
    assert "is not kept" not in text and f"is saved in {db}" in text


def test_away_of_the_only_person_at_the_table_is_asked_first(tmp_path: Path) -> None:
    """Alone with AI seats, `away` would give the AI every turn to the end of the game (nothing typed is
    read while the AI plays): it asks first. Anything else typed in between drops the question; `yes`
    right after `away` hands the seat over, and the AI plays the game to its end."""
    out = run_console(tmp_path, "away\nstatus\nyes\naway\nyes\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "4",
                      "--no-pictures")
    asked = ("You are the only person at this table, and nothing typed is read while the AI plays: it would play "
             "every turn of yours to the end of the game. Type `yes` to hand it your seat for the rest of the game, "
             "or play on.")
    assert out.count(asked) == 2
    first, rest = out.split("> yes", 1)
    assert "The AI plays your seat" not in first and "There is nothing to confirm." in rest.split("> away", 1)[0]
    assert "The AI plays your seat in game #1 from now on" in rest and "Game #1 is over." in rest


def test_lines_typed_ahead_at_a_terminal_are_set_aside_and_a_scripts_are_kept() -> None:
    """At a terminal, what was typed but not yet read can be dropped (``Lines.set_aside``); lines from a
    file or a pipe (a script) never are."""
    import os
    import pty

    from bot.console.terminal import Lines

    leader, follower = pty.openpty()
    with os.fdopen(follower, "r") as stream:
        lines = Lines(stream, io.StringIO())
        assert lines.set_aside() is False  # nothing typed
        os.write(leader, b"build Keep K7 Might\n")
        assert lines.set_aside() is True
        assert lines.set_aside() is False  # dropped
    os.close(leader)
    script = Lines(io.StringIO("build Keep K7 Might\n"), io.StringIO())
    assert script.set_aside() is False and script.read("> ") == "build Keep K7 Might\n"


def test_lines_typed_while_the_others_played_are_set_aside_once_the_turn_has_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line typed while the AI plays would run on a board its typist has not seen: once the turn has
    changed since the last line was asked for, what is waiting is set aside, and the player is told.
    Lines typed within one's own turn are kept."""
    from bot.console.terminal import Lines

    asked: list[bool] = []

    def set_aside(self: Lines) -> bool:
        asked.append(True)
        return True  # (as if something were waiting)

    monkeypatch.setattr(Lines, "set_aside", set_aside)
    out = run_console(tmp_path / "a", "status\nhand\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "4",
                      "--no-pictures")
    assert asked == [] and "set aside" not in out  # (one turn: nothing asked)
    out = run_console(tmp_path / "b", "end\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "4", "--no-pictures")
    told = ("What you typed while the others played was set aside: the board has changed since. Type it again if "
            "you still want it.")
    assert len(asked) == 1 and out.count(told) == 1
    assert out.index(told) > out.index("> end")


def test_a_profile_at_a_table_is_asked_for_by_the_players_name(tmp_path: Path) -> None:
    """At the console a player is named as the seats name them (on Discord a member is picked): a
    person's name finds their profile, an AI seat's says it has none, another name lists the seats."""
    out = run_console(tmp_path, "profile ben\nprofile Magpie\nprofile Zed\nquit\n", "--seats", "Ana,Ben,ai:greedy",
                      "--seed", "4", "--no-pictures")
    assert "Ben has not finished a game of Tiempo yet." in out
    assert "Magpie is an AI player: profiles are kept for people." in out
    assert "No one at this table is called `Zed`: the seats are Ana, Ben and Magpie." in out
    assert "takes a player" not in out


def test_a_seat_whose_name_is_digits_is_found_by_its_name_not_read_as_a_number(tmp_path: Path) -> None:
    """A seat named "42" is that seat for ``profile 42`` (not the player numbered 42)."""
    out = run_console(tmp_path, "profile 42\nquit\n", "--seats", "42,Ben", "--seed", "1", "--no-pictures")
    assert "[round 1] Ben (White) > profile 42" in out  # (Ben asks)
    assert "42 has not finished a game of Tiempo yet." in out, out


def test_games_after_the_tables_game_points_to_a_rematch_not_to_a_lobby(tmp_path: Path) -> None:
    """At a table there is no lobby to join: once its game is over (here: cancelled), ``games`` says so
    and names ``rematch``, not Discord's ``join``."""
    out = run_console(tmp_path, "cancel\nyes\ngames\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "4",
                      "--no-pictures")
    after = out.split("> games", 1)[1]
    assert "Game #1 was cancelled: `rematch` starts another with the same seats." in after
    assert "`join`" not in after


def test_a_bad_pawn_or_payment_is_refused_in_the_commands_words_not_the_notations(tmp_path: Path) -> None:
    """The engine's notation has its own examples ('Blue travel 1 R'); a typed command's mistake is said
    with the command as it is typed."""
    out = run_console(tmp_path, "travel 3 Faith\nbuild kind:Keep cell:L1 age:Might pay:MM 2\nquit\n", "--seats",
                      "Ana,ai:greedy", "--seed", "4", "--no-pictures")
    assert "`pawn` is 1 or 2 (each player has two pawns), e.g. `travel 1 Faith`." in out
    assert ("`pay` is the cards, then how many each pawn plays, e.g. `MM 1+1` (or the cards alone: the pawns are "
            "then chosen for you).") in out
    assert "Blue travel" not in out and "Examples:" not in out


def test_away_is_asked_of_the_last_person_the_ai_does_not_play_for_and_any_word_drops_the_question(
        tmp_path: Path) -> None:
    """Two people and an AI: the first `away` hands Ana's seat over at once (Ben still types); Ben's
    `away` then asks, as he is the last person the AI does not play for. A word that needs no game
    (`rules`) between `away` and `yes` drops the question too."""
    out = run_console(tmp_path, "away\naway\nrules\nyes\nquit\n", "--seats", "Ana,Ben,ai:greedy", "--seed", "4",
                      "--no-pictures")
    first, second = out.split("> away", 2)[1:]
    assert "The AI plays your seat in game #1 from now on" in first and "Ben (White)" in first.splitlines()[-1]
    asked = "You are the only person at this table, and nothing typed is read while the AI plays"
    assert asked in second and out.count(asked) == 1
    assert "There is nothing to confirm." in out.split("> yes", 1)[1]
