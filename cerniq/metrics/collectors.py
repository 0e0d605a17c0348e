"""Scrape-time metrics: facts read from the database (and the heartbeats) when Prometheus
asks, not counted as they happen.

Each app registers its collector in its AppConfig.ready (`register("review", collect)`), so
the platform never imports a domain model. A collector is a function returning metric
families (`gauge(...)` builds one); it must use a constant number of queries, whatever the
number of rows it reports on. One that raises is logged and reported as
`cerniq_collector_up{collector="review"} 0`; the others still answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

from prometheus_client.core import GaugeMetricFamily, Metric

log = logging.getLogger(__name__)

CollectFunction = Callable[[], Iterable[Metric]]
_collectors: dict[str, CollectFunction] = {}


def register(name: str, collect: CollectFunction) -> None:
    """Add (or replace) the collector called `name`."""
    _collectors[name] = collect


def registered() -> dict[str, CollectFunction]:
    return dict(_collectors)


def gauge(
    name: str, documentation: str, labels: list[str], rows: Iterable[tuple[tuple, float]]
) -> GaugeMetricFamily:
    """A gauge family from (label values, value) rows."""
    family = GaugeMetricFamily(name, documentation, labels=labels)
    for label_values, value in rows:
        family.add_metric([str(v) for v in label_values], value)
    return family


class ScrapeCollector:
    """Every registered collector, for one scrape (a prometheus-client collector)."""

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "cerniq_collector_up",
            "1 when the collector answered at this scrape, 0 when it failed (see the log).",
            labels=["collector"],
        )
        for name, collect in sorted(_collectors.items()):
            try:
                families = list(collect())
            except Exception:
                log.exception("metrics collector %s failed", name)
                up.add_metric([name], 0)
                continue
            up.add_metric([name], 1)
            yield from families
        yield up
