import { exportRows } from './libs/checkout/src/finance/api/money-movements';
import { PAYMENT_COLUMN_NAMES } from './libs/checkout/src/finance/payment-columns';
const sql = exportRows(PAYMENT_COLUMN_NAMES).replace(/ORDER BY x.occurred_at, x.type, x.movement_id/, process.argv[2] === 'one' ? 'ORDER BY x.occurred_at' : 'ORDER BY x.occurred_at, x.type, x.movement_id')
  .replace(/\$1/g, "'2024-12-31T21:00:00Z'").replace(/\$2/g, "'2025-12-31T21:00:00Z'").replace(/\$[345](::\w+)?/g, 'NULL::text');
process.stdout.write(`SET TimeZone='Africa/Nairobi'; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql};`);
