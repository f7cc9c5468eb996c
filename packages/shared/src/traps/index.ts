export {
  checkTrapRules,
  type TrapRule,
  DEFAULT_TRAP_LIMITS,
  type TrapLimits,
} from './check-trap-rules';
