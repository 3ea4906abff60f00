import type { ComponentChildren } from 'preact';

/**
 * A question asked before an act that cannot be undone (with the fields it needs, if any): the
 * operator sends it, or leaves it ("Not now").
 */
export function Review({
  id,
  titleId,
  question,
  children,
  submit,
  submitId,
  busy,
  onSubmit,
  onCancel,
  cancel = 'Not now',
}: {
  id: string;
  titleId: string;
  question: ComponentChildren;
  children?: ComponentChildren;
  submit: string;
  submitId: string;
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
  cancel?: string;
}) {
  return (
    <form
      id={id}
      class="review"
      aria-labelledby={titleId}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <p id={titleId}>{question}</p>
      {children}
      <button type="submit" id={submitId} disabled={busy}>
        {submit}
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        {cancel}
      </button>
    </form>
  );
}
