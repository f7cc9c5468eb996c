import type { NextConfig } from 'next';

// The console is a pure client of the coordinator: no database, no build-time fetches, no
// remote fonts. Everything it shows comes through app/api/* route handlers at request time.
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The wire constants shared with the coordinator (roles, header names) are TypeScript source.
  transpilePackages: ['@crawler/domain'],
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

export default nextConfig;
