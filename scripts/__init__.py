"""Brudno's tools, run from the repository root as `python -m scripts.<package>.<module>`: the
training of the evaluations (training/), the match runner and tuner (matches/), the studies behind
the docs (studies/). The engine never imports them."""
