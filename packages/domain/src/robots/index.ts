export { parseRobots, ROBOTS_MAX_BYTES, type RobotsRules } from './parse-robots';
export {
  robotsVerdict,
  ROBOTS_RETRY_BASE_S,
  ROBOTS_RETRY_MAX_S,
  type RobotsFetchOutcome,
  type RobotsVerdict,
} from './robots-verdict';
export {
  decodeStoredRobots,
  encodeStoredRobots,
  storedRobotsMetaSchema,
  type StoredRobots,
  type StoredRobotsMeta,
} from './stored-robots';
export { readRobots, robotsRulesOf, type ReadRobots } from './parse-robots';
export { decodeReadRobots, encodeReadRobots } from './read-robots-codec';
