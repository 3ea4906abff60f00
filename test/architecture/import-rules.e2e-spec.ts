import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Lints each probe's source as if it were the file at its path (nothing is written) with one
 * ESLint, its config loaded once, in a process of its own (the config is an ES module, which
 * jest's module loader cannot import); returns each probe's import-rule errors.
 */
const LINT_PROBES = `
const { ESLint } = require('eslint');
let input = '';
process.stdin.on('data', (chunk) => (input += chunk)).on('end', async () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const found = [];
  for (const { path, source } of JSON.parse(input)) {
    const [result] = await eslint.lintText(source, { filePath: path, warnIgnored: false });
    found.push((result ? result.messages : [])
      .filter((m) => m.severity === 2 && m.ruleId === 'no-restricted-imports')
      .map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(found));
});`;

function lintProbes(probes: { path: string; target: string }[]): string[][] {
  const run = spawnSync(process.execPath, ['-e', LINT_PROBES], {
    cwd: ROOT,
    input: JSON.stringify(
      probes.map(({ path, target }) => ({
        path,
        source: `import * as probe from '${target}';\nexport const used = probe;\n`,
      })),
    ),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`eslint failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[][];
}

/**
 * The folder picture of docs/flows.md is enforced by lint (eslint.config.mjs): these probes are
 * the imports a newcomer might write, linted as if they lived in the tree.
 */
const REFUSED: [what: string, path: string, target: string][] = [
  [
    'an api file importing worker code',
    'libs/checkout/src/ipn/api/probe.ts',
    '../worker/inbox-relay',
  ],
  [
    'a worker file importing api code',
    'libs/checkout/src/orders/worker/probe.ts',
    '../api/checkout.service',
  ],
  [
    'a worker file importing the http layer',
    'libs/checkout/src/refunds/worker/probe.ts',
    '../../http/api-keys',
  ],
  [
    "a feature reaching into another's worker",
    'libs/checkout/src/ipn/worker/probe.ts',
    '../../orders/worker/order-sweeper',
  ],
  [
    "a feature root reaching into another's api",
    'libs/checkout/src/refunds/probe.ts',
    '../orders/api/checkout-submission',
  ],
  [
    'a feature root importing its own api',
    'libs/checkout/src/admin/probe.ts',
    './api/admin-orders.service',
  ],
  [
    "a feature reaching into another's api by alias",
    'libs/checkout/src/refunds/api/probe.ts',
    '@app/checkout/orders/api/checkout.service',
  ],
  ['the domain importing a framework', 'libs/domain/src/probe.ts', '@nestjs/common'],
  ['the domain importing another lib', 'libs/domain/src/probe.ts', '@app/persistence'],
  // The floors of libs/checkout (CHECKOUT_FLOORS): nothing imports a floor above its own.
  [
    'the orders core importing a feature',
    'libs/checkout/src/orders/probe.ts',
    '../refunds/refund-verdict',
  ],
  [
    "orders' api importing a feature by alias",
    'libs/checkout/src/orders/api/probe.ts',
    '@app/checkout/ipn/inbox-limits',
  ],
  [
    'a feature importing the admin views',
    'libs/checkout/src/refunds/api/probe.ts',
    '../../admin/reconciliation.service',
  ],
  [
    'the operators importing the orders core',
    'libs/checkout/src/operators/probe.ts',
    '../orders/order-journal',
  ],
  ['http importing the operators', 'libs/checkout/src/http/probe.ts', '../operators/operator'],
  ['the errors importing http', 'libs/checkout/src/errors/probe.ts', '../http/validation'],
  [
    'a checkout file importing the library index',
    'libs/checkout/src/merchant-events/probe.ts',
    '@app/checkout',
  ],
  // The floors between the libraries (LIB_FLOORS).
  ['the queues importing persistence', 'libs/queues/src/probe.ts', '@app/persistence'],
  ['persistence importing the checkout', 'libs/persistence/src/probe.ts', '@app/checkout'],
  ['the config importing the queues', 'libs/config/src/probe.ts', '@app/queues/job-producer'],
  ["the shops' client importing a service lib", 'libs/shop-client/src/probe.ts', '@app/domain'],
];

const ALLOWED: [what: string, path: string, target: string][] = [
  [
    "a worker file using another feature's shared root",
    'libs/checkout/src/ipn/worker/probe.ts',
    '../../orders/order-outcome.service',
  ],
  [
    'an api file using its own feature root',
    'libs/checkout/src/orders/api/probe.ts',
    '../order-journal',
  ],
  ['the domain importing its own files', 'libs/domain/src/probe.ts', './money'],
  [
    'the orders core using the operator who acts',
    'libs/checkout/src/orders/probe.ts',
    '../operators/audit-trail',
  ],
  [
    'a feature using a feature root on its own floor',
    'libs/checkout/src/overview/probe.ts',
    '../finance/money-movements',
  ],
  [
    'the admin views using a feature root',
    'libs/checkout/src/admin/api/probe.ts',
    '../../refunds/refund-admin-view',
  ],
  ['the operators using http', 'libs/checkout/src/operators/probe.ts', '../http/api-keys'],
  ['persistence using the gateway client', 'libs/persistence/src/probe.ts', '@app/gateway-client'],
];

describe('import rules', () => {
  let refused: string[][];
  let allowed: string[][];
  beforeAll(() => {
    const found = lintProbes(
      [...REFUSED, ...ALLOWED].map(([, path, target]) => ({ path, target })),
    );
    refused = found.slice(0, REFUSED.length);
    allowed = found.slice(REFUSED.length);
  }, 120_000);

  it.each(REFUSED.map((probe, index) => [...probe, index] as const))(
    'refuses %s',
    (_what, _path, target, index) => {
      expect(refused[index]).toHaveLength(1);
      expect(refused[index][0]).toContain(target);
    },
  );

  it.each(ALLOWED.map((probe, index) => [...probe, index] as const))(
    'allows %s',
    (_what, _path, _target, index) => {
      expect(allowed[index]).toEqual([]);
    },
  );
});
