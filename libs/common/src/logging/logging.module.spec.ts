import { loggablePath } from './logging.module';

describe('loggablePath', () => {
  it('drops the query string', () => {
    expect(loggablePath('/v1/orders/ORDER-1?x=1')).toBe('/v1/orders/ORDER-1');
  });

  it('hides the secret segment of the IPN URL', () => {
    expect(loggablePath('/v1/ipn/s3cret-path-value?OrderTrackingId=1')).toBe('/v1/ipn/[redacted]');
  });
});
