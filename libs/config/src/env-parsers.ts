/**
 * Small typed readers for environment variables. Each one records a problem instead of
 * throwing, so that a bad start names every wrong variable at once.
 */
export type Env = Record<string, string | undefined>;

/** What a reader was asked for: the configuration reference is made from these. */
export interface VariableRead {
  name: string;
  /** integer, boolean, string, url, list, duration, durations, one of, time zone, redis nodes */
  kind: string;
  /** The built-in default, as text; undefined when there is none (required, or optional). */
  fallback?: string;
  required: boolean;
  /** Bounds of an integer, choices of a "one of", protocols of a URL. */
  min?: number;
  max?: number;
  allowed?: readonly string[];
}

/** Whether `name` is a time zone Intl knows (IANA names, `UTC` included); case as written. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export class EnvReader {
  readonly problems: string[] = [];

  /** `observe` hears of every variable read (in the order read), for the reference. */
  constructor(
    private readonly env: Env,
    private readonly observe?: (read: VariableRead) => void,
  ) {}

  /** Declares a variable read some other way (conditionally, or by hand), for the reference. */
  note(read: Omit<VariableRead, 'required'> & { required?: boolean }): void {
    this.observe?.({ required: false, ...read });
  }

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback?: string): string {
    this.note({ name, kind: 'string', fallback, required: fallback === undefined });
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return '';
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    this.note({ name, kind: 'string' });
    return this.raw(name);
  }

  int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    this.note({ name, kind: 'integer', fallback: String(fallback), min, max });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer between ${min} and ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  bool(name: string, fallback: boolean): boolean {
    this.note({ name, kind: 'boolean', fallback: String(fallback) });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(value.toLowerCase())) return false;
    this.problems.push(`${name} must be true/false or 1/0 (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    this.note({ name, kind: 'one of', fallback, allowed });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  /** An IANA time zone name (`Africa/Nairobi`, `UTC`), as Intl and PostgreSQL know them. */
  timeZone(name: string, fallback: string): string {
    this.note({ name, kind: 'time zone', fallback, required: false });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!isTimeZone(value)) {
      this.problems.push(
        `${name} must be an IANA time zone such as Africa/Nairobi (got "${value}")`,
      );
      return fallback;
    }
    return value;
  }

  url(name: string, protocols: readonly string[], fallback?: string): string {
    this.note({
      name,
      kind: 'url',
      fallback,
      allowed: protocols,
      required: fallback === undefined,
    });
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
    this.note({ name, kind: 'redis nodes' });
    return this.list(name, [], false).map((item) => {
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
    this.note({ name, kind: 'durations', fallback: fallback.join(',') });
    return this.list(name, fallback, false).map((item) => {
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
    this.note({ name, kind: 'duration', fallback });
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

  list(name: string, fallback: string[], noted = true): string[] {
    if (noted) this.note({ name, kind: 'list', fallback: fallback.join(',') || undefined });
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
