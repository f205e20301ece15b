"""The Narcotic report's queries: every number it shows, as rows with named fields over the
views of ``engines/narcotic/views.sql``; nothing here formats anything."""

from __future__ import annotations

GAMES_SQL = "SELECT count(*) AS n FROM narcotic_games"

SUMMARY_SQL = "SELECT * FROM narcotic_summary ORDER BY experiment, variant"

PRESETS_SQL = """
SELECT experiment, preset, games, wins, win_p, win_lo95, win_hi95, mean_time_s, median_time_s, p95_time_s,
       max_time_s, mean_passes, median_passes, p95_passes, max_passes, loop_share, mean_cycle_length
FROM narcotic_summary WHERE preset IS NOT NULL ORDER BY experiment, preset
"""

SEED_STYLE_SQL = """
SELECT experiment, variant, games,
       coalesce(total_won_time_s, 0) / games AS seed_average_s,
       round(coalesce(total_won_time_s, 0) / games / 3600) AS seed_hours,
       round(coalesce(total_won_time_s, 0) / games / 60) % 60 AS seed_minutes,
       100 - 100 * loop_share AS seed_percent,
       mean_time_s, win_p, win_lo95, win_hi95
FROM narcotic_summary WHERE preset IS NOT NULL
ORDER BY experiment, variant
"""

# the largest sample of each preset answers for it
ANSWER_SQL = """
SELECT preset, experiment, games, wins, win_p, win_lo95, win_hi95, mean_time_s, mean_passes
FROM narcotic_summary WHERE preset IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY preset ORDER BY games DESC, experiment) = 1
ORDER BY preset = 'seed' DESC, preset
"""

COMBOS_SQL = """
SELECT experiment, matching, gather, pile_four, games, win_p, win_lo95, win_hi95, mean_passes, mean_time_s
FROM narcotic_rule_combinations
"""

CAMPAIGN_SQL = """
SELECT experiment, variant, preset, shards, complete, games, wins, loops, win_p, win_lo95, win_hi95,
       mean_time_s, mean_time_lo95, mean_time_hi95, mean_passes, mean_cycle_length,
       seed_average_s, seed_hours, seed_minutes, seed_percent
FROM narcotic_campaign ORDER BY experiment, variant
"""

PASSES_SQL = """
SELECT p.experiment, s.preset, p.passes, p.games, s.games AS total
FROM narcotic_passes p JOIN narcotic_summary s USING (experiment, variant)
WHERE s.preset IS NOT NULL ORDER BY p.experiment, s.preset, p.passes
"""

# the seed's rules on every deck size, exact where enumerated, simulated where played
DECKS_SQL = """
SELECT d.* FROM narcotic_decks d JOIN narcotic_presets p USING (matching, gather, pile_four)
WHERE p.preset = 'seed' ORDER BY d.ranks
"""

EXACT_SQL = """
SELECT variant, matching, gather, pile_four, ranks, preset, sequences, space, won, win_fraction, win_p,
       mean_time_fraction, mean_time_s, sd_time_s, mean_passes, seed_average_s, coverage, complete
FROM narcotic_exact ORDER BY ranks, preset = 'seed' DESC, win_p DESC, variant
"""

COVERAGE_SQL = """
SELECT c.* FROM narcotic_coverage_check c ORDER BY ranks, variant, experiment
"""

# each published claim beside cardlab's figure for it and the seed rules'
CLAIMS_SQL = "SELECT * FROM narcotic_claims ORDER BY ord"

# The report's named queries (``PRESETS_SQL`` is ``presets``), as its GameReport declares them
QUERIES = {name.removesuffix("_SQL").lower(): sql for name, sql in list(globals().items()) if name.endswith("_SQL")}
