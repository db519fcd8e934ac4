import type { OptionDetail } from '../../api/types';
import { MarketTape } from '../../components/MarketTape';
import { useInView } from '../../lib/in-view';

/** The market's trades sit below the book: read when scrolled to, then followed live. */
export function LazyTape({ slug, options }: { slug: string; options: OptionDetail[] }) {
  const { ref, seen } = useInView<HTMLDivElement>();
  return (
    <div className="area-trades" ref={ref}>
      {seen ? (
        <MarketTape slug={slug} options={options} />
      ) : (
        <section className="card" aria-labelledby="tape-heading">
          <h2 id="tape-heading">Trades</h2>
          <p className="muted small">The market's trades load as you scroll here.</p>
        </section>
      )}
    </div>
  );
}
