-- Narcotic views over the narcotic_games table (one row per game).
CREATE VIEW narcotic_summary AS
WITH g AS (
    SELECT experiment, variant, matching, gather, pile_four,
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
    FROM narcotic_games
    GROUP BY ALL
), z AS (SELECT 1.959963984540054 AS z)
SELECT experiment, variant, matching, gather, pile_four,
       p.preset,  -- rule presets come from the engine (narcotic_presets), never repeated here
       games, wins,
       wins / games AS win_p,
       (wins / games + z * z / (2 * games) - z * sqrt(wins / games * (1 - wins / games) / games + z * z / (4 * games * games))) / (1 + z * z / games) AS win_lo95,
       (wins / games + z * z / (2 * games) + z * sqrt(wins / games * (1 - wins / games) / games + z * z / (4 * games * games))) / (1 + z * z / games) AS win_hi95,
       mean_time_s, median_time_s, p95_time_s, max_time_s,
       mean_passes, median_passes, p95_passes, max_passes,
       (games - wins) / games AS loop_share,
       mean_cycle_length,
       total_won_time_s
FROM g CROSS JOIN z LEFT JOIN narcotic_presets p USING (matching, gather, pile_four)
ORDER BY experiment, variant;

-- The experiment that runs all sixteen rule combinations (the first by name when several do).
CREATE VIEW narcotic_rule_combinations AS
SELECT * FROM narcotic_summary
WHERE experiment = (SELECT experiment FROM narcotic_summary GROUP BY experiment
                    HAVING count(*) = 16 ORDER BY experiment LIMIT 1)
ORDER BY win_p DESC, variant;

-- Passes-to-win histogram, per experiment and rule combination.
CREATE VIEW narcotic_passes AS
SELECT experiment, variant, passes, count(*) AS games
FROM narcotic_games WHERE won
GROUP BY ALL ORDER BY experiment, variant, passes;
