// Next.js runs `register` once when the server starts, before it serves requests.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { stampPeerAddress } = await import('./lib/server/stamp-peer-address');
  stampPeerAddress();
}
