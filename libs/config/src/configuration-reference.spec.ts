import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationEntries, renderConfigurationReference } from './configuration-reference';
import { SCRIPT_VARIABLES } from './variables';

const ROOT = join(__dirname, '..', '..', '..');

/** The `NAME=` lines of one section of .env.example (sections start with "# ---- <title>"). */
function envExampleSection(title: string): string[] {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const section = text.split(/^# -+ /m).find((part) => part.startsWith(title)) ?? '';
  return [...section.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
}

describe('the configuration reference has one source: the loaders and their notes', () => {
  const entries = configurationEntries();

  it('every variable a loader reads has notes, and every note a variable read', () => {
    expect(entries.service.length).toBeGreaterThan(50);
    for (const entry of [...entries.service, ...entries.sandbox]) {
      expect([entry.name, entry.notes.meaning.length > 0]).toEqual([entry.name, true]);
    }
  });

  it('docs/configuration.md is what npm run docs:config makes of them', () => {
    expect(readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')).toBe(
      renderConfigurationReference(),
    );
  });

  it('.env.example names the same variables, section by section', () => {
    const service = entries.service.map((e) => e.name);
    expect([...envExampleSection('api and worker')].sort()).toEqual([...service].sort());
    // The sandbox's own; HOST and LOG_* are shared with the api's section.
    expect([...envExampleSection('sandbox gateway')].sort()).toEqual(
      entries.sandbox
        .map((e) => e.name)
        .filter((name) => !service.includes(name))
        .sort(),
    );
    expect([...envExampleSection('npm start and the tests only')].sort()).toEqual(
      Object.keys(SCRIPT_VARIABLES).sort(),
    );
  });

  it('production insists on its secrets and keys', () => {
    const required = entries.service.filter((e) => e.production === 'required').map((e) => e.name);
    expect(required).toEqual(
      expect.arrayContaining([
        'PESAPAL_CONSUMER_KEY',
        'PESAPAL_CONSUMER_SECRET',
        'IPN_PATH_SECRET',
        'STATUS_TOKEN_SECRET',
        'SHOP_API_KEYS',
        'ADMIN_API_KEYS',
      ]),
    );
  });
});
