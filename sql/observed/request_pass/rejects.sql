-- rejects (a query of the request pass, assets/request_records/request_pass.py): the rows that failed a check
-- (`explained_rows`: the rows of the sources that have some, each reason worded, checked_scan_sql's explain),
-- the first $listed of each source in the file's order, with their values as read.
SELECT i.source_key, r.ordinal, r.reasons,
       r.phase, r.status, r.start_s, r.input_tokens, r.output_tokens, r.ttft_ms, r.e2e_ms, r.tpot_ms, r.error
FROM (
    SELECT *, row_number() OVER (PARTITION BY source_id ORDER BY ordinal) AS listed
    FROM explained_rows
    WHERE NOT valid
) AS r
JOIN request_source_ids AS i USING (source_id)
WHERE r.listed <= $listed
ORDER BY i.source_key, r.ordinal
