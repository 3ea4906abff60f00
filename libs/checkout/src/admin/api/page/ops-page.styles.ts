export const OPS_PAGE_STYLES = `
:root { --ink: #1d2733; --muted: #6b7785; --line: #dfe4ea; --accent: #0b6bcb; --bad: #b42318; --ok: #067647; --warn: #b54708; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f6f8fa; }
header { display: flex; align-items: center; justify-content: space-between; gap: 16px; padding: 12px 20px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0; } h1 span { color: var(--muted); font-weight: 400; }
h2 { font-size: 17px; margin: 0; } h3 { font-size: 15px; margin: 18px 0 8px; }
form { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
input, select, button { font: inherit; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
input[type=search] { min-width: 420px; }
button { cursor: pointer; background: #fff; } button:hover { border-color: var(--accent); }
button[type=submit], #refund-submit, #reconcile-run { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger, #refund-submit { background: var(--bad); border-color: var(--bad); color: #fff; }
main { padding: 16px 20px; }
nav { display: flex; gap: 4px; margin-bottom: 12px; }
.tab.active { background: var(--ink); color: #fff; border-color: var(--ink); }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px; margin-bottom: 14px; }
.toolbar { margin: 10px 0; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
tbody tr.row { cursor: pointer; } tbody tr.row:hover { background: #eef5fc; }
.counts { display: flex; gap: 6px; flex-wrap: wrap; }
.count { border-radius: 999px; padding: 3px 12px; } .count.active { background: var(--ink); color: #fff; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; background: #eef1f4; }
.badge.completed, .badge.accepted, .badge.reversed { background: #dcfae6; color: var(--ok); }
.badge.enabled, .badge.delivered { background: #dcfae6; color: var(--ok); }
.badge.disabled, .badge.skipped { background: #eef1f4; color: var(--muted); }
.badge.retrying, .badge.queued { background: #fef0c7; color: var(--warn); }
#endpoint-url { min-width: 360px; } #endpoint-types { min-width: 300px; }
#endpoints .actions button { padding: 3px 8px; font-size: 12px; }
.badge.failed, .badge.rejected, .badge.cancelled { background: #fee4e2; color: var(--bad); }
.badge.pending, .badge.requested, .badge.unknown, .badge.review { background: #fef0c7; color: var(--warn); }
.muted { color: var(--muted); }
#message { margin: 10px 20px; padding: 8px 12px; border-radius: 6px; background: #eef5fc; }
#message.error { background: #fee4e2; color: var(--bad); }
.detail-head { display: flex; justify-content: space-between; align-items: center; gap: 12px; }
.actions { display: flex; gap: 6px; }
dl { display: grid; grid-template-columns: 180px 1fr 180px 1fr; gap: 4px 12px; margin: 12px 0; }
dt { color: var(--muted); } dd { margin: 0; word-break: break-all; }
#refund-form label { display: flex; flex-direction: column; gap: 2px; font-size: 12px; color: var(--muted); }
#refund-form #partial-row { flex-direction: row; align-items: center; color: var(--warn); font-size: 13px; }
.confirm { border: 1px solid var(--bad); background: #fff6f5; padding: 10px; border-radius: 6px; margin-top: 8px; }
pre { white-space: pre-wrap; font-size: 12px; background: #f6f8fa; padding: 10px; border-radius: 6px; max-height: 420px; overflow: auto; }
td.details { font-family: ui-monospace, monospace; font-size: 12px; color: var(--muted); max-width: 420px; }
`;
