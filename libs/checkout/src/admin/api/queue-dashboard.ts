import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardFastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobProducer } from '@app/queues';
import { originOf } from '../../http/request-origin';
import { AuditTrail } from '../../operators/audit-trail';
import { AdminSessions } from './admin-session';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board under /admin/queues, in its own Fastify scope whose first hook demands an admin key:
 * a Bearer header (scripts) or the session cookie the console sets (browsers, which cannot
 * add headers to a navigation).
 */
@Injectable()
export class QueueDashboard implements OnModuleInit {
  private readonly logger = new Logger(QueueDashboard.name);
  private readonly sessions: AdminSessions;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly jobs: JobProducer,
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
        if (this.sessions.authenticate(request)) return;
        this.audit.recordRefusal({
          actor: { kind: 'anonymous', id: null },
          action: 'request.refused',
          target: `${request.method} ${QUEUE_DASHBOARD_PATH}`,
          reason: 'no admin key or console session',
          status: 401,
          origin: originOf(request),
        });
        await reply
          .status(401)
          .header('cache-control', 'no-store')
          .send({
            error: {
              code: 'unauthenticated',
              message:
                'an admin key is required: Authorization: Bearer <key>, or sign in at /admin',
            },
          });
      });
      await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
    });
  }
}
