"""deploy/: the Kubernetes settings load as Dagster reads them, and the definitions load with the k8s executor
(no cluster: nothing is launched)."""

import os
import subprocess
import sys
from pathlib import Path

import yaml
from dagster._config import process_config
from dagster_k8s import K8sRunLauncher, k8s_job_executor

from assets.warehouse.objectstore import ObjectStore, storage_options

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"


def test_the_instance_launches_runs_as_kubernetes_jobs_with_a_valid_config():
    instance = yaml.safe_load((DEPLOY / "dagster.yaml").read_text())
    launcher = instance["run_launcher"]
    assert (launcher["module"], launcher["class"]) == ("dagster_k8s", "K8sRunLauncher")
    checked = process_config(K8sRunLauncher.config_type(), launcher["config"])
    assert checked.success, checked.errors
    assert instance["concurrency"]["runs"]["tag_concurrency_limits"] == [
        {"key": "warehouse", "value": "build", "limit": 1}
    ]


def test_the_step_pods_config_is_valid_for_the_k8s_executor():
    run_config = yaml.safe_load((DEPLOY / "run_config.yaml").read_text())
    checked = process_config(k8s_job_executor.config_schema.config_type, run_config["execution"]["config"])
    assert checked.success, checked.errors


def test_every_pod_reads_the_run_store_setting_and_its_credentials_secret():
    """The run store on S3 (settings.yaml) is a valid store URL and options; the Secret holding its credentials
    (run-store-secret.yaml) is given to the code server, the run pods and the step pods alike."""
    settings = yaml.safe_load((DEPLOY / "settings.yaml").read_text())["data"]
    store = ObjectStore(settings["BENCHBILL_RUN_STORE"], settings["BENCHBILL_RUN_STORE_OPTIONS"])
    assert store.protocol == "s3" and isinstance(storage_options(store.options_json), dict)
    secret = yaml.safe_load((DEPLOY / "run-store-secret.yaml").read_text())
    assert secret["kind"] == "Secret" and set(secret["stringData"]) == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    assert not any(secret["stringData"].values())  # placeholders: credentials are never committed
    name = secret["metadata"]["name"]
    instance = yaml.safe_load((DEPLOY / "dagster.yaml").read_text())
    assert name in instance["run_launcher"]["config"]["env_secrets"]
    run_config = yaml.safe_load((DEPLOY / "run_config.yaml").read_text())
    assert name in run_config["execution"]["config"]["env_secrets"]
    values = yaml.safe_load((DEPLOY / "values.yaml").read_text())
    (deployment,) = values["dagster-user-deployments"]["deployments"]
    assert {"name": name} in deployment["envSecrets"]
    assert {"name": name} in values["runLauncher"]["config"]["k8sRunLauncher"]["envSecrets"]


def test_the_definitions_load_with_the_k8s_executor_on_the_partitioned_job(tmp_path):
    """In a fresh process, as a code server in the cluster loads them (BENCHBILL_EXECUTOR=k8s from
    deploy/settings.yaml): job scan_dump_runs runs each partition on k8s_job_executor, and its run config
    (deploy/run_config.yaml) validates against the job."""
    settings = yaml.safe_load((DEPLOY / "settings.yaml").read_text())["data"]
    assert settings["BENCHBILL_EXECUTOR"] == "k8s"
    probe = (
        "import yaml, dagster as dg\n"
        "from pipelines.definitions import defs\n"
        "job = defs.resolve_job_def('scan_dump_runs')\n"
        "print(job.executor_def.name)\n"
        f"config = yaml.safe_load(open({str(DEPLOY / 'run_config.yaml')!r}))\n"
        "print(str(dg.validate_run_config(job, config)['execution']).count(\"'max_concurrent': 16\"))\n"
        "print(defs.resolve_job_def('build_warehouse').executor_def.name)\n"
        "store = defs.resources['run_store']\n"
        "print(store.run_store, type(store.store).__name__, type(store.store.remote.fs).__name__)\n"
    )
    env = {
        **os.environ,
        "BENCHBILL_EXECUTOR": "k8s",
        "BENCHBILL_RUN_STORE": settings["BENCHBILL_RUN_STORE"],
        "BENCHBILL_RUN_STORE_OPTIONS": settings["BENCHBILL_RUN_STORE_OPTIONS"],
        "BENCHBILL_WAREHOUSE": str(tmp_path / "warehouse"),
        "DAGSTER_HOME": str(tmp_path),
    }
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [
        "k8s",
        "1",
        "in_process",
        settings["BENCHBILL_RUN_STORE"],
        "ObjectPartitionStore",
        "S3FileSystem",  # built from the settings, nothing contacted
    ]
