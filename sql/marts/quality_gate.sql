-- marts.quality_gate: per profile x model x precision, whether our own task-quality evaluations
-- (observed.quality) meet the profile's quality requirement (requirement.quality_bounds), and the figures
-- the status rests on. MLPerf's accuracy gate is not used here: it tests MLPerf's task, not ours.
--
-- The model x scheme pairs are those of the profile's configs (observed and projected delivered at SLO)
-- and those its model was evaluated at (matched on requirement.profiles.model_key: a model no alias table
-- knows by its name without organisation and quantisation words). A scheme is the precision with its
-- activations and method (int4-w4a16-awq; observed.quality.scheme): evidence is used only for the same scheme;
-- a scheme known in part (int4, fp8) uses the one evaluated scheme it agrees with (one is the other's prefix at
-- a `-`: int4 agrees with int4-w4a16-awq, int4-w4a8 never does), said in scheme_note; when several agree (AWQ
-- and GPTQ), the requirement is untested and the note names them. Per requirement, the figure is the best-evidenced one at that model
-- and precision (with a stderr first, then the most documents, then the smallest stderr); its 95% interval
-- is value +/- 1.96 stderr. A min (max) bound is met when the whole interval lies at or above (at or below)
-- it, failed when the whole interval lies on the wrong side, inconclusive when the interval straddles it or
-- a sampled figure has no stderr. A point value (observed.quality.point_value: a perplexity, bits per byte, a
-- metric without stderr over the whole test set) has no sampling error: met or failed on its value. A
-- requirement's tolerance (the metric's unit) moves the bound to its permissive side (max + tolerance). A relative bound is the ratio times the reference: the same model's figure at its
-- widest precision evaluated (most weight bits, then most documents); where both it and the figure have a stderr,
-- the ratio value / reference is judged by its own 95% interval carrying both (ratios: delta method), else the
-- figure's interval against ratio x reference, said when the reference has none; the reference itself meets a
-- ratio of 1 or looser. No figure at this model and precision:
-- untested. A profile without requirements: not_required. Several requirements: the worst status wins
-- (fails, then untested, then inconclusive, then meets); quality_evidence lists every one.
WITH candidates AS (
    SELECT DISTINCT profile, model_id AS model, precision, coalesce(precision_scheme, precision) AS scheme
    FROM observed.delivered_at_slo
    UNION
    SELECT DISTINCT profile, model_id, precision, precision FROM projected.delivered_at_slo
    UNION
    SELECT DISTINCT p.profile, q.model, q.precision, q.scheme
    FROM requirement.profiles AS p
    JOIN observed.quality AS q ON q.model = p.model_key
),
evidence AS (
    SELECT *
    FROM observed.quality
    QUALIFY row_number() OVER (
        PARTITION BY model, scheme, task, metric
        ORDER BY stderr IS NULL, samples DESC NULLS LAST, stderr NULLS LAST, source
    ) = 1
),
reference AS (
    SELECT *
    FROM evidence
    QUALIFY row_number() OVER (
        PARTITION BY model, task, metric
        ORDER BY weight_bits DESC, stderr IS NULL, samples DESC NULLS LAST, stderr NULLS LAST, scheme
    ) = 1
),
agreeing AS (
    SELECT c.profile, c.model, c.scheme, b.task, b.metric,
           max(e.scheme) FILTER (WHERE e.scheme = c.scheme) AS exact,
           count(DISTINCT e.scheme) AS schemes,
           min(e.scheme) AS first_scheme,
           string_agg(DISTINCT e.scheme, ', ' ORDER BY e.scheme) AS scheme_list
    FROM candidates AS c
    JOIN requirement.quality_bounds AS b ON b.profile = c.profile
    JOIN evidence AS e
        ON e.model = c.model AND e.task = b.task AND e.metric = b.metric
        AND (e.scheme = c.scheme OR starts_with(e.scheme, c.scheme || '-') OR starts_with(c.scheme, e.scheme || '-'))
    GROUP BY c.profile, c.model, c.scheme, b.task, b.metric
),
known_tasks AS (
    SELECT DISTINCT task, metric FROM observed.quality
),
checks AS (
    SELECT c.profile, c.model, c.precision, c.scheme, b.task, b.metric, b.bound_kind, b.bound, b.tolerance,
           e.value, e.stderr, e.stderr_note, e.point_value, e.samples, e.source, e.harness, e.harness_version,
           e.scheme AS evidence_scheme,
           CASE WHEN a.exact IS NULL AND a.schemes = 1
                    THEN 'scheme ' || c.scheme || ' known in part: judged on ' || a.first_scheme
                         || ', the one evaluated scheme it agrees with'
                WHEN a.exact IS NULL AND a.schemes > 1
                    THEN 'scheme ' || c.scheme || ' known in part agrees with ' || a.schemes || ' evaluated schemes ('
                         || a.scheme_list || '): state the run''s precision with its method (awq, gptq, ...)'
           END AS scheme_note,
           r.value AS reference_value, r.stderr AS reference_stderr, r.scheme AS reference_precision,
           CASE WHEN b.bound_kind IN ('min', 'max') THEN b.bound ELSE b.bound * r.value END
               + CASE WHEN b.bound_kind LIKE 'max%' THEN b.tolerance ELSE -b.tolerance END AS threshold,
           k.task IS NOT NULL AS task_known
    FROM candidates AS c
    JOIN requirement.quality_bounds AS b ON b.profile = c.profile
    LEFT JOIN agreeing AS a
        ON a.profile = c.profile AND a.model = c.model AND a.scheme = c.scheme AND a.task = b.task
        AND a.metric = b.metric
    LEFT JOIN evidence AS e
        ON e.model = c.model AND e.scheme = coalesce(a.exact, CASE WHEN a.schemes = 1 THEN a.first_scheme END)
        AND e.task = b.task AND e.metric = b.metric
    LEFT JOIN reference AS r ON r.model = c.model AND r.task = b.task AND r.metric = b.metric
    LEFT JOIN known_tasks AS k ON k.task = b.task AND k.metric = b.metric
),
ratios AS (
    -- a relative bound where the reference has a stderr too: the ratio value / reference with both uncertainties
    -- (delta method, the two evaluations independent): se = sqrt(se^2 + ratio^2 se_ref^2) / reference
    SELECT *, value / reference_value - 1.96 * ratio_se AS ratio_low, value / reference_value + 1.96 * ratio_se AS ratio_high
    FROM (
        SELECT *,
               CASE WHEN bound_kind LIKE '%_relative' AND reference_stderr IS NOT NULL AND reference_value > 0
                         AND (stderr IS NOT NULL OR point_value) AND evidence_scheme <> reference_precision
                    THEN sqrt(coalesce(stderr, 0) ^ 2 + (value / reference_value) ^ 2 * reference_stderr ^ 2)
                         / reference_value
               END AS ratio_se
        FROM checks
    )
),
judged AS (
    SELECT *,
           value - 1.96 * stderr AS interval_low,
           value + 1.96 * stderr AS interval_high,
           CASE
               WHEN value IS NULL THEN 'untested'
               WHEN bound_kind LIKE '%_relative' AND evidence_scheme = reference_precision
                   THEN CASE WHEN (bound_kind = 'min_relative' AND bound <= 1) OR (bound_kind = 'max_relative' AND bound >= 1)
                             THEN 'meets' ELSE 'fails' END
               WHEN ratio_se IS NOT NULL  -- the ratio's interval against the ratio bound (with its tolerance)
                   THEN CASE WHEN bound_kind = 'min_relative' AND ratio_low >= threshold / reference_value THEN 'meets'
                             WHEN bound_kind = 'min_relative' AND ratio_high < threshold / reference_value THEN 'fails'
                             WHEN bound_kind = 'max_relative' AND ratio_high <= threshold / reference_value THEN 'meets'
                             WHEN bound_kind = 'max_relative' AND ratio_low > threshold / reference_value THEN 'fails'
                             ELSE 'inconclusive' END
               WHEN stderr IS NULL AND point_value
                   THEN CASE WHEN (bound_kind LIKE 'min%' AND value >= threshold)
                                  OR (bound_kind LIKE 'max%' AND value <= threshold) THEN 'meets' ELSE 'fails' END
               WHEN stderr IS NULL THEN 'inconclusive'
               WHEN bound_kind LIKE 'min%' AND value - 1.96 * stderr >= threshold THEN 'meets'
               WHEN bound_kind LIKE 'min%' AND value + 1.96 * stderr < threshold THEN 'fails'
               WHEN bound_kind LIKE 'max%' AND value + 1.96 * stderr <= threshold THEN 'meets'
               WHEN bound_kind LIKE 'max%' AND value - 1.96 * stderr > threshold THEN 'fails'
               ELSE 'inconclusive'
           END AS status
    FROM ratios
),
described AS (
    SELECT *,
           CASE status WHEN 'fails' THEN 1 WHEN 'untested' THEN 2 WHEN 'inconclusive' THEN 3 ELSE 4 END AS severity,
           task || ' ' || metric || ' ' || CASE
               WHEN value IS NULL AND NOT task_known
                   THEN 'appears in no quality file (check the task and metric names): untested'
               WHEN value IS NULL AND scheme_note IS NOT NULL THEN scheme_note || ': untested'
               WHEN value IS NULL
                   THEN 'not evaluated at ' || coalesce(scheme, 'this precision') || ': untested'
               ELSE coalesce(scheme_note || ': ', '') || printf('%.4f', value)
                   || CASE WHEN stderr IS NULL AND point_value THEN ' (' || stderr_note || ')'
                           WHEN stderr IS NULL THEN ' (no stderr: ' || coalesce(stderr_note, 'none in the file') || ')'
                           ELSE printf(' [%.4f, %.4f] 95%%', value - 1.96 * stderr, value + 1.96 * stderr) END
                   || coalesce(' n=' || samples, '')
                   || ' vs ' || bound_kind || ' ' || CASE
                       WHEN bound_kind IN ('min', 'max') THEN printf('%g', bound)
                       ELSE printf('%g x %.4f (%s)', bound, reference_value, reference_precision) END
                   || CASE WHEN tolerance > 0 THEN printf(' %s tolerance %g', CASE WHEN bound_kind LIKE 'max%'
                                                   THEN '+' ELSE '-' END, tolerance) ELSE '' END
                   || CASE WHEN tolerance > 0 OR bound_kind LIKE '%_relative' THEN printf(' = %.4f', threshold)
                           ELSE '' END
                   || CASE WHEN ratio_se IS NOT NULL
                               THEN printf(' (ratio %.4f [%.4f, %.4f] 95%% with the reference''s stderr too)',
                                           value / reference_value, ratio_low, ratio_high)
                           WHEN bound_kind LIKE '%_relative' AND evidence_scheme <> reference_precision
                                AND reference_stderr IS NULL
                               THEN ' (the reference has no stderr: only this figure''s uncertainty is carried)'
                           ELSE '' END
                   || ': ' || status
                   || ' (' || harness || coalesce(' ' || harness_version, '') || ', ' || source || ')'
           END AS check_text
    FROM judged
),
gated AS (
    SELECT profile, model, precision, scheme,
           arg_min_null(status, worst) AS quality_status,
           count(*) AS requirements,
           count(*) FILTER (WHERE status = 'meets') AS requirements_met,
           arg_min_null(task, worst) AS task,
           arg_min_null(metric, worst) AS metric,
           arg_min_null(bound_kind, worst) AS bound_kind,
           arg_min_null(threshold, worst) AS threshold,
           arg_min_null(value, worst) AS value,
           arg_min_null(stderr, worst) AS stderr,
           arg_min_null(interval_low, worst) AS interval_low,
           arg_min_null(interval_high, worst) AS interval_high,
           arg_min_null(samples, worst) AS samples,
           arg_min_null(ratio_low, worst) AS ratio_low,
           arg_min_null(ratio_high, worst) AS ratio_high,
           arg_min_null(reference_precision, worst) AS reference_precision,
           arg_min_null(source, worst) AS quality_source,
           arg_min_null(evidence_scheme, worst) AS evidence_scheme,
           string_agg(check_text, '; ' ORDER BY severity, task, metric) AS quality_evidence
    FROM (SELECT *, [severity::VARCHAR, task, metric] AS worst FROM described)
    GROUP BY profile, model, precision, scheme
)
SELECT profile, model, precision, scheme, quality_status, requirements, requirements_met, task, metric,
       bound_kind, threshold, value, stderr, interval_low, interval_high, samples, ratio_low, ratio_high,
       reference_precision, evidence_scheme, quality_source, quality_evidence
FROM gated
UNION ALL
SELECT c.profile, c.model, c.precision, c.scheme, 'not_required', 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'the profile states no quality requirement'
FROM candidates AS c
WHERE c.profile NOT IN (SELECT profile FROM requirement.quality_bounds)
ORDER BY profile, model, scheme
