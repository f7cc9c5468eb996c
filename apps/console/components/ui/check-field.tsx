import type { ReactNode } from 'react';

/** A labelled checkbox of a form (field `name`), the box before its label. */
export function CheckField(props: {
  name: string;
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}): ReactNode {
  return (
    <label className="field field--check">
      <input
        name={props.name}
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChange(e.target.checked)}
        disabled={props.disabled}
      />
      <span>{props.label}</span>
    </label>
  );
}
