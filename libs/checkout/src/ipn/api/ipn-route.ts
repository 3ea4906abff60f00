import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentTraceParent, hotRoute, loggedRequest, serviceMetrics } from '@app/common';
import { DEFAULT_ACCOUNT, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { cutText } from '@app/domain';
import { isDatabaseUnavailable } from '@app/persistence';
import { RECORDED_ERROR_MAX_LENGTH } from '../inbox-limits';
import { InboxEntry, IpnInbox } from './ipn-inbox';
import { ipnAcknowledgement, IpnFields, judgeIpn, readIpnFields } from '@app/gateway-client';
import { ipnPath } from '../../orders/ipn-registration.service';
import type { CheckoutErrorCode } from '../../errors/error-codes';
import { SourceAddressCeiling } from '../../http/rate-limits';

/** A notification is three short fields; anything much larger is not one. */
export const IPN_BODY_LIMIT = 4 * 1024;

/**
 * The gateway's notification endpoint, GET and POST on /v1/ipn/<secret>[/<account>]. It is the hot path, so
 * it is a plain Fastify route in its own scope (own body limit, any Content-Type read as text) and a
 * hot route needing none of the global hooks (no cookie parsing, request log, empty-body rewrite
 * or CORS): one INSERT (the worker's InboxRelay queues the row), then the acknowledgement. A wrong
 * secret matches no route and gets the ordinary 404. No request log line: each notification is an inbox row (with its remote address), the
 * record an admin reads, and at thousands per second the line would cost a sixth of the request.
 */
@Injectable()
export class IpnRoute implements OnModuleInit {
  private readonly logger = new Logger(IpnRoute.name);
  private readonly ceiling: SourceAddressCeiling;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly inbox: IpnInbox,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.ceiling = new SourceAddressCeiling(config.rateLimits.ipnPerMinute);
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    void fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      const asText = { parseAs: 'string', bodyLimit: IPN_BODY_LIMIT } as const;
      const keep = (
        _request: FastifyRequest,
        body: string | Buffer,
        done: (error: null, body: string | Buffer) => void,
      ) => done(null, body);
      // The usual types by name as well: Fastify keeps the parser it found for a named type, and
      // looks the catch-all up again (parsing the header) at every request.
      scope.addContentTypeParser(
        ['application/json', 'text/plain', 'application/x-www-form-urlencoded'],
        asText,
        keep,
      );
      scope.addContentTypeParser('*', asText, keep);
      scope.setErrorHandler((error: FastifyError, request, reply) =>
        this.refuse(error, request, reply),
      );
      // One URL per merchant account (the default's has no account segment): a notification
      // keeps the account it came for, so one naming no order of ours is looked up there.
      for (const account of this.config.gateway.accounts) {
        const gatewayAccount = account.id === DEFAULT_ACCOUNT ? null : account.id;
        scope.route({
          method: ['GET', 'POST'],
          url: ipnPath(this.config, account.id),
          bodyLimit: IPN_BODY_LIMIT,
          config: hotRoute(),
          handler: (request, reply) => this.receive(request, reply, gatewayAccount),
        });
      }
    });
  }

  private async receive(
    request: FastifyRequest,
    reply: FastifyReply,
    gatewayAccount: string | null,
  ): Promise<void> {
    const wait = this.ceiling.retryAfter(request.ip ?? 'unknown');
    if (wait !== null) {
      await reply
        .code(429)
        .header('retry-after', String(wait))
        .send({
          error: {
            code: 'rate_limited' satisfies CheckoutErrorCode,
            message: `more than ${this.config.rateLimits.ipnPerMinute} notifications a minute from this address; retry in ${wait} s`,
          },
        });
      return acknowledged(reply, 'rejected');
    }
    const fields = readIpnFields(request.query, request.body);
    const verdict = judgeIpn(fields);
    // Each field named: an object spread followed by new keys costs V8 (Node 20) about half a
    // microsecond per key, every time.
    const entry: InboxEntry = {
      orderTrackingId: fields.orderTrackingId,
      merchantReference: fields.merchantReference,
      notificationType: fields.notificationType,
      httpMethod: request.method,
      payload: payloadOf(request),
      remoteAddress: request.ip ?? null,
      status: verdict.kind === 'accept' ? 'received' : 'ignored',
      lastError: verdict.kind === 'accept' ? null : verdict.reason,
      traceParent: currentTraceParent(),
      gatewayAccount,
    };
    try {
      await this.inbox.store(entry);
    } catch (error) {
      // Out of reach: not stored, so the gateway must send it again (500).
      if (isDatabaseUnavailable(error) || !(await this.keepUnstorable(entry, error))) {
        // A hot route has no request-bound logger: the line names its request itself.
        this.logger.error(
          { req: loggedRequest(request) },
          `notification not stored: ${(error as Error).message}`,
        );
        await reply.code(500).send(ipnAcknowledgement(fields, 500));
        return acknowledged(reply, 'error');
      }
      await reply
        .code(200)
        .send(ignoredAcknowledgement(fields, 'the notification could not be stored as sent'));
      return acknowledged(reply, 'ignored');
    }
    if (verdict.kind === 'reject') {
      // Nothing we can use, however often it comes: acknowledged so the gateway stops sending it,
      // and kept as ignored, with the reason, for the operator.
      await reply.code(200).send(ignoredAcknowledgement(fields, verdict.reason));
      return acknowledged(reply, 'ignored');
    }
    await reply.code(200).send(ipnAcknowledgement(fields, 200));
    acknowledged(reply, verdict.kind === 'accept' ? 'stored' : 'ignored');
  }

  /**
   * A notification the database refused as sent (a value no column takes): kept as ignored
   * without its payload, so an operator still sees it arrived. False when even that fails.
   */
  private async keepUnstorable(entry: InboxEntry, error: unknown): Promise<boolean> {
    try {
      await this.inbox.store({
        orderTrackingId: null,
        merchantReference: null,
        notificationType: null,
        httpMethod: entry.httpMethod,
        payload: { unstorable: true },
        remoteAddress: entry.remoteAddress,
        status: 'ignored',
        lastError: `refused by the database: ${(error as Error).message}`,
        traceParent: entry.traceParent,
        gatewayAccount: entry.gatewayAccount,
      });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Oversized or unreadable bodies: not a notification we can use, so acknowledged (the gateway
   * stops sending it) and kept as ignored, with why, for the operator; 500 only when it could not
   * be kept (then it should come again).
   */
  private async refuse(
    error: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const fields: IpnFields = readIpnFields(request.query, undefined);
    const kept = await this.inbox
      .store({
        ...fields,
        httpMethod: request.method,
        payload: { query: request.query ?? {}, refused: error.code ?? 'error' },
        remoteAddress: request.ip ?? null,
        status: 'ignored',
        lastError: cutText(`refused: ${error.message}`, RECORDED_ERROR_MAX_LENGTH),
      })
      .then(
        () => true,
        () => false,
      );
    if (!kept) {
      await reply.code(500).send(ipnAcknowledgement(fields, 500));
      return acknowledged(reply, 'error');
    }
    const code: CheckoutErrorCode =
      error.statusCode === 413 ? 'ipn_body_too_large' : 'ipn_unreadable';
    await reply.code(200).send(ignoredAcknowledgement(fields, error.message, code));
    acknowledged(reply, 'ignored');
  }
}

/**
 * The gateway's acknowledgement (status 200: it stops sending) for a notification kept as ignored,
 * with why in our error shape beside it.
 */
function ignoredAcknowledgement(
  fields: IpnFields,
  reason: string,
  code: CheckoutErrorCode = 'ipn_invalid',
) {
  return { ...ipnAcknowledgement(fields, 200), error: { code, message: reason } };
}

/** ipn_acknowledgements_total and the time from arrival to the acknowledgement. */
function acknowledged(reply: FastifyReply, outcome: 'stored' | 'ignored' | 'rejected' | 'error') {
  serviceMetrics.ipnAcknowledgements.inc({ outcome });
  serviceMetrics.ipnAckDuration.observe(reply.elapsedTime / 1000);
}

function payloadOf(request: FastifyRequest): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  if (request.query && Object.keys(request.query).length > 0) payload.query = request.query;
  if (request.body !== undefined && request.body !== '') payload.body = request.body;
  if (request.headers['content-type']) payload.contentType = request.headers['content-type'];
  return payload;
}
