"""Audit: what each build was made from. (The quarantine and the file inventory, `audit.quarantine` and
`audit.source_files`, are written with every table; round versions with each MLPerf round.)"""

import dagster as dg

from assets.resources import Inputs, Warehouse
from assets.specs import OWNERS, PYTHON_CODE_VERSION, definition_metadata, table_metadata
from assets.warehouse.fingerprint import fingerprint_row
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import write_table
from schemas.audit.run_fingerprint import RunFingerprint


@dg.asset(
    key=["audit", "run_fingerprint"],
    group_name="audit",
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
    metadata=definition_metadata("audit.run_fingerprint"),
    kinds={"duckdb"},
)
def run_fingerprint(warehouse: Warehouse, inputs: Inputs) -> dg.MaterializeResult:
    """The fingerprint of the inputs and code this build was made from (given by `benchbill run`; empty for
    other runs), published with the build so the next run can tell whether anything changed."""
    row = fingerprint_row(inputs.fingerprint, inputs.code_sha256, inputs.fingerprint_inputs)
    with warehouse.connect() as conn:
        report = write_table(conn, "audit.run_fingerprint", frame_from_rows([row], RunFingerprint), RunFingerprint)
    return dg.MaterializeResult(metadata={**table_metadata(report), "fingerprint": row["fingerprint"] or ""})
