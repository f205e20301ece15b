-- RedBlack views over the tables the engine writes (engines/redblack/engine.py TABLES):
--   redblack_counts (one row per search shard), redblack_hist (rounds to finish),
--   redblack_found (infinite deals met by search shards), redblack_basins (one row per
--   cycle whose basin was enumerated), redblack_basin_deals (canonical balanced deals in basins).
-- A canonical deal has player 1's first card red: each stands for itself and its colour swap.

-- Every known infinite balanced deal, canonical form, with how it was found:
-- exhaustive beats sample beats basin (a deal met by a search shard is not "only" a basin deal).
CREATE VIEW redblack_infinite AS
WITH hits AS (
    SELECT k, p1, p2, cycle_id, rounds_before_cycle, period, method AS found_by
    FROM redblack_found
    UNION ALL
    SELECT d.k, d.p1, d.p2, d.cycle_id, d.rounds_before_cycle, b.period, 'basin' AS found_by
    FROM redblack_basin_deals d
    JOIN (SELECT cycle_id, any_value(period) AS period FROM redblack_basins GROUP BY cycle_id) b USING (cycle_id)
)
SELECT k, p1, p2,
       min(cycle_id) AS cycle_id,
       min(period) AS period,
       min(rounds_before_cycle) AS rounds_before_cycle,
       CASE WHEN bool_or(found_by = 'exhaustive') THEN 'exhaustive'
            WHEN bool_or(found_by = 'sample') THEN 'sample'
            ELSE 'basin' END AS found_by
FROM hits
WHERE length(p1) = length(p2)
GROUP BY k, p1, p2
ORDER BY k, p1, p2;

-- Per size k and method: deals searched, whether the list is complete, infinite deals
-- (canonical, and total counting colour swaps), cycles, and the longest finite game.
CREATE VIEW redblack_summary AS
WITH shards AS (
    SELECT k, method, experiment,
           sum(deals) AS deals, max(space) AS space, sum(infinite) AS infinite_hits,
           max(longest_rounds) AS longest_rounds,
           arg_max(longest_p1 || ' ' || longest_p2, longest_rounds * 1e12 - range_start) AS longest_deal
    FROM redblack_counts
    GROUP BY ALL
), searched AS (
    SELECT s.k, s.method,
           string_agg(DISTINCT s.experiment, ', ' ORDER BY s.experiment) AS experiments,
           sum(s.deals) AS deals,
           bool_or(s.method = 'exhaustive' AND s.deals = s.space) AS complete,
           sum(s.infinite_hits) AS infinite_hits,
           max(s.longest_rounds) AS longest_finite_rounds,
           arg_max(s.longest_deal, s.longest_rounds) AS longest_finite_deal
    FROM shards s
    GROUP BY ALL
), found AS (
    SELECT k, method,
           count(DISTINCT (p1, p2)) FILTER (WHERE length(p1) = length(p2)) AS infinite_canonical,
           count(DISTINCT cycle_id) AS cycles
    FROM redblack_found GROUP BY ALL
), basin AS (
    SELECT k, 'basin' AS method,
           count(DISTINCT (p1, p2)) AS infinite_canonical
    FROM redblack_basin_deals GROUP BY ALL
), basin_cycles AS (
    SELECT k, count(DISTINCT cycle_id) AS cycles, bool_and(basin_complete) AS complete
    FROM (SELECT k, cycle_id, bool_or(basin_complete) AS basin_complete FROM redblack_basins GROUP BY ALL)
    GROUP BY ALL
)
SELECT s.k, s.method, s.experiments, s.deals,
       CASE WHEN s.complete THEN 'yes' ELSE 'no' END AS complete,
       s.infinite_hits,
       coalesce(f.infinite_canonical, 0) AS infinite_canonical,
       2 * coalesce(f.infinite_canonical, 0) AS infinite_total,
       coalesce(f.cycles, 0) AS cycles,
       s.longest_finite_rounds, s.longest_finite_deal
FROM searched s LEFT JOIN found f USING (k, method)
UNION ALL
SELECT c.k, 'basin' AS method, NULL AS experiments, NULL AS deals,
       CASE WHEN c.complete THEN 'yes' ELSE 'no' END AS complete,
       NULL AS infinite_hits,
       coalesce(b.infinite_canonical, 0) AS infinite_canonical,
       2 * coalesce(b.infinite_canonical, 0) AS infinite_total,
       c.cycles,
       NULL AS longest_finite_rounds, NULL AS longest_finite_deal
FROM basin_cycles c LEFT JOIN basin b USING (k)
ORDER BY k, method;

-- One row per cycle (modulo colour swap): period, basin size and its balanced deals.
CREATE VIEW redblack_cycles AS
WITH f AS (
    SELECT cycle_id, min(k) AS k, min(period) AS period,
           count(*) AS deals_met,
           string_agg(DISTINCT method, ', ' ORDER BY method) AS found_by
    FROM redblack_found GROUP BY cycle_id
), b AS (
    SELECT cycle_id, min(k) AS k, min(cards) AS cards, min(period) AS period,
           bool_and(colour_symmetric) AS colour_symmetric, max(basin_states) AS basin_states,
           bool_or(basin_complete) AS basin_complete, max(basin_depth) AS basin_depth,
           max(balanced_deals) AS balanced_deals_canonical
    FROM redblack_basins GROUP BY cycle_id
)
SELECT cycle_id,
       coalesce(b.k, f.k) AS k,
       coalesce(b.cards, 2 * f.k) AS cards,
       coalesce(b.period, f.period) AS period,
       b.colour_symmetric, b.basin_states, b.basin_complete, b.basin_depth,
       b.balanced_deals_canonical,
       2 * b.balanced_deals_canonical AS balanced_deals_total,
       coalesce(f.found_by, 'basin') AS found_by,
       coalesce(f.deals_met, 0) AS deals_met
FROM b FULL OUTER JOIN f USING (cycle_id)
ORDER BY k, cycle_id;

-- Histogram of rounds to finish (finite games), by size k and method.
CREATE VIEW redblack_lengths AS
SELECT k, method, rounds, sum(deals) AS deals,
       sum(deals) / sum(sum(deals)) OVER (PARTITION BY k, method) AS share
FROM redblack_hist
GROUP BY k, method, rounds
ORDER BY k, method, rounds;
