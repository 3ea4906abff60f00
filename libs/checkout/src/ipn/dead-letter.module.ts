import { Module } from '@nestjs/common';
import { DeadLetterService } from './dead-letter.service';

/** Lists and replays dead-lettered jobs; imported by the admin feature. */
@Module({ providers: [DeadLetterService], exports: [DeadLetterService] })
export class DeadLetterModule {}
