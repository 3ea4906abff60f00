import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardFastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobProducer } from '@app/queues';
import { CheckoutError } from '../../errors/checkout-error';
import { originOf } from '../../http/request-origin';
import { AuditTrail } from '../../operators/audit-trail';
import { auditActorOf, bootstrapAdmin, Operator } from '../../operators/operator';
import { OperatorAccess, READING } from '../../operators/operator-access';
import { AdminSessions } from './admin-session';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board under /admin/queues, in its own Fastify scope whose first hook demands an admin key:
 * a Bearer header (scripts) or the session cookie the console sets (browsers, which cannot
 * add headers to a navigation), or a person's console session with operations:write.
 */
@Injectable()
export class QueueDashboard implements OnModuleInit {
  private readonly logger = new Logger(QueueDashboard.name);
  private readonly sessions: AdminSessions;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly jobs: JobProducer,
    private readonly access: OperatorAccess,
    private readonly audit: AuditTrail,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.sessions = new AdminSessions(config.adminApiKeys);
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || typeof fastify.register !== 'function') return;
    const board = new BullBoardFastifyAdapter();
    board.setBasePath(QUEUE_DASHBOARD_PATH);
    createBullBoard({
      queues: [...this.jobs.all().values()].map((queue) => new BullMQAdapter(queue)),
      serverAdapter: board,
      options: { uiConfig: { boardTitle: 'pesapal-checkout queues' } },
    });
    void fastify.register(async (scope) => {
      scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        const keyName = this.sessions.authenticate(request);
        // Else a person's console session (or a scoped key) that may operate the queues; the
        // refusal, if any, is written to the audit trail by the check itself.
        const admitted = keyName
          ? bootstrapAdmin(keyName)
          : await this.access.admit(request, 'operations:write').catch((error: unknown) => error);
        if (!(admitted instanceof Error)) {
          // What the dashboard changes (retry, clean, promote, remove) is an act in the trail.
          if (!READING.has(request.method)) {
            await this.audit.recordAfterAnswer({
              actor: auditActorOf(admitted as Operator),
              action: 'queues.changed',
              target: `${request.method} ${request.url.split('?')[0]}`,
              outcome: 'succeeded',
              origin: originOf(request),
            });
          }
          return;
        }
        const refusal = admitted;
        const status =
          refusal instanceof CheckoutError && refusal.category === 'forbidden' ? 403 : 401;
        await reply
          .status(status)
          .header('cache-control', 'no-store')
          .send({
            error: {
              code: refusal instanceof CheckoutError ? refusal.code : 'unauthenticated',
              message:
                status === 403
                  ? (refusal as Error).message
                  : 'an admin key is required: Authorization: Bearer <key>, or sign in at /admin',
            },
          });
      });
      await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
    });
  }
}
