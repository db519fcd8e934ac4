import type { RefObject } from 'react';

/** The conversion in one sentence, to confirm or change before it is made. */
export function ConversionReview({
  id,
  give,
  get,
  kindLabel,
  confirmButton,
  pending,
  onConfirm,
  onChange,
}: {
  id: string;
  give: string;
  get: string;
  kindLabel: string;
  confirmButton: RefObject<HTMLButtonElement | null>;
  pending: boolean;
  onConfirm: () => void;
  onChange: () => void;
}) {
  return (
    <section className="review" aria-labelledby={id}>
      <h3 id={id}>Review the conversion</h3>
      <p data-testid="conversion-review">
        You give {give} and get {get}. It cannot be undone, though another conversion can turn it back.
      </p>
      <div className="actions">
        <button ref={confirmButton} type="button" className="button" onClick={onConfirm} disabled={pending}>
          Confirm {kindLabel.toLowerCase()}
        </button>
        <button type="button" className="link-button" onClick={onChange}>
          Change it
        </button>
      </div>
    </section>
  );
}
