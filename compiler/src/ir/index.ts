export * from './types.ts';
export * from './defs.ts';
export * from './world.ts';
