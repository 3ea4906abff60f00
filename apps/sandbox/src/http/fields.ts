import { DecimalLiteral } from './exact-json';

/** A string field as ASP.NET binds it: strings as they are, numbers by their text. */
export function stringField(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (typeof value === 'string') return value;
  if (value instanceof DecimalLiteral) return value.text;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return undefined;
}

/** A required string: absent, null and blank all count as missing. */
export function presentString(fields: Record<string, unknown>, name: string): string | undefined {
  const value = stringField(fields, name);
  return value === undefined || value.trim() === '' ? undefined : value;
}

export function objectField(
  fields: Record<string, unknown>,
  name: string,
): Record<string, unknown> | undefined {
  const value = fields[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The exact decimal text of a number (or numeric string) field. */
export function decimalField(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (value instanceof DecimalLiteral) return value.text;
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return undefined;
}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
