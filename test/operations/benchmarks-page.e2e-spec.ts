import { readFileSync } from 'node:fs';
import { BENCHMARKS_PAGE, renderBenchmarksPage } from '../../bench/report';

describe('docs/benchmarks.md', () => {
  it('is what npm run bench:report makes of the results the benchmarks wrote', () => {
    expect(readFileSync(BENCHMARKS_PAGE, 'utf8')).toBe(renderBenchmarksPage());
  });
});
