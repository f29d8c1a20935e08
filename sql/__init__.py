"""benchbill's SQL, shipped as package data: `<schema>/<table>.sql` builds a table, `checks/<schema>/` holds the
asset checks, `analytics/` the analyst views, `queries/` the named queries, `observed/request_pass/` the request
pass's own statements."""
