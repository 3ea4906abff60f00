import { Injectable } from '@nestjs/common';
import type { SandboxOrder } from './sandbox-order';

export interface RefundRecord {
  confirmationCode: string;
  amount: string;
  username: string;
  remarks: string;
  at: Date;
}

const scoped = (merchantId: string, key: string): string => `${merchantId}\u0000${key}`;

/**
 * All orders in memory, each reachable in O(1) by tracking id, by the id the merchant sent,
 * by push's generated reference and by confirmation code.
 */
@Injectable()
export class OrderStore {
  private readonly byTrackingId = new Map<string, SandboxOrder>();
  private readonly byMerchantReference = new Map<string, SandboxOrder>();
  private readonly byGeneratedReference = new Map<string, SandboxOrder>();
  private readonly byConfirmationCode = new Map<string, SandboxOrder>();
  private readonly latestChargeByAccount = new Map<string, SandboxOrder>();
  private readonly refunds = new Map<string, RefundRecord>();
  /** RefundRequest calls per confirmation code, refused ones included (a retry shows here). */
  private readonly refundRequests = new Map<string, number>();

  get size(): number {
    return this.byTrackingId.size;
  }

  add(order: SandboxOrder): void {
    this.byTrackingId.set(order.orderTrackingId, order);
    if (order.channel === 'recurring') {
      this.latestChargeByAccount.set(scoped(order.merchantId, order.merchantReference), order);
    } else {
      this.byMerchantReference.set(scoped(order.merchantId, order.merchantReference), order);
    }
    if (order.generatedReference) this.byGeneratedReference.set(order.generatedReference, order);
    if (order.payment) this.byConfirmationCode.set(order.payment.confirmationCode, order);
  }

  /** One merchant's latest orders, newest first (a sandbox holds few: it keeps them in memory). */
  latestOf(merchantId: string, limit: number): SandboxOrder[] {
    const found: SandboxOrder[] = [];
    for (const order of [...this.byTrackingId.values()].reverse()) {
      if (order.merchantId !== merchantId) continue;
      found.push(order);
      if (found.length >= limit) break;
    }
    return found;
  }

  byTracking(orderTrackingId: string): SandboxOrder | undefined {
    return this.byTrackingId.get(orderTrackingId);
  }

  /** The id sent, else push's generated reference, else the latest charge of an account. */
  byReference(merchantId: string, reference: string): SandboxOrder | undefined {
    const key = scoped(merchantId, reference);
    return (
      this.byMerchantReference.get(key) ??
      this.ownedBy(merchantId, this.byGeneratedReference.get(reference)) ??
      this.latestChargeByAccount.get(key)
    );
  }

  bySentId(merchantId: string, id: string): SandboxOrder | undefined {
    return this.byMerchantReference.get(scoped(merchantId, id));
  }

  byConfirmation(confirmationCode: string): SandboxOrder | undefined {
    return this.byConfirmationCode.get(confirmationCode);
  }

  /** Re-indexes after a payment settled the order (a retry replaces the earlier code). */
  recordPayment(order: SandboxOrder, previousCode: string | undefined): void {
    if (previousCode) this.byConfirmationCode.delete(previousCode);
    if (order.payment) this.byConfirmationCode.set(order.payment.confirmationCode, order);
  }

  confirmationCodeTaken(code: string): boolean {
    return this.byConfirmationCode.has(code);
  }

  generatedReferenceTaken(reference: string): boolean {
    return this.byGeneratedReference.has(reference);
  }

  refundFor(confirmationCode: string): RefundRecord | undefined {
    return this.refunds.get(confirmationCode);
  }

  countRefundRequest(confirmationCode: string): void {
    this.refundRequests.set(confirmationCode, (this.refundRequests.get(confirmationCode) ?? 0) + 1);
  }

  refundRequestsFor(confirmationCode: string): number {
    return this.refundRequests.get(confirmationCode) ?? 0;
  }

  addRefund(refund: RefundRecord): void {
    this.refunds.set(refund.confirmationCode, refund);
  }

  private ownedBy(merchantId: string, order: SandboxOrder | undefined): SandboxOrder | undefined {
    return order && order.merchantId === merchantId ? order : undefined;
  }
}
