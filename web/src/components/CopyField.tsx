import { useId, useRef, useState } from 'react';

/** A read-only value with a copy button; falls back to selecting the text where the clipboard is unavailable. */
export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C on a Mac) to copy.');
    }
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-field">
        <input
          id={id}
          ref={input}
          readOnly
          value={value}
          data-testid={testId}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" className="button small" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="muted small" role="status">
        {copied}
      </p>
    </div>
  );
}
