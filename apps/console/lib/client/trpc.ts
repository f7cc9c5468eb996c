// The browser's typed client of the coordinator. It calls the console's own server
// (`/api/trpc`), which checks the request and relays it with the signed-in user's session;
// calls made in the same tick go as one request (a page's several reads, one round trip).
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { TRPC_CONSOLE_BATCH_ITEMS } from '@crawler/domain/api';
import type { AppRouter } from '../api/router-types';

export const api = createTRPCClient<AppRouter>({
  // A batch of reads is a GET: it is split before its URL gets long for proxies and servers,
  // and before it has more calls than the coordinator takes at once (TRPC_MAX_BATCH_SIZE).
  links: [
    httpBatchLink({ url: '/api/trpc', maxURLLength: 4000, maxItems: TRPC_CONSOLE_BATCH_ITEMS }),
  ],
});
