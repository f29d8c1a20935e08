-- request_small (a temporary table of the request pass, assets/request_records/request_pass.py): for the load levels of at most
-- 20,000 ok requests (`small_levels`: run, kind, nominal value, point, load_index), each measure's values sorted,
-- from a second read of only those levels' sources (`small_rows`; small levels come from small files, as a rule).
SELECT l.run_id, l.load_index,
       list_sort(list(r.ttft_ms) FILTER (WHERE r.ttft_ms IS NOT NULL)) AS ttft_sorted,
       list_sort(list(r.tpot_ms) FILTER (WHERE r.tpot_ms IS NOT NULL)) AS tpot_sorted,
       list_sort(list(r.e2e_ms) FILTER (WHERE r.e2e_ms IS NOT NULL)) AS e2e_sorted
FROM small_rows AS r
JOIN (SELECT DISTINCT run_id, level_kind, level_nominal, point_id, load_index FROM small_levels) AS l
    ON l.run_id = r.run_id AND l.level_kind = r.level_kind AND l.level_nominal IS NOT DISTINCT FROM r.level_nominal
   AND (l.point_id IS NULL OR l.point_id = r.source_id)
WHERE r.valid AND r.phase = 'measure' AND r.status = 'ok' AND r.unusable_reason IS NULL
GROUP BY ALL
