import Fastify, { FastifyInstance, FastifyRequest } from 'fastify';
import { exceptOnHotRoutes, hotRoute, withHooksExceptOnHotRoutes } from './hot-routes';

/** An app with an ordinary route and a hot route that needs nothing; `ran` lists the hooks run. */
function appWithRoutes(): { fastify: FastifyInstance; ran: string[] } {
  const fastify = Fastify();
  const ran: string[] = [];
  fastify.get('/ordinary', async () => ({ ok: true }));
  fastify.get('/hot', { config: hotRoute() }, async () => ({ ok: true }));
  return { fastify, ran };
}

const hookNamed =
  (ran: string[], name: string) =>
  async (request: FastifyRequest): Promise<void> => {
    ran.push(`${name} ${request.url}`);
  };

describe('withHooksExceptOnHotRoutes', () => {
  it('wraps the request hooks the registration adds, says which, and leaves the others', async () => {
    const { fastify, ran } = appWithRoutes();
    const wrapped = await withHooksExceptOnHotRoutes(
      fastify,
      'cookies',
      ['onRequest', 'onSend'],
      async () => {
        fastify.addHook('onRequest', hookNamed(ran, 'onRequest'));
        fastify.addHook('onReady', async () => void ran.push('onReady'));
        fastify.addHook('onSend', hookNamed(ran, 'onSend'));
      },
    );
    // Added afterwards: not wrapped.
    fastify.addHook('preHandler', hookNamed(ran, 'preHandler'));
    expect(wrapped).toEqual(['onRequest', 'onSend']);

    await fastify.ready();
    expect(ran).toEqual(['onReady']);
    await fastify.inject({ method: 'GET', url: '/hot' });
    expect(ran).toEqual(['onReady', 'preHandler /hot']);
    await fastify.inject({ method: 'GET', url: '/ordinary' });
    expect(ran.slice(2)).toEqual([
      'onRequest /ordinary',
      'preHandler /ordinary',
      'onSend /ordinary',
    ]);
    await fastify.close();
  });

  it.each([
    ['a hook more than expected', ['onRequest'], ['onRequest', 'onSend'], 'onRequest, onSend'],
    ['none of the expected hooks', ['onRequest'], [], 'none'],
    ['another hook than expected', ['onRequest'], ['preHandler'], 'preHandler'],
  ] as const)(
    'stops the start when the registration adds %s',
    async (_name, expected, added, named) => {
      const { fastify, ran } = appWithRoutes();
      const addHook = fastify.addHook;
      await expect(
        withHooksExceptOnHotRoutes(fastify, 'requestLog', expected, async () => {
          for (const name of added) fastify.addHook(name, hookNamed(ran, name));
        }),
      ).rejects.toThrow(
        `hot routes: expected to make onRequest skip the hot routes that do not need requestLog, ` +
          `but the registration added ${named}`,
      );
      // The instance's own addHook is back.
      expect(fastify.addHook).toBe(addHook);
      await fastify.close();
    },
  );
});

describe('exceptOnHotRoutes', () => {
  /** Counts the reads of request.routeOptions, which Fastify builds anew at each one. */
  function countRouteOptionReads(fastify: FastifyInstance): { reads: number } {
    const counted = { reads: 0 };
    fastify.addHook('onRequest', async (request) => {
      let prototype: object | null = Object.getPrototypeOf(request) as object;
      let getter: (() => unknown) | undefined;
      while (prototype && !getter) {
        getter = Object.getOwnPropertyDescriptor(prototype, 'routeOptions')?.get;
        prototype = Object.getPrototypeOf(prototype) as object | null;
      }
      Object.defineProperty(request, 'routeOptions', {
        get() {
          counted.reads += 1;
          return getter?.call(request);
        },
      });
    });
    return counted;
  }

  it.each(['/ordinary', '/hot'])(
    'reads the route config of %s once for all its hooks',
    async (url) => {
      const { fastify, ran } = appWithRoutes();
      const counted = countRouteOptionReads(fastify);
      for (const name of ['onRequest', 'preHandler', 'onSend'] as const) {
        fastify.addHook(name, exceptOnHotRoutes('cookies', hookNamed(ran, name)));
      }
      await fastify.inject({ method: 'GET', url });
      expect(counted.reads).toBe(1);
      expect(ran).toEqual(
        url === '/hot' ? [] : ['onRequest /ordinary', 'preHandler /ordinary', 'onSend /ordinary'],
      );
      await fastify.close();
    },
  );
});
