-- Narcotic views over the narcotic_games table (one row per game) and the kept campaigns'
-- narcotic_tallies (one row of sums per shard).

-- The 95 % Wilson interval of wins out of games: its lower end for side = -1, upper for +1
-- (z = 1.959963984540054, term by term the formula of engines/core/stats.py).
CREATE MACRO narcotic_wilson(wins, games, side) AS
    (wins / games + 1.959963984540054 * 1.959963984540054 / (2 * games)
     + side * 1.959963984540054 * sqrt(wins / games * (1 - wins / games) / games
                                       + 1.959963984540054 * 1.959963984540054 / (4 * games * games)))
    / (1 + 1.959963984540054 * 1.959963984540054 / games);

-- The deck size of a variant (narcotic_variants comes from the engine: every variant name with
-- its rules and ranks), and the full deck's size: presets are full-deck rules.
CREATE MACRO narcotic_full_deck() AS (SELECT max(ranks) FROM narcotic_variants);

-- One row per experiment and rule combination. A table, computed once when the warehouse is
-- built: its medians and quantiles over every simulated game cost about a second, and the
-- reports and the index read it a dozen times.
CREATE TABLE narcotic_summary AS
WITH g AS (
    SELECT experiment, variant, matching, gather, pile_four, v.ranks,
           count(*) AS games,
           count(*) FILTER (WHERE won) AS wins,
           avg(time_s) FILTER (WHERE won) AS mean_time_s,
           median(time_s) FILTER (WHERE won) AS median_time_s,
           quantile_cont(time_s, 0.95) FILTER (WHERE won) AS p95_time_s,
           max(time_s) FILTER (WHERE won) AS max_time_s,
           avg(passes) FILTER (WHERE won) AS mean_passes,
           median(passes) FILTER (WHERE won) AS median_passes,
           quantile_cont(passes, 0.95) FILTER (WHERE won) AS p95_passes,
           max(passes) FILTER (WHERE won) AS max_passes,
           avg(cycle_length) FILTER (WHERE NOT won) AS mean_cycle_length,
           sum(time_s) FILTER (WHERE won) AS total_won_time_s
    FROM narcotic_games LEFT JOIN narcotic_variants v USING (variant, matching, gather, pile_four)
    GROUP BY ALL
)
SELECT experiment, variant, matching, gather, pile_four, ranks,
       p.preset,  -- rule presets come from the engine (narcotic_presets), never repeated here
       games, wins,
       wins / games AS win_p,
       narcotic_wilson(wins, games, -1) AS win_lo95,
       narcotic_wilson(wins, games, 1) AS win_hi95,
       mean_time_s, median_time_s, p95_time_s, max_time_s,
       mean_passes, median_passes, p95_passes, max_passes,
       (games - wins) / games AS loop_share,
       mean_cycle_length,
       total_won_time_s
FROM g LEFT JOIN narcotic_presets p USING (matching, gather, pile_four, ranks)
ORDER BY experiment, variant;

-- The experiment that runs all sixteen rule combinations on the full deck (the first by name when
-- several do).
CREATE VIEW narcotic_rule_combinations AS
SELECT * FROM narcotic_summary
WHERE experiment = (SELECT experiment FROM narcotic_summary WHERE ranks = narcotic_full_deck()
                    GROUP BY experiment HAVING count(*) = 16 ORDER BY experiment LIMIT 1)
ORDER BY win_p DESC, variant;

-- Passes-to-win histogram, per experiment and rule combination.
CREATE VIEW narcotic_passes AS
SELECT experiment, variant, passes, count(*) AS games
FROM narcotic_games WHERE won
GROUP BY ALL ORDER BY experiment, variant, passes;

-- Kept campaigns: the shards' sums added up, per campaign and rule combination.  complete:
-- the shards tile games [0, games) without a gap.  The seed's own figures: its average time
-- divides the time of won games by all games (a looping game counts as 0 s) and prints
-- round(average / 3600) hours and round(average / 60) % 60 minutes (Ruby's round: halves away
-- from zero, as DuckDB's); the honest figure is the mean time of a won game, with a 95 %
-- normal interval from the sums of time and time squared.
CREATE VIEW narcotic_campaign AS
WITH t AS (
    SELECT experiment, variant, matching, gather, pile_four, v.ranks,
           count(*) AS shards,
           sum(games)::BIGINT AS games, sum(wins)::BIGINT AS wins, sum(loops)::BIGINT AS loops,
           sum(won_time_s)::DOUBLE AS won_time_s, sum(won_time_s2)::DOUBLE AS won_time_s2,
           sum(won_passes)::DOUBLE AS won_passes, sum(loop_cycle_length)::DOUBLE AS loop_cycle_length,
           min(range_start) = 0 AND max(range_stop) = sum(range_stop - range_start) AS complete
    FROM narcotic_tallies LEFT JOIN narcotic_variants v USING (variant, matching, gather, pile_four)
    GROUP BY ALL
), m AS (
    SELECT *,
           won_time_s / wins AS mean_time_s,
           sqrt((won_time_s2 - won_time_s * won_time_s / wins) / (wins - 1)) AS sd_time_s,
           won_time_s / games AS seed_average_s
    FROM t
)
SELECT experiment, variant, matching, gather, pile_four, ranks, p.preset, shards, complete,
       games, wins, loops,
       wins / games AS win_p,
       narcotic_wilson(wins, games, -1) AS win_lo95,
       narcotic_wilson(wins, games, 1) AS win_hi95,
       mean_time_s,
       mean_time_s - 1.959963984540054 * sd_time_s / sqrt(wins) AS mean_time_lo95,
       mean_time_s + 1.959963984540054 * sd_time_s / sqrt(wins) AS mean_time_hi95,
       sd_time_s,
       won_passes / wins AS mean_passes,
       loop_cycle_length / loops AS mean_cycle_length,
       seed_average_s,
       round(seed_average_s / 3600)::BIGINT AS seed_hours,
       (round(seed_average_s / 60)::BIGINT) % 60 AS seed_minutes,
       100 - 100 * loops / games AS seed_percent
FROM m LEFT JOIN narcotic_presets p USING (matching, gather, pile_four, ranks)
ORDER BY experiment, variant;

-- A campaign's games by outcome and passes through the deck.
CREATE VIEW narcotic_campaign_passes AS
SELECT experiment, variant, won, passes, sum(games)::BIGINT AS games
FROM narcotic_tally_passes
GROUP BY ALL ORDER BY experiment, variant, won DESC, passes;

-- Exhaustive shards: every distinct value sequence of a small deck, counted exactly.  Per rule
-- combination and deck size: sequences played, wins, the exact win probability as a reduced
-- fraction and as a decimal, the exact mean time of a won game (fraction and decimal), and
-- coverage: sequences played out of all (4r)!/(4!)^r (space), complete when the shards tile
-- them without a gap.  sd_time_s: the exact standard deviation of a won game's time over all
-- won sequences.  seed_average_s: the seed's own average (won time over all games).
CREATE VIEW narcotic_exact AS
WITH t AS (
    SELECT variant, matching, gather, pile_four, ranks,
           count(*) AS shards,
           any_value(space) AS space,
           sum(sequences)::BIGINT AS sequences, sum(won)::BIGINT AS won, sum(looped)::BIGINT AS looped,
           sum(won_time_s)::BIGINT AS won_time_s, sum(won_time_s2)::DOUBLE AS won_time_s2,
           sum(time_s)::BIGINT AS time_s,
           sum(passes)::BIGINT AS passes, sum(won_passes)::BIGINT AS won_passes,
           min(range_start) = 0 AND max(range_stop) = sum(range_stop - range_start) AS tiled
    FROM narcotic_exhaustive
    GROUP BY ALL
), f AS (
    SELECT *, gcd(won, sequences) AS g_win, gcd(won_time_s, won) AS g_time FROM t
)
SELECT variant, matching, gather, pile_four, ranks, p.preset, shards,
       sequences, space, won, looped,
       CASE WHEN g_win = 0 THEN '0/1' ELSE (won // g_win)::VARCHAR || '/' || (sequences // g_win)::VARCHAR END
           AS win_fraction,
       won / sequences AS win_p,
       CASE WHEN won = 0 THEN NULL ELSE (won_time_s // g_time)::VARCHAR || '/' || (won // g_time)::VARCHAR END
           AS mean_time_fraction,
       won_time_s / won AS mean_time_s,
       sqrt(won_time_s2 / won - (won_time_s / won) ^ 2) AS sd_time_s,  -- over all won sequences, exactly
       won_passes / won AS mean_passes,
       time_s / sequences AS mean_time_all_s,
       won_time_s / sequences AS seed_average_s,
       sequences / space AS coverage,
       tiled AND sequences = space AS complete
FROM f LEFT JOIN (SELECT preset, matching, gather, pile_four FROM narcotic_presets) p
    USING (matching, gather, pile_four)  -- the preset's rules, on a smaller deck
ORDER BY ranks, variant;

-- Per rule combination and deck size: the exact answer (narcotic_exact, complete enumerations
-- only) beside the largest simulation of the same rules and deck, with the simulation's 95 %
-- intervals (Wilson for the win probability, normal for the mean time of a won game) and
-- whether they cover the exact values.  Deck sizes with only one of the two keep their row.
CREATE VIEW narcotic_decks AS
WITH sim AS (
    SELECT experiment, variant, count(*) AS games, count(*) FILTER (WHERE won) AS wins,
           avg(time_s) FILTER (WHERE won) AS mean_time_s,
           stddev_samp(time_s) FILTER (WHERE won) AS sd_time_s
    FROM narcotic_games
    GROUP BY experiment, variant
    QUALIFY row_number() OVER (PARTITION BY variant ORDER BY count(*) DESC, experiment) = 1
), s AS (
    SELECT *, wins / games AS win_p,
           narcotic_wilson(wins, games, -1) AS win_lo95, narcotic_wilson(wins, games, 1) AS win_hi95,
           mean_time_s - 1.959963984540054 * sd_time_s / sqrt(wins) AS mean_time_lo95,
           mean_time_s + 1.959963984540054 * sd_time_s / sqrt(wins) AS mean_time_hi95
    FROM sim
), e AS (SELECT * FROM narcotic_exact WHERE complete)
SELECT v.variant, v.matching, v.gather, v.pile_four, v.ranks,
       e.sequences, e.win_fraction, e.win_p AS exact_win_p,
       e.mean_time_fraction, e.mean_time_s AS exact_mean_time_s,
       s.experiment, s.games, s.wins, s.win_p AS sim_win_p, s.win_lo95, s.win_hi95,
       s.mean_time_s AS sim_mean_time_s, s.mean_time_lo95, s.mean_time_hi95,
       e.win_p BETWEEN s.win_lo95 AND s.win_hi95 AS win_covered,
       e.mean_time_s BETWEEN s.mean_time_lo95 AND s.mean_time_hi95 AS time_covered
FROM narcotic_variants v LEFT JOIN e USING (variant) LEFT JOIN s USING (variant)
WHERE e.variant IS NOT NULL OR s.variant IS NOT NULL
ORDER BY v.matching, v.gather, v.pile_four, v.ranks;

-- Does a simulation's 95 % interval cover the exact value as often as it promises?  The games
-- of each simulation of a deck with a complete exact answer, cut into 100 batches of
-- consecutive games: each batch's Wilson interval either covers the exact win probability or
-- not; about 95 of 100 should (covered, with a 95 % Wilson interval of that share).
CREATE VIEW narcotic_coverage_check AS
WITH b AS (
    SELECT g.experiment, g.variant, e.ranks, e.win_p AS exact_win_p,
           (g.game - min(g.game) OVER w) * 100 // count(*) OVER w AS batch, g.won
    FROM narcotic_games g JOIN narcotic_exact e USING (variant)
    WHERE e.complete
    WINDOW w AS (PARTITION BY g.experiment, g.variant)
), c AS (
    SELECT experiment, variant, ranks, exact_win_p, batch, count(*) AS games,
           count(*) FILTER (WHERE won) AS wins
    FROM b GROUP BY ALL
)
SELECT experiment, variant, ranks, exact_win_p,
       count(*) AS batches, min(games) AS batch_games,
       count(*) FILTER (WHERE exact_win_p BETWEEN narcotic_wilson(wins, games, -1)
                                               AND narcotic_wilson(wins, games, 1)) AS covered,
       covered / batches AS covered_share,
       narcotic_wilson(covered, batches, -1) AS covered_lo95,
       narcotic_wilson(covered, batches, 1) AS covered_hi95
FROM c GROUP BY ALL
ORDER BY ranks, variant, experiment;
