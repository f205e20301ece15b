-- Blackjack dealer outcomes: views over the shard tables blackjack_exact_probs
-- (one row per exact variant, upcard and outcome) and blackjack_sim_counts
-- (one row per simulation shard, upcard and outcome).  *_order columns give
-- the seed's row order (2..10, A) and column order (bust, 17..21, natural).

-- A deck count is a number users compare and sort (WHERE decks = 6, ORDER BY decks): the shards
-- store it as text ('1'..'8', 'inf', the curve's '0.5'), so every table the warehouse loads holds it
-- as DOUBLE, the infinite shoe as 'inf'::DOUBLE (sorted last; WHERE decks = 'inf' still reads).  The
-- shards' bytes and result versions stay as they are.  IF EXISTS: a catalog of some tables only (a
-- test's) takes the views it can; tests/test_warehouse_columns.py checks every decks column is typed.
ALTER TABLE IF EXISTS blackjack_exact_probs ALTER decks TYPE DOUBLE;
ALTER TABLE IF EXISTS blackjack_sim_counts ALTER decks TYPE DOUBLE;
ALTER TABLE IF EXISTS blackjack_effects_of_removal ALTER decks TYPE DOUBLE;
ALTER TABLE IF EXISTS blackjack_cutcard_exact ALTER decks TYPE DOUBLE;
ALTER TABLE IF EXISTS blackjack_cutcard_counts ALTER decks TYPE DOUBLE;
ALTER TABLE IF EXISTS blackjack_cutcard_curve ALTER decks TYPE DOUBLE;

-- Exact probabilities: float64 and the exact fraction as text.
CREATE OR REPLACE VIEW blackjack_exact AS
SELECT decks, soft17, peek, upcard, outcome, probability, exact, upcard_order, outcome_order
FROM blackjack_exact_probs;

-- Simulated probabilities: shard counts summed per experiment, upcard and outcome.
-- With peek = 'yes' the dealer's naturals are taken out (the table is conditioned on
-- no natural, like the exact one), so `hands` counts the hands that remain and `dealt`
-- all hands dealt.  standard_error is the binomial one, sqrt(p (1 - p) / hands).
CREATE OR REPLACE VIEW blackjack_sim AS
WITH summed AS (
    -- penetration only means something for a continuous shoe: NULL for a fresh one
    SELECT experiment, shoe, decks, soft17, peek,
           CASE WHEN shoe = 'continuous' THEN penetration END AS penetration, upcard, upcard_order,
           outcome, outcome_order,
           sum(hands)::BIGINT AS dealt, sum("count")::BIGINT AS raw_count, count(*) AS shards
    FROM blackjack_sim_counts
    GROUP BY ALL
), conditioned AS (
    SELECT *,
           dealt - CASE WHEN peek = 'yes'
                        THEN sum(CASE WHEN outcome = 'natural' THEN raw_count ELSE 0 END)
                             OVER (PARTITION BY experiment, upcard)
                        ELSE 0 END AS hands,
           CASE WHEN peek = 'yes' AND outcome = 'natural' THEN 0 ELSE raw_count END AS "count"
    FROM summed
)
SELECT experiment, shoe, decks, soft17, peek, penetration, upcard, outcome,
       hands::BIGINT AS hands, "count"::BIGINT AS "count",
       CASE WHEN hands > 0 THEN "count" / hands END AS probability,
       CASE WHEN hands > 0 THEN sqrt(("count" / hands) * (1 - "count" / hands) / hands) END AS standard_error,
       dealt, shards, upcard_order, outcome_order
FROM conditioned;

-- Simulated minus exact, in standard errors of the exact law (z = difference / sqrt(p (1 - p) / hands)).
-- For continuous shoes hands are not independent, so z is only a guide there.
-- An outcome impossible under the exact law (p = 0) has z = 0 if never seen, +-inf otherwise.
CREATE OR REPLACE VIEW blackjack_compare AS
WITH joined AS (
    SELECT s.experiment, s.shoe, s.decks, s.soft17, s.peek, s.penetration, s.upcard, s.outcome,
           s.hands, s."count", s.probability AS simulated, e.probability AS exact,
           s.probability - e.probability AS difference,
           sqrt(e.probability * (1 - e.probability) / s.hands) AS standard_error,
           s.upcard_order, s.outcome_order
    FROM blackjack_sim AS s
    JOIN blackjack_exact AS e USING (decks, soft17, peek, upcard, outcome)
    WHERE s.hands > 0
)
SELECT experiment, shoe, decks, soft17, peek, penetration, upcard, outcome, hands, "count",
       simulated, exact, difference, standard_error,
       CASE WHEN standard_error > 0 THEN difference / standard_error
            WHEN difference = 0 THEN 0.0
            ELSE sign(difference) * 'inf'::DOUBLE END AS z,
       upcard_order, outcome_order
FROM joined;

-- One line per simulation experiment: how well it agrees with the exact table.
CREATE OR REPLACE VIEW blackjack_agreement AS
SELECT experiment, any_value(shoe) AS shoe, any_value(decks) AS decks, any_value(soft17) AS soft17,
       any_value(peek) AS peek, any_value(penetration) AS penetration,
       min(hands) AS min_hands_per_upcard,
       count(*) FILTER (WHERE standard_error > 0) AS cells,
       max(abs(z)) AS max_abs_z,
       arg_max(upcard || ' / ' || outcome, abs(z)) AS max_abs_z_at,
       count(*) FILTER (WHERE abs(z) > 3) AS cells_beyond_3,
       -- expected number of cells beyond |z| = 3 under the exact law (two-sided normal tail 0.0027)
       count(*) FILTER (WHERE standard_error > 0) * 0.0026997960632601866::DOUBLE AS expected_beyond_3
FROM blackjack_compare
GROUP BY experiment;

-- Effects of removal: the engine's warehouse_tables() loads blackjack_effects_of_removal.
-- blackjack_effects_of_removal: one row per decks, soft17, upcard, removed rank and outcome
-- (engines/blackjack/depleted.py, EFFECT_COLUMNS): the exact change in the outcome's
-- probability when ONE card of rank `removed` leaves a full shoe (peek: no).

-- Griffin's layout for the bust probability: one row per setting and upcard, one column per
-- removed rank, in percentage points; base_bust in percent; total_probability_residual = the
-- deltas weighted by each rank's count in the shoe less the upcard (by the law of total
-- probability: 0 up to rounding).  decks::DOUBLE: the view reads the table before or after the
-- ALTER above.
CREATE OR REPLACE VIEW blackjack_bust_effects AS
WITH e AS (
    SELECT * REPLACE (decks::DOUBLE AS decks),
           (CASE WHEN removed = 'T' THEN 16 ELSE 4 END) * decks::DOUBLE
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
       sum(left_of_rank * delta) / (52 * decks - 1) AS total_probability_residual,
       any_value(upcard_order) AS upcard_order
FROM e
GROUP BY decks, soft17, peek, upcard;

-- The cut-card effect on the dealer (engines/blackjack/cutcard.py).  round 1, 2, ...: the
-- round's number within its shoe; round 0: every round dealt, together (per round dealt).
-- full_shoe: the dealer's law from a full shoe with the upcard it deals (round 1's law).

-- Simulated: shard counts summed.  round r > 0: probability = count / rounds (one round r at
-- most per shoe, so binomial: standard_error = sqrt(p (1 - p) / rounds)), dealt = P(round r is
-- dealt).  round 0: a ratio of per-shoe sums (X = rounds of the outcome in a shoe, Y = rounds in
-- it), probability = sum X / sum Y with the delta-method standard error
-- sqrt(sum (X - p Y)^2 / (shoes - 1) / shoes) / mean Y; dealt = mean rounds per shoe.
-- lo95 / hi95 = probability -+ 1.96 standard errors; effect = probability - full_shoe.
CREATE OR REPLACE VIEW blackjack_cutcard_sim AS
WITH summed AS (
    SELECT experiment, decks, soft17, players, cut, penetration, round, outcome, outcome_order, full_shoe,
           sum(shoes)::BIGINT AS shoes, sum(rounds)::BIGINT AS rounds, sum("count")::BIGINT AS "count",
           sum(count_sq)::DOUBLE AS count_sq, sum(count_rounds)::DOUBLE AS count_rounds,
           sum(rounds_sq)::DOUBLE AS rounds_sq, count(*) AS shards
    FROM blackjack_cutcard_counts
    GROUP BY ALL
), estimated AS (
    SELECT *,
           CASE WHEN rounds > 0 THEN "count" / rounds END AS probability,
           rounds / shoes AS dealt
    FROM summed
), with_error AS (
    SELECT *,
           CASE WHEN rounds = 0 THEN NULL
                WHEN round > 0 THEN sqrt(probability * (1 - probability) / rounds)
                WHEN shoes > 1
                THEN sqrt(greatest(count_sq - 2 * probability * count_rounds + probability * probability * rounds_sq, 0)
                          / (shoes - 1) / shoes) / dealt
           END AS standard_error
    FROM estimated
)
SELECT experiment, decks, soft17, players, cut, penetration, round, outcome, shoes, rounds, "count",
       dealt, probability, standard_error,
       probability - 1.96 * standard_error AS lo95, probability + 1.96 * standard_error AS hi95,
       full_shoe, probability - full_shoe AS effect, shards, outcome_order
FROM with_error;

-- Exact (dynamic programming, 1 deck at shallow cuts): dealt = P(round r is dealt) (round 0: the
-- expected rounds per shoe), probability and exact fraction, effect = probability - full_shoe.
CREATE OR REPLACE VIEW blackjack_cutcard AS
SELECT experiment, decks, soft17, players, cut, penetration, round, outcome, dealt, dealt_exact,
       probability, exact, full_shoe, full_shoe_exact, probability - full_shoe AS effect, outcome_order
FROM blackjack_cutcard_exact;

-- Simulated beside exact, where both exist: does the simulation's 95 % interval cover the exact value?
CREATE OR REPLACE VIEW blackjack_cutcard_compare AS
SELECT s.experiment, s.decks, s.soft17, s.players, s.cut, s.penetration, s.round, s.outcome,
       e.probability AS exact, s.probability AS simulated, s.standard_error, s.lo95, s.hi95,
       e.probability BETWEEN s.lo95 AND s.hi95 AS covered,
       (s.probability - e.probability) / s.standard_error AS z,
       e.dealt AS exact_dealt, s.dealt AS simulated_dealt, s.rounds, s.shoes, s.outcome_order
FROM blackjack_cutcard_sim AS s
JOIN blackjack_cutcard AS e USING (experiment, decks, soft17, players, cut, round, outcome)
WHERE s.rounds > 0 AND s.standard_error > 0;
