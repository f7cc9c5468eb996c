// Server components' way to the coordinator: a typed client for the request being rendered,
// with its user's session and browser address. One per request, so the calls a page makes
// together go as one batch.
import { headers } from 'next/headers';
import { cache } from 'react';
import { clientAddress } from './client-address';
import { coordinatorClient } from './coordinator';
import { readSession } from './session-cookie';

/** The coordinator's typed client for this request (React `cache`: one per request). */
export const serverApi = cache(async () =>
  coordinatorClient({
    session: await readSession(),
    clientAddress: clientAddress(await headers()),
  }),
);
