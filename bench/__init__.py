"""Benchmarks of the engine, run from the repository root as `python -m bench.<module>`."""
