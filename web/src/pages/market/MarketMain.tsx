import type { MarketDetail } from '../../api/types';
import { Conversions } from '../../components/conversions';
import { OptionsTable } from '../../components/OptionsTable';
import { OrderBookView } from '../../components/OrderBookView';
import { YourActivity } from '../../components/YourActivity';
import type { ShownStatus } from '../../lib/market';
import { LazyDiscussion } from './LazyDiscussion';
import { LazyTape } from './LazyTape';
import { MarketChartCard } from './MarketChartCard';
import type { MarketPageState } from './useMarketPage';

/** An exclusive event's shares convert until it is resolved: while it trades, and once closed. */
function convertible(status: ShownStatus): boolean {
  return status === 'open' || status === 'closing' || status === 'closed';
}

/** The market's main column: options, conversions, chart, book, trades, the trader's activity, discussion. */
export function MarketMain({ page, data }: { page: MarketPageState; data: MarketDetail }) {
  const { signedIn, status, tradable, side, sharesField } = page;
  return (
    <div className="market-main">
      <OptionsTable
        market={data}
        status={status}
        selectedId={page.selected?.id}
        side={side}
        books={page.books}
        onPick={(id, value) => {
          page.setOptionId(id);
          page.setSide(value);
          // From a price straight to the number of shares: the order is then a few keys away.
          requestAnimationFrame(() => sharesField.current?.focus());
        }}
      />
      {signedIn && data.exclusive && convertible(status) ? (
        <div className="area-convert">
          <Conversions market={data} positions={page.held} />
        </div>
      ) : null}
      <MarketChartCard page={page} exclusive={data.exclusive} />
      {tradable ? (
        <div className="area-book">
          <OrderBookView
            book={page.book}
            error={page.readBook.error}
            side={side}
            onSide={page.setSide}
            onPick={page.setPicked}
            status={page.streamStatus}
            onRefresh={page.readBook.refresh}
          />
        </div>
      ) : null}
      <LazyTape key={data.slug} slug={data.slug} options={page.options} />
      {signedIn ? (
        <div className="area-activity">
          <YourActivity
            slug={data.slug}
            positions={page.held}
            loaded={page.portfolio.data !== undefined}
            positionsError={page.portfolio.error}
            tradable={tradable}
            tradesNow={status === 'resolved'}
          />
        </div>
      ) : null}
      <LazyDiscussion eventId={data.id} eventSlug={data.slug} />
    </div>
  );
}
