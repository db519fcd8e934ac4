import type { ApiKey } from '../../api/types';
import { TableScroll } from '../../components/TableScroll';
import { formatCredits, formatDate, formatDay } from '../../lib/format';

/** What holds a key back: its allow-list, expiry and risk limits, one short line each. */
function restrictionsOf(key: ApiKey): string[] {
  const lines: string[] = [];
  if (key.allowedCidrs && key.allowedCidrs.length > 0) lines.push(`From ${key.allowedCidrs.join(', ')}`);
  if (key.expiresAt) lines.push(`Expires ${formatDay(key.expiresAt)}`);
  const limits = key.limits;
  if (limits?.maxOrderCents != null) lines.push(`Order ≤ ${formatCredits(limits.maxOrderCents)}`);
  if (limits?.maxOpenOrders != null) lines.push(`≤ ${limits.maxOpenOrders} open orders`);
  if (limits?.maxPositionShares != null) lines.push(`≤ ${limits.maxPositionShares} shares a side`);
  if (limits?.maxDailyLossCents != null) lines.push(`Loss ≤ ${formatCredits(limits.maxDailyLossCents)}/day`);
  return lines;
}

/** The account's keys: name and prefix, what each may do and what holds it back, when it was last used. */
export function ApiKeysTable({
  keys,
  revoking,
  onRevoke,
  onEdit,
}: {
  keys: ApiKey[];
  revoking: boolean;
  onRevoke: (key: ApiKey) => void;
  onEdit: (key: ApiKey) => void;
}) {
  return (
    <TableScroll label="API keys table">
      <table className="data" aria-label="Your API keys">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">May</th>
            <th scope="col">Restrictions</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const restrictions = restrictionsOf(key);
            return (
              <tr key={key.id} data-testid="api-key-row">
                <td>
                  {key.name}
                  <div>
                    <code>{key.prefix}…</code>
                  </div>
                  <div className="muted small">made {formatDay(key.createdAt)}</div>
                </td>
                <td>
                  <div className="key-facts">
                    {key.scopes.map((scope) => (
                      <span key={scope} className="tag">
                        {scope}
                      </span>
                    ))}
                  </div>
                </td>
                <td className="small">
                  {restrictions.length === 0 ? (
                    <span className="muted">None</span>
                  ) : (
                    restrictions.map((line) => <div key={line}>{line}</div>)
                  )}
                </td>
                <td>
                  {key.lastUsedAt ? formatDate(key.lastUsedAt) : 'Never'}
                  {key.lastUsedFrom ? <div className="muted small">from {key.lastUsedFrom}</div> : null}
                </td>
                <td>
                  <div className="key-facts">
                    <button type="button" className="button small ghost" onClick={() => onEdit(key)}>
                      Edit<span className="visually-hidden"> {key.name}</span>
                    </button>
                    <button
                      type="button"
                      className="button small ghost danger"
                      disabled={revoking}
                      onClick={() => onRevoke(key)}
                    >
                      Revoke<span className="visually-hidden"> {key.name}</span>
                    </button>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
