import { Module } from '@nestjs/common';

/** The gateway stand-in; its contract endpoints arrive with the sandbox issue. */
@Module({})
export class SandboxModule {}
