-- request_groups_keyed (a temporary view of the request pass, assets/request_records/request_pass.py): each per-repeat request
-- group placed in its run's sweep (load level and repeat) by `request_keys`, which assets/runs/assemble.py builds once it
-- has ordered the run's load levels; a generic file holding several levels is joined on the file's level values.
SELECT k.run_id AS keyed_run_id, k.load_index, k.repeat_index, k.source, g.*
FROM request_groups AS g
JOIN request_keys AS k
    ON k.source_id = g.source_id
   AND k.file_offered_rate_per_s IS NOT DISTINCT FROM g.file_offered_rate_per_s
   AND k.file_concurrency IS NOT DISTINCT FROM g.file_concurrency
WHERE g.grouping_set = 'repeat'
