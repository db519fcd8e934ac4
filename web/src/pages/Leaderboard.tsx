import { useState } from 'react';
import { Link } from 'react-router';
import { Empty, Loaded } from '../components/Status';
import { formatCredits, formatNumber } from '../lib/format';
import { useApi, useDocumentTitle } from '../lib/hooks';

const BOARDS = [
  { key: 'profit', label: 'Profit', format: formatCredits },
  { key: 'volume', label: 'Volume', format: formatCredits },
  { key: 'predictions', label: 'Correct predictions', format: formatNumber },
] as const;

export function LeaderboardPage() {
  useDocumentTitle('Leaderboard');
  const board = useApi('/api/leaderboard', { params: { query: { limit: 50 } } });
  const [active, setActive] = useState<(typeof BOARDS)[number]['key']>('profit');
  const current = BOARDS.find((item) => item.key === active)!;
  return (
    <div className="page narrow">
      <h1>Leaderboard</h1>
      <div className="tabs" role="tablist" aria-label="Rank traders by">
        {BOARDS.map((item) => (
          <button
            key={item.key}
            type="button"
            role="tab"
            id={`tab-${item.key}`}
            aria-selected={active === item.key}
            aria-controls="leaderboard-panel"
            tabIndex={active === item.key ? 0 : -1}
            onClick={() => setActive(item.key)}
            onKeyDown={(event) => {
              const index = BOARDS.findIndex((b) => b.key === active);
              const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
              if (!step) return;
              const next = BOARDS[(index + step + BOARDS.length) % BOARDS.length]!;
              setActive(next.key);
              document.getElementById(`tab-${next.key}`)?.focus();
            }}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div id="leaderboard-panel" role="tabpanel" aria-labelledby={`tab-${active}`} className="card">
        <Loaded data={board.data} error={board.error} reload={board.reload}>
          {(data) =>
            data[active].length === 0 ? (
              <Empty>No one has traded yet.</Empty>
            ) : (
              <table className="data">
                <thead>
                  <tr>
                    <th scope="col">Rank</th>
                    <th scope="col">Trader</th>
                    <th scope="col">{current.label}</th>
                  </tr>
                </thead>
                <tbody>
                  {data[active].map((row) => (
                    <tr key={row.userId}>
                      <td>{row.rank}</td>
                      <td>
                        <Link to={`/users/${row.username}`}>{row.username}</Link>
                      </td>
                      <td>{current.format(row.value)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Loaded>
      </div>
    </div>
  );
}
