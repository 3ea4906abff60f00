import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  docRequests,
  DocRequest,
  projectDocRequests,
  RequestBodyContract,
} from '../support/doc-requests';

/**
 * Every request body the README and docs/*.md show for an api route is one openapi.json takes
 * (test/support/doc-requests.ts reads them), so that no example drifts from the api.
 */
describe('the request examples of the README and docs/', () => {
  const files = [
    'README.md',
    ...readdirSync(join(__dirname, '..', '..', 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const contract = new RequestBodyContract();
  const drifts = (examples: DocRequest[]) =>
    examples.flatMap((example) =>
      contract
        .problems(example)
        .map(
          (problem) =>
            `${example.file}:${example.line} ${example.method} ${example.path}: ${problem}`,
        ),
    );

  it('are each a body openapi.json takes for their method and path', () => {
    expect(drifts(projectDocRequests(files))).toEqual([]);
  });

  it('are read in each way the docs show a request', () => {
    const examples = projectDocRequests(files);
    const seen = (file: string, form: DocRequest['form'], route: string) =>
      examples.some(
        (example) =>
          example.file === file &&
          example.form === form &&
          `${example.method} ${example.path}` === route,
      );
    expect(seen('README.md', 'curl', 'POST /v1/checkouts')).toBe(true);
    expect(seen('docs/getting-started.md', 'curl', 'POST /v1/checkouts')).toBe(true);
    expect(seen('docs/shop-api.md', 'table row', 'POST /v1/checkouts')).toBe(true);
    expect(
      seen(
        'docs/shop-api.md',
        'code span',
        'POST /v1/admin/orders/{reference}/attempts/{n}/refund',
      ),
    ).toBe(true);
    expect(
      seen('docs/operations.md', 'code span', 'POST /v1/admin/orders/{reference}/refunds'),
    ).toBe(true);
  });

  it('has a check that refuses an example that drifted, in each way the docs show one', () => {
    const drifted = [
      '```sh\ncurl -s -X POST http://127.0.0.1:3000/v1/orders/ORDER-1/attempts \\\n  -d \'{"method":"hosted","requested_by":"amina"}\'\n```',
      '```\nPOST /v1/checkouts\nContent-Type: application/json\n\n{"amount":"1500.00","currency":"KES","customer":{"email":"a@example.com"}}\n```',
      'Then:\n\n`POST /v1/admin/orders/ORDER-1/refunds`\n\n```json\n{"amount":"10.00","reason":7}\n```',
      '`POST /v1/admin/orders/{reference}/attempts/{n}/refund` `{reason, requested_by}`',
      '`POST /v1/admin/api-keys` `{name, scopes?}`',
      '| `POST /v1/orders/{reference}/attempts` | again: `{method: "hosted", tip}` → 201 |',
      '`POST /v1/admin/no-such-route` `{"reason": "x"}`',
      '```sh\ncurl -X POST http://127.0.0.1:3000/v1/admin/refunds/1/reject -d \'{"reason": }\'\n```',
      'Match it with `POST /v1/admin/unmatched-payments/7/match`:\n\n```json\n{"reference": 12}\n```',
    ].join('\n\n');
    expect(drifts(docRequests('drifted.md', drifted))).toEqual([
      'drifted.md:2 POST /v1/orders/ORDER-1/attempts: (body) must NOT have additional properties: requested_by',
      "drifted.md:7 POST /v1/checkouts: (body) must have required property 'description'",
      'drifted.md:17 POST /v1/admin/orders/ORDER-1/refunds: /reason must be string',
      "drifted.md:21 POST /v1/admin/orders/{reference}/attempts/{n}/refund: requested_by is not a field of /v1/admin/orders/{reference}/attempts/{attempt}/refund's body",
      'drifted.md:23 POST /v1/admin/api-keys: scopes is required, shown as optional',
      "drifted.md:25 POST /v1/orders/{reference}/attempts: tip is not a field of /v1/orders/{reference}/attempts's body",
      'drifted.md:27 POST /v1/admin/no-such-route: POST /v1/admin/no-such-route is not an operation of openapi.json',
      'drifted.md:30 POST /v1/admin/refunds/1/reject: the body is not JSON: {"reason": }',
      'drifted.md:35 POST /v1/admin/unmatched-payments/7/match: /reference must be string',
    ]);
  });
});
