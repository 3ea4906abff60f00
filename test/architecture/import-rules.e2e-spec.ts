import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const ESLINT = join(ROOT, 'node_modules', '.bin', 'eslint');

/** Lints `source` as if it were the file at `path` (nothing is written) and returns the errors. */
function lint(path: string, source: string): string[] {
  const run = spawnSync(ESLINT, ['--no-warn-ignored', '--stdin', '--stdin-filename', path], {
    cwd: ROOT,
    input: source,
    encoding: 'utf8',
  });
  return run.stdout
    .split('\n')
    .filter((line) => /\berror\b/.test(line) && line.includes('no-restricted-imports'));
}

/**
 * The folder picture of docs/flows.md is enforced by lint (eslint.config.mjs): these probes are
 * the imports a newcomer might write, linted as if they lived in the tree.
 */
describe('import rules', () => {
  it.each([
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
  ])(
    'refuses %s',
    (_what, path, target) => {
      const errors = lint(
        path,
        `import * as probe from '${target}';\nexport const used = probe;\n`,
      );
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(target);
    },
    30_000,
  );

  it.each([
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
    [
      'persistence using the gateway client',
      'libs/persistence/src/probe.ts',
      '@app/gateway-client',
    ],
  ])(
    'allows %s',
    (_what, path, target) => {
      expect(
        lint(path, `import * as probe from '${target}';\nexport const used = probe;\n`),
      ).toEqual([]);
    },
    30_000,
  );
});
