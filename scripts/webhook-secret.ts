import { randomBytes } from 'node:crypto';
import { webhookSecretFrom } from '@app/domain';

/** Prints a new Standard Webhooks signing secret for ORDER_WEBHOOK_SECRET (32 random bytes). */
process.stdout.write(`${webhookSecretFrom(randomBytes(32))}\n`);
