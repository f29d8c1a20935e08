-- cost.cost_per_request: per config x profile x price in force (benchmark.prices_in_force: the newest per
-- accelerator, class and provider).
--
--   cost per request   = usd_per_accelerator_hour x accelerators / (requests_per_s x 3600)
--   cost per 1M tokens = usd_per_accelerator_hour x accelerators / (tokens_per_s x 3600) x 1e6, for
--                        output, input and total tokens; each basis carries the whole accelerator-hour,
--                        so the three are alternatives, not parts of one bill.
--   low cost uses the high throughput, high cost the low throughput (the macros of sql/macros.sql).
--
-- Two bands per row, under two names: measured_requests_per_s_low/high, the band the run sustained as measured
-- (observed.delivered_at_slo; empty for a projected config and for a run no load point of which meets the SLO as
-- measured), and billed_requests_per_s_low/high (with billed_output_tokens_per_s_low/high), the band every cost
-- rests on. Which band bills (billed_basis; the one place the rule is decided: marts.capacity_plan and
-- marts.config_shortlist read it from here):
--   projected  a config we never ran (projected.delivered_at_slo);
--   calibrated an observed run whose config's calibrated row on our traffic (calibrated.delivered_at_slo) bills
--              (a fitted engine model) with status delivered, where either
--              - the run's files do not measure what the SLO bounds (observed.delivered_at_slo.unmeasured_bounds,
--                e.g. a p95 bound on dumps that state p50 and p99): no band was measured, the model predicts it; or
--              - the run's measured workload differs from ours: our token means (requirement.workload's input/output
--                means: the profile's one token mix) differ from the run's measured means by more than 25% (either),
--                or our arrival CV (requirement.workload's: the log's, else a stated workload.arrival_cv) differs
--                from the run's by more than 0.5 (the CV of its measured requests, observed.request_stats; else
--                constant 0, poisson 1; closed-loop and trace runs have none: compared only when both are known);
--              token rates are then the band x our means per request;
--   measured   otherwise: the band the run sustained as measured (observed.delivered_at_slo).
-- calibrated_band_rel_error is the calibrated band's own error (calibrated.delivered_at_slo.band_rel_error), which
-- billed_basis_reason quotes first, then the engine model's held-out median and worst.
WITH measured_arrivals AS (
    SELECT run_id, avg(interarrival_cv) AS measured_cv
    FROM observed.request_stats
    WHERE interarrival_cv IS NOT NULL
    GROUP BY run_id
),
-- each run's config's calibrated band on our traffic where it bills as delivered (a run label is in one config)
calibrated AS (
    SELECT profile, unnest(from_json(run_labels, '["VARCHAR"]')) AS run_label,
           delivered_requests_per_s_low, delivered_requests_per_s_high,
           band_rel_error, heldout_rel_error_median, heldout_rel_error_worst
    FROM calibrated.delivered_at_slo
    WHERE bills AND status = 'delivered'
),
observed_compared AS (
    SELECT d.*, c.delivered_requests_per_s_low AS cal_lo, c.delivered_requests_per_s_high AS cal_hi,
           w.input_tokens_mean AS our_in, w.output_tokens_mean AS our_out,
           c.band_rel_error, c.heldout_rel_error_median, c.heldout_rel_error_worst,
           w.arrival_cv AS our_cv,
           CASE WHEN d.arrival IN ('constant', 'poisson')
                THEN coalesce(ma.measured_cv, CASE d.arrival WHEN 'constant' THEN 0.0 ELSE 1.0 END) END AS run_cv,
           d.input_tokens_mean / nullif(w.input_tokens_mean, 0) - 1 AS in_diff,
           d.output_tokens_mean / nullif(w.output_tokens_mean, 0) - 1 AS out_diff
    FROM observed.delivered_at_slo AS d
    LEFT JOIN calibrated AS c ON c.profile = d.profile AND c.run_label = d.run_label
    LEFT JOIN requirement.workload AS w ON w.profile = d.profile
    LEFT JOIN measured_arrivals AS ma ON ma.run_id = d.run_id
    -- a run no point of which meets the SLO as measured bills only on its calibrated band, where the bound was not
    -- measured at all (the model predicts what the files lack)
    WHERE d.accelerator_id IS NOT NULL
      AND (d.feasible OR d.unmeasured_bounds IS NOT NULL AND c.delivered_requests_per_s_low IS NOT NULL)
),
observed_basis AS (
    SELECT *,
           concat_ws('; ',
               CASE WHEN abs(in_diff) > 0.25 THEN 'input tokens differ: ours ' || round(our_in)::BIGINT || ', measured '
                   || round(input_tokens_mean)::BIGINT || ' (' || printf('%+.0f%%', 100 * in_diff) || ')' END,
               CASE WHEN abs(out_diff) > 0.25 THEN 'output tokens differ: ours ' || round(our_out)::BIGINT
                   || ', measured ' || round(output_tokens_mean)::BIGINT || ' (' || printf('%+.0f%%', 100 * out_diff)
                   || ')' END,
               CASE WHEN abs(our_cv - run_cv) > 0.5 THEN 'arrival CV differs: ours ' || round(our_cv, 2)
                   || ', measured ' || round(run_cv, 2) || ' (' || arrival || ')' END
           ) AS differs
    FROM observed_compared
),
observed_billed AS (
    SELECT *, cal_lo IS NOT NULL AND (differs <> '' OR NOT feasible) AS on_calibrated,
           'calibrated on our traffic (' || coalesce('band error ' || printf('+-%.1f%%', 100 * band_rel_error) || '; ', '')
               || 'engine model held-out error median ' || printf('%.0f%%', 100 * heldout_rel_error_median)
               || ', worst ' || printf('%.0f%%', 100 * heldout_rel_error_worst) || ')' AS calibrated_said
    FROM observed_basis
),
configs AS (
    SELECT profile, 'observed' AS evidence, run_id AS config_key, run_label, model_id, accelerator_id,
           accelerator_count, precision, runtime, runtime_version,
           CASE WHEN on_calibrated THEN 'calibrated' ELSE 'measured' END AS billed_basis,
           CASE WHEN on_calibrated AND NOT feasible
                THEN calibrated_said || ': the run''s files do not measure what the SLO bounds: '
                    || unmeasured_bounds_note || ': no band measured, the model predicts it'
                WHEN on_calibrated
                THEN calibrated_said || ': the run''s workload differs from ours: ' || differs
                WHEN differs <> ''
                THEN 'measured as run, though its workload differs from ours (' || differs
                    || '): no calibrated band that bills as delivered'
                WHEN cal_lo IS NULL THEN 'measured as run: no calibrated band on our traffic bills as delivered'
                ELSE 'measured as run: its workload matches ours (token means within 25%; '
                    || CASE WHEN our_cv IS NULL THEN 'our arrival CV not stated: not compared'
                            WHEN run_cv IS NULL THEN 'the run has no arrival CV (' || arrival || '): not compared'
                            ELSE 'arrival CV within 0.5' END || ')' END AS billed_basis_reason,
           CASE WHEN on_calibrated THEN band_rel_error END AS band_rel_error,
           delivered_requests_per_s_low AS measured_lo, delivered_requests_per_s_high AS measured_hi,
           CASE WHEN on_calibrated THEN cal_lo ELSE delivered_requests_per_s_low END AS rps_lo,
           CASE WHEN on_calibrated THEN cal_hi ELSE delivered_requests_per_s_high END AS rps_hi,
           CASE WHEN on_calibrated THEN cal_lo * our_out ELSE delivered_output_tokens_per_s_low END AS out_lo,
           CASE WHEN on_calibrated THEN cal_hi * our_out ELSE delivered_output_tokens_per_s_high END AS out_hi,
           CASE WHEN on_calibrated THEN cal_lo * our_in ELSE delivered_input_tokens_per_s_low END AS in_lo,
           CASE WHEN on_calibrated THEN cal_hi * our_in ELSE delivered_input_tokens_per_s_high END AS in_hi,
           CASE WHEN on_calibrated THEN cal_lo * (our_in + our_out) ELSE delivered_total_tokens_per_s_low END AS tot_lo,
           CASE WHEN on_calibrated THEN cal_hi * (our_in + our_out) ELSE delivered_total_tokens_per_s_high END AS tot_hi
    FROM observed_billed
    UNION ALL
    SELECT profile, 'projected', 'mlperf:' || mlperf_result_key, NULL, model_id, accelerator_id,
           accelerator_count, precision, runtime, runtime_version, 'projected',
           'projected from MLPerf' || coalesce(': ' || delivered_fraction_basis, ''), NULL, NULL, NULL,
           delivered_requests_per_s_low, delivered_requests_per_s_high,
           delivered_output_tokens_per_s_low, delivered_output_tokens_per_s_high,
           NULL, NULL, NULL, NULL
    FROM projected.delivered_at_slo
),
hourly AS (
    SELECT c.*, p.price_class, p.price_provider, p.usd_per_accelerator_hour,
           p.price_as_of, p.price_source,
           p.usd_per_accelerator_hour * c.accelerator_count AS usd_per_hour
    FROM configs AS c
    JOIN benchmark.prices_in_force AS p ON p.accelerator_id = c.accelerator_id
)
SELECT
    profile,
    evidence,
    config_key,
    run_label,
    model_id,
    accelerator_id,
    accelerator_count,
    precision,
    runtime,
    runtime_version,
    price_class,
    price_provider,
    usd_per_accelerator_hour,
    price_as_of,
    price_source,
    measured_lo AS measured_requests_per_s_low,
    measured_hi AS measured_requests_per_s_high,
    rps_lo AS billed_requests_per_s_low,
    rps_hi AS billed_requests_per_s_high,
    out_lo AS billed_output_tokens_per_s_low,
    out_hi AS billed_output_tokens_per_s_high,
    billed_basis,
    billed_basis_reason,
    band_rel_error AS calibrated_band_rel_error,
    usd_per_request(usd_per_hour, rps_hi) AS cost_per_request_usd_low,
    usd_per_request(usd_per_hour, rps_lo) AS cost_per_request_usd_high,
    usd_per_million_tokens(usd_per_hour, out_hi) AS cost_per_million_output_tokens_usd_low,
    usd_per_million_tokens(usd_per_hour, out_lo) AS cost_per_million_output_tokens_usd_high,
    usd_per_million_tokens(usd_per_hour, in_hi) AS cost_per_million_input_tokens_usd_low,
    usd_per_million_tokens(usd_per_hour, in_lo) AS cost_per_million_input_tokens_usd_high,
    usd_per_million_tokens(usd_per_hour, tot_hi) AS cost_per_million_total_tokens_usd_low,
    usd_per_million_tokens(usd_per_hour, tot_lo) AS cost_per_million_total_tokens_usd_high,
    'each token basis carries the whole accelerator-hour (output, input and total costs are alternatives, not additive)'
        AS token_cost_basis
FROM hourly
ORDER BY profile, evidence, config_key, price_class, price_provider
