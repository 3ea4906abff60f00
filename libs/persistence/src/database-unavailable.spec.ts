import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const failedQuery = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection inside a query', failedQuery(withCode('ECONNRESET'))],
    ['the server starting up (57P03)', failedQuery(withCode('57P03'))],
    ['an administrator shutdown (57P01)', failedQuery(withCode('57P01'))],
    ['too many connections (53300)', withCode('53300')],
    ['a connection failure (08006)', failedQuery(withCode('08006'))],
    [
      'a connection ended under a query',
      failedQuery(new Error('Connection terminated unexpectedly')),
    ],
    ['the pool waiting too long', new Error('timeout exceeded when trying to connect')],
  ])('recognises %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', failedQuery(withCode('23505'))],
    ['a syntax error (42601)', failedQuery(withCode('42601'))],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['a non-error', 'ECONNREFUSED'],
  ])('leaves %s alone', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
