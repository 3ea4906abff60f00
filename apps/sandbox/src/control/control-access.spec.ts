import { controlRefused, isLoopback } from './control-access';

describe('sandbox control API access', () => {
  it('knows loopback addresses in every spelling', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopback(address)).toBe(true);
    }
    for (const address of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', 'fe80::1', undefined]) {
      expect(isLoopback(address)).toBe(false);
    }
  });

  it('refuses the control API on another interface unless made public', () => {
    expect(controlRefused('/__sandbox/orders/x', '10.0.0.5', false)).toBe(true);
    expect(controlRefused('/__SANDBOX/requests', '192.168.1.2', false)).toBe(true);
    expect(controlRefused('/__sandbox/orders/x', '10.0.0.5', true)).toBe(false);
    expect(controlRefused('/__sandbox/orders/x', '127.0.0.1', false)).toBe(false);
  });

  it('leaves the gateway endpoints on every interface', () => {
    expect(controlRefused('/pesapalv3/api/Auth/RequestToken', '10.0.0.5', false)).toBe(false);
    expect(controlRefused('/__sandboxed', '10.0.0.5', false)).toBe(false);
  });
});
