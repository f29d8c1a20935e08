-- Achieved request rate stays within 10% above the offered rate (more would mean a unit or parsing error).
--
-- severity: warn
-- Load points that achieved more than 10% above the offered rate.
SELECT run_id, load_index, offered_rate_per_s, achieved_requests_per_s, source
FROM observed.load_points
WHERE load_kind = 'rate'
  AND offered_rate_per_s > 0
  AND achieved_requests_per_s > 1.1 * offered_rate_per_s
