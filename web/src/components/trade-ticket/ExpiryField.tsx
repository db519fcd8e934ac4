const EXPIRIES = [
  { value: '1', label: '1 hour' },
  { value: '24', label: '1 day' },
  { value: '168', label: '1 week' },
  { value: '720', label: '30 days' },
];

/** How long a GTD limit order waits in the book, in hours. */
export function ExpiryField({
  id,
  expiry,
  onChange,
}: {
  id: string;
  expiry: string;
  onChange: (expiry: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Expires after</label>
      <select id={id} value={expiry} onChange={(event) => onChange(event.target.value)}>
        {EXPIRIES.map((item) => (
          <option key={item.value} value={item.value}>
            {item.label}
          </option>
        ))}
      </select>
    </div>
  );
}
