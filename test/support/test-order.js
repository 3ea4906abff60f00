/**
 * The order a test run takes its suites in: Jest's own (suites that failed last time first, then
 * the slowest known, then the largest files), or that order reversed with TEST_ORDER=reverse.
 * .ci/run gives its second pass the reversed order: the two passes run side by side on two
 * cores, and in the same order the suites that mostly wait (on a timeout, a poll interval, a
 * slow lookup) met their twin, leaving both cores idle at once; reversed, one pass's waits fall
 * beside the other's work.
 */
const Sequencer = require('@jest/test-sequencer').default;

class TestOrder extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (process.env.TEST_ORDER === undefined || process.env.TEST_ORDER === '') return sorted;
    if (process.env.TEST_ORDER !== 'reverse') {
      throw new Error(`TEST_ORDER must be "reverse" or unset, not "${process.env.TEST_ORDER}"`);
    }
    return Promise.resolve(sorted).then((order) => [...order].reverse());
  }
}

module.exports = TestOrder;
