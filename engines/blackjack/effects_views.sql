-- Effects of removal (to be appended to views.sql once the engine's warehouse_tables()
-- loads blackjack_effects_of_removal; a view over a missing table fails to create).
-- blackjack_effects_of_removal: one row per decks, soft17, upcard, removed rank and outcome
-- (engines/blackjack/depleted.py, EFFECT_COLUMNS): the exact change in the outcome's
-- probability when ONE card of rank `removed` leaves a full shoe (peek: no).

-- Griffin's layout for the bust probability: one row per setting and upcard, one column per
-- removed rank, in percentage points; base_bust in percent; check = the deltas weighted by
-- each rank's count in the shoe less the upcard (law of total probability: 0 up to rounding).
CREATE OR REPLACE VIEW blackjack_bust_effects AS
WITH e AS (
    SELECT *,
           (CASE WHEN removed = 'T' THEN 16 ELSE 4 END) * decks::INTEGER
               - CASE WHEN removed = (CASE upcard WHEN '10' THEN 'T' ELSE upcard END) THEN 1 ELSE 0 END
               AS left_of_rank
    FROM blackjack_effects_of_removal
    WHERE outcome = 'bust'
)
SELECT decks, soft17, peek, upcard, any_value(base_probability) * 100 AS base_bust,
       sum(CASE WHEN removed = 'A' THEN delta END) * 100 AS "A",
       sum(CASE WHEN removed = '2' THEN delta END) * 100 AS "2",
       sum(CASE WHEN removed = '3' THEN delta END) * 100 AS "3",
       sum(CASE WHEN removed = '4' THEN delta END) * 100 AS "4",
       sum(CASE WHEN removed = '5' THEN delta END) * 100 AS "5",
       sum(CASE WHEN removed = '6' THEN delta END) * 100 AS "6",
       sum(CASE WHEN removed = '7' THEN delta END) * 100 AS "7",
       sum(CASE WHEN removed = '8' THEN delta END) * 100 AS "8",
       sum(CASE WHEN removed = '9' THEN delta END) * 100 AS "9",
       sum(CASE WHEN removed = 'T' THEN delta END) * 100 AS "T",
       arg_max(removed, delta) AS largest_rise,
       sum(left_of_rank * delta) / (52 * decks::INTEGER - 1) AS "check",
       any_value(upcard_order) AS upcard_order
FROM e
GROUP BY decks, soft17, peek, upcard;
