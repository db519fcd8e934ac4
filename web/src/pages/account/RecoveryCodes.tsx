/** Recovery codes just made: shown once, to be written down or saved before going on. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <section className="once" aria-label="Recovery codes">
      <p>
        <strong>Save these recovery codes now.</strong> Each signs you in once if you lose your phone or
        passkey. They will not be shown again.
      </p>
      <ul className="recovery-codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" className="button ghost small" onClick={onDone}>
        I have saved them
      </button>
    </section>
  );
}
