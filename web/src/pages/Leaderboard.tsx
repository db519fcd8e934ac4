import { Link, useSearchParams } from 'react-router';
import { Avatar } from '../components/Avatar';
import { Empty, Loaded } from '../components/Status';
import { TableScroll } from '../components/TableScroll';
import { Tabs } from '../components/Tabs';
import { formatCredits, formatNumber, formatSignedCredits, pnlClass } from '../lib/format';
import { useApi, useDocumentTitle } from '../lib/hooks';

const BOARDS = [
  {
    key: 'profit',
    label: 'Profit',
    format: formatSignedCredits,
    about: 'Realized profit: what sales and settlements brought in, less what the shares cost.',
    empty: 'Nobody has sold or been paid for shares yet: profit counts once a position is sold or settles.',
  },
  {
    key: 'volume',
    label: 'Volume',
    format: formatCredits,
    about: 'Everything traded: shares times price, every trade.',
    empty: 'No one has traded yet.',
  },
  {
    key: 'predictions',
    label: 'Correct predictions',
    // Four tabs side by side fit a phone's width only with short names.
    tab: 'Predictions',
    format: formatNumber,
    about: 'Positions on the winning side of a settled market.',
    empty: 'No market has settled with a winner holding shares yet.',
  },
  {
    key: 'trending',
    label: 'Trending',
    format: formatNumber,
    about: 'Who is active now: trades and profit over the last 7 days.',
    empty: 'Nobody has traded in the last 7 days.',
  },
] as const;
type Board = (typeof BOARDS)[number]['key'];

function Trending() {
  const trending = useApi('/api/trending-users', { params: { query: { limit: 20 } } });
  return (
    <Loaded data={trending.data} error={trending.error} reload={trending.reload}>
      {({ data }) =>
        data.length === 0 ? (
          <Empty>Nobody has traded in the last 7 days.</Empty>
        ) : (
          <TableScroll label="Trending traders table">
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">Rank</th>
                  <th scope="col">Trader</th>
                  <th scope="col">Trades</th>
                  <th scope="col">Profit (7 days)</th>
                </tr>
              </thead>
              <tbody>
                {data.map((row) => (
                  <tr key={row.userId} data-testid="trending-row">
                    <td>{row.rank}</td>
                    <td>
                      <span className="person">
                        <Avatar url={row.avatarUrl} name={row.username} size={24} />
                        <Link to={`/users/${row.username}`}>{row.displayName ?? row.username}</Link>
                      </span>
                    </td>
                    <td>{formatNumber(row.trades)}</td>
                    <td className={pnlClass(row.profitCents)}>{formatSignedCredits(row.profitCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )
      }
    </Loaded>
  );
}

function Ranking({ board }: { board: Exclude<Board, 'trending'> }) {
  const ranking = useApi('/api/leaderboard', { params: { query: { limit: 50 } } });
  const current = BOARDS.find((item) => item.key === board)!;
  return (
    <Loaded data={ranking.data} error={ranking.error} reload={ranking.reload}>
      {(data) =>
        data[board].length === 0 ? (
          <Empty>{current.empty}</Empty>
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
              {data[board].map((row) => (
                <tr key={row.userId} data-testid="leaderboard-row">
                  <td>{row.rank}</td>
                  <td>
                    <Link to={`/users/${row.username}`}>{row.username}</Link>
                  </td>
                  <td className={board === 'profit' ? pnlClass(row.value) : undefined}>
                    {current.format(row.value)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Loaded>
  );
}

export function LeaderboardPage() {
  useDocumentTitle('Leaderboard');
  const [params, setParams] = useSearchParams();
  const active: Board = BOARDS.find((item) => item.key === params.get('board'))?.key ?? 'profit';
  const current = BOARDS.find((item) => item.key === active)!;
  const choose = (board: Board) => setParams(board === 'profit' ? {} : { board }, { replace: true });
  return (
    <div className="page narrow">
      <h1>Leaderboard</h1>
      <Tabs
        id="leaderboard"
        label="Rank traders by"
        tabs={BOARDS.map((board) => ({ value: board.key, label: 'tab' in board ? board.tab : board.label }))}
        value={active}
        onChange={choose}
        className="card"
      >
        <p className="muted small">{current.about}</p>
        {active === 'trending' ? <Trending /> : <Ranking board={active} />}
      </Tabs>
    </div>
  );
}
