export { defaultPeBudget, defaultPeGrowth, partialEvaluate, type PeOptions } from './evaluator.ts';
