"""Read `/metrics` the way Prometheus does: a GET with the bearer token, parsed."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "metrics-token-for-tests-0123456789abcdef"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client, settings) -> Samples:
    """Every sample of one scrape: (sample name, labels) → value."""
    settings.METRICS_TOKEN = TOKEN
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    samples: Samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, /, **labels: str) -> float:
    """One sample's value; 0 when the series does not exist (yet)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def series(samples: Samples, name: str) -> dict[frozenset[tuple[str, str]], float]:
    """Every series of one sample name: labels → value."""
    return {labels: v for (n, labels), v in samples.items() if n == name}
