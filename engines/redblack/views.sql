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
    -- an audited list's infinite deals and what it misses in their cycles' basins (canonical form)
    SELECT k,
           CASE WHEN p1[1] = '1' THEN translate(p1, '01', '10') ELSE p1 END AS p1,
           CASE WHEN p1[1] = '1' THEN translate(p2, '01', '10') ELSE p2 END AS p2,
           cycle_id, rounds, period, 'audit' AS found_by
    FROM redblack_audit WHERE status IN ('listed-infinite', 'missing') AND k > 0
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
            WHEN bool_or(found_by = 'basin') THEN 'basin'
            ELSE 'audit' END AS found_by
FROM hits
WHERE length(p1) = length(p2)
GROUP BY k, p1, p2
ORDER BY k, p1, p2;

-- Exhaustive coverage per size k: the canonical deals whose rank has been searched (any
-- method, overlapping shards counted once), the prefix [0, prefix_done) searched without
-- a gap, whether the size is complete, and what the rest costs with the owner rule:
-- CPU seconds per round measured on the size's timed owner-rule shards (shard_timings,
-- from the job logs) times rounds per deal, measured on uniformly drawn deals of the size
-- (an owner-rule sample experiment) when there is one, else on the ranks searched (a
-- window of low ranks holds structured deals and can cost several times the average).
-- What a partial search proves: every cycle whose smallest basin deal has a rank below
-- prefix_done has been found.
CREATE VIEW redblack_coverage AS
WITH r AS (
    SELECT DISTINCT k, range_start AS s, range_stop AS e, space
    FROM redblack_counts WHERE method = 'exhaustive'
), o AS (
    SELECT *, max(e) OVER (PARTITION BY k ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM r
), g AS (
    SELECT *, sum(CASE WHEN prev_end IS NULL OR s > prev_end THEN 1 ELSE 0 END)
              OVER (PARTITION BY k ORDER BY s, e) AS island
    FROM o
), islands AS (
    SELECT k, island, min(s) AS s, max(e) AS e, any_value(space) AS space FROM g GROUP BY k, island
), timed AS (
    SELECT c.k, sum(t.cpu_s) / sum(c.rounds) AS cpu_s_per_round,
           sum(c.rounds) / sum(c.deals) AS searched_rounds_per_deal
    FROM redblack_counts c
    JOIN shard_timings t ON t.game = 'redblack' AND t.experiment = c.experiment
                         AND t.variant = 'owner' AND t.shard = c.shard
    WHERE c.method = 'exhaustive' AND c.algorithm = 'owner' AND c.rounds > 0
    GROUP BY c.k
), uniform AS (
    SELECT k, sum(rounds) / sum(deals) AS rounds_per_deal, sum(deals) AS sampled_deals
    FROM redblack_counts WHERE method = 'sample' AND algorithm = 'owner'
    GROUP BY k
), cov AS (
    SELECT k, any_value(space) AS canonical_deals, sum(e - s) AS ranks_searched,
           coalesce(max(e) FILTER (WHERE s = 0), 0) AS prefix_done
    FROM islands GROUP BY k
)
SELECT cov.k, 2 * cov.k AS cards, cov.canonical_deals, cov.ranks_searched, cov.prefix_done,
       cov.ranks_searched / cov.canonical_deals AS share_searched,
       cov.ranks_searched = cov.canonical_deals AS complete,
       timed.cpu_s_per_round,
       coalesce(uniform.rounds_per_deal, timed.searched_rounds_per_deal) AS rounds_per_deal,
       CASE WHEN uniform.rounds_per_deal IS NOT NULL THEN 'uniform sample of ' || uniform.sampled_deals || ' deals'
            WHEN timed.searched_rounds_per_deal IS NOT NULL THEN 'the ranks searched' END AS rounds_per_deal_from,
       (cov.canonical_deals - cov.ranks_searched)
           * coalesce(uniform.rounds_per_deal, timed.searched_rounds_per_deal) * timed.cpu_s_per_round / 3600
           AS core_hours_left
FROM cov LEFT JOIN timed USING (k) LEFT JOIN uniform USING (k)
ORDER BY cov.k;

-- Per size k and method: deals searched, whether the list is complete, infinite deals
-- (owner-rule samples, which only measure cost, are left out)
-- (canonical, and total counting colour swaps), cycles, and the longest finite game.
CREATE VIEW redblack_summary AS
WITH shards AS (
    SELECT k, method, algorithm, experiment,
           sum(deals) AS deals, max(space) AS space, sum(infinite) AS infinite_hits,
           max(longest_rounds) AS longest_rounds,
           arg_max(longest_p1 || ' ' || longest_p2, longest_rounds * 1e12 - range_start) AS longest_deal
    FROM redblack_counts
    -- an owner-rule sample measures cost: its stopped deals' fates are not known
    WHERE NOT (method = 'sample' AND algorithm = 'owner')
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
    -- a complete exhaustive size counts every infinite deal known for it (the owner rule meets
    -- only some itself: the others are in the basins of the cycles it finds)
    SELECT k, method,
           count(DISTINCT (p1, p2)) FILTER (WHERE length(p1) = length(p2)) AS infinite_canonical,
           count(DISTINCT cycle_id) AS cycles
    FROM (SELECT k, method, p1, p2, cycle_id FROM redblack_found
          UNION ALL
          SELECT i.k, 'exhaustive', i.p1, i.p2, i.cycle_id FROM redblack_infinite i
          JOIN redblack_coverage c ON c.k = i.k AND c.complete)
    GROUP BY ALL
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

-- Histogram of rounds to finish (finite games), by size k and method; only games played
-- to their end by every deal of the shard (brute force: the owner rule stops most games).
CREATE VIEW redblack_lengths AS
SELECT k, method, rounds, sum(deals) AS deals,
       sum(deals) / sum(sum(deals)) OVER (PARTITION BY k, method) AS share
FROM redblack_hist
WHERE algorithm = 'brute'
GROUP BY k, method, rounds
ORDER BY k, method, rounds;




-- An audited list per size k: deals listed, confirmed infinite (replayed to an exact cycle),
-- listed but finite, and the infinite deals it misses in the basins of the cycles its deals
-- reach; and whether cardlab's own exhaustive search of that size is complete (only that
-- makes a list complete for a size).
CREATE VIEW redblack_audit_summary AS
SELECT a.experiment, a.k,
       count(*) FILTER (WHERE a.status <> 'missing') AS listed,
       count(*) FILTER (WHERE a.status = 'listed-infinite') AS confirmed_infinite,
       count(*) FILTER (WHERE a.status = 'listed-finite') AS listed_finite,
       count(*) FILTER (WHERE a.status = 'missing') AS missing,
       count(DISTINCT a.cycle_id) FILTER (WHERE a.cycle_id <> '') AS cycles,
       coalesce(any_value(c.complete), false) AS exhaustive_complete
FROM redblack_audit a LEFT JOIN redblack_coverage c USING (k)
GROUP BY a.experiment, a.k
ORDER BY a.experiment, a.k;