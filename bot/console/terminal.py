"""The terminal's side: the service's words as text, posts and turn panels printed, pictures written as
PNG files, input lines read."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sys
from pathlib import Path
from typing import TextIO

from ..service import Answers, Attachment, LessonView, PanelView, Post, ReplayView
from ..words import Command, Part, Style, Text, as_text, render, say, text

BOLD, RESET = "\033[1m", "\033[0m"
#: how the service's words look at the terminal: names for mentions, the console's own command words
TERMINAL = Style(here="this table", in_here="at this table")
TERMINAL_BOLD = dataclasses.replace(TERMINAL, strong=BOLD + "{}" + RESET)


def to_terminal(text: Text | str, *, bold: bool = False) -> str:
    """The service's words as the terminal shows them (bold only on a terminal that can)."""
    return render(as_text(text), TERMINAL_BOLD if bold else TERMINAL)


class Pictures:
    """Writes posted pictures as numbered PNG files in a folder (created when the first comes)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.count: int | None = None

    def save(self, png: bytes, filename: str) -> Path | None:
        if self.folder is None:
            return None
        if self.count is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            numbers = [int(m.group(1)) for p in self.folder.iterdir() if (m := re.match(r"(\d+)-", p.name))]
            self.count = max(numbers, default=0)
        self.count += 1
        path = self.folder / f"{self.count:03d}-{filename}"
        path.write_bytes(png)
        return path

    def save_post(self, post: Post) -> str | None:
        """Save a post's picture and gallery; the line that says where they are (None: none saved)."""
        pictures = [*([(post.png, post.filename)] if post.png is not None else []),
                    *((p.png, p.filename) for p in post.gallery)]
        paths = [str(path) for png, name in pictures if (path := self.save(png, name)) is not None]
        return f"[picture{'s' if len(paths) > 1 else ''}: {', '.join(paths)}]" if paths else None

    def save_files(self, files: tuple[Attachment, ...]) -> list[Path]:
        """Write ``files`` in the folder under their own names (a game's record is replayed by them);
        none without a folder."""
        if self.folder is None:
            return []
        self.folder.mkdir(parents=True, exist_ok=True)
        out = []
        for f in files:
            path = self.folder / f.filename
            path.write_bytes(f.data)
            out.append(path)
        return out


class Screen:
    """What the terminal shows: lines for everyone, private answers indented, posts with their pictures
    and the numbered choices of a turn panel."""

    def __init__(self, out: TextIO, pictures: Pictures, *, bold: bool = False) -> None:
        self.out, self.pictures, self.bold = out, pictures, bold
        #: the lines shown since the last prompt, privately (False) and to the table (True): what one
        #: said is not said again by the other (on Discord the channel and the panel are two places; here
        #: they are one screen)
        self.heard: dict[bool, set[str]] = {False: set(), True: set()}

    def prompted(self) -> None:
        """A new line is typed: what comes next is new again."""
        for said in self.heard.values():
            said.clear()

    def say(self, text: Text | str = "") -> None:
        self.out.write(self.words(text) + "\n")
        self.out.flush()

    def whisper(self, text: Text | str) -> None:
        """What only the person at the keyboard should read (Discord's private answers): indented."""
        self.say("\n".join("  " + line if line else "" for line in self.words(text).split("\n")))

    def words(self, text: Text | str) -> str:
        return to_terminal(text, bold=self.bold)

    def post(self, post: Post, *, public: bool, for_name: str | None = None) -> None:
        """A post (public) or a reply (private: indented; ``for_name`` names who it is for when several
        people share the keyboard), with where its pictures were written and the decision's answers."""
        # (a line the table was told since the prompt is not said again privately, nor the other way
        # round; two posts to the table are each whole: two turns' posts share many lines)
        lines = self.words(post.text).split("\n")
        said, other = self.heard[public], self.heard[not public]
        shown = "\n".join(line for line in lines if not line.strip() or line.strip() not in other)
        said.update(line.strip() for line in lines if line.strip())
        if for_name is not None and not public:
            shown = self.words(say("(for {name} only)\n", name=for_name)) + shown
        note = self.pictures.save_post(post)
        if public:
            self.say()
            if note is not None:  # before the text, which ends with whose turn it is
                self.say(note)
            self.say(shown)
        else:
            self.whisper(shown)
            if note is not None:
                self.whisper(note)
        answering = post.control(Answers)
        if answering is not None and answering.choices:
            answers: list[Text | Part] = [Command("choose", cell) for _, cell in answering.choices]
            self.say(say("Answer with {answers}.", answers=text(*_joined(answers, " or "))))

    def panel(self, panel: PanelView) -> None:
        """A turn panel's choices, numbered, and what can be typed."""
        for i, c in enumerate(panel.choices, 1):
            self.whisper(f"{i:>3}. {c.label}" + (f" — {c.detail}" if c.detail else ""))
        hints: list[Text | Part] = ["a number to pick"] if panel.choices else []
        hints += [say("{ok} to play it", ok=Command("ok"))] if panel.confirm else []
        hints += ([Command("back")] if panel.back is not None else []) + ([Command("menu")] if panel.path else [])
        hints += [Command("undo")] if panel.undo else []
        hints += [say("{hint} for the AI's advice", hint=Command("hint"))] if panel.hint else []
        if not panel.choices and not panel.confirm:
            hints.append(say("{play} to look again", play=Command("play")))
        self.whisper(say("Type {hints}.", hints=text(*_joined(hints, ", "))))


    def replay(self, view: ReplayView, *, public: bool) -> None:
        """What can be typed to step through a replay."""
        buttons = {b.role: b for b in view.buttons}
        ways = [(Command(role), way) for role, way in (("next", "forward"), ("prev", "back"))
                if role in buttons and not buttons[role].disabled]
        if not ways:  # (the replay's own words say how to ask for any step)
            return
        said = text(say("Type "), *_joined([say("{word} to go {way}", word=word, way=way) for word, way in ways],
                                           ", or "), ".")
        if public:
            self.say(said)
        else:
            self.whisper(said)

    def lesson(self, lesson: LessonView) -> None:
        """A course message's choices, numbered, and what can be typed (as its list and buttons)."""
        for i, c in enumerate(lesson.choices, 1):  # (the list's labels are numbered already)
            label = c.label if not lesson.lesson else f"{i:>3}. {c.label}"
            self.whisper(label + (f" — {c.detail}" if c.detail else ""))
        hints: list[Text | Part] = ["a number to pick"] if lesson.choices else []
        hints += [say("{ok} to play it", ok=Command("ok"))] if lesson.confirm else []
        hints += [Command("back")] if lesson.back is not None else []
        if lesson.lesson and lesson.retry:
            hints.append(say("{again} to start again", again=Command("learn", lesson.lesson)))
        if lesson.next:
            hints.append(say("{next} for the next lesson", next=Command("learn", lesson.next)) if lesson.lesson
                         else say("{start} to start", start=Command("learn", lesson.next)))
        if lesson.lesson:
            hints.append(say("{menu} for the lessons", menu=Command("menu")))
        self.whisper(say("Type {hints}.", hints=text(*_joined(hints, ", "))))


def _joined(items: list[Text | Part], between: str) -> list[Text | Part]:
    """``items`` with ``between`` between each two."""
    out: list[Text | Part] = []
    for i, item in enumerate(items):
        out += [between, item] if i else [item]
    return out


class Lines:
    """Input lines: ``input()`` with line editing at a terminal, else the stream's lines (echoed)."""

    def __init__(self, stream: TextIO, out: TextIO) -> None:
        self.stream, self.out = stream, out
        self.interactive = stream is sys.stdin and stream.isatty() and out is sys.stdout
        if self.interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())

    def set_aside(self) -> bool:
        """At a terminal, drop the lines typed ahead, not yet read (typed while others played: the board
        has changed since); True if there were any. A script's lines (a file, a pipe) are all kept."""
        try:
            if not self.stream.isatty():
                return False
            import select
            import termios

            fd = self.stream.fileno()
            waiting = bool(select.select([fd], [], [], 0)[0])
            termios.tcflush(fd, termios.TCIFLUSH)
            return waiting
        except (ImportError, OSError, ValueError):  # (no terminal control here: Windows, a closed stream)
            return False

    def read(self, prompt: str) -> str | None:
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                self.out.write("\n")
                return None
        self.out.write(prompt)
        line = self.stream.readline()
        if not line:
            self.out.write("\n")
            self.out.flush()
            return None
        self.out.write(line if line.endswith("\n") else line + "\n")  # the transcript shows what was typed
        self.out.flush()
        return line


__all__ = ["Lines", "Pictures", "Screen", "to_terminal"]
