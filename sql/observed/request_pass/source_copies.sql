-- source_copies (a query of the request pass, assets/request_records/request_pass.py): per source (`request_source_ids`:
-- its key), whether its per-repeat groups in `request_groups` may hold copies of rows (`maybe_copied`: fewer
-- distinct row hashes than hashed rows; the pass then reads it again with the window that finds them) and whether
-- they hold some (`copied`: rows found as copies of an earlier row).
SELECT i.source_key,
       bool_or(g.rows_maybe_copied > 0) AS maybe_copied,
       bool_or(g.rows_copied > 0) AS copied
FROM request_groups AS g
JOIN request_source_ids AS i USING (source_id)
WHERE g.grouping_set = 'repeat'
GROUP BY i.source_key
