"""The entry point: with no token it says exactly what to do, and never starts half-configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.__main__ import main


def test_no_token_explains_how_to_get_one_and_how_to_play_offline(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("TIEMPO_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "https://discord.com/developers/applications" in err
    assert "DISCORD_TOKEN=" in err and "tiempo-bot console" in err


def test_a_broken_config_file_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    bad = tmp_path / "tiempo.toml"
    bad.write_text("tokken = 'x'\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "unknown key 'tokken'" in err


def test_debug_logging_never_writes_discord_request_bodies() -> None:
    import logging

    from bot.__main__ import configure_logging

    root = logging.getLogger()
    saved = (root.level, list(root.handlers), logging.getLogger("discord").level)
    try:
        root.handlers.clear()
        configure_logging(logging.DEBUG)
        assert logging.getLogger("tiempo.service").isEnabledFor(logging.DEBUG)
        assert not logging.getLogger("discord.http").isEnabledFor(logging.DEBUG)  # bodies carry hands
        assert logging.getLogger("discord.http").isEnabledFor(logging.INFO)
    finally:
        root.setLevel(saved[0])
        root.handlers[:] = saved[1]
        logging.getLogger("discord").setLevel(saved[2])
