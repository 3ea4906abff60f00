/**
 * Small typed readers for environment variables. Each one records a problem instead of
 * throwing, so that a bad start names every wrong variable at once.
 */
export type Env = Record<string, string | undefined>;

export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback?: string): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return '';
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer between ${min} and ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(value.toLowerCase())) return false;
    this.problems.push(`${name} must be true/false or 1/0 (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  url(name: string, protocols: readonly string[], fallback?: string): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return '';
    }
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      this.problems.push(`${name} must be a URL (${protocols.join(' or ')})`);
      return value;
    }
    if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
      this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
    }
    return value.replace(/\/+$/, '');
  }

  /**
   * Redis nodes as `host:port` or `redis[s]://[user:password@]host:port`, comma-separated; each
   * answered as a URL (`redis://host:port` for the short form). Empty when unset.
   */
  redisNodes(name: string): string[] {
    return this.list(name, []).map((item) => {
      const text = /^[a-z]+:\/\//i.test(item) ? item : `redis://${item}`;
      let parsed: URL | undefined;
      try {
        parsed = new URL(text);
      } catch {
        parsed = undefined;
      }
      if (
        !parsed ||
        !['redis:', 'rediss:'].includes(parsed.protocol) ||
        !parsed.hostname ||
        !/^\d+$/.test(parsed.port)
      ) {
        this.problems.push(
          `${name} must list host:port or redis://host:port nodes (got "${item}")`,
        );
      }
      return text.replace(/\/+$/, '');
    });
  }

  /** Durations such as `500ms`, `5s`, `30m`, `2h`, `5d`, in milliseconds. */
  durations(name: string, fallback: string[]): number[] {
    return this.list(name, fallback).map((item) => {
      const ms = parseDuration(item);
      if (ms === null) {
        this.problems.push(
          `${name} must list durations such as 500ms, 5s, 30m, 2h, 5d (got "${item}")`,
        );
        return 0;
      }
      return ms;
    });
  }

  duration(name: string, fallback: string): number {
    const value = this.raw(name) ?? fallback;
    const ms = parseDuration(value);
    if (ms === null) {
      this.problems.push(
        `${name} must be a duration such as 500ms, 5s, 30m, 2h, 5d (got "${value}")`,
      );
      return parseDuration(fallback) ?? 0;
    }
    return ms;
  }

  list(name: string, fallback: string[]): string[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
    if (items.length === 0) this.problems.push(`${name} must list at least one value`);
    return items;
  }
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `<whole number><ms|s|m|h|d>` in milliseconds, or null. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigValidationError';
  }
}
