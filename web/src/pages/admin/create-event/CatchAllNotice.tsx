/** An exclusive event must cover every outcome: without a catch-all option, a way to add one. */
export function CatchAllNotice({ onAdd }: { onAdd: () => void }) {
  return (
    <div className="notice" data-testid="catch-all">
      <p>
        Exactly one option must win whatever happens. Unless the options cover every outcome, add a catch-all
        such as “Any other team”.
      </p>
      <button type="button" className="button small" onClick={onAdd}>
        Add a catch-all option “Any other …”
      </button>
    </div>
  );
}
