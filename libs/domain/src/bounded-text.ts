/**
 * A text within `max` characters, as PostgreSQL's varchar(n) and JSON Schema's maxLength count
 * them (code points): cut between characters, never inside one. The one way every stored or
 * answered text is bounded. Null (or undefined) stays null.
 */
export function cutText(text: string, max: number): string;
export function cutText(text: string | null | undefined, max: number): string | null;
export function cutText(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  // Fewer UTF-16 units than max means fewer characters too: the common case costs nothing.
  if (text.length <= max) return text;
  const characters = Array.from(text);
  return characters.length <= max ? text : characters.slice(0, max).join('');
}
