"""observed.request_texts: prompt and response texts of measured requests, only when a run asks for them."""

import pandera.polars as pa


class RequestTexts(pa.DataFrameModel):
    """The prompt and the response of one request, as the dump recorded them. Stored only when the
    run was started with `--store-texts` (BENCHBILL_STORE_TEXTS=1); otherwise the table is empty and
    no text from a dump reaches any other table or the Parquet export."""

    run_id: str = pa.Field(description="Run the request belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Load level of the request (0-based).")
    repeat_index: int = pa.Field(ge=0, description="Repeat of the level (0-based).")
    request_index: int = pa.Field(ge=0, description="Position of the request in its repeat (observed.requests).")
    prompt_text: str = pa.Field(nullable=True, description="The prompt (or request payload) as the dump wrote it.")
    response_text: str = pa.Field(nullable=True, description="The generated text as the dump wrote it.")
    source: str = pa.Field(description="Dump file the texts were read from.")

    class Config:
        strict = True
        coerce = True
