import { OrderEntity, RefundEntity } from '@app/persistence';
import { RefundView, toRefundView } from '../orders/order-view';

/** The refund as an admin sees it: the shop's view plus the audit fields and its order. */
export interface AdminRefundView extends RefundView {
  order_reference: string | null;
  confirmation_code: string;
  admin_key_name: string;
  resolved_by: string | null;
  resolution_note: string | null;
  updated_at: string;
}

export function toAdminRefundView(
  refund: RefundEntity,
  order: OrderEntity | null = refund.order ?? null,
): AdminRefundView {
  return {
    ...toRefundView(refund),
    order_reference: order?.merchantReference ?? null,
    confirmation_code: refund.confirmationCode,
    admin_key_name: refund.adminKeyName,
    resolved_by: refund.resolvedBy,
    resolution_note: refund.resolutionNote,
    updated_at: refund.updatedAt.toISOString(),
  };
}
