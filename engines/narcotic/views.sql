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
-- Two enumerations count the same sequences: the plain one (experiment `exhaustive`, a game a
-- sequence) and the canonical one (experiment `canonical`: a game a canonical deck, every count
-- weighted by the r! sequences it stands for, ranges in canonical ranks).  Each is added up on
-- its own (narcotic_exact_enumerations); narcotic_exact keeps one a variant, the complete one
-- first, then the larger coverage, then the canonical one.  enumeration names it, decks: the
-- games it played.
CREATE VIEW narcotic_exact_enumerations AS
WITH t AS (
    SELECT experiment AS enumeration, variant, matching, gather, pile_four, ranks,
           count(*) AS shards,
           any_value(space) AS space,
           sum(range_stop - range_start)::BIGINT AS decks,
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
       tiled AND sequences = space AS complete,
       enumeration, decks,
       won_time_s, won_time_s2, time_s, passes, won_passes
FROM f LEFT JOIN (SELECT preset, matching, gather, pile_four FROM narcotic_presets) p
    USING (matching, gather, pile_four)  -- the preset's rules, on a smaller deck
ORDER BY ranks, variant, enumeration;

CREATE VIEW narcotic_exact AS
SELECT * EXCLUDE (won_time_s, won_time_s2, time_s, passes, won_passes)
FROM narcotic_exact_enumerations
QUALIFY row_number() OVER (PARTITION BY variant
                           ORDER BY complete DESC, coverage DESC, enumeration = 'canonical' DESC, enumeration) = 1
ORDER BY ranks, variant;

-- Where both enumerations of a variant are complete, do they agree on every count?  (They must:
-- the rules compare values only for equality, so a renaming changes no game.)
CREATE VIEW narcotic_exact_agreement AS
SELECT a.variant, a.ranks, a.preset, a.sequences, a.decks AS plain_decks, b.decks AS canonical_decks,
       a.sequences = b.sequences AND a.won = b.won AND a.looped = b.looped AND a.won_time_s = b.won_time_s
           AND a.won_time_s2 = b.won_time_s2 AND a.time_s = b.time_s AND a.passes = b.passes
           AND a.won_passes = b.won_passes AS agree
FROM narcotic_exact_enumerations a JOIN narcotic_exact_enumerations b USING (variant)
WHERE a.enumeration = 'exhaustive' AND b.enumeration = 'canonical' AND a.complete AND b.complete
ORDER BY a.ranks, a.variant;

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

-- Published claims (docs/narcotic.md, "Published claims"): each figure a source states, with the
-- source's words and rule text, the measure cardlab reads it as, and the rule combination that
-- reproduces it.  The texts are data, the figures are computed below.  claimed is in the
-- measure's unit (a share, passes, seconds); half_unit is half a unit of the claim's last stated
-- digit (its own precision); source_games is the sample the source played, when it says.
CREATE TABLE narcotic_claim_texts AS
SELECT ord::INTEGER AS ord, claim, source, url, quote, rules_quote, matching, gather, pile_four, measure,
       claimed::DOUBLE AS claimed, half_unit::DOUBLE AS half_unit, source_games::BIGINT AS source_games
FROM (VALUES
    (1, 'wikipedia_cycles', 'Wikipedia, "Perpetual Motion (solitaire)"',
     'https://en.wikipedia.org/wiki/Perpetual_Motion_(solitaire)',
     'in about 45% of cases a cycle occurs: that is, the cards return to exactly the same sequence as one that has been seen previously',
     'duplicates are moved to the leftmost pile with an equal card ... Only the top card of each pile is in play ... the piles are picked up, starting from the rightmost pile, and put over one another either faced down or face up',
     'deal', 'bottom-right', 'keep', 'loop_share', 0.45, 0.005, NULL),
    (2, 'wikipedia_rounds', 'Wikipedia, "Perpetual Motion (solitaire)"',
     'https://en.wikipedia.org/wiki/Perpetual_Motion_(solitaire)',
     'When the game can be won, it still takes an average of 128 rounds before completion',
     'as above: a round is one pass through the stock',
     'deal', 'bottom-right', 'keep', 'mean_passes_won', 128, 0.5, NULL),
    (3, 'clarke_completed', 'M. C. Clarke, "On the Chances of Completing the Game of ''Perpetual Motion''" (arXiv:0907.1955, 2009)',
     'https://arxiv.org/abs/0907.1955',
     '54.55% +/- 0.89% of games can be completed (by a patient player!) but that the remaining 45.45% result in non-terminating cycles',
     'the abstract states no rules, and solitairewinrates.com names left to right collection of piles between rounds as the rules of the paper',
     'deal', 'bottom-right', 'keep', 'win_p', 0.5455, 0.00005, 10000),
    (4, 'masten_won', 'BVS Solitaire, "Perpetual Motion Solitaire" (a computer analysis by Mark Masten)',
     'https://www.bvssolitaire.com/rules/perpetual-motion.htm',
     'Perpetual Motion is won 8.67% of the time, assuming every available move is played',
     'The top card of each pile is available for play. If two or more cards on different tableaus have the same rank, they are moved to the leftmost of the equal cards',
     'cascade', 'bottom-left', 'keep', 'win_p', 0.0867, 0.00005, NULL),
    (5, 'masten_deals', 'BVS Solitaire, "Perpetual Motion Solitaire" (a computer analysis by Mark Masten)',
     'https://www.bvssolitaire.com/rules/perpetual-motion.htm',
     'it takes an average of 44.7 deals before a game is either won, or a repeating loop is encountered',
     'as above: a deal read as one pass through the stock',
     'cascade', 'bottom-left', 'keep', 'mean_passes_all', 44.7, 0.05, NULL),
    (6, 'seed_completed_500', 'The seed document, its sample output (ruby narcotic.rb 500)',
     '../shared/seeds/000_2140af09572abf64.txt',
     '48.60 percent of decks can be completed',
     'the seed''s Ruby program: proper_piles on each deal of four, piles gathered from right to left',
     'deal', 'top-right', 'keep', 'win_p', 0.486, 0.00005, 500),
    (7, 'seed_completed_50', 'The seed document, its sample output (ruby narcotic.rb 50)',
     '../shared/seeds/000_2140af09572abf64.txt',
     '34.00 percent of decks can be completed',
     'as above',
     'deal', 'top-right', 'keep', 'win_p', 0.34, 0.00005, 50),
    (8, 'seed_time_500', 'The seed document, its sample output (ruby narcotic.rb 500)',
     '../shared/seeds/000_2140af09572abf64.txt',
     'Average estimated completion time is 3 hours 37 minutes',
     'as above, and its average divides the time of won games by all trials and rounds the hours, so the one average it can print this for is 2 h 37 min',
     'deal', 'top-right', 'keep', 'seed_average_s', 9420, 30, 500),
    (9, 'seed_time_50', 'The seed document, its sample output (ruby narcotic.rb 50)',
     '../shared/seeds/000_2140af09572abf64.txt',
     'Average estimated completion time is 2 hours 14 minutes',
     'as above: the one average it can print this for is 2 h 14 min',
     'deal', 'top-right', 'keep', 'seed_average_s', 8040, 30, 50)
) AS t(ord, claim, source, url, quote, rules_quote, matching, gather, pile_four, measure, claimed, half_unit,
       source_games);

-- Every figure a claim can name, per campaign and rule combination: its value, a 95 % interval
-- (Wilson for shares, normal for means), sd (the spread of one game's value, from which the
-- sampling error of a source's smaller sample follows) and n (the games it is a mean over).
-- Means of passes come from the histogram of passes (narcotic_tally_passes), the seed's average
-- from the sums of time and time squared of won games (a looping game counts as 0 s).
CREATE VIEW narcotic_campaign_measures AS
WITH t AS (
    SELECT experiment, variant,
           sum(games)::DOUBLE AS games, sum(wins)::DOUBLE AS wins,
           sum(won_time_s)::DOUBLE AS won_time_s, sum(won_time_s2)::DOUBLE AS won_time_s2,
           min(range_start) = 0 AND max(range_stop) = sum(range_stop - range_start) AS complete
    FROM narcotic_tallies GROUP BY ALL
), h AS (
    SELECT experiment, variant,
           sum(games) FILTER (WHERE won)::DOUBLE AS won_n,
           sum(games::DOUBLE * passes) FILTER (WHERE won) AS won_s1,
           sum(games::DOUBLE * passes * passes) FILTER (WHERE won) AS won_s2,
           sum(games)::DOUBLE AS all_n,
           sum(games::DOUBLE * passes) AS all_s1,
           sum(games::DOUBLE * passes * passes) AS all_s2
    FROM narcotic_tally_passes GROUP BY ALL
), m AS (
    SELECT experiment, variant, complete, games, 'win_p' AS measure, wins AS successes,
           wins / games AS value, sqrt(wins / games * (1 - wins / games)) AS sd, games AS n
    FROM t
    UNION ALL
    SELECT experiment, variant, complete, games, 'loop_share', games - wins,
           1 - wins / games, sqrt(wins / games * (1 - wins / games)), games
    FROM t
    UNION ALL
    SELECT experiment, variant, complete, games, 'mean_passes_won', NULL,
           won_s1 / won_n, sqrt((won_s2 - won_s1 * won_s1 / won_n) / (won_n - 1)), won_n
    FROM t JOIN h USING (experiment, variant)
    UNION ALL
    SELECT experiment, variant, complete, games, 'mean_passes_all', NULL,
           all_s1 / all_n, sqrt((all_s2 - all_s1 * all_s1 / all_n) / (all_n - 1)), all_n
    FROM t JOIN h USING (experiment, variant)
    UNION ALL
    SELECT experiment, variant, complete, games, 'seed_average_s', NULL,
           won_time_s / games, sqrt((won_time_s2 - won_time_s * won_time_s / games) / (games - 1)), games
    FROM t
)
SELECT experiment, variant, complete, games::BIGINT AS games, measure, value,
       CASE WHEN successes IS NULL THEN value - 1.959963984540054 * sd / sqrt(n)
            ELSE narcotic_wilson(successes, games, -1) END AS lo95,
       CASE WHEN successes IS NULL THEN value + 1.959963984540054 * sd / sqrt(n)
            ELSE narcotic_wilson(successes, games, 1) END AS hi95,
       sd, n
FROM m ORDER BY experiment, variant, measure;

-- Each published claim beside cardlab's figure for it: the largest campaign of the claim's rule
-- combination answers (a complete one first), and the seed rules' figure of the same measure
-- stands beside it.  The claim holds when cardlab's figure is within the claim's own precision
-- (half_unit) or, where the source names its sample, within that sample's 95 % sampling error
-- (1.96 sd / sqrt(its games), its won games for a measure over won games).
CREATE VIEW narcotic_claims AS
WITH c AS (
    SELECT t.*, v.variant
    FROM narcotic_claim_texts t
    LEFT JOIN narcotic_variants v
        ON v.matching = t.matching AND v.gather = t.gather AND v.pile_four = t.pile_four
           AND v.ranks = narcotic_full_deck()
), best AS (
    SELECT * FROM narcotic_campaign_measures
    QUALIFY row_number() OVER (PARTITION BY variant, measure ORDER BY complete DESC, games DESC, experiment) = 1
), seed AS (
    SELECT b.* FROM best b JOIN narcotic_variants v USING (variant)
    JOIN narcotic_presets p USING (matching, gather, pile_four, ranks) WHERE p.preset = 'seed'
), j AS (
    SELECT c.*, b.experiment AS campaign, b.games, b.complete, b.value, b.lo95, b.hi95,
           b.value - c.claimed AS difference,
           1.959963984540054 * b.sd / sqrt(c.source_games * b.n / b.games) AS source_error95,
           s.experiment AS seed_campaign, s.value AS seed_value, s.lo95 AS seed_lo95, s.hi95 AS seed_hi95
    FROM c
    LEFT JOIN best b ON b.variant = c.variant AND b.measure = c.measure
    LEFT JOIN seed s ON s.measure = c.measure
)
SELECT ord, claim, source, url, quote, rules_quote, matching, gather, pile_four, variant, measure,
       claimed, half_unit, source_games, campaign, games, complete, value, lo95, hi95, difference,
       source_error95,
       abs(difference) <= half_unit AS within_precision,
       CASE WHEN value IS NOT NULL THEN coalesce(abs(difference) <= source_error95, false) END AS within_sample,
       CASE WHEN value IS NOT NULL
            THEN abs(difference) <= half_unit OR coalesce(abs(difference) <= source_error95, false) END AS holds,
       seed_campaign, seed_value, seed_lo95, seed_hi95
FROM j ORDER BY ord;
