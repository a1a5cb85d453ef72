// The tests' pseudo-random generator: the project's one (libs/shared/random.ts), so every
// failure reproduces from its seed.
export { xorshift32 as random } from '../libs/shared/random.ts';
