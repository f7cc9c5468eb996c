import { encodeReadRobots, readRobots } from '@crawler/domain/robots';

/** A robots.txt body to read off the event loop. */
export interface RobotsTaskInput {
  body: string;
  robotsUrl: string;
  productToken: string;
}

/**
 * `readRobots` in a parse-pool worker: lines, groups and compiled rules of a large robots.txt,
 * handed back as one string (`encodeReadRobots`) that the event loop turns into its matcher.
 */
export function robotsTask(input: RobotsTaskInput): string {
  return encodeReadRobots(readRobots(input.body, input.robotsUrl, input.productToken));
}
