import { useMemo, useState } from 'preact/hooks';
import { adminApi, Overview, OverviewBucket, OverviewWindow } from '../admin-api';
import { Loading, Problem, useAnswer } from '../answer';
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

const values = (buckets: OverviewBucket[], pick: (bucket: OverviewBucket) => number | null) =>
  buckets.map(pick);

/** The charts of one answer: each a few series over the window's buckets. */
function chartsOf(overview: Overview): { id: string; title: string; series: ChartSeries[] }[] {
  const b = overview.buckets;
  return [
    {
      id: 'chart-checkouts',
      title: `Checkouts per ${overview.bucket}`,
      series: [{ label: 'Checkouts', values: values(b, (x) => x.checkouts), color: COLORS.blue }],
    },
    {
      id: 'chart-outcomes',
      title: 'Outcomes',
      series: [
        { label: 'Paid', values: values(b, (x) => x.paid), color: COLORS.green },
        { label: 'Failed', values: values(b, (x) => x.failed), color: COLORS.red },
        {
          label: 'Cancelled or expired',
          values: values(b, (x) => x.cancelled + x.expired),
          color: COLORS.grey,
        },
      ],
    },
    {
      id: 'chart-lag',
      title: 'Notification lag, 95th percentile (ms)',
      series: [{ label: 'p95 (ms)', values: values(b, (x) => x.lag_p95_ms), color: COLORS.orange }],
    },
    {
      id: 'chart-webhooks',
      title: 'Webhook attempts',
      series: [
        { label: 'Delivered', values: values(b, (x) => x.webhook_delivered), color: COLORS.green },
        { label: 'Failed', values: values(b, (x) => x.webhook_failed), color: COLORS.red },
      ],
    },
    {
      id: 'chart-refunds',
      title: 'Refunds',
      series: [
        { label: 'Asked for', values: values(b, (x) => x.refund_requests), color: COLORS.blue },
        { label: 'Accepted', values: values(b, (x) => x.refunds), color: COLORS.green },
      ],
    },
  ];
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
        {t.notifications - t.notifications_open > 0 ? lag(t.lag_p95_ms) : '—'}
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

function MoneyTable({ overview }: { overview: Overview }) {
  const t = overview.totals;
  const rows = [
    ...t.paid_amounts.map((m) => ['Payments', m] as const),
    ...t.refund_amounts.map((m) => ['Refunds', m] as const),
    ...t.reversal_amounts.map((m) => ['Reversals', m] as const),
  ];
  if (rows.length === 0) return <p class="empty">No money moved in this window.</p>;
  return (
    <div class="table" tabIndex={0} role="region" aria-label="Money moved">
      <table id="money">
        <caption>Money moved</caption>
        <thead>
          <tr>
            <th scope="col">Movement</th>
            <th scope="col">Currency</th>
            <th scope="col">Count</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([kind, m]) => (
            <tr>
              <td>{kind}</td>
              <td>{m.currency}</td>
              <td>{m.count}</td>
              <td class="amount">{money(m.amount, m.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Failures({ overview }: { overview: Overview }) {
  const { failures_by_reason: reasons, failed } = overview.totals;
  if (reasons.length === 0) return <p class="empty">No payment failed in this window.</p>;
  return (
    <div class="table" tabIndex={0} role="region" aria-label="Failures by reason">
      <table id="failures">
        <caption>Failures by reason</caption>
        <thead>
          <tr>
            <th scope="col">Reason</th>
            <th scope="col">Count</th>
            <th scope="col">Share</th>
          </tr>
        </thead>
        <tbody>
          {reasons.map((reason) => (
            <tr>
              <td>{label(reason.reason)}</td>
              <td>{reason.count}</td>
              <td>{share(reason.count, failed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The charts' numbers as text, one row per bucket (the newest first). */
function BucketTable({ overview }: { overview: Overview }) {
  return (
    <details>
      <summary>The charts as a table</summary>
      <div class="table" tabIndex={0} role="region" aria-label="The charts as a table">
        <table id="buckets">
          <thead>
            <tr>
              <th scope="col">{overview.bucket === 'day' ? 'Day' : 'From'}</th>
              <th scope="col">Checkouts</th>
              <th scope="col">Paid</th>
              <th scope="col">Failed</th>
              <th scope="col">Cancelled or expired</th>
              <th scope="col">Lag p95</th>
              <th scope="col">Webhooks delivered</th>
              <th scope="col">Webhooks failed</th>
              <th scope="col">Refunds asked</th>
              <th scope="col">Refunds accepted</th>
            </tr>
          </thead>
          <tbody>
            {[...overview.buckets].reverse().map((bucket) => (
              <tr>
                <td>{bucketName(bucket.starts_at, overview.bucket, overview.tz)}</td>
                <td>{bucket.checkouts}</td>
                <td>{bucket.paid}</td>
                <td>{bucket.failed}</td>
                <td>{bucket.cancelled + bucket.expired}</td>
                <td>
                  {bucket.notifications - bucket.notifications_open > 0
                    ? lag(bucket.lag_p95_ms)
                    : '—'}
                </td>
                <td>{bucket.webhook_delivered}</td>
                <td>{bucket.webhook_failed}</td>
                <td>{bucket.refund_requests}</td>
                <td>{bucket.refunds}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
      {overview.state === 'loading' && <Loading what="the overview" />}
      {overview.state === 'failed' && <Problem text={overview.problem} />}
      {overview.state === 'ready' && (
        <section id="overview" aria-label="Overview">
          <p class="hint" id="overview-range">
            {instant(overview.data.from)} to {instant(overview.data.to)}, per {overview.data.bucket}
            {overview.data.bucket === 'day' ? ` (days in ${overview.data.tz})` : ''}.
          </p>
          {!overview.data.complete && (
            <p class="problem" id="overview-behind">
              The hourly totals are summed through {instant(overview.data.summed_through)} only:
              earlier hours past the last three are not counted yet.
            </p>
          )}
          <Totals overview={overview.data} />
          <Charts overview={overview.data} />
          <BucketTable overview={overview.data} />
          <h2>Money</h2>
          <MoneyTable overview={overview.data} />
          <h2>Failures</h2>
          <Failures overview={overview.data} />
        </section>
      )}
    </main>
  );
}
