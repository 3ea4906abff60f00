import {
  Controller,
  Get,
  Headers,
  Inject,
  Module,
  NotFoundException,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, register } from 'prom-client';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { serviceMetrics } from './service-metrics';

function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Prometheus's text exposition of this process: Node's own metrics and the service's. Not behind
 * the shop or admin keys (a scraper holds neither); METRICS_ENABLED turns it off (404) and
 * METRICS_TOKEN, when set, asks for `Authorization: Bearer <token>`.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  @Get()
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!this.config.metricsEnabled) throw new NotFoundException();
    const token = this.config.metricsToken;
    if (token && !sameSecret(authorization ?? '', `Bearer ${token}`)) {
      throw new UnauthorizedException('Authorization: Bearer <METRICS_TOKEN> is required');
    }
    await reply
      .header('content-type', register.contentType)
      .header('cache-control', 'no-store')
      .send(await register.metrics());
  }
}

/** GET /metrics for the app that imports it, and Node's default metrics once per process. */
@Module({ controllers: [MetricsController] })
export class MetricsModule {
  constructor() {
    if (!register.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
  }
}

/**
 * Counts every answered request by its route template (never the raw URL: no ids in labels);
 * `routeLabel` may rename a template that holds a secret (the IPN path).
 */
export function countHttpRequests(
  fastify: {
    addHook(
      name: 'onResponse',
      hook: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
    ): unknown;
  },
  routeLabel: (template: string) => string = (template) => template,
): void {
  fastify.addHook('onResponse', async (request, reply) => {
    const template = request.routeOptions?.url;
    const labels = {
      route: template ? routeLabel(template) : 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    };
    serviceMetrics.httpRequests.inc(labels);
    serviceMetrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
