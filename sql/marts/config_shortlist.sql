-- marts.config_shortlist: the decision table. One row per profile x config x price; the MLPerf
-- reference (benchmark) and what we delivered at the profile's SLO (observed or projected) sit in
-- separate columns, and every difference between the two is spelled out in `caveats`.
--
-- Observed configs appear even without a price (cost empty); projected ones only with a price.
-- The token mix each measurement was taken under is compared with the profile's resolved workload
-- (requirement.workload); where the profile names a production request log (requirement.traffic_shape), so is the
-- arrival pattern: open-loop runs by the inter-arrival CV of their
-- measured requests (observed.request_stats: the first 5,000 of each repeat; else the nominal CV of run.yaml
-- `arrival`: constant 0, poisson 1), closed-loop runs as such.
-- Two bands per row, under two names: measured_requests_per_s_low/high, what the run sustained as measured
-- (observed.delivered_at_slo; empty for a projected config), and billed_requests_per_s_low/high (with the billed
-- output tokens/s), the band every cost rests on, as cost.cost_per_request decides (billed_basis: measured as run,
-- calibrated on our traffic where the run's workload differs from ours or its files do not measure what the SLO
-- bounds, or projected). Observed rows also carry their config's calibrated band on our traffic
-- (calibrated.delivered_at_slo, where it may bill: a fitted engine model) with its own error (band_rel_error) and the
-- model's held-out error.
WITH measured_arrivals AS (
    SELECT run_id, avg(interarrival_cv) AS measured_cv
    FROM observed.request_stats
    WHERE interarrival_cv IS NOT NULL
    GROUP BY run_id
),
-- runs kept apart by their concurrency cap: files at one offered rate with different caps are not one sweep
-- (observed.runs.workload names the cap only then; a cap that varies with the rate is on each load point instead)
kept_apart_by_cap AS (
    SELECT run_id, json_extract_string(workload, '$.max_concurrency') AS cap
    FROM observed.runs
    WHERE json_extract(workload, '$.max_concurrency') IS NOT NULL
),
-- a run's token mix over its load points (what a run no point of which meets the SLO is compared with)
run_tokens AS (
    SELECT run_id, avg(input_tokens_mean) AS input_tokens_mean, avg(output_tokens_mean) AS output_tokens_mean
    FROM observed.load_points
    GROUP BY run_id
),
-- each run's config's calibrated band on our traffic (calibrated.delivered_at_slo; a run label is in one config)
calibrated AS (
    SELECT profile, unnest(from_json(run_labels, '["VARCHAR"]')) AS run_label,
           delivered_requests_per_s_low AS calibrated_requests_per_s_low,
           delivered_requests_per_s_high AS calibrated_requests_per_s_high,
           band_rel_error AS calibrated_band_rel_error,
           heldout_rel_error_median AS calibrated_heldout_rel_error_median,
           heldout_rel_error_worst AS calibrated_heldout_rel_error_worst
    FROM calibrated.delivered_at_slo
    WHERE bills
),
observed_rows AS (
    SELECT d.profile, d.model_id, d.accelerator_id, d.accelerator_count, d.precision, d.runtime,
           d.runtime_version, d.run_label, 'observed' AS evidence, d.run_id AS config_key,
           d.delivered_requests_per_s_low AS measured_requests_per_s_low,
           d.delivered_requests_per_s_high AS measured_requests_per_s_high,
           d.delivered_output_tokens_per_s_low AS own_output_tokens_per_s_low,
           d.delivered_output_tokens_per_s_high AS own_output_tokens_per_s_high,
           d.feasible, d.slo_crossed, d.arrival,
           coalesce(d.input_tokens_mean, t.input_tokens_mean) AS input_tokens_mean,
           coalesce(d.output_tokens_mean, t.output_tokens_mean) AS output_tokens_mean, d.method,
           NULL::DOUBLE AS fraction_lo, NULL::DOUBLE AS fraction_hi, NULL::VARCHAR AS output_tokens_basis,
           NULL::VARCHAR AS delivered_fraction_basis, NULL::BIGINT AS fraction_runs, d.unmeasured_bounds_note,
           c.calibrated_requests_per_s_low, c.calibrated_requests_per_s_high, c.calibrated_band_rel_error,
           c.calibrated_heldout_rel_error_median, c.calibrated_heldout_rel_error_worst
    FROM observed.delivered_at_slo AS d
    LEFT JOIN run_tokens AS t ON t.run_id = d.run_id
    LEFT JOIN calibrated AS c ON c.profile = d.profile AND c.run_label = d.run_label
),
projected_rows AS (
    SELECT p.profile, p.model_id, p.accelerator_id, p.accelerator_count, p.precision, p.runtime,
           p.runtime_version, NULL AS run_label, 'projected' AS evidence, 'mlperf:' || p.mlperf_result_key,
           NULL, NULL, p.delivered_output_tokens_per_s_low, p.delivered_output_tokens_per_s_high,
           true, NULL, NULL, NULL, NULL, p.method,
           p.delivered_fraction_low, p.delivered_fraction_high, p.output_tokens_basis,
           p.delivered_fraction_basis, p.delivered_fraction_runs, NULL, NULL, NULL, NULL, NULL, NULL
    FROM projected.delivered_at_slo AS p
),
configs AS (
    SELECT * FROM observed_rows
    UNION ALL
    SELECT * FROM projected_rows
),
priced AS (
    SELECT c.*, k.price_class, k.price_provider, k.usd_per_accelerator_hour, k.price_as_of,
           k.cost_per_request_usd_low, k.cost_per_request_usd_high,
           k.cost_per_million_output_tokens_usd_low, k.cost_per_million_output_tokens_usd_high,
           k.billed_requests_per_s_low, k.billed_requests_per_s_high, k.billed_output_tokens_per_s_low,
           k.billed_output_tokens_per_s_high, k.billed_basis, k.billed_basis_reason
    FROM configs AS c
    LEFT JOIN cost.cost_per_request AS k ON k.profile = c.profile AND k.config_key = c.config_key
    WHERE c.evidence = 'observed' OR k.config_key IS NOT NULL
),
compared AS (
    SELECT pr.*,
           t.traffic_log, t.interarrival_cv AS traffic_cv, t.gamma_shape AS traffic_gamma_shape,
           t.peak_to_mean AS traffic_peak_to_mean, t.window_s AS traffic_window_s,
           w.input_tokens_mean AS traffic_input_tokens, w.output_tokens_mean AS traffic_output_tokens,
           coalesce(ma.measured_cv, CASE pr.arrival WHEN 'constant' THEN 0.0 WHEN 'poisson' THEN 1.0 END)
               AS measured_cv,
           r.round AS mlperf_round, r.submitter AS mlperf_submitter, r.system_name AS mlperf_system,
           r.platform AS mlperf_platform, r.mlperf_model, r.dataset AS mlperf_dataset,
           r.precision AS mlperf_precision, r.runtime AS mlperf_runtime,
           r.runtime_version AS mlperf_runtime_version, r.software AS mlperf_software,
           r.accelerator_count AS mlperf_accelerators, r.server_result_key AS mlperf_result_key,
           r.server_tokens_per_s_per_accel AS mlperf_server_tokens_per_s_per_accel,
           r.offline_tokens_per_s_per_accel AS mlperf_offline_tokens_per_s_per_accel,
           r.round || ' ' || r.division || ' ' || r.submitter || ' ' || r.platform || ' ' || r.mlperf_model
               || ' ' || coalesce(mr.reference_scenario, 'Server') || ' (' || r.source || ')' AS mlperf_source,
           r.interactive_tokens_per_s_per_accel AS mlperf_interactive_tokens_per_s_per_accel,
           mr.reference_scenario AS mlperf_reference_scenario, mr.reference_reason AS mlperf_reference_reason,
           pr.own_output_tokens_per_s_low / pr.accelerator_count
               / coalesce(mr.reference_tokens_per_s_per_accel, r.server_tokens_per_s_per_accel)
               AS delivered_fraction_low,
           pr.own_output_tokens_per_s_high / pr.accelerator_count
               / coalesce(mr.reference_tokens_per_s_per_accel, r.server_tokens_per_s_per_accel)
               AS delivered_fraction_high,
           cp.baseline_run_label, cp.monthly_saving_usd_low, cp.monthly_saving_usd_high,
           cp.monthly_usd_low AS bill_low, cp.monthly_usd_high AS bill_high, cp.is_baseline,
           kc.cap AS cap_kept_apart
    FROM priced AS pr
    LEFT JOIN benchmark.mlperf_reference AS r
        ON r.accelerator_id = pr.accelerator_id AND r.model_id = pr.model_id
    -- the scenario (Server or Interactive) that matches the profile's SLO
    LEFT JOIN benchmark.mlperf_profile_reference AS mr
        ON mr.profile = pr.profile AND mr.accelerator_id = r.accelerator_id AND mr.model_id = r.model_id
    LEFT JOIN requirement.traffic_shape AS t ON t.profile = pr.profile
    LEFT JOIN requirement.workload AS w ON w.profile = pr.profile
    LEFT JOIN measured_arrivals AS ma ON ma.run_id = pr.config_key AND pr.evidence = 'observed'
    LEFT JOIN kept_apart_by_cap AS kc ON kc.run_id = pr.config_key AND pr.evidence = 'observed'
    -- the monthly saving against the profile's baseline at our volume (marts.capacity_plan)
    LEFT JOIN marts.capacity_plan AS cp
        ON cp.profile = pr.profile AND cp.config_key = pr.config_key AND cp.price_class = pr.price_class
       AND cp.price_provider = pr.price_provider
),
quality_gated AS (
    -- our own task-quality evidence at the config's model and precision (marts.quality_gate), and MLPerf's
    -- model at all: a model MLPerf never ran has observed rows only
    SELECT c.*, coalesce(q.quality_status, 'untested') AS quality_status,
           coalesce(q.quality_evidence, 'no quality evaluation at this model and precision') AS quality_evidence,
           c.model_id NOT IN (SELECT model_id FROM benchmark.mlperf_reference WHERE model_id IS NOT NULL)
               AS no_mlperf_model,
           a.mlperf_accuracy
    FROM compared AS c
    LEFT JOIN (
        SELECT result_key,
               'MLPerf ' || any_value(mlperf_model) || ' at ' || coalesce(any_value(accuracy_target) || '%',
                   printf('%g%%', 100 * max(target_fraction) FILTER (WHERE bound = 'min' AND target_fraction BETWEEN 0.95 AND 0.9999)),
                   'its') || ' target (MLPerf''s task): ' || string_agg(
                       metric || ' ' || printf('%.6g', value) || coalesce(
                           CASE bound WHEN 'min' THEN ' >= ' ELSE ' <= ' END || printf('%.6g', target_value)
                               || CASE WHEN within_target THEN '' ELSE ' (not met)' END, ' (no known target)'),
                       ', ' ORDER BY metric, bound) AS mlperf_accuracy
        FROM benchmark.mlperf_accuracy
        GROUP BY result_key
    ) AS a ON a.result_key = c.mlperf_result_key
    LEFT JOIN observed.runs AS rs ON c.evidence = 'observed' AND rs.run_id = c.config_key
    LEFT JOIN marts.quality_gate AS q
        ON q.profile = c.profile AND q.model = c.model_id
        AND q.scheme IS NOT DISTINCT FROM coalesce(rs.precision_scheme, c.precision)
)
SELECT
    -- the one ranking every surface shows (terminal, report, analytics views, the decision): rows failing the
    -- quality requirement last, rows without a cost after the priced ones, our own runs before projections (a
    -- projection is never recommended over a measurement), then the monthly bill at our volume (high end, then
    -- low; marts.capacity_plan) where the profile states one, a tie going to what we run today (the baseline),
    -- then the cost per request (high end, then low)
    row_number() OVER (
        PARTITION BY profile
        ORDER BY quality_status = 'fails', cost_per_request_usd_high IS NULL, evidence <> 'observed',
                 bill_high NULLS LAST, bill_low NULLS LAST,
                 NOT coalesce(is_baseline, false),
                 cost_per_request_usd_high, cost_per_request_usd_low, accelerator_id, run_label, price_class,
                 price_provider, config_key
    ) AS rank_in_profile,
    profile,
    model_id,
    accelerator_id,
    accelerator_count,
    precision,
    runtime,
    runtime_version,
    run_label,
    evidence,
    config_key,
    mlperf_round,
    mlperf_submitter,
    mlperf_system,
    mlperf_precision,
    mlperf_server_tokens_per_s_per_accel,
    mlperf_offline_tokens_per_s_per_accel,
    mlperf_interactive_tokens_per_s_per_accel,
    mlperf_reference_scenario,
    mlperf_reference_reason,
    measured_requests_per_s_low,
    measured_requests_per_s_high,
    billed_requests_per_s_low,
    billed_requests_per_s_high,
    billed_output_tokens_per_s_low,
    billed_output_tokens_per_s_high,
    billed_basis,
    billed_basis_reason,
    calibrated_requests_per_s_low,
    calibrated_requests_per_s_high,
    calibrated_band_rel_error,
    calibrated_heldout_rel_error_median,
    calibrated_heldout_rel_error_worst,
    delivered_fraction_low,
    delivered_fraction_high,
    delivered_fraction_basis,
    price_class,
    price_provider,
    usd_per_accelerator_hour,
    price_as_of,
    cost_per_request_usd_low,
    cost_per_request_usd_high,
    cost_per_million_output_tokens_usd_low,
    cost_per_million_output_tokens_usd_high,
    baseline_run_label,
    monthly_saving_usd_low,
    monthly_saving_usd_high,
    method,
    mlperf_source,
    quality_status,
    quality_evidence,
    mlperf_accuracy,
    concat_ws('; ',
        -- the billed band is not the measured one: say so
        CASE WHEN billed_basis = 'calibrated'
            THEN 'costs rest on the band calibrated on our traffic, ' || printf('%.2f', billed_requests_per_s_low)
                || '-' || printf('%.2f', billed_requests_per_s_high) || ' requests/s ('
                || coalesce('band error ' || printf('+-%.1f%%', 100 * calibrated_band_rel_error) || ', ', '')
                || 'engine model error median ' || round(100 * calibrated_heldout_rel_error_median)::BIGINT
                || '%, worst ' || round(100 * calibrated_heldout_rel_error_worst)::BIGINT || '%), '
                || CASE WHEN measured_requests_per_s_low IS NULL
                        THEN 'the run''s files not measuring what the SLO bounds (billed_basis)'
                        ELSE 'not the band measured as run, ' || printf('%.2f', measured_requests_per_s_low) || '-'
                            || printf('%.2f', measured_requests_per_s_high)
                            || ' requests/s: our token mix or arrivals differ (billed_basis)' END END,
        CASE WHEN evidence = 'projected' THEN 'projected: no run of ours on this accelerator, MLPerf '
            || coalesce(mlperf_reference_scenario, 'Server') || ' x '
            || CASE WHEN fraction_runs > 0
                    THEN 'the fraction our runs measured [' || round(fraction_lo, 3) || ', ' || round(fraction_hi, 3)
                        || '] (' || fraction_runs || CASE WHEN fraction_runs = 1 THEN ' band' ELSE ' bands' END
                        || ': delivered_fraction_basis)'
                    ELSE 'prior [' || fraction_lo || ', ' || fraction_hi || ']' END END,
        CASE WHEN evidence = 'projected' AND fraction_runs > 0 AND fraction_hi > 1
            THEN 'the fraction learnt is above 1: our runs delivered more than MLPerf on their accelerator (our '
                || 'workload is lighter than MLPerf''s), so this band is for our workload, not MLPerf''s' END,
        CASE WHEN evidence = 'observed' AND NOT feasible AND unmeasured_bounds_note IS NOT NULL
            THEN 'the dumps do not measure what the SLO bounds: ' || unmeasured_bounds_note || ': no band measured'
                || CASE WHEN billed_basis = 'calibrated' THEN ', billed on the calibrated band'
                        ELSE ', and no calibrated band bills in its place' END END,
        CASE WHEN evidence = 'observed' AND NOT feasible AND unmeasured_bounds_note IS NULL
            THEN 'no load point meets the SLO: nothing delivered at this SLO' END,
        CASE WHEN cap_kept_apart IS NOT NULL
            THEN 'measured at max_concurrency ' || cap_kept_apart || ', one of several caps at the same offered rate: '
                || 'kept apart, not one sweep (a cap is not a repeat, and one rate does not order them)' END,
        CASE WHEN evidence = 'observed' AND feasible AND NOT slo_crossed
            THEN 'SLO not crossed within the sweep: high is the last load point''s achieved rate, a lower bound' END,
        CASE WHEN accelerator_id IS NULL THEN 'accelerator unknown to the alias table: no MLPerf reference or price can join' END,
        CASE WHEN no_mlperf_model THEN 'no MLPerf reference for this model: observed rows only, no projection' END,
        CASE WHEN accelerator_id IS NOT NULL AND mlperf_round IS NULL AND NOT no_mlperf_model
            THEN 'no closed-division MLPerf Server result for this accelerator and model' END,
        CASE WHEN mlperf_round IS NOT NULL AND precision IS DISTINCT FROM mlperf_precision
            THEN 'precision differs: MLPerf ' || coalesce(mlperf_precision, 'unknown') || ', ours '
                || coalesce(precision, 'unknown') END,
        CASE WHEN mlperf_round IS NOT NULL AND evidence = 'observed'
            THEN 'workload differs: MLPerf ' || mlperf_model || ' runs ' || coalesce(mlperf_dataset, 'its own data set')
                || ' with Poisson arrivals (Server), ours about ' || coalesce(round(input_tokens_mean)::BIGINT::VARCHAR, '?')
                || ' input / ' || coalesce(round(output_tokens_mean)::BIGINT::VARCHAR, '?')
                || ' output tokens per request, ' || arrival || ' arrivals' END,
        CASE WHEN mlperf_round IS NOT NULL AND evidence = 'observed'
                  AND (lower(runtime) IS DISTINCT FROM lower(mlperf_runtime)
                       OR runtime_version IS DISTINCT FROM mlperf_runtime_version)
            THEN 'runtime differs: MLPerf ' || coalesce(mlperf_software, 'unknown') || ', ours ' || runtime
                || coalesce(' ' || runtime_version, '') END,
        CASE WHEN mlperf_round IS NOT NULL AND evidence = 'observed' AND accelerator_count <> mlperf_accelerators
            THEN 'MLPerf system has ' || mlperf_accelerators || ' accelerators, ours ' || accelerator_count
                || ': compared per accelerator' END,
        CASE WHEN evidence = 'observed' AND delivered_fraction_high > 1
            THEN 'delivered above the MLPerf ' || coalesce(mlperf_reference_scenario, 'Server')
                || ' reference (fraction > 1): the workloads are not comparable' END,
        CASE WHEN evidence = 'observed' AND traffic_cv IS NOT NULL
                  AND (arrival IN ('concurrency', 'trace') OR measured_cv IS NULL OR abs(measured_cv - traffic_cv) > 0.25)
            THEN 'arrival pattern differs: our traffic has inter-arrival CV ' || round(traffic_cv, 2)
                || coalesce(' (gamma shape ' || round(traffic_gamma_shape, 2) || ')', '')
                || ', peak/mean ' || coalesce(round(traffic_peak_to_mean, 1)::VARCHAR, '?') || ' over '
                || traffic_window_s::BIGINT || ' s windows, measured '
                || CASE WHEN arrival = 'concurrency' THEN 'closed loop (fixed concurrency, no arrival process)'
                        ELSE 'under ' || arrival || ' arrivals (CV ' || coalesce(round(measured_cv, 2)::VARCHAR, 'unknown')
                             || ')' END END,
        CASE WHEN evidence = 'observed' AND traffic_input_tokens IS NOT NULL
                  AND (abs(input_tokens_mean / nullif(traffic_input_tokens, 0) - 1) > 0.25
                       OR abs(output_tokens_mean / nullif(traffic_output_tokens, 0) - 1) > 0.25
                       OR input_tokens_mean IS NULL)
            THEN 'token mix differs: our traffic about ' || round(traffic_input_tokens)::BIGINT || ' input / '
                || round(traffic_output_tokens)::BIGINT || ' output tokens per request, measured about '
                || coalesce(round(input_tokens_mean)::BIGINT::VARCHAR, '?') || ' / '
                || coalesce(round(output_tokens_mean)::BIGINT::VARCHAR, '?') END,
        CASE WHEN evidence = 'observed' AND feasible AND price_class IS NULL AND accelerator_id IS NOT NULL
            THEN 'no price for this accelerator: cost empty' END,
        CASE WHEN evidence = 'projected' AND billed_requests_per_s_low IS NULL
            THEN 'output tokens per request unknown (set workload.output_tokens in the profile): cost per request empty' END
    ) AS caveats
FROM quality_gated
ORDER BY profile, rank_in_profile
