import type { MarketDetail } from '../../api/types';
import { StatusTag } from '../../components/MarketCard';
import { WatchButton } from '../../components/WatchButton';
import { formatDate } from '../../lib/format';

/** The market's title, status, closing time, resolution source and description, and a Watch button. */
export function MarketHeader({
  data,
  status,
  signedIn,
}: {
  data: MarketDetail;
  status: string;
  signedIn: boolean;
}) {
  return (
    <header className="market-head">
      <h1>{data.title}</h1>
      <p className="market-meta">
        <StatusTag status={status === 'closing' ? 'closed' : status} />
        <span>
          {status === 'open' ? 'Closes' : 'Closed'} {formatDate(data.closedAt ?? data.closesAt)}
        </span>
        {data.resolutionSource ? <span>Resolves by: {data.resolutionSource}</span> : null}
        {signedIn ? <WatchButton eventId={data.id} title={data.title} /> : null}
      </p>
      {data.description ? <p className="description">{data.description}</p> : null}
    </header>
  );
}
