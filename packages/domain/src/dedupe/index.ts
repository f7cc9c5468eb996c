export { simhash64, SHINGLE_WORDS, EMPTY_SIMHASH } from './simhash64';
export { hammingDistance, isNearDuplicate, NEAR_DUPLICATE_MAX_BITS } from './hamming-distance';
export { sha256Hex } from './sha256-hex';
