// The browser's typed client calls the coordinator through here (see lib/server/relay-trpc.ts).
import { relayTrpc } from '../../../../lib/server/relay-trpc';

export const dynamic = 'force-dynamic';

type Ctx = { params: Promise<{ trpc: string }> };

async function relay(request: Request, ctx: Ctx): Promise<Response> {
  return relayTrpc(request, (await ctx.params).trpc);
}

export const GET = relay;
export const POST = relay;
