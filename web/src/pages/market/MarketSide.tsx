import { NewsPanel, SponsorPanel } from '../../components/MarketExtras';
import { useInView } from '../../lib/in-view';

/** News and the sponsor sit below the ticket: read when scrolled to. */
export function MarketSide({ slug }: { slug: string }) {
  const { ref, seen } = useInView<HTMLDivElement>();
  return (
    <div className="area-news" ref={ref}>
      {seen ? (
        <>
          <SponsorPanel slug={slug} />
          <NewsPanel slug={slug} />
        </>
      ) : null}
    </div>
  );
}
