import {
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { AdminAccessGuard } from '../../libs/checkout/src/operators/access-guards';
import { OperatorActInterceptor } from '../../libs/checkout/src/operators/operator-act.interceptor';
import { PERMISSIONS } from '@app/domain';
import { RunningService, startService } from '../support/service';

/**
 * No admin route without an operator and a permission: every route under v1/admin is behind
 * AdminAccessGuard, declares what it needs, and runs as its operator's act (the interceptor that
 * writes the audit row of a change); checked on the api as it runs, so a route added later is
 * checked too.
 */
describe('every admin route checks a permission', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('guards each v1/admin route, names a known permission (or any operator) and runs it as the act', () => {
    const routes: string[] = [];
    const problems: string[] = [];
    for (const module of service.apiApp.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
        if (!controller) continue;
        const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
        for (const name of Object.getOwnPropertyNames(controller.prototype)) {
          // Through the descriptor: a getter is not a route (and is not to be run here).
          const handler = Object.getOwnPropertyDescriptor(controller.prototype, name)
            ?.value as unknown;
          if (typeof handler !== 'function' || name === 'constructor') continue;
          const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
          if (path === undefined || Reflect.getMetadata(METHOD_METADATA, handler) === undefined)
            continue;
          const route = `${base}/${path}`.replace(/\/+$/, '').replace(/\/+/g, '/');
          if (!route.startsWith('v1/admin')) continue;
          routes.push(route);
          const guards = [
            ...((Reflect.getMetadata(GUARDS_METADATA, controller) as unknown[]) ?? []),
            ...((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[]) ?? []),
          ];
          const needed = (Reflect.getMetadata('checkout:permission', handler) ??
            Reflect.getMetadata('checkout:permission', controller)) as string | undefined;
          if (!guards.includes(AdminAccessGuard)) problems.push(`${route}: no AdminAccessGuard`);
          const interceptors = [
            ...((Reflect.getMetadata(INTERCEPTORS_METADATA, controller) as unknown[]) ?? []),
            ...((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[]) ?? []),
          ];
          if (!interceptors.includes(OperatorActInterceptor))
            problems.push(`${route}: not run as the operator's act (OperatorActInterceptor)`);
          if (!needed || !(needed === 'any' || (PERMISSIONS as readonly string[]).includes(needed)))
            problems.push(`${route} (${controller.name}.${name}): permission ${String(needed)}`);
          // A route that changes something needs more than the right to read.
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
          if (method !== 'GET' && needed === 'admin:read')
            problems.push(`${method} ${route} (${controller.name}.${name}): only admin:read`);
        }
      }
    }
    expect(routes.length).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });
});
