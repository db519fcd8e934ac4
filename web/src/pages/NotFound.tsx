import { Link } from 'react-router';
import { useDocumentTitle } from '../lib/hooks';

const WHAT = {
  page: { title: 'Page not found', text: 'There is nothing at this address.' },
  market: {
    title: 'Market not found',
    text: 'No market has this address: it may have been renamed or removed.',
  },
  user: { title: 'Trader not found', text: 'No trader has this username.' },
} as const;

/** A missing page, market or trader, with the way back: never a "try again" that cannot succeed. */
export function NotFoundPage({ what = 'page' }: { what?: keyof typeof WHAT }) {
  const { title, text } = WHAT[what];
  useDocumentTitle(title);
  return (
    <div className="page narrow not-found">
      <h1>{title}</h1>
      <p>{text}</p>
      <p className="actions">
        <Link className="button" to="/">
          Browse the markets
        </Link>
        {what === 'user' ? <Link to="/leaderboard">See the leaderboard</Link> : null}
      </p>
    </div>
  );
}
