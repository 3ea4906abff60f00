/**
 * `npm run docs:config`: writes docs/configuration.md from what the config loaders read and the
 * notes in libs/config/src/variables.ts (a test fails when the page differs from them).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigurationReference } from '@app/config/configuration-reference';

const target = join(__dirname, '..', 'docs', 'configuration.md');
writeFileSync(target, renderConfigurationReference());
process.stdout.write(`wrote ${target}\n`);
