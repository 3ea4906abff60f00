/**
 * The operations page's behaviour, served as /admin/ops.js. Plain browser JavaScript (no build
 * step); every value from the API is inserted as text, never as HTML. The admin key lives in this
 * tab's sessionStorage and travels only in the Authorization header of same-origin API calls.
 */
export const OPS_PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var KEY = 'pesapal-checkout.adminKey';
  var current = null;
  var filter = { status: '', q: '' };

  function $(id) { return document.getElementById(id); }
  function text(node, value) { node.textContent = value == null ? '' : String(value); return node; }
  function el(tag, className, value) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (value !== undefined) text(node, value);
    return node;
  }
  function badge(value) { return el('span', 'badge ' + value, value); }
  function cell(row, content) {
    var td = el('td');
    if (content instanceof Node) td.appendChild(content); else text(td, content);
    row.appendChild(td);
    return td;
  }
  function when(iso) { return iso ? iso.replace('T', ' ').slice(0, 19) : ''; }
  function money(amount, currency) { return amount == null ? '' : currency + ' ' + amount; }
  function cents(value) {
    var match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(String(value).trim());
    return match ? BigInt(match[1]) * 100n + BigInt((match[2] || '').padEnd(2, '0')) : null;
  }
  function say(message, isError) {
    var box = $('message');
    text(box, message);
    box.className = isError ? 'error' : '';
    box.hidden = !message;
  }

  async function api(method, path, body) {
    var headers = { Authorization: 'Bearer ' + (sessionStorage.getItem(KEY) || '') };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    var response = await fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
    var raw = await response.text();
    var data = raw ? JSON.parse(raw) : null;
    if (!response.ok) {
      var error = new Error((data && data.error && data.error.message) || response.statusText);
      error.status = response.status;
      error.body = data;
      throw error;
    }
    return data;
  }
  function failed(error) {
    if (error.status === 401 || error.status === 403) signOut('That key is not an admin key.');
    else say(error.message, true);
  }

  function signedIn(yes) {
    $('key-form').hidden = yes;
    $('signed-in').hidden = !yes;
    $('app').hidden = !yes;
  }
  function signOut(reason) {
    sessionStorage.removeItem(KEY);
    fetch('/admin/session', { method: 'DELETE', credentials: 'same-origin' });
    signedIn(false);
    say(reason || '', !!reason);
  }

  function showTab(name) {
    document.querySelectorAll('.tab').forEach(function (tab) {
      tab.classList.toggle('active', tab.dataset.tab === name);
    });
    ['orders', 'stuck', 'refunds', 'reconcile', 'webhooks', 'finance'].forEach(function (tab) {
      $('tab-' + tab).hidden = tab !== name;
    });
    if (name === 'stuck') loadStuck();
    if (name === 'refunds') loadRefunds();
    if (name === 'reconcile') loadReports();
    if (name === 'webhooks') { loadEndpoints(); loadEvents(); }
    if (name === 'finance') startFinance();
  }

  // Finance: the range as the API reads it (whole local days in the zone, "to" included).
  function isoDay(date) {
    return date.getFullYear() + '-' + String(date.getMonth() + 1).padStart(2, '0') + '-' + String(date.getDate()).padStart(2, '0');
  }
  function startFinance() {
    if (!$('finance-from').value) {
      var today = new Date();
      $('finance-from').value = isoDay(new Date(today.getFullYear(), today.getMonth(), 1));
      $('finance-to').value = isoDay(today);
    }
    loadDaily();
  }
  function financeQuery(extra) {
    var params = new URLSearchParams({ from: $('finance-from').value, to: $('finance-to').value });
    if ($('finance-tz').value.trim()) params.set('tz', $('finance-tz').value.trim());
    if ($('finance-currency').value.trim()) params.set('currency', $('finance-currency').value.trim().toUpperCase());
    Object.keys(extra || {}).forEach(function (key) { params.set(key, extra[key]); });
    return params.toString();
  }
  function refusal(data, status) {
    var error = (data && data.error) || {};
    var fields = (error.errors || []).map(function (e) { return e.field + ': ' + e.reason; }).join('; ');
    return (error.code || status) + ': ' + (fields || error.message || 'refused');
  }
  async function loadDaily() {
    try {
      var report = await api('GET', '/v1/admin/reports/daily?' + financeQuery());
      text($('finance-range'), 'From ' + report.from + ' to ' + report.to + ' (UTC), days in ' + report.tz + (report.currency ? ', ' + report.currency : ''));
      var body = $('daily');
      body.replaceChildren();
      if (report.rows.length === 0) {
        var empty = el('tr');
        cell(empty, 'No payments, refunds, failures or cancellations in this range.').colSpan = 12;
        body.appendChild(empty);
      }
      report.rows.forEach(function (r) {
        var row = el('tr');
        [r.day, r.currency, r.payment_method || '', r.payments, r.payments_amount, r.refunds, r.refunds_amount,
          r.reversals, r.reversals_amount, r.net_amount, r.failed, r.cancelled].forEach(function (value) { cell(row, value); });
        body.appendChild(row);
      });
    } catch (error) {
      say(error.body ? refusal(error.body, error.status) : error.message, true);
    }
  }
  // A file download with the key in the Authorization header: fetched, then saved from a blob.
  async function download(path, button) {
    button.disabled = true;
    try {
      var response = await fetch(path, {
        headers: { Authorization: 'Bearer ' + (sessionStorage.getItem(KEY) || '') },
        credentials: 'same-origin',
      });
      if (!response.ok) {
        var raw = await response.text();
        say(refusal(raw ? JSON.parse(raw) : null, response.status), true);
        return;
      }
      var disposition = response.headers.get('Content-Disposition') || '';
      var name = (/filename="([^"]+)"/.exec(disposition) || [])[1] || 'export.csv';
      var url = URL.createObjectURL(await response.blob());
      var link = el('a');
      link.href = url;
      link.download = name;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
      say('Downloaded ' + name);
    } catch (error) {
      say(error.message, true);
    } finally {
      button.disabled = false;
    }
  }

  // Counts stop at the API's cap: a count at the cap reads "1000+".
  function renderCounts(counts, cap) {
    var box = $('counts');
    box.replaceChildren();
    var total = 0;
    var capped = false;
    var shown = function (n) { if (n >= cap) capped = true; return n >= cap ? n + '+' : String(n); };
    var entries = Object.keys(counts).map(function (s) { total += counts[s]; return [s, s, shown(counts[s])]; });
    [['', 'all', total + (capped ? '+' : '')]].concat(entries)
      .forEach(function (entry) {
        var button = el('button', 'count' + (filter.status === entry[0] ? ' active' : ''), entry[1] + ' ' + entry[2]);
        button.type = 'button';
        button.dataset.status = entry[0];
        button.addEventListener('click', function () {
          filter.status = entry[0];
          $('status-filter').value = entry[0];
          loadOrders();
        });
        box.appendChild(button);
      });
  }

  async function loadOrders() {
    var params = new URLSearchParams({ limit: '50' });
    if (filter.status) params.set('status', filter.status);
    if (filter.q) params.set('q', filter.q);
    try {
      var page = await api('GET', '/v1/admin/orders?' + params.toString());
      renderCounts(page.counts, page.count_cap);
      var body = $('orders');
      body.replaceChildren();
      page.items.forEach(function (order) {
        var row = el('tr', 'row');
        row.dataset.reference = order.reference;
        cell(row, order.reference);
        var status = cell(row, badge(order.status));
        if (order.needs_review) status.appendChild(badge('review'));
        cell(row, money(order.amount, order.currency));
        cell(row, order.customer_email || order.customer_phone || order.msisdn || '');
        cell(row, order.refund ? badge(order.refund.status) : '');
        cell(row, when(order.created_at));
        row.addEventListener('click', function () { openOrder(order.reference); });
        body.appendChild(row);
      });
      text($('orders-total'), page.items.length + ' order(s)' + (page.next_cursor ? ', the newest shown' : ''));
    } catch (error) { failed(error); }
  }

  function field(list, label, value) {
    list.appendChild(el('dt', '', label));
    list.appendChild(el('dd', '', value == null || value === '' ? '—' : value));
  }

  function renderDetail(detail) {
    var order = detail.order;
    current = order;
    $('detail').hidden = false;
    text($('detail-title'), 'Order ' + order.reference + ' · ' + order.status + (order.needs_review ? ' · needs review' : ''));
    var list = $('detail-fields');
    list.replaceChildren();
    field(list, 'Status', order.status);
    field(list, 'Amount', money(order.amount, order.currency));
    field(list, 'Order tracking id', order.order_tracking_id);
    field(list, 'Paid', money(order.paid_amount, order.paid_currency || order.currency));
    field(list, 'Push reference', order.push_merchant_reference);
    field(list, 'Confirmation code', order.confirmation_code);
    field(list, 'Kind', order.kind);
    field(list, 'Payment method', order.payment_method);
    field(list, 'Customer email', order.customer_email);
    field(list, 'Customer phone', order.customer_phone || order.msisdn);
    field(list, 'Submission', order.submission_status);
    field(list, 'Last checked', when(order.last_checked_at));
    field(list, 'Review reason', order.review_reason);
    field(list, 'Failure reason', order.failure_reason);
    $('cancel').hidden = !(order.status === 'pending' || order.status === 'failed');

    var refund = order.refund;
    var refundable = order.status === 'completed' && !refund;
    $('refund-form').hidden = !refundable;
    $('refund-confirm').hidden = true;
    var existing = $('refund-existing');
    if (refund) {
      text(existing, 'Refund ' + refund.status + ': ' + money(refund.amount, refund.currency) +
        (refund.partial ? ' (partial)' : ' (full)') + ' requested by ' + refund.requested_by +
        ' with key ' + refund.admin_key_name + ' at ' + when(refund.created_at) +
        (refund.gateway_message ? ' · gateway: ' + refund.gateway_message : ''));
    } else {
      text(existing, refundable ? 'One refund per payment: the gateway refuses any second one.' : 'Only completed payments can be refunded.');
    }
    if (refundable) {
      $('refund-amount').value = order.paid_amount || order.amount;
      $('refund-confirm-partial').checked = false;
      updatePartial();
    }

    renderAttempts(order, detail.attempts || []);

    var body = $('timeline');
    body.replaceChildren();
    detail.timeline.forEach(function (entry) {
      var row = el('tr');
      cell(row, when(entry.at));
      cell(row, entry.type);
      cell(row, entry.from_status || entry.to_status ? (entry.from_status || '') + ' → ' + (entry.to_status || '') : '');
      cell(row, entry.source);
      cell(row, entry.actor || '');
      var details = Object.keys(entry.details || {}).map(function (k) {
        var v = entry.details[k];
        return k + '=' + (typeof v === 'object' ? JSON.stringify(v) : v);
      }).join(' ');
      cell(row, details).className = 'details';
      body.appendChild(row);
    });
  }

  // A completed earlier attempt on an order another attempt paid is a double payment: refundable
  // here in one action, once.
  var doubleRefundAttempt = null;
  function renderAttempts(order, attempts) {
    var body = $('payment-attempts');
    body.replaceChildren();
    $('double-refund-confirm').hidden = true;
    attempts.forEach(function (attempt) {
      var row = el('tr');
      row.dataset.attempt = String(attempt.number);
      cell(row, attempt.number + (attempt.current ? ' (current)' : ''));
      cell(row, attempt.kind);
      cell(row, attempt.gateway_reference);
      cell(row, attempt.order_tracking_id || '');
      cell(row, badge(attempt.status));
      cell(row, attempt.confirmation_code || '');
      var second = !attempt.current && attempt.status === 'completed' && order.status === 'completed' &&
        attempt.confirmation_code && attempt.confirmation_code !== order.confirmation_code;
      var refundCell = cell(row, attempt.refund_status ? badge(attempt.refund_status) : '');
      if (second && (!attempt.refund_status || attempt.refund_status === 'rejected')) {
        var button = el('button', 'danger', 'Refund second payment');
        button.type = 'button';
        button.addEventListener('click', function () { reviewDoubleRefund(order, attempt); });
        refundCell.appendChild(button);
      }
      body.appendChild(row);
    });
  }

  function reviewDoubleRefund(order, attempt) {
    doubleRefundAttempt = attempt;
    text($('double-refund-summary'), 'Refund ' + money(order.amount, order.currency) + ' (full) paid by attempt ' +
      attempt.number + ' (confirmation ' + attempt.confirmation_code + '), the second payment of order ' +
      order.reference + '? The gateway accepts one refund per payment; this cannot be undone.');
    $('double-refund-confirm').hidden = false;
  }

  async function submitDoubleRefund() {
    if (!current || !doubleRefundAttempt) return;
    $('double-refund-submit').disabled = true;
    try {
      var result = await api('POST', '/v1/admin/orders/' + encodeURIComponent(current.reference) +
        '/attempts/' + doubleRefundAttempt.number + '/refund', {
        reason: 'double payment: attempt ' + doubleRefundAttempt.number + ' paid an order already paid',
        requested_by: $('refund-requested-by').value.trim() || 'operations page',
      });
      say('Second payment refund ' + result.refund.status + (result.refund.message ? ': ' + result.refund.message : ''), result.refund.status === 'rejected');
    } catch (error) { failed(error); }
    $('double-refund-submit').disabled = false;
    doubleRefundAttempt = null;
    await openOrder(current.reference);
    loadOrders();
  }

  async function openOrder(reference) {
    try {
      renderDetail(await api('GET', '/v1/admin/orders/' + encodeURIComponent(reference)));
      $('detail').scrollIntoView({ behavior: 'smooth' });
    } catch (error) { failed(error); }
  }

  function isPartial() {
    var asked = cents($('refund-amount').value);
    var paid = cents(current && (current.paid_amount || current.amount));
    return asked !== null && paid !== null && asked < paid;
  }
  function updatePartial() { $('partial-row').hidden = !isPartial(); }

  function reviewRefund(event) {
    event.preventDefault();
    var amount = $('refund-amount').value.trim();
    if (cents(amount) === null || cents(amount) === 0n) return say('Enter an amount like 150.00', true);
    if (isPartial() && !$('refund-confirm-partial').checked) {
      return say('A partial refund must be confirmed: tick the box to accept that the rest can never be refunded.', true);
    }
    say('');
    var currency = current.paid_currency || current.currency;
    text($('refund-summary'), 'Refund ' + currency + ' ' + amount + (isPartial() ? ' (PARTIAL)' : ' (full)') +
      ' of order ' + current.reference + ' paid with ' + (current.payment_method || 'unknown method') +
      '? The gateway accepts one refund per payment; this cannot be undone.');
    $('refund-form').hidden = true;
    $('refund-confirm').hidden = false;
  }

  async function submitRefund() {
    $('refund-submit').disabled = true;
    try {
      var result = await api('POST', '/v1/admin/orders/' + encodeURIComponent(current.reference) + '/refunds', {
        amount: $('refund-amount').value.trim(),
        reason: $('refund-reason').value.trim(),
        requested_by: $('refund-requested-by').value.trim(),
        confirm_partial: isPartial() && $('refund-confirm-partial').checked,
      });
      say('Refund ' + result.refund.status + (result.refund.gateway_message ? ': ' + result.refund.gateway_message : ''), result.refund.status === 'rejected');
    } catch (error) { failed(error); }
    $('refund-submit').disabled = false;
    await openOrder(current.reference);
    loadOrders();
  }

  async function action(path, body, done) {
    try {
      var detail = await api('POST', '/v1/admin/orders/' + encodeURIComponent(current.reference) + path, body);
      renderDetail(detail);
      say(done + (detail.result ? ' (' + detail.result + ')' : ''));
      loadOrders();
    } catch (error) { failed(error); }
  }

  async function loadStuck() {
    try {
      var page = await api('GET', '/v1/admin/orders/stuck?pending_minutes=' + encodeURIComponent($('stuck-minutes').value || '30'));
      var body = $('stuck');
      body.replaceChildren();
      page.items.forEach(function (item) {
        var row = el('tr', 'row');
        cell(row, item.order.reference);
        cell(row, badge(item.order.status));
        cell(row, item.reasons.join(', '));
        cell(row, money(item.order.amount, item.order.currency));
        cell(row, when(item.order.created_at));
        row.addEventListener('click', function () { openOrder(item.order.reference); });
        body.appendChild(row);
      });
      if (page.items.length === 0) body.appendChild(el('tr')).appendChild(el('td', 'muted', 'Nothing stuck.'));
    } catch (error) { failed(error); }
  }

  async function loadRefunds() {
    var status = $('refund-status').value;
    try {
      var page = await api('GET', '/v1/admin/refunds?limit=100' + (status ? '&status=' + status : ''));
      var body = $('refunds');
      body.replaceChildren();
      page.items.forEach(function (refund) {
        var row = el('tr', 'row');
        cell(row, refund.order_reference);
        cell(row, badge(refund.status));
        cell(row, money(refund.amount, refund.currency) + (refund.partial ? ' (partial)' : ''));
        cell(row, refund.requested_by);
        cell(row, refund.admin_key_name);
        cell(row, (refund.gateway_status || '') + ' ' + (refund.gateway_message || ''));
        cell(row, when(refund.created_at));
        row.addEventListener('click', function () { openOrder(refund.order_reference); });
        body.appendChild(row);
      });
    } catch (error) { failed(error); }
  }

  function showReport(report) {
    text($('reconcile-summary'), report
      ? 'Run ' + when(report.started_at) + ' (' + report.trigger + (report.requested_by ? ' by ' + report.requested_by : '') + '): ' +
        report.orders_checked + ' order(s) checked, ' + report.mismatch_count + ' difference(s), ' +
        report.lookup_failures.length + ' lookup failure(s)'
      : 'No reconciliation has run yet.');
    text($('reconcile-report'), report ? JSON.stringify({
      gateway_mismatches: report.gateway_mismatches,
      invariant_violations: report.invariant_violations,
      lookup_failures: report.lookup_failures,
    }, null, 2) : '');
  }
  async function loadReports() {
    try { showReport((await api('GET', '/v1/admin/reconciliation-reports')).items[0]); } catch (error) { failed(error); }
  }

  var openEvent = null;
  function showSecret(endpoint) {
    text($('secret-endpoint'), endpoint.url);
    text($('secret-value'), endpoint.secret);
    $('secret-box').hidden = false;
  }
  function button(label, className, onClick) {
    var node = el('button', className || '', label);
    node.type = 'button';
    node.addEventListener('click', onClick);
    return node;
  }
  async function endpointAction(method, endpoint, suffix, body, done) {
    try {
      var result = await api(method, '/v1/admin/webhook-endpoints/' + endpoint.id + suffix, body);
      if (result && result.secret) showSecret(result);
      say(done + (result && result.queued !== undefined ? ': ' + result.queued + ' event(s) queued' : ''));
      loadEndpoints();
      loadEvents();
    } catch (error) { failed(error); }
  }
  async function loadEndpoints() {
    try {
      var page = await api('GET', '/v1/admin/webhook-endpoints');
      var body = $('endpoints');
      body.replaceChildren();
      page.data.forEach(function (endpoint) {
        var row = el('tr');
        row.dataset.endpoint = endpoint.id;
        var where = cell(row, endpoint.url);
        if (endpoint.description) where.appendChild(el('div', 'muted', endpoint.description));
        cell(row, endpoint.event_types ? endpoint.event_types.join(', ') : 'all');
        var state = cell(row, badge(endpoint.state));
        if (endpoint.disabled_reason) state.appendChild(el('div', 'muted', endpoint.disabled_reason));
        cell(row, when(endpoint.failing_since));
        var actions = el('div', 'actions');
        var managed = endpoint.source === 'environment';
        if (endpoint.state === 'enabled') {
          actions.appendChild(button('Send test', 'test', function () { endpointAction('POST', endpoint, '/test', undefined, 'Test event queued'); }));
          actions.appendChild(button('Disable', 'disable', function () { endpointAction('PATCH', endpoint, '', { enabled: false }, 'Endpoint disabled'); }));
        } else {
          actions.appendChild(button('Enable', 'enable', function () { endpointAction('PATCH', endpoint, '', { enabled: true }, 'Endpoint enabled'); }));
        }
        actions.appendChild(button('Replay…', 'replay', function () {
          var since = window.prompt('Send again every event since (UTC, ISO 8601) that this endpoint has not received:',
            new Date(Date.now() - 86400000).toISOString());
          if (since) endpointAction('POST', endpoint, '/replay', { since: since }, 'Replayed');
        }));
        if (!managed) {
          actions.appendChild(button('Rotate secret', 'rotate', function () {
            if (window.confirm('Make a new signing secret? The old one keeps signing beside it for 24 hours.')) {
              endpointAction('POST', endpoint, '/rotate-secret', {}, 'Secret rotated');
            }
          }));
          actions.appendChild(button('Delete', 'danger delete', function () {
            if (window.confirm('Delete the endpoint ' + endpoint.url + '? Its undelivered events are dropped for it.')) {
              endpointAction('DELETE', endpoint, '', undefined, 'Endpoint deleted');
            }
          }));
        } else {
          actions.appendChild(el('span', 'muted', 'ORDER_WEBHOOK_URL'));
        }
        cell(row, actions);
        body.appendChild(row);
      });
      if (page.data.length === 0) body.appendChild(el('tr')).appendChild(el('td', 'muted', 'No endpoints: events are kept, marked skipped.'));
    } catch (error) { failed(error); }
  }
  async function addEndpoint(event) {
    event.preventDefault();
    var types = $('endpoint-types').value.split(',').map(function (t) { return t.trim(); }).filter(Boolean);
    var body = { url: $('endpoint-url').value.trim() };
    if ($('endpoint-description').value.trim()) body.description = $('endpoint-description').value.trim();
    if (types.length) body.event_types = types;
    try {
      var created = await api('POST', '/v1/admin/webhook-endpoints', body);
      showSecret(created);
      $('endpoint-form').reset();
      say('Endpoint added');
      loadEndpoints();
    } catch (error) {
      var problems = error.body && error.body.error && error.body.error.errors;
      if (problems) say(problems.map(function (p) { return p.field + ': ' + p.reason; }).join('; '), true);
      else failed(error);
    }
  }
  async function loadEvents() {
    var delivered = $('events-delivered').value;
    try {
      var page = await api('GET', '/v1/admin/events?limit=50' + (delivered ? '&delivered=' + delivered : ''));
      var body = $('events');
      body.replaceChildren();
      page.data.forEach(function (item) {
        var row = el('tr', 'row');
        row.dataset.event = item.id;
        cell(row, item.type);
        cell(row, item.order_reference || '');
        cell(row, badge(item.delivery_state));
        cell(row, item.attempts);
        cell(row, item.last_error || '');
        cell(row, when(item.created_at));
        row.addEventListener('click', function () { showAttempts(item.id); });
        body.appendChild(row);
      });
    } catch (error) { failed(error); }
  }
  async function showAttempts(id) {
    try {
      var history = await api('GET', '/v1/admin/events/' + id + '/deliveries');
      openEvent = history.event;
      $('event-detail').hidden = false;
      text($('event-title'), history.event.type + ' ' + history.event.id + ' · ' + history.event.delivery_state);
      var urls = {};
      history.endpoints.forEach(function (m) { urls[m.endpoint_id] = m.endpoint_url; });
      var body = $('attempts');
      body.replaceChildren();
      history.data.forEach(function (attempt) {
        var row = el('tr');
        cell(row, when(attempt.created_at));
        cell(row, urls[attempt.endpoint_id] || attempt.url);
        cell(row, attempt.attempt);
        cell(row, attempt.response_status == null ? 'no answer' : 'HTTP ' + attempt.response_status);
        cell(row, attempt.duration_ms + ' ms');
        cell(row, attempt.error || '');
        cell(row, attempt.response_excerpt || '').className = 'details';
        body.appendChild(row);
      });
      if (history.data.length === 0) body.appendChild(el('tr')).appendChild(el('td', 'muted', 'No attempt yet.'));
    } catch (error) { failed(error); }
  }
  async function redeliver() {
    if (!openEvent) return;
    try {
      var result = await api('POST', '/v1/admin/events/' + openEvent.id + '/redeliver', {});
      say('Handed again to ' + result.endpoints.length + ' endpoint(s)');
      loadEvents();
    } catch (error) { failed(error); }
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('key-form').addEventListener('submit', async function (event) {
      event.preventDefault();
      sessionStorage.setItem(KEY, $('admin-key').value.trim());
      $('admin-key').value = '';
      try {
        await api('GET', '/v1/admin/orders?limit=1');
        signedIn(true);
        say('');
        loadOrders();
      } catch (error) { failed(error); }
    });
    $('sign-out').addEventListener('click', function () { signOut(''); });
    $('queues-link').addEventListener('click', async function () {
      try { await api('POST', '/admin/session'); window.location.href = '/admin/queues'; } catch (error) { failed(error); }
    });
    document.querySelectorAll('.tab').forEach(function (tab) {
      tab.addEventListener('click', function () { showTab(tab.dataset.tab); });
    });
    $('search-form').addEventListener('submit', function (event) {
      event.preventDefault();
      filter.q = $('search').value.trim();
      filter.status = $('status-filter').value;
      loadOrders();
    });
    $('stuck-form').addEventListener('submit', function (event) { event.preventDefault(); loadStuck(); });
    $('refunds-form').addEventListener('submit', function (event) { event.preventDefault(); loadRefunds(); });
    $('refund-amount').addEventListener('input', updatePartial);
    $('refund-form').addEventListener('submit', reviewRefund);
    $('refund-back').addEventListener('click', function () { $('refund-confirm').hidden = true; $('refund-form').hidden = false; });
    $('refund-submit').addEventListener('click', submitRefund);
    $('double-refund-submit').addEventListener('click', submitDoubleRefund);
    $('double-refund-back').addEventListener('click', function () { $('double-refund-confirm').hidden = true; doubleRefundAttempt = null; });
    $('sync').addEventListener('click', function () { action('/sync', undefined, 'Synced with the gateway'); });
    $('cancel').addEventListener('click', function () {
      if (window.confirm('Cancel order ' + current.reference + ' at the gateway? A cancelled order cannot be paid.')) {
        action('/cancel', {}, 'Order cancelled');
      }
    });
    $('close-detail').addEventListener('click', function () { $('detail').hidden = true; current = null; });
    $('reconcile-run').addEventListener('click', async function () {
      $('reconcile-run').disabled = true;
      try { showReport(await api('POST', '/v1/admin/reconcile', {})); } catch (error) { failed(error); }
      $('reconcile-run').disabled = false;
    });
    $('finance-form').addEventListener('submit', function (event) { event.preventDefault(); loadDaily(); });
    $('finance-export').addEventListener('click', function () {
      var extra = $('finance-excel').checked ? { excel: '1' } : {};
      download('/v1/admin/exports/payments.csv?' + financeQuery(extra), $('finance-export'));
    });
    $('finance-daily-csv').addEventListener('click', function () {
      download('/v1/admin/reports/daily.csv?' + financeQuery(), $('finance-daily-csv'));
    });
    $('endpoint-form').addEventListener('submit', addEndpoint);
    $('secret-done').addEventListener('click', function () { $('secret-box').hidden = true; text($('secret-value'), ''); });
    $('events-form').addEventListener('submit', function (event) { event.preventDefault(); loadEvents(); });
    $('event-redeliver').addEventListener('click', redeliver);
    if (sessionStorage.getItem(KEY)) {
      // The kept key is being checked: the sign-in form stays hidden rather than flashing.
      $('key-form').hidden = true;
      api('GET', '/v1/admin/orders?limit=1').then(
        function () { signedIn(true); loadOrders(); },
        function (error) { signedIn(false); failed(error); }
      );
    }
  });
})();
`;
