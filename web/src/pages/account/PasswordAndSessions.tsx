import { invalidate } from '../../lib/query';
import { ChangePassword } from './ChangePassword';
import { Sessions } from './Sessions';

/** The password, and the browsers and clients signed in with it. */
export function PasswordAndSessions() {
  return (
    <section className="card" aria-labelledby="security-heading">
      <h2 id="security-heading">Password and sessions</h2>
      <ChangePassword onChanged={() => invalidate('/api/me/sessions')} />
      <h3>Signed-in sessions</h3>
      <Sessions />
    </section>
  );
}
