import {
  Counter,
  CounterConfiguration,
  Gauge,
  GaugeConfiguration,
  Histogram,
  HistogramConfiguration,
  register,
} from 'prom-client';

/*
 * Metrics live on prom-client's default registry, registered once per process: a second Nest app
 * in the same process (the e2e suites boot several) reuses the registered metric instead of
 * failing on a duplicate name.
 */

export function counter<L extends string>(config: CounterConfiguration<L>): Counter<L> {
  return (register.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter(config);
}

export function histogram<L extends string>(config: HistogramConfiguration<L>): Histogram<L> {
  return (
    (register.getSingleMetric(config.name) as Histogram<L> | undefined) ?? new Histogram(config)
  );
}

export function gauge<L extends string>(config: GaugeConfiguration<L>): Gauge<L> {
  return (register.getSingleMetric(config.name) as Gauge<L> | undefined) ?? new Gauge(config);
}
