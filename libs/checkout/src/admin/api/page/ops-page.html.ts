import { PAYMENT_COLUMN_NAMES } from '../../../finance/payment-columns';

/** The operations page's markup; behaviour lives in ops.js, styles in ops.css (no inline code). */
export const OPS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>pesapal-checkout · operations</title>
<link rel="stylesheet" href="/admin/ops.css">
<script src="/admin/ops.js" defer></script>
</head>
<body>
<header>
  <h1>pesapal-checkout <span>operations</span></h1>
  <form id="key-form" autocomplete="off">
    <label for="admin-key">Admin key</label>
    <input id="admin-key" type="password" placeholder="paste your admin API key" required>
    <button type="submit">Sign in</button>
  </form>
  <div id="signed-in" hidden>
    <span class="muted">Key held in this tab only</span>
    <button id="queues-link" type="button">Queues dashboard</button>
    <button id="sign-out" type="button">Sign out</button>
  </div>
</header>
<p id="message" role="status" hidden></p>
<main id="app" hidden>
  <nav>
    <button type="button" class="tab active" data-tab="orders">Orders</button>
    <button type="button" class="tab" data-tab="stuck">Stuck</button>
    <button type="button" class="tab" data-tab="refunds">Refunds</button>
    <button type="button" class="tab" data-tab="reconcile">Reconciliation</button>
    <button type="button" class="tab" data-tab="webhooks">Webhooks</button>
    <button type="button" class="tab" data-tab="finance">Finance</button>
  </nav>

  <section id="tab-orders" class="panel">
    <div id="counts" class="counts"></div>
    <form id="search-form" class="toolbar">
      <input id="search" type="search" placeholder="reference, tracking id, push reference, confirmation code, email or phone">
      <select id="status-filter" aria-label="status">
        <option value="">any status</option>
        <option>pending</option><option>completed</option><option>failed</option>
        <option>cancelled</option><option>reversed</option><option>expired</option>
      </select>
      <button type="submit">Search</button>
    </form>
    <table>
      <thead><tr><th>Reference</th><th>Status</th><th>Amount</th><th>Customer</th><th>Refund</th><th>Created (UTC)</th></tr></thead>
      <tbody id="orders"></tbody>
    </table>
    <p id="orders-total" class="muted"></p>
  </section>

  <section id="tab-stuck" class="panel" hidden>
    <form id="stuck-form" class="toolbar">
      <label for="stuck-minutes">Pending longer than (minutes)</label>
      <input id="stuck-minutes" type="number" min="1" value="30">
      <button type="submit">Refresh</button>
    </form>
    <table>
      <thead><tr><th>Reference</th><th>Status</th><th>Why</th><th>Amount</th><th>Created (UTC)</th></tr></thead>
      <tbody id="stuck"></tbody>
    </table>
  </section>

  <section id="tab-refunds" class="panel" hidden>
    <form id="refunds-form" class="toolbar">
      <select id="refund-status" aria-label="refund status">
        <option value="">any status</option>
        <option>requested</option><option>accepted</option><option>reversed</option>
        <option>rejected</option><option>unknown</option>
      </select>
      <button type="submit">Refresh</button>
    </form>
    <table>
      <thead><tr><th>Order</th><th>Status</th><th>Amount</th><th>Requested by</th><th>Admin key</th><th>Gateway</th><th>Created (UTC)</th></tr></thead>
      <tbody id="refunds"></tbody>
    </table>
  </section>

  <section id="tab-reconcile" class="panel" hidden>
    <div class="toolbar">
      <button id="reconcile-run" type="button">Run reconciliation now (last 48 h)</button>
    </div>
    <div id="reconcile-summary"></div>
    <pre id="reconcile-report"></pre>
  </section>

  <section id="tab-webhooks" class="panel" hidden>
    <h3>Endpoints</h3>
    <form id="endpoint-form" class="toolbar">
      <input id="endpoint-url" type="url" placeholder="https://shop.example/hooks/pesapal" required>
      <input id="endpoint-description" placeholder="description" maxlength="200">
      <input id="endpoint-types" placeholder="event types, comma-separated (empty: all)">
      <button type="submit">Add endpoint</button>
    </form>
    <div id="secret-box" class="confirm" hidden>
      <p>Signing secret for <strong id="secret-endpoint"></strong>, shown this once: put it in the shop's configuration now.</p>
      <pre id="secret-value"></pre>
      <button id="secret-done" type="button">I have stored it</button>
    </div>
    <table>
      <thead><tr><th>URL</th><th>Events</th><th>State</th><th>Failing since</th><th>Actions</th></tr></thead>
      <tbody id="endpoints"></tbody>
    </table>
    <h3>Recent events</h3>
    <form id="events-form" class="toolbar">
      <select id="events-delivered" aria-label="delivery">
        <option value="">all</option><option value="false">not delivered</option><option value="true">delivered</option>
      </select>
      <button type="submit">Refresh</button>
    </form>
    <table>
      <thead><tr><th>Type</th><th>Order</th><th>State</th><th>Attempts</th><th>Last error</th><th>Created (UTC)</th></tr></thead>
      <tbody id="events"></tbody>
    </table>
    <div id="event-detail" hidden>
      <div class="detail-head">
        <h3 id="event-title"></h3>
        <div class="actions"><button id="event-redeliver" type="button">Redeliver</button></div>
      </div>
      <table>
        <thead><tr><th>At (UTC)</th><th>Endpoint</th><th>Attempt</th><th>Status</th><th>Latency</th><th>Error</th><th>Response</th></tr></thead>
        <tbody id="attempts"></tbody>
      </table>
    </div>
  </section>

  <section id="tab-finance" class="panel" hidden>
    <form id="finance-form" class="toolbar">
      <label for="finance-from">From</label>
      <input id="finance-from" type="date" required>
      <label for="finance-to">To (included)</label>
      <input id="finance-to" type="date" required>
      <label for="finance-tz">Time zone</label>
      <input id="finance-tz" placeholder="server default (REPORT_TIME_ZONE)" maxlength="64">
      <label for="finance-currency">Currency</label>
      <input id="finance-currency" placeholder="any" maxlength="3" size="5">
      <button type="submit">Show daily report</button>
    </form>
    <div class="toolbar">
      <button id="finance-export" type="button">Download payments CSV</button>
      <button id="finance-daily-csv" type="button">Download daily report CSV</button>
      <label><input id="finance-excel" type="checkbox"> for Excel (byte-order mark)</label>
    </div>
    <p class="muted">The payments file has one row per payment, refund (negative) and reversal (negative) of the range, with the columns: ${PAYMENT_COLUMN_NAMES.join(', ')}.</p>
    <p id="finance-range" class="muted"></p>
    <table>
      <thead><tr><th>Day</th><th>Currency</th><th>Method</th><th>Payments</th><th>Paid</th><th>Refunds</th><th>Refunded</th><th>Reversals</th><th>Reversed</th><th>Net</th><th>Failed</th><th>Cancelled</th></tr></thead>
      <tbody id="daily"></tbody>
    </table>
  </section>

  <section id="detail" class="panel detail" hidden>
    <div class="detail-head">
      <h2 id="detail-title"></h2>
      <div class="actions">
        <button id="sync" type="button">Sync with gateway</button>
        <button id="cancel" type="button" class="danger">Cancel order</button>
        <button id="close-detail" type="button">Close</button>
      </div>
    </div>
    <dl id="detail-fields"></dl>
    <div id="refund-box">
      <h3>Refund</h3>
      <p id="refund-existing"></p>
      <form id="refund-form">
        <label>Amount <input id="refund-amount" inputmode="decimal" required></label>
        <label>Reason <input id="refund-reason" required maxlength="500"></label>
        <label>Requested by <input id="refund-requested-by" required maxlength="100"></label>
        <label id="partial-row" hidden><input id="refund-confirm-partial" type="checkbox">
          This is a partial refund: the rest of this payment can never be refunded</label>
        <button id="refund-review" type="submit">Review refund</button>
      </form>
      <div id="refund-confirm" class="confirm" hidden>
        <p id="refund-summary"></p>
        <button id="refund-submit" type="button" class="danger">Confirm refund</button>
        <button id="refund-back" type="button">Back</button>
      </div>
    </div>
    <h3>Payment attempts</h3>
    <table>
      <thead><tr><th>#</th><th>Method</th><th>Sent as</th><th>Order tracking id</th><th>Status</th><th>Confirmation</th><th>Second payment</th></tr></thead>
      <tbody id="payment-attempts"></tbody>
    </table>
    <div id="double-refund-confirm" class="confirm" hidden>
      <p id="double-refund-summary"></p>
      <button id="double-refund-submit" type="button" class="danger">Refund it</button>
      <button id="double-refund-back" type="button">Back</button>
    </div>
    <h3>Timeline</h3>
    <table>
      <thead><tr><th>At (UTC)</th><th>Event</th><th>Change</th><th>Source</th><th>Actor</th><th>Details</th></tr></thead>
      <tbody id="timeline"></tbody>
    </table>
  </section>
</main>
</body>
</html>
`;
