import type { RefObject } from 'react';

export function SharesField({
  id,
  field,
  quantity,
  describedBy,
  onChange,
}: {
  id: string;
  field: RefObject<HTMLInputElement | null>;
  quantity: string;
  /** The line that says how many shares can be sold, when selling. */
  describedBy: string | undefined;
  onChange: (quantity: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Shares</label>
      <input
        ref={field}
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
        required
        value={quantity}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}
