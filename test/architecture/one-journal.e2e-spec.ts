import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const JOURNAL = 'libs/checkout/src/orders/order-journal.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * One journal (docs/flows.md): every order_events and outbox_events row is written by
 * order-journal.ts, whose statements the features use, so a change and its timeline and
 * merchant events are always written together, in one shape.
 */
describe('one journal', () => {
  it('writes every timeline and outbox row: no other source file inserts into them', () => {
    const writers = [...sources(join(ROOT, 'libs')), ...sources(join(ROOT, 'apps'))]
      .filter((file) =>
        /INSERT\s+INTO\s+"?(order_events|outbox_events)\b/i.test(readFileSync(file, 'utf8')),
      )
      .map((file) => relative(ROOT, file));
    expect(writers).toEqual([JOURNAL]);
  });
});
