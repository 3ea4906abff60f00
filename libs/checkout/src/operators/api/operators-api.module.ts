import { Module } from '@nestjs/common';
import { OperatorsModule } from '../operators.module';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuditController } from './audit.controller';
import { AuditListService } from './audit-list.service';
import { IdentityProvider } from './identity-provider';
import { SessionController } from './session.controller';
import { SignInController } from './sign-in.controller';

/**
 * The operators' routes (api only): sign-in, who am I, scoped API keys, the audit trail's reads.
 */
@Module({
  imports: [OperatorsModule],
  controllers: [AuditController, ApiKeysController, SessionController, SignInController],
  providers: [AuditListService, ApiKeysService, IdentityProvider],
})
export class OperatorsApiModule {}
