import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  HeaderObject,
  OperationObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CODES, CheckoutErrorCode } from '@app/checkout/errors/error-codes';
import { ERROR_BOUNDS, STATUS_OF_CATEGORY } from '@app/checkout/http/checkout-exception.filter';
import { GATEWAY_ERROR_KINDS } from '@app/gateway-client';
import { ApiModule } from './api.module';
import { withValidationBounds } from './validation-bounds';

/** The OpenAPI document of the api, as /docs-json serves it and openapi.json holds it. */
export function apiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('pesapal-checkout')
      .setDescription(
        'Checkouts through the Pesapal API v3: hosted page and mobile-money push, order status, refunds.',
      )
      .setVersion('1')
      .addServer('/', 'This service where it is deployed (production, sandbox or local)')
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'shop key',
          description: 'A shop key (SHOP_API_KEYS): the checkout and order routes',
        },
        'shopKey',
      )
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'admin key',
          description: 'An admin key (ADMIN_API_KEYS): the /v1/admin routes; a shop key is refused',
        },
        'adminKey',
      )
      .addSecurity('statusToken', {
        type: 'apiKey',
        in: 'query',
        name: 'status_token',
        description:
          "A checkout's status_token: read-only, that order's live status only (EventSource cannot send headers)",
      })
      .build(),
  );
  withValidationBounds(app, document);
  return withCommonAnswers(document);
}

/**
 * The document without a running api: Nest's preview mode reads the controllers' metadata and
 * instantiates nothing, so no database, queue or configuration is needed.
 */
export async function apiDocumentOffline(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(ApiModule, new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return apiDocument(app);
  } finally {
    await app.close();
  }
}

/** The committed form: keys in the order generated, two-space indent, final newline. */
export function documentText(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Codes the HTTP layer answers itself (routing, body parsing, rate limits), by their status. */
const HTTP_LAYER_STATUS: Partial<Record<CheckoutErrorCode, number>> = {
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
};

/** Codes of the gateway's notification route only: not part of the shop's and admins' contract. */
const IPN_ONLY = (code: string) => code.startsWith('ipn_');

function codesOfStatus(status: number): string[] {
  const codes: string[] = [];
  for (const [code, category] of Object.entries(ERROR_CODES)) {
    if (IPN_ONLY(code)) continue;
    const answered = HTTP_LAYER_STATUS[code as CheckoutErrorCode] ?? STATUS_OF_CATEGORY[category];
    if (answered === status) codes.push(code);
  }
  return codes.sort();
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad input: each failing field with its reason; nothing was changed',
  401: 'No key, or a key this route does not know',
  403: 'A shop key on an admin route',
  404: 'Nothing by that name',
  409: 'Refused by the state of what it names',
  413: 'The body is larger than the api accepts',
  415: 'The body is not JSON (send Content-Type: application/json)',
  422: 'Well formed, but the payment rules refuse it',
  429: 'Over the rate limit of this key (or address without a key); retry after Retry-After seconds',
  500: 'An unexpected failure; nothing is half-done',
  502: 'The gateway refused the call: its code and messages under error.gateway',
  503: 'A dependency (database, queue) is unavailable; retry after Retry-After seconds',
  504: 'The gateway did not answer in time; the order is kept and reconciled',
};

const integerHeader = (description: string, required = false): HeaderObject => ({
  description,
  required,
  schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 2_147_483_647 },
});

/** Headers of the answers, declared once under components.headers. */
const HEADERS: Record<string, HeaderObject> = {
  RateLimitLimit: integerHeader('Requests a minute this key (or address) may make'),
  RateLimitRemaining: integerHeader('Requests left in the current minute'),
  RateLimitReset: integerHeader('Seconds until the current window ends'),
  RetryAfter: integerHeader('Seconds to wait before retrying', true),
  RetryAfterWhenKnown: integerHeader('Seconds to wait before retrying, when known'),
  'Access-Control-Allow-Origin': {
    description:
      "The request's Origin when it is listed in CORS_ALLOWED_ORIGINS (absent otherwise: pages of other origins cannot read the answer); the live stream answers any origin",
    required: false,
    schema: { type: 'string', maxLength: 2048 },
  },
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The headers of every answer: the rate limiter's (on a limited route while limits are on) and CORS's. */
const EVERY_ANSWER_HEADERS = {
  'X-RateLimit-Limit': headerRef('RateLimitLimit'),
  'X-RateLimit-Remaining': headerRef('RateLimitRemaining'),
  'X-RateLimit-Reset': headerRef('RateLimitReset'),
  'Access-Control-Allow-Origin': headerRef('Access-Control-Allow-Origin'),
};

function errorSchema(status: number): SchemaObject {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            enum: codesOfStatus(status),
            description: 'Stable: branch on it',
          },
          message: {
            type: 'string',
            maxLength: ERROR_BOUNDS.message,
            description: 'For people; may change',
          },
          ...(status === 400
            ? {
                errors: {
                  type: 'array',
                  maxItems: ERROR_BOUNDS.fields,
                  description: 'Every failing field, with its reason',
                  items: { $ref: '#/components/schemas/FieldProblem' },
                },
              }
            : {}),
          ...(status === 502 ? { gateway: { $ref: '#/components/schemas/GatewayRefusal' } } : {}),
        },
        // Codes carry details of their own (the order's status, the attempt that is payable).
        additionalProperties: true,
      },
    },
  };
}

const gatewayText = { type: 'string' as const, maxLength: ERROR_BOUNDS.gatewayMessage };
const gatewayTexts = {
  type: 'array' as const,
  maxItems: ERROR_BOUNDS.gatewayMessages,
  items: gatewayText,
};

const SHARED_SCHEMAS: Record<string, SchemaObject> = {
  FieldProblem: {
    type: 'object',
    required: ['field', 'reason'],
    properties: {
      field: { type: 'string', maxLength: ERROR_BOUNDS.field, example: 'amount' },
      reason: {
        type: 'string',
        maxLength: ERROR_BOUNDS.reason,
        example: 'must be a positive amount with at most 2 decimals',
      },
    },
  },
  GatewayRefusal: {
    type: 'object',
    required: ['kind', 'messages'],
    properties: {
      kind: {
        type: 'string',
        enum: [...GATEWAY_ERROR_KINDS],
        description: 'How the gateway answered (an error body, a status)',
      },
      code: {
        type: 'string',
        maxLength: ERROR_BOUNDS.gatewayCode,
        nullable: true,
        description: "The gateway's own error code",
      },
      error_type: { type: 'string', maxLength: ERROR_BOUNDS.gatewayCode, nullable: true },
      messages: gatewayTexts,
      fields: {
        type: 'object',
        maxProperties: ERROR_BOUNDS.gatewayFields,
        additionalProperties: gatewayTexts,
        description: "The gateway's messages per field of the request",
      },
    },
  },
};

const statusesOf = (operation: OperationObject) => Object.keys(operation.responses ?? {});

function errorResponse(status: number, description: string): ResponseObject {
  return {
    description,
    headers: {
      ...EVERY_ANSWER_HEADERS,
      ...(status === 429 ? { 'Retry-After': headerRef('RetryAfter') } : {}),
      ...(status === 503 ? { 'Retry-After': headerRef('RetryAfterWhenKnown') } : {}),
    },
    content: { 'application/json': { schema: { $ref: `#/components/schemas/Error${status}` } } },
  };
}

/**
 * Beside what each route declares: the answers every route can give (bad input where it takes
 * any, unknown key, a name not found, the rate limit, failures of its own and of a dependency),
 * one error shape per status with the codes of that status, the rate limiter's headers, and the
 * security of each operation.
 */
function withCommonAnswers(document: OpenAPIObject): OpenAPIObject {
  document.components = document.components ?? {};
  const schemas = (document.components.schemas = document.components.schemas ?? {});
  Object.assign(schemas, SHARED_SCHEMAS);
  document.components.headers = { ...document.components.headers, ...HEADERS };
  const commonResponses = (document.components.responses = document.components.responses ?? {});
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const admin = path.startsWith('/v1/admin/');
      operation.security = admin
        ? [{ adminKey: [] }]
        : path.endsWith('/stream')
          ? [{ shopKey: [] }, { statusToken: [] }]
          : [{ shopKey: [] }];
      const statuses = new Set(statusesOf(operation).map(Number));
      const takesInput =
        (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined;
      const common = [401, 429, 500, 503];
      if (takesInput) common.push(400);
      if (path.includes('{')) common.push(404);
      if (admin) common.push(403);
      // Any request with a body can be too large, of another type or unreadable (JSON that does
      // not parse, a body the route takes none of): Fastify answers before the route.
      if (method !== 'get') common.push(400, 413, 415);
      for (const status of common) statuses.add(status);
      const responses = operation.responses as Record<string, ResponseObject | ReferenceObject>;
      for (const status of [...statuses].sort()) {
        const key = String(status);
        if (status < 400) {
          const success = responses[key] as ResponseObject;
          responses[key] = { ...success, headers: { ...success.headers, ...EVERY_ANSWER_HEADERS } };
          continue;
        }
        const name = `Error${status}`;
        schemas[name] ??= errorSchema(status);
        // A route's own description of a refusal is kept; otherwise the shared answer.
        const own = (responses[key] as ResponseObject | undefined)?.description;
        if (own) {
          responses[key] = errorResponse(status, own);
        } else {
          commonResponses[name] ??= errorResponse(status, ERROR_DESCRIPTIONS[status] ?? 'Refused');
          responses[key] = { $ref: `#/components/responses/${name}` };
        }
      }
    }
  }
  delete schemas.ErrorResponse;
  // As package.json says: the service's own code, not published for reuse.
  document.info.license = { name: 'UNLICENSED (proprietary)' };
  // Served to the public (not an internal-only api); where it runs is the server's own address.
  for (const server of document.servers ?? []) Object.assign(server, { 'x-internal': false });
  return document;
}
