import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors } from '../../../platform/http.js';
import { TRADE_EXPORT_COLUMNS, type TradeExportService } from './service.js';

export const tradeExportRoutes: FastifyPluginAsyncTypebox<{ exports: TradeExportService }> = async (
  app,
  { exports },
) => {
  app.get(
    '/api/me/trades/export',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['Account'],
        security: [{ bearerAuth: [] }],
        summary: 'Download all your trades, conversions and settlements as CSV',
        description:
          'A `text/csv` attachment (trades.csv) of your trades, conversions (a line per leg, `record` conversion) ' +
          'and settlements (`record` settlement, with `outcome`, the payout in `cashCents` and `pnlCents`), oldest ' +
          'first, streamed as it is read. Columns: ' +
          `${TRADE_EXPORT_COLUMNS.join(', ')}. RFC 4180: CRLF line ends; fields containing commas, quotes ` +
          'or line breaks are quoted with quotes doubled. Text cells starting with =, +, -, @, tab or ' +
          'carriage return are prefixed with a single quote so spreadsheets never run them as formulas.',
        produces: ['text/csv'],
        response: { 200: Type.Unsafe<Readable>({ type: 'string', description: 'CSV text' }), ...errors(401) },
      },
    },
    async (request, reply) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="trades.csv"')
        .header('cache-control', 'private, no-store')
        .send(exports.exportCsv(currentUser(request).userId)),
  );
};
