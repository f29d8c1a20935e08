-- text_sources (a query of the request pass, assets/request_records/request_pass.py): the sources that have prompt or
-- response texts (`text_parts`: the files' text columns and the JSON formats' frames' texts).
SELECT DISTINCT source_id FROM text_parts
