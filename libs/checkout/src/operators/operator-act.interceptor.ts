import {
  CallHandler,
  ExecutionContext,
  HttpException,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import { CheckoutError } from '../errors/checkout-error';
import { STATUS_OF_CATEGORY } from '../http/checkout-exception.filter';
import { OriginRequest, originOf, routeOf } from '../http/request-origin';
import { AuditTrail } from './audit-trail';
import { auditActorOf, Operator } from './operator';
import { READING } from './operator-access';
import { OperatorAct, runAsAct } from './operator-act';

interface ActingRequest extends OriginRequest {
  operator?: Operator;
  adminRoute?: boolean;
}

/**
 * Runs each admin request as its operator's act: the code it calls writes the act's audit row in
 * the change's own transaction (AuditTrail.recordAct; the order journal does so for every admin
 * change to an order). A request that changes something without such a row (or is refused by
 * validation or the rules) gets one here, once it is answered, so no admin act is without its
 * operator in the trail.
 */
@Injectable()
export class OperatorActInterceptor implements NestInterceptor {
  constructor(private readonly trail: AuditTrail) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<ActingRequest>();
    if (!request.adminRoute || !request.operator) return next.handle();
    const act: OperatorAct = {
      operator: request.operator,
      origin: originOf(request),
      recorded: false,
    };
    const changing = !READING.has(request.method ?? 'GET');
    return from(
      runAsAct(act, async () => {
        let result: unknown;
        try {
          result = await lastValueFrom(next.handle(), { defaultValue: undefined });
        } catch (error) {
          if (changing) await this.recordRequest(request, act, 'refused', error);
          throw error;
        }
        if (changing && !act.recorded) await this.recordRequest(request, act, 'succeeded', null);
        return result;
      }),
    );
  }

  private async recordRequest(
    request: ActingRequest,
    act: OperatorAct,
    outcome: 'succeeded' | 'refused',
    error: unknown,
  ): Promise<void> {
    const status = error === null ? null : statusOf(error);
    // The act is done (or refused) either way: a row that cannot be written is logged and
    // counted, never turned into a failure of what already happened.
    await this.trail.recordAfterAnswer({
      actor: auditActorOf(act.operator),
      action: 'admin.request',
      target: routeOf(request),
      reason: error instanceof Error ? error.message : null,
      outcome: status !== null && status >= 500 ? 'failed' : outcome,
      status,
      origin: act.origin,
    });
  }
}

function statusOf(error: unknown): number {
  if (error instanceof CheckoutError) return STATUS_OF_CATEGORY[error.category];
  if (error instanceof HttpException) return error.getStatus();
  return 500;
}
