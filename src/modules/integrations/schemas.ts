import { Type } from '@sinclair/typebox';

/** An absolute http(s) URL; other schemes (javascript:, data:, file:) are refused. */
export const HttpUrl = Type.String({
  format: 'uri',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
  maxLength: 2000,
  description: 'An absolute http(s) URL',
});

export const ProviderReport = Type.Object({
  name: Type.String({
    description:
      '`newsApi`, `feed:<n>` (the n-th feed of the event; feed URLs are for operators only), `aiSummary`, or `cricket`',
  }),
  status: Type.Union(
    [
      Type.Literal('ok'),
      Type.Literal('cached'),
      Type.Literal('timeout'),
      Type.Literal('error'),
      Type.Literal('not_configured'),
    ],
    {
      description:
        '`ok`: answered now; `cached`: served from the cache; `timeout`/`error`: failed now (the last good ' +
        'answer, if any, is still served); `not_configured`: no such provider is set up',
    },
  ),
  message: Type.Optional(Type.String()),
  fetchedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the data served from this provider was fetched',
  }),
});
