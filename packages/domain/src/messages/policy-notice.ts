import { z } from 'zod';
import { hostField } from './fields';

/**
 * A host's live policy as agents apply it, announced on the policy channel (`policyChannelKey`,
 * pub/sub, JSON) whenever an operator changes it, so agents working the host apply it before
 * their next request.
 */
export const hostPolicyNoticeSchema = z.object({
  host: hostField,
  blocked: z.boolean(),
  /**
   * The gap between requests, ms (the crawl default when the host has no rate limit). Not
   * necessarily whole: a rate limit of 3 rps is a gap of 333.3… ms.
   */
  gapMs: z.number().min(0),
});
export type HostPolicyNotice = z.infer<typeof hostPolicyNoticeSchema>;
