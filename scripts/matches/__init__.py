"""Engines against each other: the match runner, its statistics, SPSA tuning over matches and EPD
test suites."""
