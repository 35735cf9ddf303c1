"""The statistics of a match: score, logistic Elo with error bars, likelihood of superiority, and
the sequential probability ratio test (SPRT) that stops a match once it is decided.

Plain functions of the win/draw/loss counts, used by scripts/matches/match.py and its tests.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional, Tuple

# Two-sided 95% normal quantile.
Z95 = 1.959963984540054



def score_fraction(wins: int, draws: int, losses: int) -> float:
    """Points per game, 0..1 (0.5 when no games were played)."""
    n = wins + draws + losses
    return (wins + 0.5 * draws) / n if n else 0.5


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score; +/-inf at 1 and 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    # Adding 0.0 turns the -0.0 of an even score into 0.0.
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0


def score_from_elo(elo: float) -> float:
    """Expected score of the logistic Elo model."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def per_game_variance(wins: float, draws: float, losses: float) -> float:
    """Variance of one game's result (1, 1/2, 0) from the observed frequencies."""
    n = wins + draws + losses
    if not n:
        return 0.0
    s = (wins + 0.5 * draws) / n
    return (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n


@dataclasses.dataclass(frozen=True)
class EloEstimate:
    """Elo difference with a confidence interval (lower, upper)."""

    elo: float
    lower: float
    upper: float

    @property
    def margin(self) -> float:
        """Half the interval's width: the '+/-' figure."""
        return (self.upper - self.lower) / 2.0


def elo_estimate(wins: int, draws: int, losses: int, z: float = Z95) -> EloEstimate:
    """Elo from the trinomial results with a normal-approximation interval.

    The interval is computed on the score (mean +/- z standard errors, from the
    per-game variance) and mapped through the same Elo function, so it is
    asymmetric in Elo. When every game had the same result the observed
    variance is zero, which would collapse the interval to a point; the
    variance is then taken with half a win, draw and loss added.
    """
    n = wins + draws + losses
    s = score_fraction(wins, draws, losses)
    if not n:
        return EloEstimate(0.0, -math.inf, math.inf)
    var = per_game_variance(wins, draws, losses)
    if var == 0.0:
        var = per_game_variance(wins + 0.5, draws + 0.5, losses + 0.5)
    se = math.sqrt(var / n)
    return EloEstimate(elo_from_score(s), elo_from_score(s - z * se), elo_from_score(s + z * se))


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that engine1 is stronger, from wins and losses (draws carry no information)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> Tuple[float, float]:
    """Wald's LLR bounds: accept H0 below the first, H1 above the second."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0).

    Model: logistic Elo (the hypotheses are the expected scores
    s0 = score_from_elo(elo0), s1 = score_from_elo(elo1)) with the
    generalised SPRT's normal approximation on the trinomial W/D/L results:
    LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var), where s and var are the
    observed mean score and per-game variance. This is the trinomial GSPRT
    that fishtest used before it switched to pentanomial statistics; note it
    is not cutechess's BayesElo model, so elo0/elo1 are ordinary Elo.

    While one of W/D/L is still zero the variance is estimated with half a
    game added to each (zero variance would make the LLR infinite after a
    handful of games).
    """
    if wins + draws + losses == 0:
        return 0.0
    w, d, l = float(wins), float(draws), float(losses)
    if min(w, d, l) == 0:
        w, d, l = w + 0.5, d + 0.5, l + 0.5
    n = w + d + l
    s = (w + 0.5 * d) / n
    var = per_game_variance(w, d, l)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)


def sprt_decision(llr: float, bounds: Tuple[float, float]) -> Optional[str]:
    """'H0' or 'H1' once the LLR has crossed a bound, else None."""
    lower, upper = bounds
    if llr <= lower:
        return "H0"
    if llr >= upper:
        return "H1"
    return None
