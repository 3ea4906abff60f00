import { Global, Module } from '@nestjs/common';
import { ApiKeyRegistry } from './api-key-registry';
import { AuditTrail } from './audit-trail';
import { OperatorAccess } from './operator-access';
import { OperatorSessions } from './operator-sessions';

/**
 * Operators for every module of the process: the audit trail, and who a request comes from
 * (scoped keys, console sessions) for the guards of every feature's routes.
 */
@Global()
@Module({
  providers: [AuditTrail, ApiKeyRegistry, OperatorSessions, OperatorAccess],
  exports: [AuditTrail, ApiKeyRegistry, OperatorSessions, OperatorAccess],
})
export class OperatorsModule {}
