-- RedBlack views over the tables the engine writes (engines/redblack/engine.py TABLES):
--   redblack_counts (one row per search shard), redblack_hist (rounds to finish),
--   redblack_found (infinite deals met by search shards), redblack_basins (one row per
--   cycle whose basin was enumerated), redblack_basin_deals (canonical balanced deals in basins).
-- A canonical deal has player 1's first card red: each stands for itself and its colour swap.

-- Every known infinite balanced deal, canonical form, with how it was found (found_by):
-- exhaustive, sample (met by our own search), basin (in the basin of a cycle our search found),
-- audit (a deal of an audited list, replayed), audit basin (in the basin of a listed deal's
-- cycle, not in the list); the first of these wins (a deal met by a search shard is not
-- "only" a basin deal).
CREATE VIEW redblack_infinite AS
WITH hits AS (
    SELECT k, p1, p2, cycle_id, rounds_before_cycle, period, method AS found_by
    FROM redblack_found
    UNION ALL
    -- an audited list's infinite deals and what it misses in their cycles' basins (canonical form)
    SELECT k,
           CASE WHEN p1[1] = '1' THEN translate(p1, '01', '10') ELSE p1 END AS p1,
           CASE WHEN p1[1] = '1' THEN translate(p2, '01', '10') ELSE p2 END AS p2,
           cycle_id, rounds, period,
           CASE WHEN status = 'missing' THEN 'audit basin' ELSE 'audit' END AS found_by
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
            WHEN bool_or(found_by = 'audit') THEN 'audit'
            ELSE 'audit basin' END AS found_by
FROM hits
WHERE length(p1) = length(p2)
GROUP BY k, p1, p2
ORDER BY k, p1, p2;

-- The two-sided 95 % quantile of Student's t with df degrees of freedom: tabulated to df = 30,
-- then the Cornish-Fisher expansion in 1/df (Abramowitz & Stegun 26.7.5; error below 1e-5 there).
CREATE MACRO student_t95(df) AS
    CASE WHEN df <= 30 THEN
        [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
         2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
         2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423][df]
    ELSE 1.959963984540054
        + (1.959963984540054 ^ 3 + 1.959963984540054) / (4 * df)
        + (5 * 1.959963984540054 ^ 5 + 16 * 1.959963984540054 ^ 3 + 3 * 1.959963984540054) / (96 * df ^ 2)
        + (3 * 1.959963984540054 ^ 7 + 19 * 1.959963984540054 ^ 5 + 17 * 1.959963984540054 ^ 3
           - 15 * 1.959963984540054) / (384 * df ^ 3)
    END;

-- One row per timed cost window (engines/redblack/kinds/windows.py): a window of consecutive
-- ranks at a stratified position (window i uniform in the i-th of n equal parts of the ranks;
-- experiment exhaustive_kNN_windows, shard = the window's
-- draw), searched exhaustively with the owner rule like a campaign shard, and the CPU seconds
-- its search took: its job's (shard_timings, from the job log) less a warm job's start-up,
-- the mean of the size's start-up probes (variant startup, shards 1.. ; shard 0 is the
-- warm-up that compiles). No probe timed, no window: a job's start-up is as long as a
-- million deals' search. campaign_searched: a campaign shard (any other exhaustive shard of
-- the size) has searched the window's ranks too, so the window no longer measures the ranks left.
CREATE VIEW redblack_cost_windows AS
WITH startup AS (
    SELECT experiment, avg(cpu_s) AS startup_cpu_s, count(*) AS probes
    FROM shard_timings WHERE game = 'redblack' AND variant = 'startup' AND shard > 0
    GROUP BY experiment
), campaign AS (
    SELECT DISTINCT k, range_start, range_stop FROM redblack_counts
    WHERE method = 'exhaustive' AND experiment <> printf('exhaustive_k%02d_windows', k)
)
SELECT c.k, c.shard AS draw, c.range_start, c.range_stop, c.deals, c.rounds,
       t.cpu_s AS job_cpu_s, t.machine, s.startup_cpu_s, s.probes,
       t.cpu_s - s.startup_cpu_s AS cpu_s,
       (t.cpu_s - s.startup_cpu_s) / c.deals AS cpu_s_per_deal,
       c.rounds / c.deals AS rounds_per_deal,
       EXISTS (SELECT 1 FROM campaign g WHERE g.k = c.k AND g.range_start < c.range_stop
                                          AND g.range_stop > c.range_start) AS campaign_searched
FROM redblack_counts c
JOIN shard_timings t ON t.game = 'redblack' AND t.experiment = c.experiment
                     AND t.variant = 'owner' AND t.shard = c.shard
JOIN startup s ON s.experiment = c.experiment
WHERE c.method = 'exhaustive' AND c.algorithm = 'owner' AND c.deals > 0
  AND c.experiment = printf('exhaustive_k%02d_windows', c.k)
ORDER BY c.k, c.shard;

-- Per size k with at least two timed cost windows in the ranks left (not campaign_searched):
-- the CPU seconds per deal of a campaign shard of those ranks, as the mean over those windows
-- with its 95 % interval (mean ± t·s/√n, Student's t with n - 1 degrees of freedom: the
-- windows are independent draws, one uniform in each of n equal parts of the ranks, so the
-- plain mean is the stratified mean and s²/n, which ignores the strata, overstates its
-- variance: the interval errs wide; those in the ranks left are one in each part left), the
-- spread between them (min, median, max) and rounds per
-- deal over them; windows_searched: the size's windows left out, their ranks searched by a
-- campaign (a campaign over the cheap ranks would otherwise make the rest look cheap).
CREATE VIEW redblack_window_cost AS
WITH w AS (
    SELECT k, count(*) AS windows, min(deals) AS window_deals, sum(deals) AS deals, sum(cpu_s) AS cpu_s,
           avg(cpu_s_per_deal) AS cpu_s_per_deal, stddev_samp(cpu_s_per_deal) AS sd_cpu_s_per_deal,
           min(cpu_s_per_deal) AS min_cpu_s_per_deal, median(cpu_s_per_deal) AS median_cpu_s_per_deal,
           max(cpu_s_per_deal) AS max_cpu_s_per_deal,
           sum(rounds) / sum(deals) AS rounds_per_deal,
           any_value(startup_cpu_s) AS startup_cpu_s, any_value(probes) AS probes, any_value(machine) AS machine
    FROM redblack_cost_windows WHERE NOT campaign_searched GROUP BY k HAVING count(*) >= 2
), searched AS (
    SELECT k, count(*) FILTER (WHERE campaign_searched) AS windows_searched FROM redblack_cost_windows GROUP BY k
)
SELECT w.*, searched.windows_searched, student_t95(windows - 1) AS t95,
       -- a mean of positive costs: an interval reaching below zero says only that it is not below zero
       greatest(0, cpu_s_per_deal - student_t95(windows - 1) * sd_cpu_s_per_deal / sqrt(windows))
           AS lo95_cpu_s_per_deal,
       cpu_s_per_deal + student_t95(windows - 1) * sd_cpu_s_per_deal / sqrt(windows) AS hi95_cpu_s_per_deal
FROM w JOIN searched USING (k) ORDER BY k;

-- The owner-rule campaign shards (exhaustive searches other than the cost windows) that have a
-- timing line, one row each: k, experiment, shard, range_start, range_stop, deals, cpu_s (the
-- shard's job, start-up included), machine (NULL before timing lines named it), cpu_s_per_deal.
CREATE VIEW redblack_campaign_shards AS
SELECT c.k, c.experiment, c.shard, c.range_start, c.range_stop, c.deals, t.cpu_s, t.machine,
       t.cpu_s / nullif(c.deals, 0) AS cpu_s_per_deal
FROM redblack_counts c
JOIN shard_timings t ON t.game = 'redblack' AND t.experiment = c.experiment
                     AND t.variant = 'owner' AND t.shard = c.shard
WHERE c.method = 'exhaustive' AND c.algorithm = 'owner'
  AND c.experiment <> printf('exhaustive_k%02d_windows', c.k);

-- The cost windows checked against a campaign, per size k: the windows whose ranks a campaign
-- shard has searched since (campaign_searched) and that shard was timed on the windows' kind of
-- CPU (machine) are draws over those shards' ranks (one in each part of them), so their mean
-- CPU per deal (95 % interval as in redblack_window_cost) times the deals of those shards predicts
-- the CPU seconds they took (shard_timings); ratio: taken over predicted. CPU seconds on another
-- kind of CPU say nothing about these windows (a campaign spans sessions, and sessions get
-- machines of different generations), nor do windows over other ranks about these shards:
-- shards_elsewhere counts the campaign's timed shards left out (timed on another kind of CPU,
-- or before the kind was recorded). Fewer than two such windows, no check.
CREATE VIEW redblack_cost_check AS
WITH shards AS (
    SELECT k, range_start, range_stop, deals, cpu_s, machine FROM redblack_campaign_shards
), w AS (
    SELECT x.k, count(*) AS windows, avg(x.cpu_s_per_deal) AS cpu_s_per_deal, stddev_samp(x.cpu_s_per_deal) AS sd,
           any_value(x.machine) AS machine
    FROM redblack_cost_windows x
    WHERE x.campaign_searched
      AND EXISTS (SELECT 1 FROM shards s WHERE s.k = x.k AND s.machine = x.machine
                                           AND s.range_start <= x.range_start AND x.range_stop <= s.range_stop)
    GROUP BY x.k HAVING count(*) >= 2
), campaign AS (
    SELECT s.k, count(*) AS shards, sum(s.deals) AS deals, sum(s.cpu_s) AS cpu_s
    FROM shards s JOIN w ON s.k = w.k AND s.machine = w.machine
    GROUP BY s.k
)
SELECT w.k, w.windows, c.shards, c.deals, w.cpu_s_per_deal,
       c.deals * w.cpu_s_per_deal AS predicted_cpu_s,
       c.deals * greatest(0, w.cpu_s_per_deal - student_t95(w.windows - 1) * w.sd / sqrt(w.windows)) AS lo95_cpu_s,
       c.deals * (w.cpu_s_per_deal + student_t95(w.windows - 1) * w.sd / sqrt(w.windows)) AS hi95_cpu_s,
       c.cpu_s AS taken_cpu_s, c.cpu_s / (c.deals * w.cpu_s_per_deal) AS ratio, w.machine,
       (SELECT count(*) FROM shards o WHERE o.k = w.k AND o.machine IS DISTINCT FROM w.machine) AS shards_elsewhere
FROM w JOIN campaign c USING (k)
ORDER BY w.k;

-- The ranks searched exhaustively per size k, as disjoint ranges [range_start, range_stop)
-- (overlapping and touching shards merged): with the cost windows (with_windows) or by the
-- shards alone, which is what a campaign's own count (`cardlab redblack campaign K`) names.
CREATE MACRO redblack_merged_ranges(with_windows) AS TABLE
WITH r AS (
    SELECT DISTINCT k, range_start AS s, range_stop AS e, space
    FROM redblack_counts
    WHERE method = 'exhaustive' AND (with_windows OR experiment <> printf('exhaustive_k%02d_windows', k))
), o AS (
    SELECT *, max(e) OVER (PARTITION BY k ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM r
), g AS (
    SELECT *, sum(CASE WHEN prev_end IS NULL OR s > prev_end THEN 1 ELSE 0 END)
              OVER (PARTITION BY k ORDER BY s, e) AS island
    FROM o
)
SELECT k, min(s) AS range_start, max(e) AS range_stop, any_value(space) AS canonical_deals
FROM g GROUP BY k, island;

-- The ranks searched exhaustively per size k, shards and windows merged.
CREATE VIEW redblack_searched_ranges AS
SELECT * FROM redblack_merged_ranges(true) ORDER BY k, range_start;

-- Deals searched exhaustively per size k, each deal once: summing redblack_counts.deals per k counts
-- a cost window's ranks again where a campaign shard searched them too (experiments
-- exhaustive_kNN_windows and exhaustive_kNN of k = 21..23), and any ranks two experiments share.
-- deals: the canonical deals in the ranks searched (the disjoint ranges above); complete: all of them.
CREATE VIEW redblack_counts_by_size AS
SELECT k, sum(range_stop - range_start) AS deals, any_value(canonical_deals) AS canonical_deals,
       sum(range_stop - range_start) = any_value(canonical_deals) AS complete, count(*) AS ranges
FROM redblack_searched_ranges
GROUP BY k
ORDER BY k;

-- Exhaustive coverage per size k: the canonical deals whose rank has been searched (any
-- method, overlapping shards and scattered windows counted once), the prefix [0, prefix_done)
-- searched without a gap, whether the size is complete, and what the rest costs with the
-- owner rule (core_hours_left, from cost_from):
--   windows: the mean CPU seconds per deal of the size's cost windows in the ranks left (redblack_window_cost),
--     with its 95 % interval (core_hours_lo95, core_hours_hi95): the way a campaign runs;
--   uniform sample / ranks searched, when there are no cost windows: CPU seconds per round
--     (cpu_s_per_round_from: the size's cost windows when it has them, which timed it on the
--     machine that prices the rest, else its timed owner-rule campaign shards, shard_timings) times rounds per deal,
--     measured on uniformly drawn deals of the size (an owner-rule sample experiment) when
--     there is one, else on the ranks searched (a window of low ranks holds structured deals
--     and can cost several times the average).
-- sample_core_hours_left is always the second figure: a cross-check of the windows.
-- What a partial search proves: every cycle whose smallest basin deal has a rank in a searched
-- range (redblack_searched_ranges; below prefix_done, for one) has been found.
CREATE VIEW redblack_coverage AS
WITH islands AS (
    SELECT k, range_start AS s, range_stop AS e, canonical_deals AS space FROM redblack_searched_ranges
), timed AS (
    SELECT c.k, sum(t.cpu_s) / sum(c.rounds) AS cpu_s_per_round,
           sum(c.rounds) / sum(c.deals) AS searched_rounds_per_deal
    FROM redblack_counts c
    JOIN shard_timings t ON t.game = 'redblack' AND t.experiment = c.experiment
                         AND t.variant = 'owner' AND t.shard = c.shard
    WHERE c.method = 'exhaustive' AND c.algorithm = 'owner' AND c.rounds > 0
      -- campaign shards: a cost window's job time is mostly start-up (redblack_cost_windows)
      AND c.experiment <> printf('exhaustive_k%02d_windows', c.k)
    GROUP BY c.k
    -- a rate from less than a CPU-second of timed work is noise (start-up dominates such a
    -- shard): no rate and no projection, rather than a wild one
    HAVING sum(t.cpu_s) >= 1
), window_rate AS (
    -- every window of the size, in ranks searched or not: each timed rounds on the windows' machine
    SELECT k, sum(cpu_s) / sum(rounds) AS cpu_s_per_round FROM redblack_cost_windows
    GROUP BY k HAVING count(*) >= 2 AND sum(rounds) > 0
), uniform AS (
    SELECT k, sum(rounds) / sum(deals) AS rounds_per_deal, sum(deals) AS sampled_deals
    FROM redblack_counts WHERE method = 'sample' AND algorithm = 'owner'
    GROUP BY k
), cov AS (
    SELECT k, any_value(space) AS canonical_deals, sum(e - s) AS ranks_searched,
           coalesce(max(e) FILTER (WHERE s = 0), 0) AS prefix_done,
           sum(e - s) - coalesce((SELECT sum(range_stop - range_start) FROM redblack_merged_ranges(false) m
                                   WHERE m.k = islands.k), 0) AS window_only_ranks
    FROM islands GROUP BY k
), cost AS (
    SELECT cov.*, cov.canonical_deals - cov.ranks_searched AS deals_left,
           coalesce(window_rate.cpu_s_per_round, timed.cpu_s_per_round) AS cpu_s_per_round,
           CASE WHEN window_rate.k IS NOT NULL THEN 'cost windows'
                WHEN timed.k IS NOT NULL THEN 'timed shards' END AS cpu_s_per_round_from,
           coalesce(uniform.rounds_per_deal, timed.searched_rounds_per_deal) AS rounds_per_deal,
           CASE WHEN uniform.rounds_per_deal IS NOT NULL THEN 'uniform sample'
                WHEN timed.searched_rounds_per_deal IS NOT NULL THEN 'ranks searched' END AS rounds_per_deal_from,
           CASE WHEN uniform.rounds_per_deal IS NOT NULL THEN uniform.sampled_deals END AS rounds_per_deal_sample,
           w.cpu_s_per_deal AS window_cpu_s_per_deal, w.lo95_cpu_s_per_deal, w.hi95_cpu_s_per_deal
    FROM cov LEFT JOIN timed USING (k) LEFT JOIN window_rate USING (k) LEFT JOIN uniform USING (k)
             LEFT JOIN redblack_window_cost w USING (k)
), sampled AS (
    SELECT *, deals_left * rounds_per_deal * cpu_s_per_round / 3600 AS sample_core_hours_left FROM cost
)
SELECT k, 2 * k AS cards, canonical_deals, ranks_searched, window_only_ranks, prefix_done, deals_left,
       ranks_searched / canonical_deals AS share_searched,
       ranks_searched = canonical_deals AS complete,
       cpu_s_per_round, cpu_s_per_round_from, rounds_per_deal, rounds_per_deal_from, rounds_per_deal_sample,
       window_cpu_s_per_deal AS cpu_s_per_deal,
       coalesce(deals_left * window_cpu_s_per_deal / 3600, sample_core_hours_left) AS core_hours_left,
       deals_left * lo95_cpu_s_per_deal / 3600 AS core_hours_lo95,
       deals_left * hi95_cpu_s_per_deal / 3600 AS core_hours_hi95,
       CASE WHEN window_cpu_s_per_deal IS NOT NULL THEN 'windows'
            WHEN sample_core_hours_left IS NOT NULL THEN rounds_per_deal_from END AS cost_from,
       sample_core_hours_left
FROM sampled
ORDER BY k;

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

-- One row per cycle (modulo colour swap) known to the warehouse, whoever met it: a search
-- shard, a basin job, or an audit (a listed deal's cycle): period, basin size and its
-- balanced deals where a basin job enumerated it, and the infinite balanced deals known in it.
CREATE VIEW redblack_cycles AS
WITH met AS (
    SELECT cycle_id, k, period, method AS found_by FROM redblack_found
    UNION ALL
    SELECT cycle_id, k, period, 'basin' FROM redblack_basins
    UNION ALL
    SELECT cycle_id, k, period, 'audit' FROM redblack_audit
    WHERE status IN ('listed-infinite', 'missing') AND cycle_id <> ''
), f AS (
    SELECT cycle_id, min(k) AS k, min(period) AS period,
           -- a basin job walks cycles a search found: it finds a cycle only when nothing else did
           coalesce(string_agg(DISTINCT found_by, ', ' ORDER BY found_by) FILTER (WHERE found_by <> 'basin'),
                    'basin') AS found_by
    FROM met GROUP BY cycle_id
), searched AS (
    SELECT cycle_id, count(*) AS deals_met FROM redblack_found GROUP BY cycle_id
), b AS (
    SELECT cycle_id, min(cards) AS cards,
           bool_and(colour_symmetric) AS colour_symmetric, max(basin_states) AS basin_states,
           bool_or(basin_complete) AS basin_complete, max(basin_depth) AS basin_depth,
           max(balanced_deals) AS balanced_deals_canonical
    FROM redblack_basins GROUP BY cycle_id
), known AS (
    SELECT cycle_id, count(*) AS infinite_known FROM redblack_infinite GROUP BY cycle_id
)
SELECT cycle_id, f.k,
       coalesce(b.cards, 2 * f.k) AS cards,
       f.period,
       b.colour_symmetric, b.basin_states, b.basin_complete, b.basin_depth,
       b.balanced_deals_canonical,
       2 * b.balanced_deals_canonical AS balanced_deals_total,
       coalesce(known.infinite_known, 0) AS infinite_known,
       f.found_by,
       coalesce(searched.deals_met, 0) AS deals_met
FROM f LEFT JOIN b USING (cycle_id) LEFT JOIN searched USING (cycle_id) LEFT JOIN known USING (cycle_id)
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

-- Per audited list and size k that cardlab has searched completely, or where its searches have
-- proved an infinite deal: its list beside the published one. complete: the exhaustive search
-- of the size is complete (then the comparison is final; else it covers what was searched).
-- search_infinite: the deals cardlab's own searches prove infinite (exhaustive, sample and basin
-- hits; canonical); listed: the list's deals of that size; confirmed: listed deals the search
-- proves infinite; listed_finite: listed deals that end; listed_not_found: on a complete size,
-- listed deals the search does not prove infinite (a contradiction, never expected; NULL on a
-- partial size, where the search may not have reached them); missed: deals the search proves
-- that the publication lacks; cycles: the cycles of the proved deals; new_cycles (and their
-- ids): those no listed deal reaches, infinite games the publication does not know;
-- new_cycle_deals: the proved deals in their basins (among the missed ones, but outside the
-- basins an audit walks: those of cycles listed deals reach).
CREATE VIEW redblack_published_check AS
WITH sizes AS (
    SELECT k, complete FROM redblack_coverage WHERE complete
    UNION
    SELECT DISTINCT i.k, coalesce(c.complete, false) FROM redblack_infinite i LEFT JOIN redblack_coverage c USING (k)
    WHERE i.found_by IN ('exhaustive', 'sample', 'basin')
), listed AS (
    SELECT experiment, k, p1, p2, status FROM redblack_audit WHERE status IN ('listed-infinite', 'listed-finite')
), proved AS (
    SELECT k, p1, p2, cycle_id FROM redblack_infinite WHERE found_by IN ('exhaustive', 'sample', 'basin')
), lists AS (
    SELECT DISTINCT experiment FROM redblack_audit
), reached AS (  -- cycles a listed deal reaches
    SELECT DISTINCT l.experiment, p.k, p.cycle_id FROM listed l JOIN proved p USING (k, p1, p2)
), unreached AS (  -- per list, the proved deals in cycles none of its deals reaches
    SELECT e.experiment, p.k, p.cycle_id FROM lists e CROSS JOIN proved p
    WHERE NOT EXISTS (SELECT 1 FROM reached r WHERE r.experiment = e.experiment
                      AND r.k = p.k AND r.cycle_id = p.cycle_id)
), per_size AS (
    SELECT e.experiment, s.k, s.complete,
           (SELECT count(*) FROM proved p WHERE p.k = s.k) AS search_infinite,
           (SELECT count(*) FROM listed l WHERE l.experiment = e.experiment AND l.k = s.k) AS listed,
           (SELECT count(*) FROM listed l JOIN proved p USING (k, p1, p2)
            WHERE l.experiment = e.experiment AND l.k = s.k) AS confirmed,
           (SELECT count(*) FROM listed l WHERE l.experiment = e.experiment AND l.k = s.k
                                            AND l.status = 'listed-finite') AS listed_finite,
           (SELECT count(DISTINCT p.cycle_id) FROM proved p WHERE p.k = s.k) AS cycles,
           (SELECT string_agg(DISTINCT u.cycle_id, ' ' ORDER BY u.cycle_id) FROM unreached u
            WHERE u.experiment = e.experiment AND u.k = s.k) AS new_cycle_ids,
           (SELECT count(*) FROM unreached u WHERE u.experiment = e.experiment AND u.k = s.k) AS new_cycle_deals
    FROM lists e CROSS JOIN sizes s
)
SELECT experiment, k, complete, search_infinite, listed, confirmed, listed_finite,
       CASE WHEN complete THEN listed - confirmed - listed_finite END AS listed_not_found,
       search_infinite - confirmed AS missed, cycles,
       coalesce(len(string_split(new_cycle_ids, ' ')), 0) AS new_cycles, coalesce(new_cycle_ids, '') AS new_cycle_ids,
       new_cycle_deals
FROM per_size
ORDER BY experiment, k;

-- Per size k, every size the warehouse knows anything about (searched, sampled, audited or
-- met in a basin): is its list complete, how it was searched, the infinite deals and
-- cycles known, how many of them only a basin walk found, the longest finite game.
CREATE VIEW redblack_by_size AS
WITH m AS (
    SELECT k,
           bool_or(method = 'exhaustive' AND complete = 'yes') AS complete,
           -- ranks searched, each once (a cost window inside a campaign's ranks is not two deals)
           (SELECT ranks_searched FROM redblack_coverage c WHERE c.k = redblack_summary.k) AS exhaustive_deals,
           sum(deals) FILTER (WHERE method = 'sample') AS sampled_deals,
           max(longest_finite_rounds) AS longest_finite_rounds
    FROM redblack_summary GROUP BY k
), i AS (
    SELECT k, count(*) AS infinite_canonical, count(DISTINCT cycle_id) AS cycles,
           count(*) FILTER (WHERE found_by IN ('basin', 'audit basin')) AS only_in_basins
    FROM redblack_infinite GROUP BY k
), a AS (
    SELECT DISTINCT k, true AS audited FROM redblack_audit WHERE k > 0
), ks AS (
    SELECT k FROM m UNION SELECT k FROM i UNION SELECT k FROM a
)
SELECT ks.k,
       CASE WHEN m.complete THEN 'complete' ELSE 'partial' END AS list,
       m.exhaustive_deals, m.sampled_deals,
       coalesce(i.infinite_canonical, 0) AS infinite_canonical,
       2 * coalesce(i.infinite_canonical, 0) AS infinite_total,
       coalesce(i.cycles, 0) AS cycles,
       coalesce(i.only_in_basins, 0) AS only_in_basins,
       m.longest_finite_rounds,
       coalesce(a.audited, false) AS audited
FROM ks LEFT JOIN m USING (k) LEFT JOIN i USING (k) LEFT JOIN a USING (k)
ORDER BY ks.k;

-- The report's headline numbers, one row: every page that states one reads it here.
-- complete_deals counts the canonical deals of the complete sizes only (a partial window of
-- a larger size is exhaustive work, not a complete list); complete_ranges spells those sizes
-- as runs (1..20, or 1..15, 17 with a gap).
CREATE VIEW redblack_headline AS
WITH complete AS (
    SELECT k, canonical_deals FROM redblack_coverage WHERE complete
), runs AS (
    SELECT min(k) AS a, max(k) AS b FROM (SELECT k, k - row_number() OVER (ORDER BY k) AS run FROM complete)
    GROUP BY run
)
SELECT (SELECT count(*) FROM redblack_infinite) AS infinite_canonical,
       (SELECT 2 * count(*) FROM redblack_infinite) AS infinite_total,
       (SELECT count(DISTINCT k) FROM redblack_infinite) AS sizes_with_infinite,
       (SELECT string_agg(k::VARCHAR, ', ' ORDER BY k) FROM (SELECT DISTINCT k FROM redblack_infinite)) AS sizes_list,
       (SELECT count(DISTINCT cycle_id) FROM redblack_infinite) AS cycles,
       (SELECT count(*) FROM redblack_cycles) AS cycles_known,
       (SELECT count(*) FROM complete) AS complete_sizes,
       (SELECT string_agg(CASE WHEN a = b THEN a::VARCHAR ELSE a || '..' || b END, ', ' ORDER BY a) FROM runs)
           AS complete_ranges,
       (SELECT coalesce(sum(canonical_deals), 0) FROM complete) AS complete_deals,
       (SELECT coalesce(sum(ranks_searched), 0) FROM redblack_coverage) AS exhaustive_deals,
       (SELECT coalesce(sum(deals), 0) FROM redblack_summary WHERE method = 'sample') AS sampled_deals,
       (SELECT coalesce(sum(infinite_hits), 0) FROM redblack_summary WHERE method = 'sample') AS sampled_infinite;
