import type { MarketDetail } from '../../../api/types';
import { formatChances, formatCredits, formatPrice } from '../../../lib/format';

/** The event's options: price or chance, volume, house liquidity (each option's own maker) and outcome. */
export function OptionsSummary({ event }: { event: MarketDetail }) {
  const { exclusive, options } = event;
  return (
    <div className="table-wrap">
      <table className="data" aria-label="Options">
        <thead>
          <tr>
            <th scope="col">Option</th>
            <th scope="col">{exclusive ? 'Chance' : 'YES price'}</th>
            <th scope="col">Volume</th>
            {exclusive ? null : <th scope="col">House liquidity</th>}
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {options.map((option, index) => (
            <tr key={option.id}>
              <td>{option.label}</td>
              <td>
                {exclusive
                  ? formatChances(options.map((o) => o.probabilityBps))[index]
                  : formatPrice(option.yesPriceCents)}
              </td>
              <td>{formatCredits(option.volumeCents)}</td>
              {exclusive ? null : <td>{formatCredits(option.houseLiquidityCents)}</td>}
              <td>{option.resolution ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
