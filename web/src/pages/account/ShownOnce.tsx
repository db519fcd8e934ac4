import type { ReactNode } from 'react';
import { CopyField } from '../../components/CopyField';

/** A secret the service shows only once, at its creation: to copy now, then dismissed. */
export function ShownOnce({
  label,
  children,
  field,
  value,
  testId,
  onDone,
}: {
  /** The box's accessible name. */
  label: string;
  /** What to do, in bold words. */
  children: ReactNode;
  /** The copy field's label. */
  field: string;
  value: string;
  testId?: string;
  onDone: () => void;
}) {
  return (
    <section className="once" aria-label={label}>
      <p>{children}</p>
      <CopyField label={field} value={value} testId={testId} />
      <button type="button" className="button ghost small" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
