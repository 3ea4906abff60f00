import { prettyMessage } from './log-lines';

describe('prettyMessage', () => {
  it('reads a finished request as method, path, status and time', () => {
    const record = {
      msg: 'request completed',
      req: { id: 'req-1', method: 'POST', url: '/pesapalv3/api/Auth/RequestToken' },
      res: { statusCode: 200 },
      responseTime: 2.6,
    };
    expect(prettyMessage(record, 'msg')).toBe('POST /pesapalv3/api/Auth/RequestToken 200 3ms');
  });

  it('reads any other record as its message, a record inside a request too', () => {
    expect(prettyMessage({ msg: 'IPN URL registered', account: 'default' }, 'msg')).toBe(
      'IPN URL registered',
    );
    expect(
      prettyMessage({ msg: 'gateway call', req: { id: 'r', method: 'GET', url: '/x' } }, 'msg'),
    ).toBe('gateway call');
  });
});
