import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { contractFindings } from '../support/api-contract';
import { RunningService, startService } from '../support/service';

/**
 * openapi.json is the contract shops integrate from: it is what the api serves, and the check every
 * e2e file runs (api-contract.ts) does catch an answer the document does not describe.
 */
describe('the OpenAPI document', () => {
  let service: RunningService;
  const committed = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8'),
  ) as Record<string, unknown>;

  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service?.close());

  it('committed in openapi.json is exactly what the api serves at /docs-json (npm run openapi)', async () => {
    const served = await request(service.apiUrl).get('/docs-json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(committed);
  });

  it('is what npm run openapi writes, without a server, with the shop client types', () => {
    const run = spawnSync(
      process.execPath,
      ['-r', '@swc-node/register', join('scripts', 'openapi.ts'), '--check'],
      { cwd: join(__dirname, '..', '..'), encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it("lints with no error under Redocly's recommended rules and Spectral's OpenAPI and OWASP rules", () => {
    const run = spawnSync('npm', ['run', '-s', 'openapi:lint'], {
      cwd: join(__dirname, '..', '..'),
      encoding: 'utf8',
    });
    const report = `${run.stdout}${run.stderr}`;
    expect(report).toMatch(/Your API description is valid/); // Redocly
    expect(report).toMatch(/\(0 errors,|No results with a severity of 'error'/); // Spectral
    expect(run.status).toBe(0);
  }, 60_000);

  it('gives every operation a summary and a tag', () => {
    const paths = committed.paths as Record<string, Record<string, Record<string, unknown>>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ name: `${method} ${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(30);
    const lacking = operations.flatMap(({ name, operation }) => [
      ...(operation.summary ? [] : [`${name}: summary`]),
      ...((operation.tags as string[] | undefined)?.length ? [] : [`${name}: tag`]),
    ]);
    expect(lacking).toEqual([]);
  });

  it('has a check that refuses an answer the document does not describe', async () => {
    const before = (await contractFindings()).length;
    // An answer of a documented operation, checked against a document where it is undeclared:
    // the order answer of GET /v1/orders/{reference} with a property the document lacks.
    const { checkAnswerForTest } = await import('../support/api-contract');
    const problems = await checkAnswerForTest(
      'GET',
      '/v1/orders/:reference',
      404,
      {
        'content-type': 'application/json; charset=utf-8',
      },
      JSON.stringify({ error: { code: 'no_such_code', message: 'x' } }),
    );
    expect(problems.join('\n')).toMatch(/code/);
    const undocumented = await checkAnswerForTest('GET', '/v1/orders/:reference', 418, {}, '');
    expect(undocumented).toEqual(['status 418 is not documented']);
    const extra = await checkAnswerForTest(
      'POST',
      '/v1/orders/:reference/cancel',
      401,
      { 'content-type': 'application/json' },
      JSON.stringify({ error: { code: 'unauthenticated', message: 'x' }, debug: 'stack' }),
    );
    expect(extra.join('\n')).toMatch(/additional/);
    const badHeader = await checkAnswerForTest(
      'POST',
      '/v1/checkouts',
      429,
      { 'content-type': 'application/json', 'X-RateLimit-Limit': 'many' },
      JSON.stringify({ error: { code: 'rate_limited', message: 'x' } }),
    );
    expect(badHeader.join('\n')).toMatch(/headers: \/headers\/x-ratelimit-limit must be integer/);
    // These probes are not answers of the api: nothing was recorded for this file.
    expect((await contractFindings()).length).toBe(before);
  });
});
