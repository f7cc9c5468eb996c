import type { ReactNode } from 'react';

/** A labelled number input of the policy editor; empty means "not set". */
export function NumberField(props: {
  name: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  min: number;
  max?: number;
  /** Whole numbers only (default), or any decimal. */
  decimal?: boolean;
}): ReactNode {
  return (
    <label className="field">
      <span>{props.label}</span>
      <input
        name={props.name}
        type="number"
        step={props.decimal ? 'any' : '1'}
        min={String(props.min)}
        {...(props.max !== undefined ? { max: String(props.max) } : {})}
        inputMode={props.decimal ? 'decimal' : 'numeric'}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        disabled={props.disabled}
      />
    </label>
  );
}

/** The number typed, null when empty, undefined when it is not one in [min, max]. */
export function parseField(
  text: string,
  min: number,
  max: number,
  whole: boolean,
): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  if (!Number.isFinite(n) || n < min || n > max || (whole && !Number.isInteger(n)))
    return undefined;
  return n;
}
