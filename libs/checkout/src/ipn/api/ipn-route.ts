import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentTraceParent, serviceMetrics } from '@app/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { IpnInbox } from './ipn-inbox';
import { ipnAcknowledgement, IpnFields, judgeIpn, readIpnFields } from '@app/gateway-client';
import { ipnPath } from '../ipn-registration.service';
import type { CheckoutErrorCode } from '../../errors/error-codes';
import { SourceAddressCeiling } from '../../http/rate-limits';

/** A notification is three short fields; anything much larger is not one. */
export const IPN_BODY_LIMIT = 4 * 1024;

/**
 * The gateway's notification endpoint, GET and POST on /v1/ipn/<secret>. It is the hot path, so
 * it is a plain Fastify route in its own scope (own body limit, any Content-Type read as text):
 * one INSERT (the worker's InboxRelay queues the row), then the acknowledgement. A wrong secret
 * matches no route and gets the ordinary 404.
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
    const url = ipnPath(this.config);
    void fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        '*',
        { parseAs: 'string', bodyLimit: IPN_BODY_LIMIT },
        (_request, body, done) => done(null, body),
      );
      scope.setErrorHandler((error: FastifyError, request, reply) =>
        this.refuse(error, request, reply),
      );
      scope.route({
        method: ['GET', 'POST'],
        url,
        bodyLimit: IPN_BODY_LIMIT,
        handler: (request, reply) => this.receive(request, reply),
      });
    });
  }

  private async receive(request: FastifyRequest, reply: FastifyReply): Promise<void> {
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
    try {
      await this.inbox.store({
        ...fields,
        httpMethod: request.method,
        payload: payloadOf(request),
        remoteAddress: request.ip ?? null,
        status: verdict.kind === 'accept' ? 'received' : 'ignored',
        lastError: verdict.kind === 'accept' ? null : verdict.reason,
        traceParent: currentTraceParent(),
      });
    } catch (error) {
      this.logger.error(`notification not stored: ${(error as Error).message}`);
      await reply.code(500).send(ipnAcknowledgement(fields, 500));
      return acknowledged(reply, 'error');
    }
    if (verdict.kind === 'reject') {
      await reply.code(400).send({
        error: { code: 'ipn_invalid' satisfies CheckoutErrorCode, message: verdict.reason },
        ...ipnAcknowledgement(fields, 200),
      });
      return acknowledged(reply, 'rejected');
    }
    await reply.code(200).send(ipnAcknowledgement(fields, 200));
    acknowledged(reply, verdict.kind === 'accept' ? 'stored' : 'ignored');
  }

  /** Oversized or unreadable bodies: a clear 4xx, and a row so an admin sees the attempt. */
  private async refuse(
    error: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    const fields: IpnFields = readIpnFields(request.query, undefined);
    if (status < 500) {
      await this.inbox
        .store({
          ...fields,
          httpMethod: request.method,
          payload: { query: request.query ?? {}, refused: error.code ?? 'error' },
          remoteAddress: request.ip ?? null,
          status: 'ignored',
          lastError: `refused: ${error.message}`.slice(0, 500),
        })
        .catch(() => undefined);
    }
    await reply.code(status).send({
      error: {
        code: (status === 413
          ? 'ipn_body_too_large'
          : 'ipn_unreadable') satisfies CheckoutErrorCode,
        message: error.message,
      },
    });
    acknowledged(reply, status < 500 ? 'rejected' : 'error');
  }
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
