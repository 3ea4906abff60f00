import {
  formatGatewayDate,
  GatewayDateError,
  gatewayToday,
  parseEastAfricaDate,
  parseGatewayUtcDate,
  toGatewayCalendarDate,
} from './gateway-dates';

describe('gateway dates', () => {
  it('reads a new IPN registration date: seven fractional digits and Z', () => {
    expect(parseGatewayUtcDate('2024-03-18T15:25:46.2652354Z').toISOString()).toBe(
      '2024-03-18T15:25:46.265Z',
    );
  });

  it('reads a re-read IPN registration date: trimmed digits and no Z is still UTC', () => {
    expect(parseGatewayUtcDate('2024-03-18T15:25:46.2652354Z').getTime()).toBe(
      parseGatewayUtcDate('2024-03-18T15:25:46.2652354').getTime(),
    );
    expect(parseGatewayUtcDate('2024-03-18T15:25:46.26').toISOString()).toBe(
      '2024-03-18T15:25:46.260Z',
    );
    expect(parseGatewayUtcDate('2024-03-18T15:25:46').toISOString()).toBe(
      '2024-03-18T15:25:46.000Z',
    );
  });

  it('reads a status created_date as East Africa Time (UTC+3) whatever the process zone', () => {
    expect(parseEastAfricaDate('2024-03-18T18:25:46.75').toISOString()).toBe(
      '2024-03-18T15:25:46.750Z',
    );
    expect(parseEastAfricaDate('2024-01-01T01:00:00.1234567').toISOString()).toBe(
      '2023-12-31T22:00:00.123Z',
    );
    expect(parseEastAfricaDate('2024-03-18T18:25:46.7').toISOString()).toBe(
      '2024-03-18T15:25:46.700Z',
    );
  });

  it('honours an explicit designator if the gateway ever sends one', () => {
    expect(parseEastAfricaDate('2024-03-18T15:25:46Z').toISOString()).toBe(
      '2024-03-18T15:25:46.000Z',
    );
    expect(parseEastAfricaDate('2024-03-18T18:25:46+03:00').toISOString()).toBe(
      '2024-03-18T15:25:46.000Z',
    );
  });

  it('refuses anything else', () => {
    for (const bad of ['', '18-03-2024', '2024-03-18', '2024-02-30T10:00:00', 'x', 12, null]) {
      expect(() => parseEastAfricaDate(bad)).toThrow(GatewayDateError);
    }
    expect(() => parseGatewayUtcDate('2024-03-18T15:25:46.12345678Z')).toThrow(GatewayDateError);
  });

  it('formats subscription dates as dd-MM-yyyy on the East Africa calendar', () => {
    expect(formatGatewayDate(toGatewayCalendarDate('2025-07-01')!)).toBe('01-07-2025');
    // 22:30 UTC on 31 Dec is already 1 Jan in Nairobi.
    expect(formatGatewayDate(toGatewayCalendarDate(new Date('2024-12-31T22:30:00Z'))!)).toBe(
      '01-01-2025',
    );
    expect(formatGatewayDate(toGatewayCalendarDate('2024-12-31T20:30:00Z')!)).toBe('31-12-2024');
    expect(toGatewayCalendarDate('2025-02-30')).toBeNull();
    expect(toGatewayCalendarDate('01-07-2025')).toBeNull();
    expect(toGatewayCalendarDate(new Date('nope'))).toBeNull();
    expect(gatewayToday(new Date('2024-03-18T21:00:00Z'))).toEqual({
      year: 2024,
      month: 3,
      day: 19,
    });
  });
});
