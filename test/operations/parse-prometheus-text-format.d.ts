declare module 'parse-prometheus-text-format' {
  /** Metric families parsed from Prometheus's text exposition format. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
