import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { OpenAPIBackend, ValidationContext, type Document, type Operation } from 'openapi-backend';

/**
 * The contract check: every answer an api of this test file sends is checked against the committed
 * openapi.json as it goes out (status documented for its operation, content type, headers, body by
 * its schema), and the file fails in afterAll naming each drift (api-contract.setup.ts). Object
 * schemas are checked closed here, so a property the document does not declare is a drift too; the
 * published document stays open for additions.
 */
const DOCUMENT_FILE = join(__dirname, '..', '..', 'openapi.json');

/** What the api serves outside its contract: pages for people, the platform's probes and scrapes,
 * the gateway's notification endpoint (its path is a secret) and the document itself. */
const OUTSIDE_THE_CONTRACT: readonly RegExp[] = [
  /^\/docs(-json|-yaml)?(\/|$)/,
  /^\/admin(\/|$)/,
  /^\/metrics$/,
  /^\/health\//,
  /^\/v1\/ipn\//,
  // Where the gateway sends the customer's browser back: pages, not the shop's API.
  /^\/v1\/checkouts\/(return|result)(\/|$)/,
  // A payment link's pages: HTML for its customers, not the API.
  /^\/pay(\/|$)/,
];

const findings = new Set<string>();
/** Answers sent and not yet checked: checked when the file ends, so that no check (compiling a
 * schema takes a while) ever slows an answer or the test that waits for it. */
interface SentAnswer {
  method: string;
  route: string;
  status: number;
  headers: Record<string, unknown>;
  payload: unknown;
}
const unchecked: SentAnswer[] = [];
let backend: Promise<OpenAPIBackend> | undefined;
let operations: Map<string, Operation> | undefined;

/** Drifts found in this test file's answers so far. */
export async function contractFindings(): Promise<string[]> {
  for (const answer of unchecked.splice(0)) {
    const { method, route, status } = answer;
    for (const problem of await check(method, route, status, answer.headers, answer.payload)) {
      findings.add(`${method} ${route} → ${status}: ${problem}`);
    }
  }
  return [...findings];
}

type Schema = Record<string, unknown>;

/** The document with its object schemas closed: a property they do not declare is refused. */
export function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    // Examples are data, not schemas: left as they are.
    copy[key] = key === 'example' || key === 'examples' ? value : closed(value);
  }
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

function contract(): Promise<OpenAPIBackend> {
  backend ??= (async () => {
    const document = closed(JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'))) as Document;
    const api = new OpenAPIBackend({
      definition: document,
      quick: true,
      ajvOpts: { allErrors: true, strict: false },
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    operations = new Map(
      api.getOperations().map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]),
    );
    return api;
  })();
  return backend;
}

/** Fastify's route template (`/v1/orders/:reference`) as the document writes it. */
const documentPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The response the document gives `status`: its own, else its class's (`4XX`), else `default`. */
function responseOf(operation: Operation, status: number): [key: string, Schema] | undefined {
  const responses = (operation.responses ?? {}) as Record<string, Schema>;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k]);
  return key === undefined ? undefined : [key, responses[key]];
}

/**
 * Validators are compiled for the responses answered, once each, when first needed: compiling
 * every status of an operation (and four header variants of each), as openapi-backend's own
 * validateResponse and validateResponseHeaders do, cost each test file a second or more.
 */
const validators = new Map<string, ValidateFunction | null>();

function compiled(
  api: OpenAPIBackend,
  key: string,
  context: ValidationContext,
  schema: () => Schema | null,
): ValidateFunction | null {
  if (!validators.has(key)) {
    const built = schema();
    const ajv = api.validator.getAjv(
      context,
      context === ValidationContext.ResponseHeaders ? { coerceTypes: true } : {},
    );
    validators.set(key, built ? ajv.compile(built) : null);
  }
  return validators.get(key)!;
}

/** The body's schema of a response, as application/json, if it declares one. */
function bodyValidator(api: OpenAPIBackend, operation: Operation, key: string, response: Schema) {
  const json = (response.content as Record<string, Schema> | undefined)?.['application/json'];
  return compiled(api, `${operation.operationId} ${key} body`, ValidationContext.Response, () =>
    json?.schema ? (json.schema as Schema) : null,
  );
}

/** The types of a response's documented headers, for those present (names in lower case). */
function headersValidator(
  api: OpenAPIBackend,
  operation: Operation,
  key: string,
  response: Schema,
) {
  return compiled(
    api,
    `${operation.operationId} ${key} headers`,
    ValidationContext.ResponseHeaders,
    () => {
      const properties: Record<string, unknown> = {};
      for (const [name, header] of Object.entries(
        (response.headers ?? {}) as Record<string, Schema>,
      ))
        if (header.schema) properties[name.toLowerCase()] = header.schema;
      return Object.keys(properties).length === 0
        ? null
        : { type: 'object', properties: { headers: { type: 'object', properties } } };
    },
  );
}

function bodyText(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined; // a stream (CSV, event stream): its type and headers are checked, not its body
}

function describe(errors: { instancePath?: string; message?: string; params?: unknown }[]) {
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ');
}

async function check(
  method: string,
  route: string,
  status: number,
  headers: Record<string, unknown>,
  payload: unknown,
): Promise<string[]> {
  // A CORS preflight is the CORS layer's answer, not an operation's.
  if (method === 'OPTIONS') return [];
  const api = await contract();
  const path = documentPath(route);
  const operation = operations?.get(`${method} ${path}`);
  if (!operation) {
    if (OUTSIDE_THE_CONTRACT.some((pattern) => pattern.test(route))) return [];
    return ['the operation is not in the document'];
  }
  const documented = responseOf(operation, status);
  if (!documented) return [`status ${status} is not documented`];
  const [key, response] = documented;
  const problems: string[] = [];
  const content = response.content as Record<string, unknown> | undefined;
  const mediaType = String(headers['content-type'] ?? '')
    .split(';')[0]
    .trim();
  const text = bodyText(payload);
  const empty = payload === null || payload === undefined || text === '';
  if (content && Object.keys(content).length > 0) {
    if (!content[mediaType]) problems.push(`content type ${mediaType || '(none)'} not documented`);
    else if (mediaType === 'application/json' && text !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push('the body is not JSON');
      }
      if (body !== undefined) {
        const validate = bodyValidator(api, operation, key, response);
        if (validate && !validate(body)) problems.push(`body: ${describe(validate.errors ?? [])}`);
      }
    }
  } else if (!empty) {
    problems.push('a body where the document declares none');
  }
  // Types of the documented headers present; then each header the document requires.
  const validateHeaders = headersValidator(api, operation, key, response);
  const lowerCased = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  if (validateHeaders && !validateHeaders({ headers: lowerCased }))
    problems.push(`headers: ${describe(validateHeaders.errors ?? [])}`);
  const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Schema>)) {
    if (header.required === true && !present.has(name.toLowerCase())) {
      problems.push(`header ${name} is required but missing`);
    }
  }
  return problems;
}

/** One answer checked without recording it (the contract's own test proves the check bites). */
export const checkAnswerForTest = check;

/** Checks every answer of this api against the document; call before the app listens. */
export function checkAnswersAgainstContract(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', async (request, reply, payload) => {
      const route = request.routeOptions?.url;
      // No route: Fastify's own 404 for a path the api does not have.
      if (!route || request.method === 'HEAD' || request.method === 'OPTIONS') return payload;
      unchecked.push({
        method: request.method,
        route,
        status: reply.statusCode,
        headers: { ...reply.getHeaders() },
        // A stream (CSV, event stream) is not kept: its status, type and headers are checked.
        payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null,
      });
      return payload;
    });
}

/**
 * The api as main.ts builds it, with its answers checked against the contract. Imported late:
 * the app modules read their configuration from process.env on import.
 */
export async function createApiUnderContract(): Promise<NestFastifyApplication> {
  const { createApiApp } = await import('../../apps/api/src/api-app');
  const app = await createApiApp();
  checkAnswersAgainstContract(app);
  // The document is read and prepared now, not while the first answer is checked.
  await contract();
  return app;
}
