-- analytics.shortlist_sources: where each number of the shortlist came from, one row per number
-- and source: the MLPerf results behind the reference (the profile's scenario, Server or Interactive, first, then
-- the Server and Offline results beside it: round, submitter, system, file, record),
-- the load points of our run that bound the measured band (dump file), for a run billed on its config's band
-- calibrated on our traffic (billed_basis calibrated) the calibrated.delivered_at_slo row it is, for projected
-- configs the fraction
-- they apply (each end of each band of ours learnt from, with the load point it rests on, or, for a band calibrated
-- on our traffic, the calibrated.delivered_at_slo row it is: projected.measured_fractions; else the profile's
-- prior), and the price rows (prices file, line).
--
-- Columns described on: marts.config_shortlist
-- column number: Which number the row explains, in words (e.g. MLPerf Server tokens/s per accelerator).
-- column value: The number's value, in unit (for a load point: its achieved requests/s).
-- column unit: Unit of value.
-- column number_evidence: Evidence class of the number: benchmark, observed, calibrated or requirement.
-- column round: MLPerf round of the result (MLPerf numbers only).
-- column submitter: Submitter of the MLPerf result (MLPerf numbers only).
-- column system: System of the MLPerf result (MLPerf numbers only).
-- column source: File path or URL the number was read from (a table, for a number benchbill computed).
-- column source_sha256: SHA-256 of that file's bytes.
-- column location: Where in the file: record N of a round table, line N of a CSV, a dump file's load level.
WITH configs AS (
    SELECT DISTINCT profile, config_key, evidence, run_label, accelerator_id, model_id,
           billed_basis = 'calibrated' AS billed_calibrated
    FROM marts.config_shortlist
),
file_checksums AS (
    SELECT DISTINCT table_name, source, sha256 FROM audit.source_files
),
mlperf AS (
    SELECT c.profile, c.config_key, c.evidence, c.run_label, c.accelerator_id,
           'MLPerf ' || res.scenario || ' tokens/s per accelerator'
               || CASE WHEN res.result_key = pr.reference_result_key THEN ' (the reference this profile is compared with)'
                       ELSE '' END AS number,
           res.tokens_per_s_per_accel AS value, 'tokens/s per accelerator' AS unit,
           res.evidence AS number_evidence, res.round, res.submitter, res.system_name AS system,
           res.source, res.source_sha256, 'record ' || res.source_row AS location,
           CASE WHEN res.result_key = pr.reference_result_key THEN 1 ELSE 2 END AS sort_key
    FROM configs AS c
    JOIN benchmark.mlperf_reference AS ref ON ref.accelerator_id = c.accelerator_id AND ref.model_id = c.model_id
    LEFT JOIN benchmark.mlperf_profile_reference AS pr
        ON pr.profile = c.profile AND pr.accelerator_id = c.accelerator_id AND pr.model_id = c.model_id
    JOIN benchmark.mlperf_results AS res
        ON res.result_key IN (ref.server_result_key, ref.offline_result_key, pr.reference_result_key)
),
observed_points AS (
    SELECT c.profile, c.config_key, c.evidence, c.run_label, c.accelerator_id,
           CASE WHEN lp.load_index = d.low_load_index
                THEN 'load point ' || lp.load_index || ': the highest meeting every bound (measured low end)'
                ELSE 'load point ' || lp.load_index || ': the first failing ' || coalesce(d.binding_measure, 'a bound')
                     || ' (caps the measured high end)' END AS number,
           lp.achieved_requests_per_s AS value, 'requests/s' AS unit, lp.evidence AS number_evidence,
           NULL AS round, NULL AS submitter, NULL AS system,
           lp.source, lp.source_sha256, 'load level ' || lp.load_index AS location,
           CASE WHEN lp.load_index = d.low_load_index THEN 3 ELSE 4 END AS sort_key
    FROM configs AS c
    JOIN observed.delivered_at_slo AS d ON d.profile = c.profile AND d.run_id = c.config_key
    JOIN observed.load_points AS lp
        ON lp.run_id = d.run_id AND lp.load_index IN (d.low_load_index, d.failing_load_index)
),
priors AS (
    SELECT c.profile, c.config_key, c.evidence, c.run_label, c.accelerator_id,
           'delivered-fraction prior, ' || bound.name || ' end' AS number, bound.value,
           'fraction of the MLPerf reference' AS unit, p.evidence AS number_evidence,
           NULL AS round, NULL AS submitter, NULL AS system,
           p.source, f.sha256 AS source_sha256, 'profile ' || p.profile AS location,
           CASE bound.name WHEN 'low' THEN 5 ELSE 6 END AS sort_key
    FROM configs AS c
    JOIN requirement.profiles AS p ON p.profile = c.profile
    CROSS JOIN LATERAL (VALUES ('low', p.delivered_fraction_prior_low), ('high', p.delivered_fraction_prior_high))
        AS bound(name, value)
    LEFT JOIN file_checksums AS f ON f.table_name = 'requirement.profiles' AND f.source = p.source
    JOIN projected.delivered_at_slo AS pj ON pj.profile = c.profile AND c.config_key = 'mlperf:' || pj.mlperf_result_key
    WHERE c.evidence = 'projected' AND pj.delivered_fraction_runs = 0
),
learnt_fractions AS (
    SELECT c.profile, c.config_key, c.evidence, c.run_label, c.accelerator_id,
           'delivered fraction our run ' || m.run_labels || ' measured on ' || m.accelerator_id || ', ' || bound.name
               || ' end (learnt from)' AS number, bound.value,
           'fraction of the MLPerf reference' AS unit, m.source AS number_evidence,
           NULL AS round, NULL AS submitter, NULL AS system,
           lp.source, lp.source_sha256, 'load level ' || lp.load_index AS location,
           CASE bound.name WHEN 'low' THEN 5 ELSE 6 END AS sort_key
    FROM configs AS c
    JOIN projected.delivered_at_slo AS pj ON pj.profile = c.profile AND c.config_key = 'mlperf:' || pj.mlperf_result_key
    JOIN projected.measured_fractions AS m ON m.profile = c.profile AND m.learnt_from
    JOIN observed.delivered_at_slo AS d ON d.profile = m.profile AND d.run_id = m.config_key
    CROSS JOIN LATERAL (VALUES ('low', m.delivered_fraction_low, d.low_load_index),
                               ('high', m.delivered_fraction_high, coalesce(d.failing_load_index, d.low_load_index)))
        AS bound(name, value, load_index)
    JOIN observed.load_points AS lp ON lp.run_id = d.run_id AND lp.load_index = bound.load_index
    WHERE c.evidence = 'projected' AND m.source = 'observed'
),
-- a config's band calibrated on our traffic is computed, not read: it points at the row that holds it
learnt_calibrated AS (
    SELECT c.profile, c.config_key, c.evidence, c.run_label, c.accelerator_id,
           'delivered fraction our config ' || m.run_labels || ' calibrated on our traffic on ' || m.accelerator_id
               || ', ' || bound.name || ' end (learnt from)' AS number, bound.value,
           'fraction of the MLPerf reference' AS unit, m.source AS number_evidence,
           NULL AS round, NULL AS submitter, NULL AS system,
           'calibrated.delivered_at_slo' AS source, NULL AS source_sha256,
           'profile ' || m.profile || ', config ' || m.config_key AS location,
           CASE bound.name WHEN 'low' THEN 5 ELSE 6 END AS sort_key
    FROM configs AS c
    JOIN projected.delivered_at_slo AS pj ON pj.profile = c.profile AND c.config_key = 'mlperf:' || pj.mlperf_result_key
    JOIN projected.measured_fractions AS m ON m.profile = c.profile AND m.learnt_from AND m.source = 'calibrated'
    CROSS JOIN LATERAL (VALUES ('low', m.delivered_fraction_low), ('high', m.delivered_fraction_high))
        AS bound(name, value)
    WHERE c.evidence = 'projected'
),
-- the band a run is billed on where it is calibrated on our traffic: computed, not read, so it points at its row
billed_calibrated AS (
    SELECT c.profile, c.config_key, c.evidence, c.run_label, c.accelerator_id,
           'billed band calibrated on our traffic (config ' || cd.config_key || '), ' || bound.name || ' end'
               AS number, bound.value, 'requests/s' AS unit, cd.evidence AS number_evidence,
           NULL AS round, NULL AS submitter, NULL AS system,
           'calibrated.delivered_at_slo' AS source, NULL AS source_sha256,
           'profile ' || cd.profile || ', config ' || cd.config_key AS location,
           CASE bound.name WHEN 'low' THEN 3 ELSE 4 END AS sort_key
    FROM configs AS c
    JOIN calibrated.delivered_at_slo AS cd
        ON cd.profile = c.profile AND list_contains(from_json(cd.run_labels, '["VARCHAR"]'), c.run_label)
    CROSS JOIN LATERAL (VALUES ('low', cd.delivered_requests_per_s_low), ('high', cd.delivered_requests_per_s_high))
        AS bound(name, value)
    WHERE c.billed_calibrated
),
prices AS (
    SELECT DISTINCT s.profile, s.config_key, s.evidence, s.run_label, s.accelerator_id,
           'price: ' || ap.price_class || ', ' || ap.price_provider || ', as of ' || ap.price_as_of AS number,
           ap.usd_per_accelerator_hour AS value, 'USD per accelerator-hour' AS unit,
           ap.evidence AS number_evidence, NULL AS round, NULL AS submitter, NULL AS system,
           ap.source, f.sha256 AS source_sha256, 'line ' || (ap.source_row + 2) AS location,
           7 AS sort_key
    FROM marts.config_shortlist AS s
    JOIN benchmark.accelerator_prices AS ap
        ON ap.accelerator_id = s.accelerator_id AND ap.price_class = s.price_class
       AND ap.price_provider = s.price_provider AND ap.price_as_of = s.price_as_of
       AND ap.usd_per_accelerator_hour = s.usd_per_accelerator_hour
    LEFT JOIN file_checksums AS f ON f.table_name = 'benchmark.accelerator_prices' AND f.source = ap.source
)
SELECT profile, config_key, evidence, run_label, accelerator_id, number, value, unit, number_evidence,
       round, submitter, system, source, source_sha256, location
FROM (
    SELECT * FROM mlperf
    UNION ALL SELECT * FROM observed_points
    UNION ALL SELECT * FROM billed_calibrated
    UNION ALL SELECT * FROM priors
    UNION ALL SELECT * FROM learnt_fractions
    UNION ALL SELECT * FROM learnt_calibrated
    UNION ALL SELECT * FROM prices
)
ORDER BY profile, config_key, sort_key, number
