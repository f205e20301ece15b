-- Each kept campaign (and each place with check records but no kept campaign: its lines are orphans)
-- with how much of it was recomputed independently.  Only lines describing the kept files as they
-- are now count as checks; a shard counts as matched when such a line matched and none mismatched.
CREATE VIEW campaign_checks AS
WITH per_shard AS (
    SELECT game, experiment, variant, shard,
           bool_or(status = 'mismatched') AS mismatched
    FROM recompute_checks WHERE status IN ('matched', 'mismatched') GROUP BY ALL
), shards AS (
    SELECT game, experiment, variant, count(*) AS checked,
           count(*) FILTER (WHERE NOT mismatched) AS matched,
           count(*) FILTER (WHERE mismatched) AS mismatched
    FROM per_shard GROUP BY ALL
), lines AS (
    SELECT game, experiment, variant,
           count(*) FILTER (WHERE status IN ('matched', 'mismatched')) AS checks,
           count(*) FILTER (WHERE status = 'stale') AS stale,
           count(*) FILTER (WHERE status = 'superseded') AS superseded,
           count(*) FILTER (WHERE status = 'orphan') AS orphans,
           count(*) FILTER (WHERE status = 'invalid') AS invalid,
           min(date) FILTER (WHERE status IN ('matched', 'mismatched')) AS first_checked,
           max(date) FILTER (WHERE status IN ('matched', 'mismatched')) AS last_checked,
           string_agg(DISTINCT machine, '; ' ORDER BY machine)
               FILTER (WHERE status IN ('matched', 'mismatched')) AS machines,
           sum(cpu_s) FILTER (WHERE status IN ('matched', 'mismatched')) AS cpu_s
    FROM recompute_checks GROUP BY ALL
)
SELECT coalesce(k.game, l.game) AS game, coalesce(k.experiment, l.experiment) AS experiment,
       coalesce(k.variant, l.variant) AS variant,
       coalesce(k.shards_kept, 0)::INTEGER AS shards_kept,
       coalesce(s.checked, 0)::INTEGER AS shards_checked,
       coalesce(s.matched, 0)::INTEGER AS shards_matched,
       coalesce(s.mismatched, 0)::INTEGER AS mismatches,
       coalesce(l.checks, 0)::INTEGER AS checks,
       coalesce(l.stale, 0)::INTEGER AS stale,
       coalesce(l.superseded, 0)::INTEGER AS superseded,
       coalesce(l.orphans, 0)::INTEGER AS orphans,
       coalesce(l.invalid, 0)::INTEGER AS invalid,
       l.first_checked, l.last_checked, l.machines,
       coalesce(l.cpu_s, 0) AS check_cpu_s
FROM kept_campaigns k
FULL JOIN lines l ON (k.game, k.experiment, k.variant) = (l.game, l.experiment, l.variant)
LEFT JOIN shards s
       ON (s.game, s.experiment, s.variant) = (coalesce(k.game, l.game), coalesce(k.experiment, l.experiment),
                                               coalesce(k.variant, l.variant))
ORDER BY 1, 2, 3
