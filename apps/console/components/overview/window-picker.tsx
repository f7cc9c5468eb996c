import type { ReactNode } from 'react';
import type { StatsWindow } from '../../lib/api/router-types';

const WINDOWS = ['15m', '1h', '6h', '24h'] as const satisfies readonly StatsWindow[];

/** The time window of the charts, as a radio group (arrow keys move between options). */
export function WindowPicker(props: {
  value: StatsWindow;
  onChange: (w: StatsWindow) => void;
}): ReactNode {
  return (
    <fieldset className="segmented">
      <legend className="visually-hidden">Time window</legend>
      {WINDOWS.map((w) => (
        <label key={w} className={w === props.value ? 'segmented__on' : undefined}>
          <input
            type="radio"
            name="window"
            value={w}
            checked={w === props.value}
            onChange={() => props.onChange(w)}
          />
          {w}
        </label>
      ))}
    </fieldset>
  );
}
