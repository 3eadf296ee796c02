"""Tests of the rules engine (``rules``): one file per section of the rules digest (setup, turn,
actions, construction, ripple, domains, income), the rulebook's worked examples, and the engine as a
whole (legal listing, random games, notation, JSON, maps, the command line)."""
