import { MigrationInterface } from 'typeorm';
import { Init1763800000000 } from './1763800000000-Init';
import { PaymentsSchema1763800100000 } from './1763800100000-PaymentsSchema';
import { ReconciliationReports1795380869388 } from './1795380869388-ReconciliationReports';
import { RefundRetryAfterRejection1795382796715 } from './1795382796715-RefundRetryAfterRejection';
import { InboxCoverIndex1795392808251 } from './1795392808251-InboxCoverIndex';
import { CoordinationTables1795514719206 } from './1795514719206-CoordinationTables';
import { InboxTraceParent1795520000000 } from './1795520000000-InboxTraceParent';
import { WebhookEndpoints1795578175485 } from './1795578175485-WebhookEndpoints';
import { RateLimitWindows1795590000000 } from './1795590000000-RateLimitWindows';
import { PaymentAttempts1795601015231 } from './1795601015231-PaymentAttempts';
import { DoublePaymentRefunds1795602493786 } from './1795602493786-DoublePaymentRefunds';
import { BoundedReads1795700000000 } from './1795700000000-BoundedReads';
import { MoneyMovementIndexes1795800000000 } from './1795800000000-MoneyMovementIndexes';
import { ActivityTotals1795900000000 } from './1795900000000-ActivityTotals';
import { AuditTrail1796000000000 } from './1796000000000-AuditTrail';
import { OperatorsAccess1796100000000 } from './1796100000000-OperatorsAccess';
import { GatewayAccounts1796200000000 } from './1796200000000-GatewayAccounts';
import { UnmatchedPayments1796310000000 } from './1796310000000-UnmatchedPayments';
import { PaymentLinks1796400000000 } from './1796400000000-PaymentLinks';
import { LongerConfirmationCodes1796500000000 } from './1796500000000-LongerConfirmationCodes';

/** Every migration, oldest first. A new migration is added here as well as in this folder. */
export const ALL_MIGRATIONS: (new () => MigrationInterface)[] = [
  Init1763800000000,
  PaymentsSchema1763800100000,
  ReconciliationReports1795380869388,
  RefundRetryAfterRejection1795382796715,
  InboxCoverIndex1795392808251,
  CoordinationTables1795514719206,
  InboxTraceParent1795520000000,
  WebhookEndpoints1795578175485,
  RateLimitWindows1795590000000,
  PaymentAttempts1795601015231,
  DoublePaymentRefunds1795602493786,
  BoundedReads1795700000000,
  MoneyMovementIndexes1795800000000,
  ActivityTotals1795900000000,
  AuditTrail1796000000000,
  OperatorsAccess1796100000000,
  GatewayAccounts1796200000000,
  UnmatchedPayments1796310000000,
  PaymentLinks1796400000000,
  LongerConfirmationCodes1796500000000,
];
