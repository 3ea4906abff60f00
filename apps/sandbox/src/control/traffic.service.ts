import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TRANSPORT_MESSAGES } from '../gateway-choices';
import { messageOnly, sendGatewayReply } from '../http/gateway-reply';
import {
  GATEWAY_OPERATION_NAMES,
  GATEWAY_OPERATIONS,
  GatewayOperation,
  operationAtPath,
} from '../http/route-table';

export type FaultMode = 'timeout' | 'http500' | 'slow' | 'reset' | 'none';

export interface Fault {
  mode: Exclude<FaultMode, 'none'>;
  delayMs: number;
  /** Calls left to fault; null for every call until cleared. */
  remaining: number | null;
  /** Only calls whose URL contains this (an order's tracking id, say); null for every call. */
  pathContains: string | null;
  /** Share of the matching calls faulted, 1–100 (chosen at random per call). */
  percent: number;
}

export interface ReceivedCall {
  operation: GatewayOperation;
  method: string;
  path: string;
  at: string;
  /** Raw body text; never recorded for RequestToken (it carries the consumer secret). */
  body: string | null;
}

const RECENT_LIMIT = 500;

/** Counts the gateway calls received and injects faults per operation (control API). */
@Injectable()
export class TrafficService implements OnModuleDestroy {
  private readonly counts = new Map<GatewayOperation, number>();
  private readonly recent: ReceivedCall[] = [];
  private readonly faults = new Map<GatewayOperation | '*', Fault>();
  private readonly closing = new AbortController();

  snapshot(): { counts: Record<GatewayOperation, number>; recent: ReceivedCall[] } {
    const counts = Object.fromEntries(
      GATEWAY_OPERATION_NAMES.map((name) => [name, this.counts.get(name) ?? 0]),
    ) as Record<GatewayOperation, number>;
    return { counts, recent: [...this.recent] };
  }

  resetCounts(): void {
    this.counts.clear();
    this.recent.length = 0;
  }

  setFault(
    operation: GatewayOperation | '*',
    mode: FaultMode,
    delayMs: number,
    times?: number,
    pathContains?: string,
    percent = 100,
  ): void {
    if (mode === 'none') this.faults.delete(operation);
    else {
      this.faults.set(operation, {
        mode,
        delayMs,
        remaining: times ?? null,
        pathContains: pathContains ?? null,
        percent,
      });
    }
  }

  clearFaults(): void {
    this.faults.clear();
  }

  listFaults(): Record<string, Fault> {
    return Object.fromEntries(this.faults);
  }

  /** Fastify preHandler: count the call, then apply a fault if one is set for its operation. */
  readonly preHandler = async (req: FastifyRequest, res: FastifyReply): Promise<void> => {
    const operation = operationAtPath(req.url);
    // Fastify runs hooks for its 404 handler too: count only calls that reach an operation.
    if (!operation || GATEWAY_OPERATIONS[operation].method !== req.method) return;
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
    this.recent.push({
      operation,
      method: req.method,
      path: req.url,
      at: new Date().toISOString(),
      body: operation === 'RequestToken' || typeof req.body !== 'string' ? null : req.body,
    });
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();

    const key = this.faults.has(operation) ? operation : '*';
    const fault = this.faults.get(key);
    if (!fault || (fault.pathContains !== null && !req.url.includes(fault.pathContains))) return;
    if (fault.percent < 100 && Math.random() * 100 >= fault.percent) return;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.faults.delete(key);
    }
    if (fault.mode === 'reset') {
      // The connection is cut before anything is read or answered (ECONNRESET at the caller).
      res.hijack();
      res.raw.socket?.resetAndDestroy();
      return;
    }
    if (fault.mode === 'http500') {
      sendGatewayReply(res, messageOnly(500, TRANSPORT_MESSAGES.serverError));
      return;
    }
    await this.hold(fault.delayMs);
    if (fault.mode === 'timeout') {
      // Never answers: the connection is dropped after the hold, the call is not processed.
      res.hijack();
      res.raw.destroy();
    }
  };

  onModuleDestroy(): void {
    this.closing.abort();
  }

  private hold(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closing.signal.aborted) return resolve();
      const timer = setTimeout(resolve, ms);
      this.closing.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}
