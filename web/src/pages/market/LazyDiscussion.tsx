import { Discussion } from '../../components/Discussion';
import { useInView } from '../../lib/in-view';

/** The discussion sits at the foot of the page: read when scrolled to. */
export function LazyDiscussion({ eventId, eventSlug }: { eventId: string; eventSlug: string }) {
  const { ref, seen } = useInView<HTMLDivElement>();
  return (
    <div className="area-discussion" ref={ref}>
      {seen ? (
        <Discussion eventId={eventId} eventSlug={eventSlug} />
      ) : (
        <section className="card" aria-labelledby="discussion-heading">
          <h2 id="discussion-heading">Discussion</h2>
          <p className="muted small">The posts load as you scroll here.</p>
        </section>
      )}
    </div>
  );
}
