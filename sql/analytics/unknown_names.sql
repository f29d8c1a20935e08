-- analytics.unknown_names: every raw accelerator, model and precision name that the reference tables
-- (assets/reference/accelerator_aliases.csv, model_aliases.csv, precisions.csv) do not know, with the table
-- whose rows carry it and how many: those rows are kept, raw, but join to nothing. Add the name as an alias to
-- make them join. A precision the source left unstated (MLPerf's UNSET) is listed too: it matches no precision.
--
-- column kind: What the name names: accelerator, model or precision.
-- column raw_name: The name as the source wrote it.
-- column table_name: The table whose rows carry the name.
-- column rows: How many rows of that table carry it.
-- column example: One row carrying it: a result key, run label, price source, profile name or quality model key.
-- column alias_table: The reference table to add the name to, under assets/reference/.
SELECT kind, raw_name, table_name, rows, example, alias_table
FROM (
    SELECT 'accelerator' AS kind, accelerator_raw AS raw_name, 'benchmark.mlperf_results' AS table_name,
           count(*) AS rows, min(result_key) AS example, 'accelerator_aliases.csv' AS alias_table
    FROM benchmark.mlperf_results
    WHERE NOT accelerator_known AND accelerator_raw IS NOT NULL
    GROUP BY accelerator_raw
    UNION ALL
    SELECT 'model', mlperf_model, 'benchmark.mlperf_results', count(*), min(result_key), 'model_aliases.csv'
    FROM benchmark.mlperf_results
    WHERE NOT model_known
    GROUP BY mlperf_model
    UNION ALL
    SELECT 'precision', precision_raw, 'benchmark.mlperf_results', count(*), min(result_key), 'precisions.csv'
    FROM benchmark.mlperf_results
    WHERE precision IS NULL AND precision_raw IS NOT NULL
    GROUP BY precision_raw
    UNION ALL
    SELECT 'accelerator', accelerator_raw, 'observed.runs', count(*), min(run_label), 'accelerator_aliases.csv'
    FROM observed.runs
    WHERE NOT accelerator_known AND accelerator_raw IS NOT NULL
    GROUP BY accelerator_raw
    UNION ALL
    SELECT 'model', model_raw, 'observed.runs', count(*), min(run_label), 'model_aliases.csv'
    FROM observed.runs
    WHERE NOT model_known AND model_raw IS NOT NULL
    GROUP BY model_raw
    UNION ALL
    SELECT 'precision', precision_raw, 'observed.runs', count(*), min(run_label), 'precisions.csv'
    FROM observed.runs
    WHERE NOT precision_known AND precision_raw IS NOT NULL
    GROUP BY precision_raw
    UNION ALL
    SELECT 'model', model_raw, 'observed.quality', count(*), min(model), 'model_aliases.csv'
    FROM observed.quality
    WHERE NOT model_known
    GROUP BY model_raw
    UNION ALL
    SELECT 'accelerator', accelerator_raw, 'benchmark.accelerator_prices', count(*), min(price_source),
           'accelerator_aliases.csv'
    FROM benchmark.accelerator_prices
    WHERE NOT accelerator_known
    GROUP BY accelerator_raw
    UNION ALL
    SELECT 'model', model_raw, 'requirement.profiles', count(*), min(profile), 'model_aliases.csv'
    FROM requirement.profiles
    WHERE NOT model_known
    GROUP BY model_raw
)
ORDER BY kind, rows DESC, raw_name, table_name
