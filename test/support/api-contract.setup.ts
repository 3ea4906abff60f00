import { contractFindings } from './api-contract';

/** Runs in every e2e test file: an answer of this file's api that the document does not describe
 * fails the file, naming the operation, the status and the drift (see api-contract.ts). */
afterAll(async () => {
  expect(await contractFindings()).toEqual([]);
});
