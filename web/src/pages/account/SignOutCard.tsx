import { useNavigate } from 'react-router';
import { useAuth } from '../../auth';
import { ErrorMessage } from '../../components/Status';
import { useAction } from '../../lib/hooks';

/** Ends this browser's session and goes to the markets. */
export function SignOutCard() {
  const { logout } = useAuth();
  const navigate = useNavigate();
  const signOut = useAction(async () => {
    await logout();
    navigate('/');
  });
  return (
    <section className="card" aria-labelledby="session-heading">
      <h2 id="session-heading">Session</h2>
      <p className="muted">
        Logging out ends this browser’s session. API keys keep working until you revoke them.
      </p>
      <button
        type="button"
        className="button ghost"
        disabled={signOut.pending}
        onClick={() => void signOut.run()}
      >
        Log out
      </button>
      <ErrorMessage error={signOut.error} />
    </section>
  );
}
