-- low <= high, and high never above the first failing load point's achieved rate.
--
-- blocking: true
-- Bands that are upside down or reach above the first failing load point (its fastest repeat).
SELECT d.profile, d.run_label, d.delivered_requests_per_s_low, d.delivered_requests_per_s_high,
       f.achieved_requests_per_s_max AS failing_point_requests_per_s
FROM observed.delivered_at_slo AS d
LEFT JOIN observed.load_points AS f
    ON f.run_id = d.run_id AND f.load_index = d.failing_load_index
WHERE d.delivered_requests_per_s_low > d.delivered_requests_per_s_high
   OR d.delivered_output_tokens_per_s_low > d.delivered_output_tokens_per_s_high
   OR (f.achieved_requests_per_s_max IS NOT NULL
       AND d.delivered_requests_per_s_high > greatest(f.achieved_requests_per_s_max, d.delivered_requests_per_s_low))
