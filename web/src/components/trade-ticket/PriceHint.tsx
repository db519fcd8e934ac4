import type { Kind } from './order-draft';

/** How the order type uses the price. */
export function PriceHint({ id, kind }: { id: string; kind: Kind }) {
  return (
    <p id={id} className="muted small">
      {kind === 'market'
        ? 'Fills now at the best prices available up to this limit; anything left is cancelled.'
        : 'Fills at this price or better.'}
    </p>
  );
}
