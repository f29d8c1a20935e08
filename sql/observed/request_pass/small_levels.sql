-- small_levels (a temporary table of the request pass, assets/request_records/request_pass.py): the load levels of at
-- most $exact_up_to ok requests (a 'level' group of `request_groups` whose smallest count of values is that
-- small), placed by `request_keys`: run, kind, nominal value, point (a level without a nominal value is its
-- source's own), load_index, and the source of each of its repeats (`key_source_id`), to be read again for the
-- exact order statistics (request_small.sql).
SELECT DISTINCT k.run_id, k.level_kind, k.level_nominal, g.source_id AS point_id, k.load_index,
       k.source_id AS key_source_id
FROM request_keys AS k
JOIN request_groups AS g
    ON g.grouping_set = 'level' AND g.run_id = k.run_id
   AND g.level_kind = k.level_kind AND g.level_nominal IS NOT DISTINCT FROM k.level_nominal
   AND g.source_id IS NOT DISTINCT FROM (CASE WHEN k.level_nominal IS NULL THEN k.source_id END)
WHERE least(g.ttft_n, g.tpot_n, g.e2e_n) <= $exact_up_to
