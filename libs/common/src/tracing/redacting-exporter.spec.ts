import { redactSecretsInText } from './redacting-exporter';

describe('redactSecretsInText', () => {
  it("hides the IPN route's secret segment and a status_token, and nothing else", () => {
    expect(redactSecretsInText('/v1/ipn/ipn_3f9a2b')).toBe('/v1/ipn/[redacted]');
    expect(redactSecretsInText('http://shop.example/v1/ipn/s3cret?OrderTrackingId=abc')).toBe(
      'http://shop.example/v1/ipn/[redacted]?OrderTrackingId=abc',
    );
    expect(redactSecretsInText('/v1/orders/A-1/stream?status_token=pst_abc&x=1')).toBe(
      '/v1/orders/A-1/stream?status_token=[redacted]&x=1',
    );
    expect(redactSecretsInText('/v1/orders/A-1/stream?last_event_id=1&status_token=pst_abc')).toBe(
      '/v1/orders/A-1/stream?last_event_id=1&status_token=[redacted]',
    );
    expect(redactSecretsInText('/v1/orders/A-1?reference=x')).toBe('/v1/orders/A-1?reference=x');
  });
});
