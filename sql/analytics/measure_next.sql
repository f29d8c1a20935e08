-- analytics.measure_next: what to measure next, one row per thing to measure (the seed's stage two made
-- concrete), by kind:
--   projected_may_beat: a projected config (MLPerf x a delivered fraction, no run of ours) whose effective cost band
--     (marts.capacity_plan) overlaps or beats the best observed config of the same profile and price class
--     (effective_cost_per_request_usd_low <= the best observed one's high; best = the first observed row of that
--     class in the profile's ranking, marts.config_shortlist.rank_in_profile): run it. One row per projected
--     config and price class, at the best observed row's provider where it has a price there (like terms), else
--     at its cheapest provider, with the possible monthly saving [best observed monthly_usd_low - its
--     monthly_usd_high, best observed monthly_usd_high - its monthly_usd_low] and the MLPerf result it rests on;
--     only where its best case saves money (possible_monthly_saving_usd_high above 0): a config that saves nothing
--     even at best is not worth a run. billed_requests_per_s_low/high: its projected band.
--     at_recommended_price_class says whether the class is the recommended config's (rank 1): other classes are
--     listed apart, their savings against the best measured config at that class, not the recommended bill.
--   sparse_near_slo: an observed run whose measured band (observed.delivered_at_slo; measured_requests_per_s_low/high)
--     is wide, high / low - 1 above
--     0.10, because no load point lies between the last one meeting the SLO and the first failing one: add the
--     three loads evenly spaced between the two.
--   quality_before_deciding: a precision the shortlist offers for a profile with a quality requirement whose
--     status is untested or inconclusive (marts.quality_to_measure): evaluate quality at it before deciding.
-- The kinds are unioned in `to_measure`: another kind adds a SELECT of the same columns there.
--
-- Columns described on: marts.capacity_plan
-- column kind: What to measure: projected_may_beat (run this config), sparse_near_slo (add load points to this run) or quality_before_deciding (evaluate task quality at this precision).
-- column quality_status: The quality status that asks for an evaluation: untested or inconclusive (quality_before_deciding).
-- column what_to_measure: The action in words: which config to run, or which loads to add to which run, and why.
-- column best_observed_config_key: config_key of the best observed config it is compared with (projected_may_beat).
-- column best_observed_run_label: Run label of that best observed config.
-- column best_observed_effective_cost_per_request_usd_low: The best observed config's effective cost per request, low end.
-- column best_observed_effective_cost_per_request_usd_high: The best observed config's effective cost per request, high end.
-- column possible_monthly_saving_usd_low: Monthly saving against the best observed config if the projection holds, low end (negative: costs more).
-- column possible_monthly_saving_usd_high: Monthly saving against the best observed config if the projection holds, high end.
-- column at_recommended_price_class: Whether the row compares at the recommended config's price class (rank 1 of the profile's ranking; false: another class, listed apart, its saving against the best observed config at that class); empty for kinds without a price.
-- column mlperf_result_key: result_key of the MLPerf result the projection rests on (benchmark.mlperf_results).
-- column mlperf_result: That MLPerf result in words: round, submitter, system, scenario, tokens/s per accelerator.
-- column band_width_fraction: measured_requests_per_s_high / measured_requests_per_s_low - 1 (sparse_near_slo).
-- column last_meeting_load: Load (offered requests/s or concurrency) of the last point meeting the SLO (sparse_near_slo).
-- column first_failing_load: Load of the first point failing the SLO (sparse_near_slo).
-- column loads_to_add: Loads to add between those two, evenly spaced (requests/s or concurrency, as the run's sweep).
WITH ranked AS (
    SELECT c.*, s.rank_in_profile
    FROM marts.capacity_plan AS c
    JOIN marts.config_shortlist AS s USING (profile, config_key, price_class, price_provider)
),
recommended AS (
    SELECT profile, arg_min(price_class, rank_in_profile) AS price_class
    FROM ranked
    WHERE monthly_usd_high IS NOT NULL
    GROUP BY profile
),
best_observed AS (
    SELECT *
    FROM (
        SELECT *,
               row_number() OVER (PARTITION BY profile, price_class ORDER BY rank_in_profile) AS pick
        FROM ranked
        WHERE evidence = 'observed' AND effective_cost_per_request_usd_high IS NOT NULL
    )
    WHERE pick = 1
),
projected AS (
    SELECT *
    FROM (
        SELECT c.*,
               row_number() OVER (
                   PARTITION BY c.profile, c.config_key, c.price_class
                   ORDER BY c.price_provider IS DISTINCT FROM b.price_provider, c.effective_cost_per_request_usd_low,
                            c.price_provider
               ) AS pick
        FROM marts.capacity_plan AS c
        LEFT JOIN best_observed AS b ON b.profile = c.profile AND b.price_class = c.price_class
        WHERE c.evidence = 'projected' AND c.effective_cost_per_request_usd_low IS NOT NULL
    )
    WHERE pick = 1
),
projected_may_beat AS (
    SELECT
        'projected_may_beat' AS kind,
        p.profile, p.evidence, p.config_key, p.run_label, p.accelerator_id, p.accelerator_count, p.precision,
        p.runtime, p.price_class, p.price_provider,
        p.billed_requests_per_s_low, p.billed_requests_per_s_high,
        p.monthly_usd_low, p.monthly_usd_high,
        p.effective_cost_per_request_usd_low, p.effective_cost_per_request_usd_high,
        b.config_key AS best_observed_config_key, b.run_label AS best_observed_run_label,
        b.effective_cost_per_request_usd_low AS best_observed_effective_cost_per_request_usd_low,
        b.effective_cost_per_request_usd_high AS best_observed_effective_cost_per_request_usd_high,
        b.monthly_usd_low - p.monthly_usd_high AS possible_monthly_saving_usd_low,
        b.monthly_usd_high - p.monthly_usd_low AS possible_monthly_saving_usd_high,
        p.price_class IS NOT DISTINCT FROM r.price_class AS at_recommended_price_class,
        m.result_key AS mlperf_result_key,
        m.round || ' ' || m.division || ' ' || m.submitter || ' ' || coalesce(m.system_name, m.platform) || ' '
            || m.mlperf_model || ' ' || m.scenario || ': ' || round(m.tokens_per_s_per_accel, 2)
            || ' tokens/s per accelerator' AS mlperf_result,
        NULL::DOUBLE AS band_width_fraction,
        NULL::DOUBLE AS last_meeting_load,
        NULL::DOUBLE AS first_failing_load,
        NULL::VARCHAR AS loads_to_add,
        'run ' || p.accelerator_count || ' x ' || p.accelerator_id || ' (projected from MLPerf, no run of ours): its '
            || 'effective cost per request could be ' || CASE
                WHEN p.effective_cost_per_request_usd_high < b.effective_cost_per_request_usd_low THEN 'below'
                ELSE 'as low as' END
            || ' that of ' || b.run_label || ' at ' || p.price_class || ' prices'
            || CASE WHEN p.price_provider = b.price_provider THEN ' (both ' || p.price_provider || ')' ELSE '' END
            || CASE WHEN p.price_class IS DISTINCT FROM r.price_class
                    THEN ' (not the recommended config''s class, ' || r.price_class || ')' ELSE '' END
            AS what_to_measure
    FROM projected AS p
    JOIN best_observed AS b ON b.profile = p.profile AND b.price_class = p.price_class
    LEFT JOIN recommended AS r ON r.profile = p.profile
    LEFT JOIN benchmark.mlperf_results AS m ON 'mlperf:' || m.result_key = p.config_key
    WHERE p.effective_cost_per_request_usd_low <= b.effective_cost_per_request_usd_high
      AND b.monthly_usd_high - p.monthly_usd_low > 0
),
sparse AS (
    SELECT d.*,
           d.delivered_requests_per_s_high / d.delivered_requests_per_s_low - 1 AS width,
           CASE WHEN d.load_kind = 'concurrency' THEN ' concurrency' ELSE ' requests/s' END AS load_unit
    FROM observed.delivered_at_slo AS d
    WHERE d.feasible AND d.slo_crossed AND d.delivered_requests_per_s_low > 0
      AND d.delivered_requests_per_s_high / d.delivered_requests_per_s_low - 1 > 0.10
      AND d.failing_load_value > d.low_load_value
),
sparse_near_slo AS (
    SELECT
        'sparse_near_slo' AS kind,
        s.profile, 'observed' AS evidence, s.run_id AS config_key, s.run_label, s.accelerator_id,
        s.accelerator_count, s.precision, s.runtime, NULL::VARCHAR AS price_class, NULL::VARCHAR AS price_provider,
        s.delivered_requests_per_s_low AS measured_requests_per_s_low,
        s.delivered_requests_per_s_high AS measured_requests_per_s_high,
        NULL::DOUBLE AS monthly_usd_low, NULL::DOUBLE AS monthly_usd_high,
        NULL::DOUBLE AS effective_cost_per_request_usd_low, NULL::DOUBLE AS effective_cost_per_request_usd_high,
        NULL::VARCHAR AS best_observed_config_key, NULL::VARCHAR AS best_observed_run_label,
        NULL::DOUBLE AS best_observed_effective_cost_per_request_usd_low,
        NULL::DOUBLE AS best_observed_effective_cost_per_request_usd_high,
        NULL::DOUBLE AS possible_monthly_saving_usd_low, NULL::DOUBLE AS possible_monthly_saving_usd_high,
        NULL::VARCHAR AS mlperf_result_key, NULL::VARCHAR AS mlperf_result,
        s.width AS band_width_fraction,
        s.low_load_value AS last_meeting_load,
        s.failing_load_value AS first_failing_load,
        l.loads AS loads_to_add,
        'add loads ' || l.loads || s.load_unit || ' to ' || s.run_label || ': its measured band '
            || round(s.delivered_requests_per_s_low, 2) || ' - ' || round(s.delivered_requests_per_s_high, 2)
            || ' requests/s is ' || round(100 * s.width) || '% wide, with no load point between '
            || s.low_load_value || ' (meets the SLO) and ' || s.failing_load_value || ' (fails)' AS what_to_measure
    FROM sparse AS s
    CROSS JOIN LATERAL (
        SELECT string_agg(CASE WHEN s.load_kind = 'concurrency' THEN r::BIGINT::VARCHAR ELSE r::VARCHAR END, ', '
                          ORDER BY r) AS loads
        FROM (
            SELECT DISTINCT CASE WHEN s.load_kind = 'concurrency' THEN round(v) ELSE round(v, 2) END AS r
            FROM (
                SELECT s.low_load_value + k * (s.failing_load_value - s.low_load_value) / 4 AS v
                FROM range(1, 4) AS t(k)
            )
        )
        WHERE r > s.low_load_value AND r < s.failing_load_value
    ) AS l
    WHERE l.loads IS NOT NULL
),
to_measure AS (
    SELECT * FROM projected_may_beat
    UNION ALL BY NAME
    SELECT * FROM sparse_near_slo
    UNION ALL BY NAME
    SELECT profile, 'quality_before_deciding' AS kind, model_id, precision, quality_status,
           action || ': ' || reason AS what_to_measure
    FROM marts.quality_to_measure
)
SELECT *
FROM to_measure
ORDER BY profile, kind, at_recommended_price_class IS NOT DISTINCT FROM false, possible_monthly_saving_usd_high DESC NULLS LAST, band_width_fraction DESC NULLS LAST,
         config_key, price_class
