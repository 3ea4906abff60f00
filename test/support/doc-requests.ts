import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { closed } from './api-contract';

/**
 * The request bodies the docs show, read from their markdown and checked against openapi.json's
 * requestBody for the same method and path, so that no example drifts from what the api takes.
 *
 * The docs show a request four ways: a curl command with `-d '<json>'`; a fenced block whose
 * first line is the request line (`POST /v1/...`) and the rest its JSON body, or a ```json block
 * right after a line that ends with the request; a code span right after the route's (`POST /v1/...` `{...}`, or in
 * brackets after it), either JSON or a field list (`{amount, reason, confirm_partial?}`); and a
 * table row whose first cell is the route, with the body as the first `{...}` span of the next
 * cell. JSON is validated against the schema, closed as the api's validation is (an unknown
 * property is refused). A field list names each top-level field (`name?` optional; a nested
 * `{...}` and `...` are not read): each must be a property of the body, every required one named,
 * none named optional that is required.
 */
export interface DocRequest {
  file: string;
  line: number;
  method: string;
  /** The path as the docs write it: concrete (`/v1/orders/ORDER-1`) or a template. */
  path: string;
  form: 'curl' | 'request block' | 'code span' | 'table row';
  body: { json: unknown } | { fields: DocField[] } | { notJson: string };
}

export interface DocField {
  name: string;
  optional: boolean;
}

const ROOT = join(__dirname, '..', '..');
const METHODS = 'POST|PUT|PATCH|DELETE';
/** A request line: the method and an api path, alone on its line (backticks allowed)... */
const REQUEST_LINE = new RegExp(`^\\s*\`?(${METHODS})\\s+(/v1/[^\\s\`]*)\`?:?\\s*$`);
/** ...or ending the sentence that introduces a JSON block ("... with `POST /v1/...`:"). */
const ENDS_WITH_REQUEST = new RegExp(`\`?(${METHODS})\\s+(/v1/[^\\s\`]*)\`?:?\\s*$`);

type Schema = Record<string, unknown>;

/** The request examples of one markdown text. */
export function docRequests(file: string, text: string): DocRequest[] {
  const lines = text.split('\n');
  const found: DocRequest[] = [];
  const prose: { text: string; line: number }[] = [];
  let fence: { marker: string; lang: string; line: number; body: string[] } | null = null;
  let lastProse = '';
  for (const [index, raw] of lines.entries()) {
    const opening = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(raw);
    if (fence) {
      if (opening && raw.trim().startsWith(fence.marker) && !opening[2]) {
        found.push(...fencedRequests(file, fence.line, fence.lang, fence.body, lastProse));
        fence = null;
        lastProse = '';
      } else fence.body.push(raw);
      continue;
    }
    if (opening) {
      fence = { marker: opening[1], lang: opening[2].toLowerCase(), line: index + 1, body: [] };
      continue;
    }
    prose.push({ text: raw, line: index + 1 });
    if (raw.trim()) lastProse = raw;
  }
  found.push(...inlineRequests(file, prose));
  return found.sort((a, b) => a.line - b.line);
}

function fencedRequests(
  file: string,
  line: number,
  lang: string,
  body: string[],
  before: string,
): DocRequest[] {
  const text = body.join('\n');
  const requests: DocRequest[] = [];
  // curl commands: -X METHOD (POST when a body is sent without one), the URL's path, -d '...'.
  for (const command of text.split(/\n(?=\s*curl\s)/)) {
    const data = /(?:-d|--data(?:-raw)?)\s+'([^']*)'/.exec(command);
    const url = /https?:\/\/[^\s'"/]+(\/v1\/[^\s'"?]*)/.exec(command);
    if (!/^\s*curl\s/.test(command) || !data || !url) continue;
    const method = /(?:-X|--request)\s+([A-Z]+)/.exec(command)?.[1] ?? 'POST';
    const at = line + text.slice(0, text.indexOf(command)).split('\n').length;
    requests.push({ file, line: at, method, path: url[1], form: 'curl', body: jsonBody(data[1]) });
  }
  // A request line and its JSON body in one block, or a json block right after a request line.
  const first = REQUEST_LINE.exec(body[0] ?? '');
  const previous = ENDS_WITH_REQUEST.exec(before);
  if (first) {
    // The body after the request line and any headers (`Content-Type: application/json`).
    const start = body.findIndex((part, i) => i > 0 && !/^\s*([\w-]+:\s.*)?$/.test(part));
    if (start > 0) requests.push(jsonRequest(file, line + 1, first, body.slice(start).join('\n')));
  } else if (previous && lang === 'json') {
    requests.push(jsonRequest(file, line, previous, text));
  }
  return requests;
}

function jsonRequest(file: string, line: number, request: string[], text: string): DocRequest {
  const [, method, path] = request;
  return { file, line, method, path, form: 'request block', body: jsonBody(text) };
}

function jsonBody(text: string): DocRequest['body'] {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { notJson: text };
  }
}

function inlineRequests(file: string, prose: { text: string; line: number }[]): DocRequest[] {
  // Paragraphs as one line each (a code span may wrap), remembering where each line starts.
  const requests: DocRequest[] = [];
  let paragraph: { text: string; line: number }[] = [];
  const flush = () => {
    if (paragraph.length === 0) return;
    const starts: number[] = [];
    let joined = '';
    for (const part of paragraph) {
      starts.push(joined.length);
      joined += `${part.text.trim()} `;
    }
    const lineAt = (offset: number) =>
      paragraph[starts.filter((start) => start <= offset).length - 1].line;
    // The body's span right after the route's, or in brackets after it ("(optionally `{...}`)").
    const adjacent = new RegExp(
      `\`(${METHODS})\\s+(/v1/[^\`\\s]*)\`\\s*\\(?(?:optionally\\s+)?\`(\\{[^\`]*\\})\``,
      'g',
    );
    for (const match of joined.matchAll(adjacent)) {
      const [, method, path, span] = match;
      requests.push(spanRequest(file, lineAt(match.index), 'code span', method, path, span));
    }
    const row = new RegExp(`\\|\\s*\`(${METHODS})\\s+(/v1/[^\`\\s]*)\`\\s*\\|([^|]*)`, 'g');
    for (const match of joined.matchAll(row)) {
      const span = /`(\{[^`]*\})`/.exec(match[3].split('→')[0]);
      if (span) {
        const at = lineAt(match.index);
        requests.push(spanRequest(file, at, 'table row', match[1], match[2], span[1]));
      }
    }
    paragraph = [];
  };
  for (const part of prose) {
    if (part.text.trim()) paragraph.push(part);
    else flush();
  }
  flush();
  return requests;
}

function spanRequest(
  file: string,
  line: number,
  form: DocRequest['form'],
  method: string,
  path: string,
  span: string,
): DocRequest {
  const body = jsonBody(span);
  return {
    file,
    line,
    method,
    path,
    form,
    body: 'json' in body ? body : { fields: fieldList(span) },
  };
}

/** The top-level fields a `{a, b?, c{...}, d: "x", ...}` list names. */
export function fieldList(span: string): DocField[] {
  const inner = span.trim().slice(1, -1);
  const items: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const char of inner) {
    if (char === '"') quoted = !quoted;
    if (!quoted && (char === '{' || char === '[')) depth += 1;
    if (!quoted && (char === '}' || char === ']')) depth -= 1;
    if (char === ',' && depth === 0 && !quoted) {
      items.push(current);
      current = '';
    } else current += char;
  }
  items.push(current);
  return items
    .map((item) => item.trim())
    .filter((item) => item && !item.startsWith('...'))
    .map((item) => {
      const named = /^"?([A-Za-z_][A-Za-z0-9_]*)"?(\?)?/.exec(item);
      return { name: named?.[1] ?? item, optional: Boolean(named?.[2]) };
    });
}

/** Every request example of the README and docs/*.md. */
export function projectDocRequests(files: string[]): DocRequest[] {
  return files.flatMap((file) => docRequests(file, readFileSync(join(ROOT, file), 'utf8')));
}

/** What openapi.json says of request bodies, and the check of an example against it. */
export class RequestBodyContract {
  private readonly document: {
    paths: Record<string, Record<string, { requestBody?: Schema }>>;
    components: Schema;
  };
  private readonly ajv: Ajv;

  constructor(document: unknown = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'))) {
    this.document = closed(document) as typeof this.document;
    this.ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: this.document.components }, 'openapi.json');
  }

  /** What is wrong with the example (nothing: an empty list). */
  problems(example: DocRequest): string[] {
    const path = this.operationPath(example.method, example.path);
    if (!path) return [`${example.method} ${example.path} is not an operation of openapi.json`];
    const requestBody = this.document.paths[path][example.method.toLowerCase()].requestBody;
    const schema = (requestBody?.content as Record<string, Schema> | undefined)?.[
      'application/json'
    ]?.schema as Schema | undefined;
    if (!schema) return [`${example.method} ${path} takes no JSON body`];
    if ('notJson' in example.body) return [`the body is not JSON: ${example.body.notJson}`];
    if ('json' in example.body) {
      const validate = this.ajv.compile(this.inDocument(schema));
      if (validate(example.body.json)) return [];
      return (validate.errors ?? []).map(
        (error) =>
          `${error.instancePath || '(body)'} ${error.message ?? ''}${
            error.keyword === 'additionalProperties'
              ? `: ${String((error.params as { additionalProperty: string }).additionalProperty)}`
              : ''
          }`,
      );
    }
    const object = this.resolved(schema);
    const properties = Object.keys((object.properties as Schema | undefined) ?? {});
    const required = (object.required as string[] | undefined) ?? [];
    const named = example.body.fields;
    return [
      ...named
        .filter((field) => !properties.includes(field.name))
        .map((field) => `${field.name} is not a field of ${path}'s body`),
      ...named
        .filter((field) => field.optional && required.includes(field.name))
        .map((field) => `${field.name} is required, shown as optional`),
      ...required
        .filter((name) => !named.some((field) => field.name === name))
        .map((name) => `${name} is required and not shown`),
    ];
  }

  /** The document's path for a method and a path as the docs write it (concrete or a template). */
  private operationPath(method: string, written: string): string | undefined {
    const segments = written.replace(/\/$/, '').split('/');
    const candidates = Object.keys(this.document.paths).filter((path) => {
      if (!this.document.paths[path][method.toLowerCase()]) return false;
      const template = path.split('/');
      return (
        template.length === segments.length &&
        template.every(
          (part, i) => part === segments[i] || (part.startsWith('{') && segments[i] !== ''),
        )
      );
    });
    // A literal segment wins over a parameter (/v1/checkouts/mobile-money over /v1/checkouts/{x}).
    const params = (path: string) => (path.match(/\{/g) ?? []).length;
    return candidates.sort((a, b) => params(a) - params(b))[0];
  }

  private inDocument(schema: Schema): Schema {
    return JSON.parse(
      JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'),
    ) as Schema;
  }

  /** The object schema behind $ref and a single allOf. */
  private resolved(schema: Schema): Schema {
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return this.resolved((this.document.components.schemas as Record<string, Schema>)[name]);
    }
    const allOf = schema.allOf as Schema[] | undefined;
    if (allOf?.length === 1 && !schema.properties) return this.resolved(allOf[0]);
    return schema;
  }
}
