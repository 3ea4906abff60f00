/**
 * Runs in every e2e test file: a test that fails is run once more, its first failure printed.
 * CI runs two passes side by side on two cores, where a timing bound is missed now and then; a
 * test that fails twice still fails the run, and .ci/run lists every test that needed its second
 * run, so an intermittent failure stays in sight (one such was a real race: a webhook POSTed
 * twice to an endpoint that had answered 410).
 */
jest.retryTimes(1, { logErrorsBeforeRetry: true });
