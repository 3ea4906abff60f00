import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

/**
 * A time-series chart (uPlot, on a canvas) over the overview's buckets, as wide as its figure.
 * The canvas is an image to assistive technology: its caption names it and the figure's table
 * (OverviewTable) holds the same numbers as text.
 */
export function TimeChart({
  id,
  title,
  starts,
  series,
  tz,
}: {
  id: string;
  title: string;
  /** Bucket starts, epoch seconds. */
  starts: number[];
  series: ChartSeries[];
  tz: string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const width = () => Math.max(240, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 180,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [{}, { size: 48 }],
        series: [
          {},
          ...series.map((line) => ({ label: line.label, stroke: line.color, width: 2 })),
        ],
      },
      [starts, ...series.map((line) => line.values)],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 180 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [starts, series, tz]);
  return (
    <figure class="chart" id={id}>
      <figcaption>{title}</figcaption>
      <div ref={holder} role="img" aria-label={`${title}: a chart of the table below`} />
    </figure>
  );
}
