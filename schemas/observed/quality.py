"""observed.quality: task-quality evaluations of our models, per base model x precision x task x metric."""

import pandera.polars as pa

from schemas.vocab import QUALITY_PRECISION_SOURCES


class Quality(pa.DataFrameModel):
    """One figure of a task-quality evaluation (lm-evaluation-harness results, a generic quality CSV) found
    in the dump folders: the base model and precision it was measured at, the task, the metric, its value
    and standard error, and the file it was read from. One row per base model x precision x task x metric x
    source."""

    model: str = pa.Field(
        description=(
            "Base model the figure is matched on: its canonical id (observed.runs.model_id), else, for a model no "
            "alias table knows, its name without organisation and quantisation words (requirement.profiles.model_key)."
        )
    )
    model_known: bool = pa.Field(description="True when the model matched a canonical model id (an alias table's).")
    model_raw: str = pa.Field(description="Model as the file (or run.yaml) names it: a checkpoint, a local path.")
    model_field: str = pa.Field(
        description="Where model_raw was read: run.yaml, config.model_args.pretrained, model_name, a CSV column."
    )
    model_note: str = pa.Field(
        nullable=True, description="For a model no alias table knows: the names tried and the key it is kept under."
    )
    precision: str = pa.Field(description="Canonical precision evaluated (assets/reference/precisions.csv).")
    weight_bits: int = pa.Field(
        ge=1, le=32, description="Weight bits of the precision (precisions.csv): the widest is the relative reference."
    )
    scheme: str = pa.Field(
        description=(
            "The quantisation scheme the figure is for, what it is matched to runs on: the precision, then "
            "w<bits>a<bits> when the activations are stated (a<format> for float activations of integer weights), "
            "then the method (int4-w4a16-awq, int4-w4a16-gptq, int4-w4a8, fp8-w8a8-dynamic); a part not stated is "
            "left out (fp8, bf16)."
        )
    )
    activation_bits: int = pa.Field(nullable=True, ge=1, le=32, description="Activation bits, when stated.")
    activation_format: str = pa.Field(
        nullable=True, description="Activation format, when stated: 16-bit float, int8, fp8, nvfp4 (precisions.csv)."
    )
    quant_method: str = pa.Field(
        nullable=True,
        description="Quantisation method, when stated: awq, gptq, rtn, smoothquant, dynamic or static (fp8), ...",
    )
    precision_raw: str = pa.Field(description="The word the precision was read from (`load_in_8bit=True`, `-FP8`).")
    precision_source: str = pa.Field(
        isin=QUALITY_PRECISION_SOURCES,
        description=(
            "Where the precision comes from, strongest first: run.yaml, the CSV's column, a quantisation argument "
            "(quantization, load_in_8bit/4bit), the checkpoint's name, an explicit dtype, the dtype the harness "
            "loaded (config.model_dtype), the reference checkpoint's own precision (models.csv: `dtype=auto` or none)."
        ),
    )
    precision_note: str = pa.Field(nullable=True, description="What is inferred rather than stated, when anything.")
    task: str = pa.Field(description="Task as the harness names it (gsm8k, mmlu_pro, a group or one of its subtasks).")
    task_version: str = pa.Field(nullable=True, description="The task's version (`versions` in the file).")
    n_shot: int = pa.Field(nullable=True, ge=0, description="Few-shot examples per prompt (`n-shot`), when stated.")
    metric: str = pa.Field(
        description="Metric as the harness keys it, without a `none` filter: acc, acc_norm, exact_match,strict-match."
    )
    value: float = pa.Field(description="The figure, as the file writes it (a fraction for accuracies).")
    stderr: float = pa.Field(
        nullable=True, ge=0, description="Its standard error; empty when the file gives none (stderr_note)."
    )
    stderr_note: str = pa.Field(nullable=True, description="Why stderr is empty (N/A in the file, absent).")
    point_value: bool = pa.Field(
        description=(
            "True when the figure has no sampling error by construction (a perplexity, bits per byte, or a metric "
            "without stderr over the whole test set): the gate judges its value, not an interval."
        )
    )
    samples: int = pa.Field(
        nullable=True, ge=1, description="Documents the figure rests on (n-samples effective, a group's sample count)."
    )
    higher_is_better: bool = pa.Field(
        nullable=True, description="True when higher is better (the file's higher_is_better; perplexities lower)."
    )
    harness: str = pa.Field(description="What wrote the figures: lm-evaluation-harness, or a generic quality CSV.")
    harness_version: str = pa.Field(
        nullable=True,
        description="Harness version as the file states it (lm_eval_version, else `git <hash>`); empty for 0.3 files.",
    )
    format: str = pa.Field(description="Format recognised (lm-evaluation-harness results (0.4+), (0.3), generic CSV).")
    source: str = pa.Field(description="File the figure was read from.")
    source_note: str = pa.Field(
        nullable=True, description="Where the figure comes from as the generic CSV's `source` column says it."
    )
    location: str = pa.Field(description="Where in the file: results.<task>.<key>, or a CSV line.")
    sha256: str = pa.Field(str_matches=r"^[0-9a-f]{64}$", description="Checksum of the file's content.")
    evidence: str = pa.Field(isin=["observed"], description="Evidence class of the row: observed.")

    class Config:
        strict = True
        coerce = True
        unique = ["model", "scheme", "task", "metric", "source", "source_note"]
