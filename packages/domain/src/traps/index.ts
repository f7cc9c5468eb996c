export {
  checkTrapRules,
  type TrapRule,
  DEFAULT_TRAP_LIMITS,
  type TrapLimits,
} from './check-trap-rules';
export {
  parseBlockPattern,
  blockPatternSchema,
  compileBlockPattern,
  pathOfUrl,
  type ParsedBlockPattern,
  type CompiledBlockPattern,
  MAX_BLOCK_PATTERN_LENGTH,
  MAX_BLOCK_PATTERN_STARS,
  MAX_BLOCK_PATTERNS_PER_POLICY,
  MAX_BLOCK_PATTERNS_TOTAL,
} from './url-block-rules';
export {
  blockRuleSchema,
  blockRuleSetSchema,
  CompiledBlockRules,
  NO_BLOCK_RULES,
  type BlockRule,
  type BlockRuleSet,
  type BlockMatch,
  type BlockRuleMatcher,
} from './url-block-rules-set';
