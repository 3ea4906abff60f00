import { offsetMinutes, timeZoneProblem } from './time-zone';

describe('time zones a request names', () => {
  it('takes IANA zones and names the field of any other', () => {
    expect(timeZoneProblem('Africa/Nairobi')).toBeNull();
    expect(timeZoneProblem('UTC')).toBeNull();
    expect(timeZoneProblem('Mars/Olympus')).toEqual({
      field: 'tz',
      reason: 'must be an IANA time zone such as Africa/Nairobi or UTC',
    });
  });

  it('reads a zone offset in minutes, half hours and west of UTC included', () => {
    const at = new Date('2026-01-15T12:00:00Z');
    expect(offsetMinutes('Africa/Nairobi', at)).toBe(180);
    expect(offsetMinutes('UTC', at)).toBe(0);
    expect(offsetMinutes('Asia/Kolkata', at)).toBe(330);
    expect(offsetMinutes('America/St_Johns', at)).toBe(-210);
  });
});
