import { Link } from 'react-router';
import { useDocumentTitle } from '../lib/hooks';

export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <div className="page narrow">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Browse the markets</Link> instead.
      </p>
    </div>
  );
}
