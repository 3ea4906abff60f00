import { useMemo, useState } from 'preact/hooks';
import { adminApi, Overview, OverviewBucket, OverviewWindow } from '../admin-api';
import { useAnswer } from '../answer';
import { Answered, Column, DataTable } from '../data-table';
import { ChartSeries, TimeChart } from '../chart';
import { bucketName, instant, label, lag, money, share } from '../format';

const WINDOWS: [OverviewWindow, string][] = [
  ['hour', 'Last hour'],
  ['day', 'Last 24 hours'],
  ['month', 'Last 30 days'],
];

const COLORS = {
  blue: '#0b5cad',
  green: '#1a7f37',
  red: '#cf222e',
  grey: '#6e7781',
  orange: '#bc4c00',
};

/** Whether a bucket has a verified notification to take a lag from. */
const verified = (counts: { notifications: number; notifications_open: number }) =>
  counts.notifications - counts.notifications_open > 0;

/** One number of each bucket: its column in the table, and its line in a chart. */
interface Measure {
  column: string;
  line: string;
  color: string;
  value: (bucket: OverviewBucket) => number | null;
  /** As the table writes it (default: the number). */
  text?: (bucket: OverviewBucket) => string;
}

const MEASURES = {
  checkouts: {
    column: 'Checkouts',
    line: 'Checkouts',
    color: COLORS.blue,
    value: (x) => x.checkouts,
  },
  paid: { column: 'Paid', line: 'Paid', color: COLORS.green, value: (x) => x.paid },
  failed: { column: 'Failed', line: 'Failed', color: COLORS.red, value: (x) => x.failed },
  closed: {
    column: 'Cancelled or expired',
    line: 'Cancelled or expired',
    color: COLORS.grey,
    value: (x) => x.cancelled + x.expired,
  },
  lag: {
    column: 'Lag p95',
    line: 'p95 (ms)',
    color: COLORS.orange,
    value: (x) => x.lag_p95_ms,
    text: (x) => (verified(x) ? lag(x.lag_p95_ms) : '—'),
  },
  delivered: {
    column: 'Webhooks delivered',
    line: 'Delivered',
    color: COLORS.green,
    value: (x) => x.webhook_delivered,
  },
  undelivered: {
    column: 'Webhooks failed',
    line: 'Failed',
    color: COLORS.red,
    value: (x) => x.webhook_failed,
  },
  asked: {
    column: 'Refunds asked',
    line: 'Asked for',
    color: COLORS.blue,
    value: (x) => x.refund_requests,
  },
  refunded: {
    column: 'Refunds accepted',
    line: 'Accepted',
    color: COLORS.green,
    value: (x) => x.refunds,
  },
} satisfies Record<string, Measure>;

type MeasureName = keyof typeof MEASURES;

/** The charts, each a few measures over the window's buckets. */
const CHARTS: { id: string; title: (bucket: string) => string; lines: MeasureName[] }[] = [
  { id: 'chart-checkouts', title: (bucket) => `Checkouts per ${bucket}`, lines: ['checkouts'] },
  { id: 'chart-outcomes', title: () => 'Outcomes', lines: ['paid', 'failed', 'closed'] },
  { id: 'chart-lag', title: () => 'Notification lag, 95th percentile (ms)', lines: ['lag'] },
  { id: 'chart-webhooks', title: () => 'Webhook attempts', lines: ['delivered', 'undelivered'] },
  { id: 'chart-refunds', title: () => 'Refunds', lines: ['asked', 'refunded'] },
];

/** The charts of one answer. */
function chartsOf(overview: Overview): { id: string; title: string; series: ChartSeries[] }[] {
  return CHARTS.map(({ id, title, lines }) => ({
    id,
    title: title(overview.bucket),
    series: lines.map((name) => {
      const measure: Measure = MEASURES[name];
      return {
        label: measure.line,
        values: overview.buckets.map(measure.value),
        color: measure.color,
      };
    }),
  }));
}

function Totals({ overview }: { overview: Overview }) {
  const t = overview.totals;
  const outcomes = t.paid + t.failed + t.cancelled + t.expired + t.pending_now;
  const attempts = t.webhook_delivered + t.webhook_failed;
  return (
    <dl class="summary" id="totals">
      <dt>Checkouts</dt>
      <dd id="total-checkouts">
        {t.checkouts} ({t.hosted} hosted, {t.mobile_money} mobile money)
      </dd>
      <dt>Paid</dt>
      <dd id="total-paid">
        {t.paid} ({share(t.paid, outcomes)})
      </dd>
      <dt>Failed</dt>
      <dd id="total-failed">
        {t.failed} ({share(t.failed, outcomes)})
      </dd>
      <dt>Cancelled or expired</dt>
      <dd>
        {t.cancelled + t.expired} ({share(t.cancelled + t.expired, outcomes)})
      </dd>
      <dt>Pending now</dt>
      <dd id="total-pending">
        {t.pending_now} ({share(t.pending_now, outcomes)})
      </dd>
      <dt>Notifications</dt>
      <dd id="total-notifications">
        {t.notifications}, {t.notifications_open} not verified; 95% within{' '}
        {verified(t) ? lag(t.lag_p95_ms) : '—'}
      </dd>
      <dt>Webhook attempts</dt>
      <dd id="total-webhooks">
        {attempts}, {share(t.webhook_delivered, attempts)} delivered
      </dd>
      <dt>Refunds</dt>
      <dd id="total-refunds">
        {t.refund_requests} asked for, {t.refunds} accepted, {t.reversals} reversals
      </dd>
    </dl>
  );
}

type Movement = [string, Overview['totals']['paid_amounts'][number]];

const MONEY_COLUMNS: Column<Movement>[] = [
  { head: 'Movement', cell: ([kind]) => kind },
  { head: 'Currency', cell: ([, m]) => m.currency },
  { head: 'Count', cell: ([, m]) => m.count },
  { head: 'Amount', class: 'amount', cell: ([, m]) => money(m.amount, m.currency) },
];

function MoneyTable({ overview }: { overview: Overview }) {
  const t = overview.totals;
  const rows: Movement[] = [
    ...t.paid_amounts.map((m): Movement => ['Payments', m]),
    ...t.refund_amounts.map((m): Movement => ['Refunds', m]),
    ...t.reversal_amounts.map((m): Movement => ['Reversals', m]),
  ];
  return (
    <DataTable
      id="money"
      label="Money moved"
      caption="Money moved"
      columns={MONEY_COLUMNS}
      rows={rows}
      rowKey={([kind, m]) => `${kind}:${m.currency}`}
      empty="No money moved in this window."
    />
  );
}

function Failures({ overview }: { overview: Overview }) {
  const { failures_by_reason: reasons, failed } = overview.totals;
  return (
    <DataTable
      id="failures"
      label="Failures by reason"
      caption="Failures by reason"
      columns={[
        { head: 'Reason', cell: (reason) => label(reason.reason) },
        { head: 'Count', cell: (reason) => reason.count },
        { head: 'Share', cell: (reason) => share(reason.count, failed) },
      ]}
      rows={reasons}
      rowKey={(reason) => reason.reason}
      empty="No payment failed in this window."
    />
  );
}

/** The charts' numbers as text, one row per bucket (the newest first). */
function BucketTable({ overview }: { overview: Overview }) {
  const columns: Column<OverviewBucket>[] = [
    {
      head: overview.bucket === 'day' ? 'Day' : 'From',
      cell: (bucket) => bucketName(bucket.starts_at, overview.bucket, overview.tz),
    },
    ...Object.values(MEASURES).map((measure: Measure): Column<OverviewBucket> => ({
      head: measure.column,
      cell: (bucket) => (measure.text ? measure.text(bucket) : measure.value(bucket)),
    })),
  ];
  return (
    <details>
      <summary>The charts as a table</summary>
      <DataTable
        id="buckets"
        label="The charts as a table"
        columns={columns}
        rows={[...overview.buckets].reverse()}
        rowKey={(bucket) => bucket.starts_at}
        empty="No bucket in this window."
      />
    </details>
  );
}

function Charts({ overview }: { overview: Overview }) {
  const starts = useMemo(
    () => overview.buckets.map((bucket) => Date.parse(bucket.starts_at) / 1000),
    [overview],
  );
  const charts = useMemo(() => chartsOf(overview), [overview]);
  // Minutes and hours are UTC, as every instant of the console; days are the API's local days.
  const tz = overview.bucket === 'day' ? overview.tz : 'UTC';
  return (
    <div class="charts">
      {charts.map((chart) => (
        <TimeChart key={chart.id} {...chart} starts={starts} tz={tz} />
      ))}
    </div>
  );
}

/** What happened over the last hour, day or month: the page an operator opens first. */
export function OverviewPage({ onRefused }: { onRefused: () => void }) {
  const [window, setWindow] = useState<OverviewWindow>('day');
  const [version, setVersion] = useState(0);
  const overview = useAnswer(() => adminApi.overview(window), [window, version], onRefused);
  return (
    <main id="main">
      <h1>Overview</h1>
      <form id="window-form" onSubmit={(event) => event.preventDefault()}>
        <fieldset>
          <legend>Window</legend>
          {WINDOWS.map(([name, title]) => (
            <label class="check">
              <input
                type="radio"
                name="window"
                value={name}
                checked={window === name}
                onChange={() => setWindow(name)}
              />
              {title}
            </label>
          ))}
        </fieldset>
        <button
          type="button"
          class="secondary"
          id="refresh"
          onClick={() => setVersion((v) => v + 1)}
        >
          Refresh
        </button>
      </form>
      <Answered answer={overview} what="the overview">
        {(data) => (
          <section id="overview" aria-label="Overview">
            <p class="hint" id="overview-range">
              {instant(data.from)} to {instant(data.to)}, per {data.bucket}
              {data.bucket === 'day' ? ` (days in ${data.tz})` : ''}.
            </p>
            {!data.complete && (
              <p class="problem" id="overview-behind">
                The hourly totals are summed through {instant(data.summed_through)} only: earlier
                hours past the last three are not counted yet.
              </p>
            )}
            <Totals overview={data} />
            <Charts overview={data} />
            <BucketTable overview={data} />
            <h2>Money</h2>
            <MoneyTable overview={data} />
            <h2>Failures</h2>
            <Failures overview={data} />
          </section>
        )}
      </Answered>
    </main>
  );
}
