import { Link } from 'react-router';

/** In place of the order button for a visitor: log in or sign up, and come back to this market. */
export function SignInToTrade({ slug }: { slug: string }) {
  return (
    <p className="notice">
      <Link to={`/login?next=/markets/${slug}`}>Log in</Link> or{' '}
      <Link to={`/register?next=/markets/${slug}`}>sign up</Link> to trade.
    </p>
  );
}
