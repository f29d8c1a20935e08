-- source_groups (a query of the request pass, assets/request_records/request_pass.py: RequestPass.groups): the per-repeat
-- groups of `request_groups` by source key (`request_source_ids`) and the file's own level values, without the
-- columns only the pass's own SQL reads (the first arrivals and the quantiles go to request_stats.sql and
-- request_pooled.sql through `request_groups_keyed`).
SELECT i.source_key,
       g.* EXCLUDE (grouping_set, first_arrivals_s, ttft_q, tpot_q, e2e_q, rows_maybe_copied)
FROM request_groups AS g
JOIN request_source_ids AS i USING (source_id)
WHERE grouping_set = 'repeat'
ORDER BY i.source_key, file_offered_rate_per_s, file_concurrency
