import { Global, Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail';

/** The audit trail, for every module of the process (the admin guard writes its refusals). */
@Global()
@Module({
  providers: [AuditTrail],
  exports: [AuditTrail],
})
export class OperatorsModule {}
