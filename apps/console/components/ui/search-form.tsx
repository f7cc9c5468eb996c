import type { FormEvent, InputHTMLAttributes, ReactNode } from 'react';

/**
 * A search bar: one labelled input that takes the row's width, and its submit button. `onSubmit`
 * runs with the browser's default (a page load) prevented.
 */
export function SearchForm(props: {
  label: string;
  /** The input's attributes besides its value: name, type, placeholder, required, … */
  input: InputHTMLAttributes<HTMLInputElement>;
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  /** The button: its text, whether it is the page's main action, whether it is disabled. */
  submit: { label: string; primary?: boolean; disabled?: boolean };
}): ReactNode {
  const { submit } = props;
  const send = (e: FormEvent): void => {
    e.preventDefault();
    props.onSubmit();
  };
  return (
    <form className="form form--row panel" role="search" onSubmit={send}>
      <label className="field field--grow">
        <span>{props.label}</span>
        <input
          {...props.input}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
        />
      </label>
      <button
        type="submit"
        className={submit.primary ? 'button button--primary' : 'button'}
        disabled={submit.disabled}
      >
        {submit.label}
      </button>
    </form>
  );
}
