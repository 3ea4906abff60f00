import { Module } from '@nestjs/common';
import { OperatorsModule } from '../operators.module';
import { AuditController } from './audit.controller';
import { AuditListService } from './audit-list.service';

/** The audit trail's reads (api only); the trail itself is global (OperatorsModule). */
@Module({
  imports: [OperatorsModule],
  controllers: [AuditController],
  providers: [AuditListService],
})
export class AuditModule {}
