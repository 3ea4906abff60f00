import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiRefusal } from './admin-api';
import { refusalText } from './format';

/** What the page says of a failed call: the API's code and message, or what went wrong. */
export const problemOf = (error: unknown): string =>
  error instanceof ApiRefusal ? refusalText(error) : String(error);

/**
 * Whether a refusal says the key or the session is no longer good (401): the console signs out.
 * A permission refused (403) is shown like any refusal: the operator stays signed in.
 */
export const isSignedOut = (error: unknown): boolean =>
  error instanceof ApiRefusal && error.status === 401;

/** Where one call of the API stands: the page shows each state (loading, failed, ready). */
export type Answer<T> =
  { state: 'loading' } | { state: 'failed'; problem: string } | { state: 'ready'; data: T };

/**
 * Calls `load` whenever `inputs` change and follows its answer; a key or session refused (401)
 * signs the operator out rather than showing pages of refusals. A stale answer never overwrites
 * a newer one.
 */
export function useAnswer<T>(
  load: () => Promise<T>,
  inputs: unknown[],
  onRefused: () => void,
): Answer<T> {
  const [answer, setAnswer] = useState<Answer<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    setAnswer({ state: 'loading' });
    load().then(
      (data) => current && setAnswer({ state: 'ready', data }),
      (error: unknown) => {
        if (!current) return;
        if (isSignedOut(error)) {
          onRefused();
          return;
        }
        setAnswer({
          state: 'failed',
          problem: problemOf(error),
        });
      },
    );
    return () => {
      current = false;
    };
  }, inputs);
  return answer;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Problem({ text, id }: { text: string; id?: string }) {
  return (
    <p id={id} class="problem" role="alert">
      {text}
    </p>
  );
}

/** What an action did, as the page says it. */
export function Said({ text, id = 'said' }: { text: string; id?: string }) {
  return (
    <p id={id} class="said" role="status">
      {text}
    </p>
  );
}

/**
 * A page's actions, one at a time (a double click does it once): each says what it did (its
 * text, or nothing), or the problem; `after` follows each success (reading the page again).
 */
export function useActs(after: () => void = () => undefined) {
  const running = useRef(false);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  function act(work: () => Promise<string | null>) {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setSaid(null);
    setProblem(null);
    work()
      .then(
        (done) => {
          setSaid(done);
          after();
        },
        (error: unknown) => setProblem(problemOf(error)),
      )
      .finally(() => {
        running.current = false;
        setBusy(false);
      });
  }
  return { act, busy, said, setSaid, problem, setProblem };
}

/** A cursor list as a page shows it (what useCursorList returns). */
export interface CursorList<T> {
  first: Answer<unknown>;
  items: T[];
  cursor: string | null;
  loadMore: () => Promise<void>;
  moreProblem: string | null;
}

/** A cursor list: its first page follows `inputs`; `more()` appends the next one. */
export function useCursorList<P extends { items: unknown[]; next_cursor: string | null }>(
  load: (cursor?: string) => Promise<P>,
  inputs: unknown[],
  onRefused: () => void,
) {
  const first = useAnswer(() => load(), inputs, onRefused);
  const [more, setMore] = useState<{
    items: P['items'];
    cursor: string | null;
    of: unknown;
  } | null>(null);
  const [moreProblem, setMoreProblem] = useState<string | null>(null);
  // Pages read under other inputs are dropped when the first page is read again.
  const current = more && first.state === 'ready' && more.of === first.data ? more : null;
  const items: P['items'] =
    first.state === 'ready' ? [...first.data.items, ...(current?.items ?? [])] : [];
  const cursor =
    first.state === 'ready' ? (current ? current.cursor : first.data.next_cursor) : null;
  async function loadMore() {
    if (!cursor || first.state !== 'ready') return;
    setMoreProblem(null);
    try {
      const page = await load(cursor);
      setMore({
        items: [...(current?.items ?? []), ...page.items],
        cursor: page.next_cursor,
        of: first.data,
      });
    } catch (error) {
      // A refused key or session signs out here too, as on the first page.
      if (isSignedOut(error)) {
        onRefused();
        return;
      }
      setMoreProblem(problemOf(error));
    }
  }
  return { first, items, cursor, loadMore, moreProblem };
}
