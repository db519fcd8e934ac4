import { useState } from 'react';
import { apiClient, typed } from '../api/client';
import { useAction } from '../lib/hooks';
import { ErrorMessage } from './Status';

/**
 * Said to a signed-in trader whose address is not proven yet, while the server proves addresses: what waits on
 * it, and a way to have the link sent again.
 */
export function UnverifiedNotice({ email }: { email: string }) {
  const [sent, setSent] = useState(false);
  const resend = useAction(async () => {
    await typed(apiClient.POST('/api/me/email/verification'));
    setSent(true);
  });
  return (
    <div className="notice verify-notice" role="status">
      <p>
        Confirm your email address: we sent a link to <strong>{email}</strong>. Until then you cannot create
        API keys or webhooks, nor stake credits in challenges.
      </p>
      {sent ? (
        <p>A new link is on its way.</p>
      ) : (
        <button
          type="button"
          className="link-button"
          onClick={() => void resend.run()}
          disabled={resend.pending}
        >
          Send the link again
        </button>
      )}
      <ErrorMessage error={resend.error} />
    </div>
  );
}
