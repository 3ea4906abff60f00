import { Module } from '@nestjs/common';
import { OperationalRecordsPruner } from './operational-records-pruner';

/** Retention's worker side: the scheduled pass that removes lapsed operational records. */
@Module({
  providers: [OperationalRecordsPruner],
})
export class RetentionWorkerModule {}
