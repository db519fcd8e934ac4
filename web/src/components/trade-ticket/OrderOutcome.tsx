import { ErrorMessage } from '../Status';

/** What came of the last order: the error, or what filled and what waits. */
export function OrderOutcome({ error, result }: { error: unknown; result: string | null }) {
  if (error) return <ErrorMessage error={error} />;
  if (!result) return null;
  return (
    <p className="success" role="status">
      {result}
    </p>
  );
}
