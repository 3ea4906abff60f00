import type { ComponentChildren } from 'preact';
import { label as words } from './format';

/** As the server bounds a refund's reason, or a decline's. */
export const REASON_MAX_LENGTH = 500;

/** What the console's text fields set besides their value. */
interface InputProps {
  type?: 'text' | 'search' | 'date' | 'datetime-local' | 'number' | 'url';
  required?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number;
  placeholder?: string;
  inputMode?: 'decimal';
}

/** A labelled text field (any input type but a checkbox), following what is typed. */
export function Field({
  id,
  label,
  value,
  onValue,
  ...input
}: InputProps & {
  id: string;
  label: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
}) {
  // Preact types an input by its type, one union member each: these attributes fit every one.
  const attributes: object = input;
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(event) => onValue((event.target as HTMLInputElement).value)}
        {...attributes}
      />
    </>
  );
}

interface ChoiceProps<V extends string> {
  id: string;
  label: ComponentChildren;
  value: V | '';
  options: readonly V[];
  any?: boolean;
  onValue: (value: V | '') => void;
}

/** A labelled choice among statuses, written for people; `any` offers "any" as the empty choice. */
export function Choice<V extends string>({
  id,
  label,
  value,
  options,
  any = false,
  onValue,
}: ChoiceProps<V>) {
  return (
    <>
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onValue((event.target as HTMLSelectElement).value as V | '')}
      >
        {any && <option value="">any</option>}
        {options.map((option) => (
          <option value={option}>{words(option)}</option>
        ))}
      </select>
    </>
  );
}

/** A status filter: a form of one choice, which needs no submit. */
export function StatusFilter<V extends string>(props: ChoiceProps<V>) {
  return (
    <form class="filters" onSubmit={(event) => event.preventDefault()}>
      <Choice {...props} />
    </form>
  );
}
