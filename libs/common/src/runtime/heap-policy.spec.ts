import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../../..');

describe('the heap policy', () => {
  it.each(['api', 'worker'])('is set by the %s before any other module loads', (app) => {
    const entry = readFileSync(join(ROOT, `apps/${app}/src/main.ts`), 'utf8');
    const [first] = entry.split('\n').filter((line) => line.startsWith('import '));
    expect(first).toBe("import '@app/common/runtime/heap-policy';");
  });

  it('names a flag this Node knows (V8 would ignore an unknown one without a word)', () => {
    // node refuses an unknown V8 flag on its command line, where setFlagsFromString is silent.
    const source = readFileSync(join(__dirname, 'heap-policy.ts'), 'utf8');
    const flag = /setFlagsFromString\('([^']+)'\)/.exec(source)?.[1];
    expect(flag).toBe('--no-allocation-site-pretenuring');
    expect(() => execFileSync(process.execPath, [flag as string, '-e', '0'])).not.toThrow();
    expect(() =>
      execFileSync(process.execPath, ['--no-such-v8-flag', '-e', '0'], { stdio: 'pipe' }),
    ).toThrow();
  });
});
