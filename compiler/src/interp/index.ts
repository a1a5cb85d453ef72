export { interpret, mainArguments, type InterpOptions, type InterpResult } from './interpreter.ts';
export { formatFixed, formatG } from './format.ts';
export { arrayCells, arrayPointer } from './memory.ts';
export {
  Closure, Frame, InterpError, MemBlock, MEM, NativeFn, Pointer, Token, VariantValue, type Value,
} from './values.ts';
