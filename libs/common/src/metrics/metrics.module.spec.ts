import { NotFoundException, UnauthorizedException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ServiceConfig } from '@app/config';
import { MetricsController } from './metrics.module';

/** A reply that records what was sent. */
function fakeReply() {
  const sent: { headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    async send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

const controller = (config: Partial<ServiceConfig>) =>
  new MetricsController({ metricsEnabled: true, metricsToken: null, ...config } as ServiceConfig);

describe('MetricsController', () => {
  it('answers 404 when METRICS_ENABLED is false', async () => {
    const { reply, sent } = fakeReply();
    await expect(
      controller({ metricsEnabled: false }).scrape(undefined, reply),
    ).rejects.toBeInstanceOf(NotFoundException);
    expect(sent.body).toBeUndefined();
  });

  it('serves the text exposition without a token when none is configured', async () => {
    const { reply, sent } = fakeReply();
    await controller({}).scrape(undefined, reply);
    expect(sent.headers['content-type']).toMatch(/^text\/plain/);
    expect(String(sent.body)).toContain('# TYPE');
  });

  it('asks for exactly the configured bearer token', async () => {
    const guarded = controller({ metricsToken: 's3cret-token' });
    for (const given of [undefined, 'Bearer wrong', 's3cret-token', 'Bearer s3cret-token ']) {
      await expect(guarded.scrape(given, fakeReply().reply)).rejects.toBeInstanceOf(
        UnauthorizedException,
      );
    }
    const { reply, sent } = fakeReply();
    await guarded.scrape('Bearer s3cret-token', reply);
    expect(String(sent.body)).toContain('# TYPE');
  });
});
