"""Helpers for tests of the course (bot/service/course.py, lessons.py)."""

from __future__ import annotations

from bot.service.course import Lesson
from rules import Action, apply, legal_actions


def wrong_move(lesson: Lesson, stage: int) -> Action:
    """A legal move of the learner that is not the lesson's (one the lesson names a reason for, if any)."""
    state = lesson.state_at(stage)
    task = lesson.tasks[stage]
    mine = [a for a in legal_actions(state) if a.player == state.waiting_on]
    wrong = [a for a in mine if task.verdict(state, a, apply(state, a)[1]) is not None]
    named = [a for a in wrong if task.verdict(state, a, apply(state, a)[1]) is not task.why_not]
    return (named or wrong)[0]
