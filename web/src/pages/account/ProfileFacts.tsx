import { Link } from 'react-router';
import type { Me } from '../../api/types';
import { formatCredits, formatDay } from '../../lib/format';

/** Who the trader is and what they hold in cash. */
export function ProfileFacts({ me }: { me: Me }) {
  return (
    <dl className="facts">
      <div>
        <dt>Username</dt>
        <dd>
          <Link to={`/users/${me.username}`}>{me.username}</Link>
        </dd>
      </div>
      <div>
        <dt>Email</dt>
        <dd>{me.email}</dd>
      </div>
      <div>
        <dt>Cash</dt>
        <dd>{formatCredits(me.balance.cashCents)}</dd>
      </div>
      <div>
        <dt>Held for orders</dt>
        <dd>{formatCredits(me.balance.reservedCents)}</dd>
      </div>
      <div>
        <dt>Member since</dt>
        <dd>{formatDay(me.createdAt)}</dd>
      </div>
    </dl>
  );
}
